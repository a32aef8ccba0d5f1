package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// recorder is a TB that records the errors the server reports.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

const good = `{"model":"m","messages":[{"role":"system","content":"Summarize."},{"role":"user","content":"Tool: ls"}],"temperature":0,"max_tokens":100}`

// TestChecks: every bad request is a test error and a 400 that says why;
// a good one is answered.
func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		name, method, path, ctype, auth, body string
		want                                  string // in the error; "" for none
	}{
		{name: "good", body: good},
		{name: "good with the key", auth: "Bearer k", body: good},
		{name: "method", method: "PUT", body: good, want: "method PUT"},
		{name: "path", path: "/chat/completions", body: good, want: "path /chat/completions"},
		{name: "content type", ctype: "text/plain", body: good, want: "Content-Type"},
		{name: "wrong key", auth: "Bearer x", body: good, want: "Authorization"},
		{name: "not JSON", body: `{"model":`, want: "not a JSON object"},
		{name: "wrong model", body: strings.Replace(good, `"m"`, `"other"`, 1), want: `model "other"`},
		{name: "no messages", body: `{"model":"m","messages":[],"temperature":0,"max_tokens":1}`, want: "messages"},
		{name: "content parts", body: `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"temperature":0,"max_tokens":1}`, want: "messages"},
		{name: "bad role", body: strings.Replace(good, `"system"`, `"tool"`, 1), want: `role "tool"`},
		{name: "empty message", body: strings.Replace(good, `"Tool: ls"`, `" "`, 1), want: "message 1 is empty"},
		{name: "last is not the user's", body: strings.Replace(good, `"user"`, `"assistant"`, 1), want: "the last message"},
		{name: "temperature", body: strings.Replace(good, `"temperature":0`, `"temperature":0.7`, 1), want: "temperature 0.7"},
		{name: "no temperature", body: strings.Replace(good, `"temperature":0,`, ``, 1), want: "temperature"},
		{name: "stream", body: strings.Replace(good, `"temperature":0`, `"temperature":0,"stream":true`, 1), want: "stream true"},
		{name: "no cap", body: strings.Replace(good, `,"max_tokens":100`, ``, 1), want: "max_tokens missing"},
		{name: "the other cap", body: strings.Replace(good, `"max_tokens"`, `"max_completion_tokens"`, 1), want: "max_completion_tokens sent"},
		{name: "cap of 0", body: strings.Replace(good, `100`, `0`, 1), want: "max_tokens missing or not a positive integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			key := ""
			if tc.auth != "" {
				key = "k"
			}
			srv := New(rec, Expect{Model: "m", Key: key}, nil)
			method, path, ctype := tc.method, tc.path, tc.ctype
			if method == "" {
				method = http.MethodPost
			}
			if path == "" {
				path = Path
			}
			if ctype == "" {
				ctype = "application/json"
			}
			req, err := http.NewRequest(method, strings.TrimSuffix(srv.URL, "/v1")+path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", ctype)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct{ Message string }
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			switch {
			case tc.want == "" && (resp.StatusCode != 200 || len(rec.errs) > 0):
				t.Errorf("a good request: status %d, errors %q", resp.StatusCode, rec.errs)
			case tc.want != "" && (resp.StatusCode != 400 || len(rec.errs) != 1 || !strings.Contains(rec.errs[0], tc.want) || !strings.Contains(body.Error.Message, tc.want)):
				t.Errorf("status %d, errors %q, message %q; want 400 and one error with %q", resp.StatusCode, rec.errs, body.Error.Message, tc.want)
			}
			if n := len(srv.Requests()); tc.want == "" && n != 1 || tc.want != "" && n != 0 {
				t.Errorf("%d requests recorded", n)
			}
		})
	}
}

// TestCapFieldExpected: a server that expects max_completion_tokens takes
// it and rejects max_tokens.
func TestCapFieldExpected(t *testing.T) {
	rec := &recorder{TB: t}
	srv := New(rec, Expect{CapField: "max_completion_tokens"}, nil)
	for _, body := range []string{strings.Replace(good, "max_tokens", "max_completion_tokens", 1), good} {
		resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "max_tokens sent") {
		t.Errorf("errors %q", rec.errs)
	}
}

// TestEcho: the good answer is the prompt's first words, the same for the
// same request, with the usage the fake counts.
func TestEcho(t *testing.T) {
	rep := Echo(3)(Request{Messages: []Message{{Role: "user", Content: "Tool: Read\nParameters: {}"}}})
	if rep.Content != "Summary: Tool: Read Parameters:" {
		t.Errorf("echo %q", rep.Content)
	}
	c := completion(Request{N: 1, Model: "m", Messages: []Message{{Role: "user", Content: "a b c"}}}, rep)
	if u := c["usage"].(map[string]int); u["prompt_tokens"] != 3 || u["completion_tokens"] != 4 {
		t.Errorf("usage %v", u)
	}
}
