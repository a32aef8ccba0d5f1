// Package count measures a transcript in tokens: by role, by tool, the
// largest tool results, and the files read, as ctx-count reports it.
package count

import (
	"sort"
	"strings"

	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Report is what one transcript, or several together, cost in tokens. Its
// JSON form is ctx-count's --json schema (docs/count.md).
type Report struct {
	File             string  `json:"file,omitempty"`
	Format           string  `json:"format,omitempty"`
	Messages         int     `json:"messages"`
	Tokens           int     `json:"tokens"`
	ToolOutputTokens int     `json:"tool_output_tokens"`
	ToolOutputShare  float64 `json:"tool_output_share"`
	Images           int     `json:"images"`
	// ToolCalls, Errors (the failed calls), Denied and Cancelled count
	// the calls by how they ended, as every report does
	// (transcript.Tally): a command and the calls that poll it are one
	// call, and Polls counts those.
	ToolCalls   int `json:"tool_calls"`
	Polls       int `json:"polls"`
	ToolResults int `json:"tool_results"`
	Errors      int `json:"errors"`
	Denied      int `json:"denied"`
	Cancelled   int `json:"cancelled"`
	// DedupeTokens is what ctx-dedupe with its defaults saves on the
	// transcript: its own plan, counted.
	DedupeTokens int        `json:"dedupe_tokens"`
	Roles        []Role     `json:"roles"`
	Tools        []Tool     `json:"tools"`
	Largest      []Result   `json:"largest"`
	FilesRead    []FileRead `json:"files_read"`
}

// Role is the tokens of one role. Tool results count as role "tool" in every
// format, and a message that only carries results is a "tool" message.
type Role struct {
	Role     string `json:"role"`
	Messages int    `json:"messages"`
	Tokens   int    `json:"tokens"`
}

// Tool is the calls of one tool name: the tool that started each command,
// whose polls' arguments and results count with it.
type Tool struct {
	Name         string `json:"name"`
	Kind         string `json:"kind"`
	Calls        int    `json:"calls"`
	Errors       int    `json:"errors"`
	InputTokens  int    `json:"input_tokens"`
	ResultTokens int    `json:"result_tokens"`
}

// Result is one tool result, for the list of the largest. A poll's result
// is its command's: its tool, kind, target and end.
type Result struct {
	File   string `json:"file,omitempty"` // the transcript, when several are counted
	CallID string `json:"call_id"`        // the call whose result it is (a poll's own id)
	Tool   string `json:"tool"`
	Kind   string `json:"kind"`
	Target string `json:"target"` // the command, else path and range, pattern or URL
	Tokens int    `json:"tokens"`
	// Error: its call failed; End says how it ended.
	Error bool        `json:"error"`
	End   outcome.End `json:"end"`
	Poll  bool        `json:"poll,omitempty"` // more output of a command that an earlier call started
}

// FileRead is the reads of one file.
type FileRead struct {
	Path   string `json:"path"`
	Reads  int    `json:"reads"`
	Tokens int    `json:"tokens"`
	// RereadTokens are the tokens of reads of lines already read before:
	// an earlier read's range holds the read's (tools.Range.Contains).
	RereadTokens int `json:"reread_tokens"`
	// DedupeTokens is what ctx-dedupe with its defaults saves on this
	// file's reads: not every re-read can be replaced (the first and last
	// read of a range stay whole), and a changed file's re-read becomes a
	// diff.
	DedupeTokens int `json:"dedupe_tokens"`
}

// roleOrder is the order roles are listed in.
var roleOrder = map[string]int{"system": 0, "developer": 1, "user": 2, "assistant": 3, "tool": 4}

// Count measures one transcript. top is how many of the largest results to
// keep (all when negative).
func Count(t *transcript.Transcript, ctr tokens.Counter, top int) Report {
	tl := stats.Count(t, ctr)
	n := t.Tally()
	rep := Report{Format: string(t.Format), Messages: len(t.Messages), ToolCalls: n.Calls, Polls: n.Polls, ToolResults: len(t.Results),
		Errors: n.Failed, Denied: n.Denied, Cancelled: n.Cancelled, Images: tl.Images}
	roles := map[string]*Role{}
	role := func(name string) *Role {
		if roles[name] == nil {
			roles[name] = &Role{Role: name}
		}
		return roles[name]
	}
	for i, m := range t.Messages {
		name := m.Role
		if len(m.Results) > 0 && len(m.Blocks) == 0 && len(m.Calls) == 0 {
			name = "tool"
		}
		r := role(name)
		r.Messages++
		for _, n := range tl.Blocks[i] {
			r.Tokens += n
		}
	}
	byTool := toolStats(t, tl)
	for i, c := range t.Calls {
		role(c.Message.Role).Tokens += tl.Calls[i]
	}
	for i, r := range t.Results {
		cost := tl.Results[i]
		role("tool").Tokens += cost
		rep.ToolOutputTokens += cost
		res := Result{CallID: r.CallID, Tokens: cost, End: r.End(), Tool: "(no call)", Kind: string(tools.Other)}
		if c := r.Call; c != nil {
			cmd := c.Command()
			res.Tool, res.Kind, res.Target, res.End, res.Poll = cmd.Name, string(cmd.Kind), cmd.Args.Label(cmd.Kind, t.Cwd), cmd.End(), c.IsPoll()
		}
		res.Error = res.End == outcome.Failed
		rep.Largest = append(rep.Largest, res)
	}
	for _, r := range roles {
		rep.Tokens += r.Tokens
		rep.Roles = append(rep.Roles, *r)
	}
	for _, ts := range byTool {
		rep.Tools = append(rep.Tools, *ts)
	}
	files := filesRead(t, tl)
	saved := dedupeSavings(t, ctr, tl)
	for r, n := range saved {
		rep.DedupeTokens += n
		if f := files[r.Call.Args.File(t.Cwd)]; f != nil {
			f.DedupeTokens += n
		}
	}
	for _, f := range files {
		rep.FilesRead = append(rep.FilesRead, *f)
	}
	rep.finish(top)
	rep.detach()
	return rep
}

// toolStats counts the calls of each tool: a command's, by the name of the
// tool that started it, with its polls' arguments and results.
func toolStats(t *transcript.Transcript, tl stats.Tally) map[string]*Tool {
	out := map[string]*Tool{}
	tool := func(c *transcript.Call) *Tool {
		if out[c.Name] == nil {
			kind := c.Kind
			if c.Args.Command != "" {
				kind = tools.Shell // a shell tool's calls have the kinds of their commands
			}
			out[c.Name] = &Tool{Name: c.Name, Kind: string(kind)}
		}
		return out[c.Name]
	}
	for i, c := range t.Calls {
		ts := tool(c.Command())
		ts.InputTokens += tl.Calls[i]
		if c.IsPoll() {
			continue
		}
		ts.Calls++
		if c.End() == outcome.Failed {
			ts.Errors++
		}
	}
	for i, r := range t.Results {
		if r.Call != nil {
			tool(r.Call.Command()).ResultTokens += tl.Results[i]
		}
	}
	return out
}

// filesRead counts the reads of each file (transcript.Reads): a read's
// tokens are those of all its command's results.
func filesRead(t *transcript.Transcript, tl stats.Tally) map[string]*FileRead {
	read, again := t.Reads()
	files := map[string]*FileRead{}
	for c := range t.Commands() {
		p := read[c.Index]
		if p == "" {
			continue
		}
		f := files[p]
		if f == nil {
			f = &FileRead{Path: p}
			files[p] = f
		}
		f.Reads++
		for r := range c.Results() {
			f.Tokens += tl.Results[r.Index]
			if again[c.Index] {
				f.RereadTokens += tl.Results[r.Index]
			}
		}
	}
	return files
}

// dedupeSavings is what ctx-dedupe with its defaults saves on t, result by
// result: dedupe's own plan, so that the two never disagree.
func dedupeSavings(t *transcript.Transcript, ctr tokens.Counter, tl stats.Tally) map[*transcript.Result]int {
	f, err := dedupe.New(dedupe.Defaults(ctr))
	if err != nil {
		panic(err) // the defaults are valid
	}
	plan := f.Plan(t)
	texts := make([]string, len(plan.Changes))
	for i, c := range plan.Changes {
		texts[i] = c.Text
	}
	after := tokens.CountAll(ctr, texts)
	saved := make(map[*transcript.Result]int, len(plan.Changes))
	for i, c := range plan.Changes {
		saved[c.Result] = tl.Results[c.Result.Index] - after[i]
	}
	return saved
}

// detach copies the strings the report keeps out of the transcript's bytes
// and lets go of the results past the top, so that the bytes can go: a
// batch keeps a report per file.
func (r *Report) detach() {
	// A copy, even of none: a slice cut to its top, empty or not, still
	// holds the array of every result.
	r.Largest = append(make([]Result, 0, len(r.Largest)), r.Largest...)
	for i := range r.Roles {
		r.Roles[i].Role = strings.Clone(r.Roles[i].Role)
	}
	for i := range r.Tools {
		r.Tools[i].Name = strings.Clone(r.Tools[i].Name)
	}
	for i := range r.Largest {
		x := &r.Largest[i]
		x.CallID, x.Tool, x.Target = strings.Clone(x.CallID), strings.Clone(x.Tool), strings.Clone(x.Target)
	}
	for i := range r.FilesRead {
		r.FilesRead[i].Path = strings.Clone(r.FilesRead[i].Path)
	}
}

// finish sorts the lists, cuts the largest results to top and computes the
// shares.
func (r *Report) finish(top int) {
	sort.Slice(r.Roles, func(i, j int) bool {
		a, b := r.Roles[i], r.Roles[j]
		oa, ka := roleOrder[a.Role]
		ob, kb := roleOrder[b.Role]
		if ka != kb {
			return ka
		}
		if oa != ob {
			return oa < ob
		}
		return a.Role < b.Role
	})
	sort.Slice(r.Tools, func(i, j int) bool {
		a, b := r.Tools[i], r.Tools[j]
		if at, bt := a.InputTokens+a.ResultTokens, b.InputTokens+b.ResultTokens; at != bt {
			return at > bt
		}
		return a.Name < b.Name
	})
	sort.SliceStable(r.Largest, func(i, j int) bool { return r.Largest[i].Tokens > r.Largest[j].Tokens })
	if top >= 0 && len(r.Largest) > top {
		r.Largest = r.Largest[:top]
	}
	sort.Slice(r.FilesRead, func(i, j int) bool {
		a, b := r.FilesRead[i], r.FilesRead[j]
		if a.Tokens != b.Tokens {
			return a.Tokens > b.Tokens
		}
		return a.Path < b.Path
	})
	r.ToolOutputShare = 0
	if r.Tokens > 0 {
		r.ToolOutputShare = round4(float64(r.ToolOutputTokens) / float64(r.Tokens))
	}
	// Empty lists are [] in JSON, not null.
	if r.Roles == nil {
		r.Roles = []Role{}
	}
	if r.Tools == nil {
		r.Tools = []Tool{}
	}
	if r.Largest == nil {
		r.Largest = []Result{}
	}
	if r.FilesRead == nil {
		r.FilesRead = []FileRead{}
	}
}

func round4(f float64) float64 { return float64(int(f*10000+0.5)) / 10000 }

// Merge adds reports together, for a total over several transcripts. Each
// report's largest results are labelled with its file.
func Merge(reports []Report, top int) Report {
	var total Report
	roles := map[string]*Role{}
	tls := map[string]*Tool{}
	files := map[string]*FileRead{}
	formats := map[string]bool{}
	for _, r := range reports {
		formats[r.Format] = true
		total.Messages += r.Messages
		total.Tokens += r.Tokens
		total.ToolOutputTokens += r.ToolOutputTokens
		total.Images += r.Images
		total.ToolCalls += r.ToolCalls
		total.Polls += r.Polls
		total.ToolResults += r.ToolResults
		total.Errors += r.Errors
		total.Denied += r.Denied
		total.Cancelled += r.Cancelled
		total.DedupeTokens += r.DedupeTokens
		for _, x := range r.Roles {
			if roles[x.Role] == nil {
				roles[x.Role] = &Role{Role: x.Role}
			}
			roles[x.Role].Messages += x.Messages
			roles[x.Role].Tokens += x.Tokens
		}
		for _, x := range r.Tools {
			if tls[x.Name] == nil {
				tls[x.Name] = &Tool{Name: x.Name, Kind: x.Kind}
			}
			t := tls[x.Name]
			t.Calls += x.Calls
			t.Errors += x.Errors
			t.InputTokens += x.InputTokens
			t.ResultTokens += x.ResultTokens
		}
		for _, x := range r.Largest {
			x.File = r.File
			total.Largest = append(total.Largest, x)
		}
		for _, x := range r.FilesRead {
			if files[x.Path] == nil {
				files[x.Path] = &FileRead{Path: x.Path}
			}
			f := files[x.Path]
			f.Reads += x.Reads
			f.Tokens += x.Tokens
			f.RereadTokens += x.RereadTokens
			f.DedupeTokens += x.DedupeTokens
		}
	}
	if len(formats) == 1 {
		for f := range formats {
			total.Format = f
		}
	}
	for _, x := range roles {
		total.Roles = append(total.Roles, *x)
	}
	for _, x := range tls {
		total.Tools = append(total.Tools, *x)
	}
	for _, x := range files {
		total.FilesRead = append(total.FilesRead, *x)
	}
	total.finish(top)
	return total
}
