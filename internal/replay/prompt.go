package replay

import (
	"hash/maphash"
	"slices"

	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Prompt is one request's history as the prompt cache sees it: each
// message's key, a hash of its content as sent (what a filter changed
// included), and its tokens, in order. Replay derives the requests of a
// session from its transcript; a proxy, which sees the requests
// themselves, keeps the last Prompt of each conversation to price the
// next one (After) by the same model.
type Prompt struct {
	Keys   []uint64
	Tokens []int
}

// seed keys the messages of one process: Prompts are compared within it.
var seed = maphash.MakeSeed()

// PromptOf is t's history as it is sent now, its tokens counted in tl
// (stats.Count of t as it is now).
func PromptOf(t *transcript.Transcript, tl stats.Tally) Prompt {
	return PromptKnown(t, tl, Prompt{}, nil)
}

// PromptKnown is PromptOf for a transcript some of whose messages are
// another's, keyed in known (an agent's next request, which sends the
// last one's history again): message i is known's message was[i] when
// that is not negative, and keeps its key.
func PromptKnown(t *transcript.Transcript, tl stats.Tally, known Prompt, was []int) Prompt {
	p := Prompt{Keys: make([]uint64, len(t.Messages)), Tokens: make([]int, len(t.Messages))}
	var h maphash.Hash
	h.SetSeed(seed)
	for i, m := range t.Messages {
		if i < len(was) && was[i] >= 0 && was[i] < len(known.Keys) {
			p.Keys[i] = known.Keys[was[i]]
		} else {
			p.Keys[i] = key(&h, m)
		}
		p.Tokens[i] = tl.Message(m)
	}
	return p
}

// With is p with the messages msgs of t keyed and counted again, as they
// are sent now (tl): a filter changed them, and only them.
func (p Prompt) With(t *transcript.Transcript, tl stats.Tally, msgs []*transcript.Message) Prompt {
	p = Prompt{Keys: slices.Clone(p.Keys), Tokens: slices.Clone(p.Tokens)}
	var h maphash.Hash
	h.SetSeed(seed)
	for _, m := range msgs {
		p.Keys[m.Index], p.Tokens[m.Index] = key(&h, m), tl.Message(m)
	}
	return p
}

// key hashes a message's content as sent.
func key(h *maphash.Hash, m *transcript.Message) uint64 {
	h.Reset()
	field := func(s string) {
		h.WriteString(s)
		h.WriteByte(0)
	}
	field(m.Role)
	for _, b := range m.Blocks {
		field(string(b.Type))
		field(b.Text)
		field(b.Data)
		field(b.URL)
	}
	for _, c := range m.Calls {
		field(c.ID)
		field(c.Name)
		field(c.Input)
	}
	for _, r := range m.Results {
		field(r.CallID)
		field(r.Text())
		for _, b := range r.Images {
			field(b.Data)
			field(b.URL)
		}
	}
	return h.Sum64()
}

// After is how the cache bills p sent after prev, the request before it
// in its conversation (an empty Prompt for none): the tokens of their
// longest common prefix of messages are read, the rest written, as Replay
// counts them.
func (p Prompt) After(prev Prompt) (read, written int64) {
	same := true
	for i, n := range p.Tokens {
		same = same && i < len(prev.Keys) && prev.Keys[i] == p.Keys[i]
		if same {
			read += int64(n)
		} else {
			written += int64(n)
		}
	}
	return read, written
}
