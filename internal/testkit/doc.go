// Package testkit groups what the tests share and the binaries never link:
// testutil (golden files, the corpus of real transcripts, fixtures),
// transcripttest (parsing in a test), invariant (the design's invariants as
// checks), measure (what a run of the filters kept, for the docs' numbers),
// llmtest (a scripted OpenAI-compatible server) and agenttest (the real
// Claude Code and Codex CLI against a scripted model server).
package testkit
