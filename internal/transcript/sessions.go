package transcript

// joinSessions joins each call that writes to or polls a running command
// (Codex's write_stdin with a session_id) to the call that started it: the
// call whose output announced the session ("Process running with session ID
// N", internal/outcome), and so to its command, its kind and its path. A
// later poll of the same session joins the same call. A call whose session
// the transcript does not show starting keeps its own arguments: its target
// is "session N".
func (p *parser) joinSessions() {
	started := map[int]*Call{}
	for _, c := range p.t.Calls {
		if id := c.Args.Session; id != 0 {
			if start := started[id]; start != nil {
				c.Kind, c.Args, c.Continues = start.Kind, start.Args, start
				c.Args.Session = id
				start.Polls = append(start.Polls, c)
			}
			continue
		}
		if c.Result != nil {
			if id := c.Result.outcome.Session; id != 0 {
				started[id] = c
			}
		}
	}
}
