// Package e2e holds the end-to-end tests with the real agents: Claude Code
// and Codex CLI, installed from the npm registry at pinned versions, run
// headless against a scripted model server on 127.0.0.1, with ctxkit's
// example hooks pasted in; and the pages of ctx-count --html, opened in a
// real headless Chromium (internal/testkit/browsertest). They run with
// CTX_E2E=1 (make e2e, which installs Chromium) and skip without it; with
// it, a missing node, npm or browser fails them.
package e2e
