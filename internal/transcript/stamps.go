package transcript

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
)

// sawTime takes the time of the record being read, for the messages it
// makes. A value that is not a time leaves the time as it was.
func (p *parser) sawTime(v jsonscan.Value) {
	if t := Stamp(v); !t.IsZero() {
		p.at = t
	}
}

// Stamp reads a record's time as the formats write it: an RFC 3339
// string, or seconds since the epoch (mini-swe-agent); zero for anything
// else.
func Stamp(v jsonscan.Value) time.Time {
	switch {
	case v.IsString():
		if t, err := time.Parse(time.RFC3339Nano, v.Str()); err == nil {
			return t
		}
	case v.IsNumber():
		if s, err := strconv.ParseFloat(v.Raw, 64); err == nil && s > 0 && s < 1e11 {
			sec, frac := math.Modf(s)
			return time.Unix(int64(sec), int64(frac*1e9)).UTC()
		}
	}
	return time.Time{}
}

// sawModel takes the model of the record being read, for the messages it
// makes. Claude Code marks the messages it made up itself (an API error's
// text) as model "<synthetic>": no model wrote them.
func (p *parser) sawModel(v jsonscan.Value) {
	if m := v.Str(); m != "" && !strings.HasPrefix(m, "<") {
		p.model = m
	}
}

// stampAll gives every message a time and a model where the transcript
// has any: the messages before the first stamped one take its stamp (a
// request body's system prompt, a session's first lines), and a document
// that names its model once stamps every message with it.
func (p *parser) stampAll() {
	msgs := p.t.Messages
	if p.model == "" {
		if m := DocumentModel(p.root); m != "" {
			for _, msg := range msgs {
				msg.Model = m
			}
		}
	}
	for i, msg := range msgs {
		if !msg.Time.IsZero() {
			for _, early := range msgs[:i] {
				early.Time = msg.Time
			}
			break
		}
	}
	for i, msg := range msgs {
		if msg.Model != "" {
			for _, early := range msgs[:i] {
				early.Model = msg.Model
			}
			break
		}
	}
}

// DocumentModel is the model a JSON document names for the whole of it
// ("" for none): a
// request body's "model", a mini-swe-agent trajectory's
// info.config.model.model_name, a SWE-agent trajectory's
// replay_config.agent.model.name.
func DocumentModel(root jsonscan.Value) string {
	if !root.IsObject() {
		return ""
	}
	f := root.Fields("model", "info", "replay_config")
	for _, v := range []jsonscan.Value{
		f[0],
		f[1].Get("config").Get("model").Get("model_name"),
		f[2].Get("agent").Get("model").Get("name"),
	} {
		if m := v.Str(); m != "" {
			return m
		}
	}
	return ""
}
