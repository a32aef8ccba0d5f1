package transcript

// Turn is one model turn: the assistant messages one API response wrote.
// The request that asked for it sent every message before its first.
// Whether a message starts a turn depends on the messages before it
// alone: a longer transcript has the same turns, and more.
type Turn struct {
	// Messages are the turn's messages' indexes, in order; the first is
	// where its request's history ends.
	Messages []int
	// Start is where its request's history starts: the last message at or
	// before its first where the agent compacted its own history
	// (Message.Restart), else 0.
	Start int
}

// Turns finds the transcript's model turns. A turn is a run of assistant
// messages; where the format names the response (Claude Code's message
// id), messages of one response are one turn even with results between
// them (Claude Code writes a call's result before the response's next
// block), and consecutive messages of two responses are two turns.
func (t *Transcript) Turns() []Turn {
	var turns []Turn
	byResponse := map[string]int{} // the turn of each response
	cur := -1                      // the turn the previous message belongs to, if it was the assistant's
	start := 0                     // the last restart so far
	for _, m := range t.Messages {
		if m.Restart {
			start = m.Index
		}
		if m.Role != "assistant" {
			cur = -1
			continue
		}
		if k, ok := byResponse[m.Response]; ok && m.Response != "" {
			turns[k].Messages = append(turns[k].Messages, m.Index)
			cur = k
			continue
		}
		if cur >= 0 && (m.Response == "" || turns[cur].response(t) == "") {
			turns[cur].Messages = append(turns[cur].Messages, m.Index)
		} else {
			cur = len(turns)
			turns = append(turns, Turn{Messages: []int{m.Index}, Start: start})
		}
		if m.Response != "" {
			byResponse[m.Response] = cur
		}
	}
	return turns
}

// response is the id of the turn's response, "" when its first message
// has none.
func (tn Turn) response(t *Transcript) string {
	return t.Messages[tn.Messages[0]].Response
}
