package transcript

import (
	"fmt"
	"strconv"
	"strings"
)

// dump renders the model as text for golden files: every message with its
// blocks, calls and results.
func dump(t *Transcript) string {
	var b strings.Builder
	fmt.Fprintf(&b, "format %s, layout %s, cwd %q, session %q\n", t.Format, t.Layout, t.Cwd, t.SessionID)
	fmt.Fprintf(&b, "%d messages, %d calls, %d results\n", len(t.Messages), len(t.Calls), len(t.Results))
	for _, m := range t.Messages {
		fmt.Fprintf(&b, "\nmessage %d, %s: %s\n", m.Index, m.Pos, m.Role)
		for _, blk := range m.Blocks {
			switch blk.Type {
			case Image:
				fmt.Fprintf(&b, "  image %s %d base64 chars %s\n", blk.MediaType, len(blk.Data), blk.URL)
			default:
				fmt.Fprintf(&b, "  %s %s\n", blk.Type, short(blk.Text))
			}
		}
		for _, c := range m.Calls {
			fmt.Fprintf(&b, "  call %d %s %s (%s) %+v input %s\n", c.Index, c.ID, c.Name, c.Kind, c.Args, short(c.Input))
			if c.Continues != nil {
				fmt.Fprintf(&b, "    continues call %d\n", c.Continues.Index)
			}
			if c.Result != nil {
				fmt.Fprintf(&b, "    -> result %d\n", c.Result.Index)
			} else {
				fmt.Fprintf(&b, "    -> no result\n")
			}
		}
		for _, r := range m.Results {
			call := "no call"
			if r.Call != nil {
				call = "call " + strconv.Itoa(r.Call.Index)
			}
			fmt.Fprintf(&b, "  result %d for %s (%s) error=%v", r.Index, r.CallID, call, r.IsError)
			if r.ExitCode.Known() {
				fmt.Fprintf(&b, " exit=%s", r.ExitCode)
			}
			fmt.Fprintf(&b, " failed=%v", r.Failed())
			if o := r.Outcome(); o.Reason != "" {
				fmt.Fprintf(&b, " (%s)", o.Reason)
			}
			if o := r.Outcome(); o.Session != 0 {
				fmt.Fprintf(&b, " session=%d", o.Session)
			}
			fmt.Fprintf(&b, " images=%d\n    text %s\n", len(r.Images), short(r.Text()))
			for _, mi := range r.Mirrors() {
				fmt.Fprintf(&b, "    mirror %s %s\n", mi.Field, short(mi.Text))
			}
		}
	}
	return b.String()
}

func short(s string) string {
	r := []rune(s)
	if len(r) > 70 {
		return strconv.Quote(string(r[:70])) + fmt.Sprintf("... (%d chars)", len(r))
	}
	return strconv.Quote(s)
}
