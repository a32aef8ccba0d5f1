package transcript

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// --- SWE-agent trajectories ---

// sweAgentMessage reads a message of a SWE-agent trajectory's history. An
// assistant message's action is a tool call, named for its command
// (tools.ActionName) with the action as its input; the message after it,
// a user's or, with function calling, a tool's, is its observation: the
// result. The calls of older versions have no ids: the Nth action of the
// history is call step-N.
func (p *parser) sweAgentMessage(v jsonscan.Value, pos Pos) {
	f := v.Fields("role", "content", "action", "tool_calls", "tool_call_ids")
	role := f[0].Str()
	if !knownRole(role) {
		return
	}
	m := p.message(role, pos)
	pending := p.swePending
	p.swePending = nil
	switch action := f[2].Str(); {
	case role == "assistant" && strings.TrimSpace(action) != "":
		m.Blocks = messageBlocks(f[1])
		p.sweSteps++
		id := "step-" + strconv.Itoa(p.sweSteps)
		f[3].Each(func(tc jsonscan.Value) bool {
			if s := tc.Get("id").Str(); s != "" {
				id = s
			}
			return false // one action, one call
		})
		p.swePending = p.call(m, id, tools.ActionName(action), action, true)
	case role == "tool" || pending != nil && role == "user":
		id := ""
		if pending != nil {
			id = pending.ID
		}
		f[4].Each(func(s jsonscan.Value) bool {
			id = s.Str()
			return false
		})
		ref, images := resultContent(v, f[1], "content", "text")
		p.result(m, id, ref, images)
	default:
		m.Blocks = messageBlocks(f[1])
	}
}

// sweAgentState follows SWE-agent's viewer through the calls, once they
// have their results: the open file, which goto, scroll, edit and insert
// act on when they name none; the lines each viewer read shows, from its
// observation's window; the session's directory. Then it makes each step
// of the trajectory the mirror of its call's observation.
func (p *parser) sweAgentState() {
	open := ""
	for _, c := range p.t.Calls {
		if c.Args.Path == "" && open != "" && tools.UsesOpenFile(c.Name) {
			c.Args.Path = open
			if c.Kind == tools.Edit || c.Kind == tools.Write {
				c.Args.Paths = []string{open}
			}
		}
		if c.Name == "open" || c.Name == "create" {
			open = c.Args.Path
		}
		if c.Result == nil {
			continue
		}
		text := c.Result.Text()
		if w, ok := outcome.ParseWindow(text); ok {
			open = w.Path
			if c.Kind == tools.Read && (c.Name == "open" || tools.UsesOpenFile(c.Name)) {
				c.Args.Path, c.Args.Range = w.Path, tools.WindowRange(w)
			}
		}
		file, printed, dir := outcome.ObservationState(text)
		if printed {
			open = file
		}
		if p.t.Cwd == "" {
			p.t.Cwd = dir
		}
	}
	calls, next, i := p.t.Calls, 0, 0
	p.root.Get("trajectory").Each(func(step jsonscan.Value) bool {
		f := step.Fields("action", "observation", "state")
		if p.t.Cwd == "" {
			p.t.Cwd = workingDir(f[2])
		}
		action := f[0].Str()
		for k := next; k < len(calls); k++ {
			if calls[k].Input != action {
				continue
			}
			if r := calls[k].Result; r != nil && f[1].IsString() && f[1].Raw != `""` {
				r.mirrors = append(r.mirrors, newMirror("trajectory."+strconv.Itoa(i)+".observation", f[1]))
			}
			next = k + 1
			break
		}
		i++
		return true
	})
}

// workingDir is the working_dir of a trajectory step's state: an object,
// or in older versions a JSON string of one.
func workingDir(state jsonscan.Value) string {
	if state.IsString() {
		inner := state.Str()
		if !jsonscan.Valid(inner) {
			return ""
		}
		state = jsonscan.Value{Raw: inner}
	}
	return state.Get("working_dir").Str()
}
