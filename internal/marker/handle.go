package marker

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Handle is what a marker cites for a result and what ctx-recall and
// memory_query take to give it back, and the key under which the archive
// keeps it. It is computed from the transcript alone, without the archive,
// so that a filter (pure, no I/O) can write it:
//
//   - the call id, when it identifies the execution: at least 16
//     characters, all of them letters, digits or _ - . : (Claude Code's
//     toolu_…, Codex's and OpenAI's call_…, UUIDs);
//   - otherwise "ctx_" and 12 hex digits of a SHA-256 of the session key,
//     the call id, the result's position among the transcript's results
//     (which no filter changes) and the output: two conversations that
//     open alike and number their calls alike (call_0, call_1, as many
//     chat agents do) share a session key, and their results' handles
//     differ where their outputs do.
func Handle(t *transcript.Transcript, r *transcript.Result) string {
	return HandleOf(SessionKey(t), r, r.Text())
}

// HandleOf is Handle for result r whose output is text (the text it had
// before a filter replaced it), with the session key computed once by the
// caller.
func HandleOf(session string, r *transcript.Result, text string) string {
	if Identifies(r.CallID) {
		return r.CallID
	}
	h := sha256.New()
	for _, field := range []string{session, r.CallID, strconv.Itoa(r.Index), text} {
		h.Write([]byte(strconv.Itoa(len(field))))
		h.Write([]byte{':'})
		h.Write([]byte(field))
	}
	return HandlePrefix + hex.EncodeToString(h.Sum(nil))[:12]
}

// Citation is the handle a filter's marker cites for r, which the filter is
// about to replace (a Handles, with an archive): r's own handle when its
// text is the tool's output, which the caller stores (archive.Originals,
// Keep) before it writes the marker anywhere; for a cut that ctx-truncate
// made with an archive, the handle its marker line cites; else "" (filters
// leave markers alone, and no archive need hold what a cut made without
// one came from).
func Citation(t *transcript.Transcript, r *transcript.Result) string {
	text := r.Text()
	if Original(text) {
		return Handle(t, r)
	}
	return CitedCut(text)
}

// Original reports whether a result's text is the tool's own output: not
// a ctx-* filter's marker, nor a cut.
func Original(text string) bool {
	return !Is(text, "") && !IsCut(text)
}

// HandlePrefix starts every handle that is not a call id.
const HandlePrefix = "ctx_"

// Identifies reports whether a call id is unique enough to be its own
// handle: agents make such ids random and long, and a short one ("call_1",
// "1") repeats from one conversation to the next.
func Identifies(id string) bool {
	if len(id) < 16 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !handleChar(id[i]) {
			return false
		}
	}
	return true
}

func handleChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == ':'
}

// SessionKey is the session an execution belongs to: the transcript's own
// session id (Claude Code's sessionId, Codex's session_meta id), or for a
// transcript without one (a request body, a message array, a trajectory)
// "anon-" and 16 hex digits of a SHA-256 of its opening: the format, the
// role and text of every message up to the first that calls a tool, and
// that first call's id, name and arguments. Filters never change these, and
// a conversation that grows turn by turn keeps its opening, so every run
// over the same conversation finds the same key.
func SessionKey(t *transcript.Transcript) string {
	if t.SessionID != "" {
		return t.SessionID
	}
	h := sha256.New()
	field := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	field(string(t.Format))
	for _, m := range t.Messages {
		field(m.Role)
		for _, b := range m.Blocks {
			if b.Type == transcript.Text {
				field(b.Text)
			}
		}
		if len(m.Calls) > 0 {
			c := m.Calls[0]
			field(c.ID)
			field(c.Name)
			field(c.Input)
			break
		}
	}
	return "anon-" + hex.EncodeToString(h.Sum(nil))[:16]
}
