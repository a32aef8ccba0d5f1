package proxy

import (
	"path/filepath"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// TestArchiveBeforeTheAnswer: with an archive, every output a request is
// sent without is in the archive by the time the client has the answer
// (TestArchiveOnlyAccepted: not before the upstream accepted the request),
// and the marker that replaces it cites the id that gives it back byte
// for byte. A second request with the same history stores nothing new and
// sends the same bytes.
func TestArchiveBeforeTheAnswer(t *testing.T) {
	for _, r := range requests(t) {
		t.Run(r.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "archive.db")
			up := newUpstream(t, nil)
			citedIn := func(body []byte) map[string]string { // by cited id, the output the archive gives back
				a, err := archive.OpenReadOnly(path)
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				out := map[string]string{}
				for _, res := range transcripttest.Parse(t, body).Results {
					id := marker.CitedIn(res.Text())
					if id == "" {
						continue
					}
					rec, err := a.Get(id, "")
					if err != nil {
						t.Errorf("once answered, %s: %v", id, err)
						continue
					}
					out[id] = *rec.Output
				}
				return out
			}
			cfg := config(t, up)
			var err error
			if cfg.Archive, err = archive.Open(path); err != nil {
				t.Fatal(err)
			}
			defer cfg.Archive.Close()
			proxyURL, logs := serve(t, cfg)
			post(t, proxyURL, r.path, r.body, r.header)
			cited := citedIn(up.last(t).Body)
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
