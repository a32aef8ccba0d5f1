package proxy

import (
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// TestArchiveBeforeTheRequest: with an archive, every output a request is
// sent without is in the archive by the time the upstream receives the
// request, and the marker that replaces it cites the id that gives it back
// byte for byte. A second request with the same history stores nothing
// new and sends the same bytes.
func TestArchiveBeforeTheRequest(t *testing.T) {
	for _, r := range requests(t) {
		t.Run(r.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "archive.db")
			var mu sync.Mutex
			var cited map[string]string // by cited id, the output the archive gave back on receipt
			up := newUpstream(t, func(w http.ResponseWriter, req *http.Request) {
				body, _ := io.ReadAll(req.Body)
				a, err := archive.OpenReadOnly(path)
				if err != nil {
					t.Errorf("on receipt: %v", err)
					return
				}
				defer a.Close()
				mu.Lock()
				defer mu.Unlock()
				cited = map[string]string{}
				for _, res := range transcripttest.Parse(t, body).Results {
					id := marker.CitedIn(res.Text())
					if id == "" {
						continue
					}
					rec, err := a.Get(id, "")
					if err != nil {
						t.Errorf("on receipt, %s: %v", id, err)
						continue
					}
					cited[id] = *rec.Output
				}
				w.Write([]byte("{}"))
			})
			cfg := config(t, up)
			var err error
			if cfg.Archive, err = archive.Open(path); err != nil {
				t.Fatal(err)
			}
			defer cfg.Archive.Close()
			proxyURL, logs := serve(t, cfg)
			post(t, proxyURL, r.path, r.body, r.header)
			post(t, proxyURL, r.path, r.body, r.header)
			got := up.got()
			if string(got[0].Body) != string(got[1].Body) {
				t.Errorf("the same history sent as other bytes the second time")
			}
			sent := transcripttest.Parse(t, got[0].Body)
			client := transcripttest.Parse(t, r.body)
			replaced := 0
			for i, res := range sent.Results {
				if res.Text() == client.Results[i].Text() {
					continue
				}
				replaced++
				id := marker.CitedIn(res.Text())
				switch {
				case id == "":
					t.Errorf("result %d replaced without a citation: %.200q", i, res.Text())
				case cited[id] != client.Results[i].Text():
					t.Errorf("result %d: %s gave back %d bytes, not the client's %d", i, id, len(cited[id]), len(client.Results[i].Text()))
				case id != client.Results[i].CallID:
					t.Errorf("result %d cites %s, not its call's id %s", i, id, client.Results[i].CallID)
				}
			}
			if replaced == 0 {
				t.Errorf("nothing replaced")
			}
			logs.settle()
			for _, line := range logs.all() {
				t.Errorf("logged %s", line)
			}
		})
	}
}
