package dedupecmd

import (
	"errors"
	"io/fs"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/hook/hookstate"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// hookHandler answers Claude Code's PostToolUse for Read: when the content
// read is identical to the last read of the same file and lines in the
// session's transcript, the model gets a pointer to that read instead, in
// Read's own shape. A read that stays whole is noted at once, since the
// transcript can lag behind the next read. SessionStart after a compaction
// or a /clear forgets the reads before it: the model no longer has them in
// its context.
func hookHandler(e *cli.Env) cli.Handler {
	return func(agent hook.Agent, p hook.Payload) (hook.Answer, error) {
		if agent != hook.ClaudeCode {
			return nil, errors.New("only Claude Code's hooks can replace a tool's output")
		}
		forget := p.Event == hook.SessionStart && (p.Source == "compact" || p.Source == "clear")
		if p.Event != hook.PostToolUse && !forget {
			return nil, nil
		}
		if p.TranscriptPath == "" {
			return nil, errors.New("the payload has no transcript_path")
		}
		table, err := e.Tools()
		if err != nil {
			return nil, err
		}
		var args tools.Args
		if !forget {
			var kind tools.Kind
			kind, args = table.Decode(p.ToolName, p.ToolInput, false)
			if kind != tools.Read {
				return nil, nil
			}
		}
		seen, err := hookstate.Read("dedupe", p.TranscriptPath, transcript.ClaudeCode, table,
			func(seen dedupe.Seen, t *transcript.Transcript, calls []*transcript.Call) dedupe.Seen {
				if forget {
					return dedupe.Seen{}
				}
				return dedupe.Remember(seen, t, calls)
			})
		if errors.Is(err, fs.ErrNotExist) || forget {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		content, ok := p.Response("file.content")
		if !ok {
			return nil, nil // not a text read: an image, a notebook, a stub
		}
		file := args.File(p.Cwd)
		line, ok := seen.Pointer(file, args.Range, content)
		if !ok {
			return nil, hookstate.Update("dedupe", p.TranscriptPath, transcript.ClaudeCode, func(seen dedupe.Seen) dedupe.Seen {
				if seen == nil {
					seen = dedupe.Seen{}
				}
				seen.Add(file, args.Range, p.ToolUseID, content)
				return seen
			})
		}
		out, err := p.EditResponse(map[string]string{"file.content": line})
		if err != nil {
			return nil, err
		}
		return hook.UpdatedToolOutput(out), nil
	}
}
