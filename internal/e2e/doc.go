// Package e2e holds the end-to-end tests with the real agents: Claude Code
// and Codex CLI, installed from the npm registry at pinned versions, run
// headless against a scripted model server on 127.0.0.1, with ctxkit's
// example hooks pasted in. They run with CTX_E2E=1 (make e2e) and skip
// cleanly where node or npm is missing.
package e2e
