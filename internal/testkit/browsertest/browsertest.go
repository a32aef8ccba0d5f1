// Package browsertest drives a real headless Chromium for the tests of the
// pages ctxkit writes: it opens a page, gathers what the browser reported
// while loading it (console errors, exceptions, refused loads, requests
// made), evaluates expressions in it and takes screenshots. It speaks the
// Chrome DevTools Protocol over the pipe Chromium opens with
// --remote-debugging-pipe (NUL-separated JSON on its file descriptors 3
// and 4): no websocket, no port, nothing of the network.
//
// The tests run with CTX_E2E=1 (make e2e, which installs Debian's
// chromium package); without it Start skips the test, with it a missing
// browser fails it.
package browsertest

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/testkit/agenttest"
)

// wait is how long the browser may take to answer; past it the test
// fails rather than hangs. It bounds a hang, it times nothing.
const wait = 2 * time.Minute

// Names are the names Chromium goes by on the PATH; CTX_CHROMIUM names
// another.
var Names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the browser's executable.
func Find() (string, error) {
	if exe := os.Getenv("CTX_CHROMIUM"); exe != "" {
		return exec.LookPath(exe)
	}
	for _, n := range Names {
		if exe, err := exec.LookPath(n); err == nil {
			return exe, nil
		}
	}
	return "", fmt.Errorf("none of %s is on the PATH (Debian: apt-get install chromium)", strings.Join(Names, ", "))
}

// Browser is a headless Chromium, started for one test.
type Browser struct {
	cmd    *exec.Cmd
	in     *os.File // its fd 3: our commands
	stderr bytes.Buffer

	mu      sync.Mutex
	next    int
	pending map[int]chan message
	events  []message
	changed chan struct{} // closed and replaced at each event
	err     error         // why the pipe closed
}

// message is one message of the protocol: a command's answer (ID) or an
// event (Method), of a page's session or of the browser.
type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Start starts the browser, headless, with a new profile, none of its
// calls home, and the sandbox off when it runs as root (Chromium refuses
// to start otherwise). It stops when the test ends.
func Start(t testing.TB) *Browser {
	t.Helper()
	if !agenttest.Enabled() {
		t.Skip("the tests in a real browser run with CTX_E2E=1 (make e2e)")
	}
	exe, err := Find()
	if err != nil {
		t.Fatalf("CTX_E2E=1, and no browser: %v", err)
	}
	args := []string{"--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--remote-debugging-pipe",
		"--user-data-dir=" + t.TempDir()}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmdR, cmdW, err := os.Pipe() // our commands, its fd 3
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // its answers, its fd 4
	if err != nil {
		t.Fatal(err)
	}
	b := &Browser{in: cmdW, pending: map[int]chan message{}, changed: make(chan struct{})}
	b.cmd = exec.Command(exe, append(args, "about:blank")...)
	b.cmd.ExtraFiles = []*os.File{cmdR, outW}
	b.cmd.Stderr = &b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("%s: %v", exe, err)
	}
	cmdR.Close()
	outW.Close()
	go b.read(outR)
	t.Cleanup(func() {
		b.in.Close() // the browser ends when its pipe closes
		done := make(chan error, 1)
		go func() { done <- b.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(wait):
			b.cmd.Process.Kill()
			<-done
		}
	})
	return b
}

// read takes the browser's messages until its pipe closes.
func (b *Browser) read(r *os.File) {
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var raw []byte
		raw, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m message
		if err = json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			break
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.pending[m.ID]; ch != nil {
				ch <- m
				delete(b.pending, m.ID)
			}
		} else {
			b.events = append(b.events, m)
			close(b.changed)
			b.changed = make(chan struct{})
		}
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.err = fmt.Errorf("the browser's pipe closed: %v", err)
	for id, ch := range b.pending {
		close(ch)
		delete(b.pending, id)
	}
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// call sends a command, to a page's session or ("") to the browser, and
// returns its result.
func (b *Browser) call(t testing.TB, session, method string, params any, result any) {
	t.Helper()
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		t.Fatalf("%s: %v\n%s", method, b.err, b.stderr.String())
	}
	b.next++
	id := b.next
	ch := make(chan message, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	out, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params, "sessionId": session})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.in.Write(append(out, 0)); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case m, ok := <-ch:
		switch {
		case !ok:
			t.Fatalf("%s: the browser ended\n%s", method, b.stderr.String())
		case m.Error != nil:
			t.Fatalf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		case result != nil:
			if err := json.Unmarshal(m.Result, result); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		}
	case <-time.After(wait):
		t.Fatalf("%s: no answer from the browser in %v", method, wait)
	}
}

// waitFor waits for an event of a session, and returns it.
func (b *Browser) waitFor(t testing.TB, session, method string) message {
	t.Helper()
	deadline := time.After(wait)
	seen := 0
	for {
		b.mu.Lock()
		for ; seen < len(b.events); seen++ {
			if m := b.events[seen]; m.Method == method && m.SessionID == session {
				b.mu.Unlock()
				return m
			}
		}
		changed, err := b.changed, b.err
		b.mu.Unlock()
		if err != nil {
			t.Fatalf("waiting for %s: %v\n%s", method, err, b.stderr.String())
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no %s from the browser in %v", method, wait)
		}
	}
}

// eventsOf returns the events of a session so far.
func (b *Browser) eventsOf(session string) []message {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []message
	for _, m := range b.events {
		if m.SessionID == session {
			out = append(out, m)
		}
	}
	return out
}

// Page is a page opened in its own tab.
type Page struct {
	b       *Browser
	session string
}

// Open opens url in a new tab of width by height pixels, with the console,
// the log and the network watched from the start, and waits until it has
// loaded.
func (b *Browser) Open(t testing.TB, url string, width, height int) *Page {
	t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	p := &Page{b: b, session: attached.SessionID}
	for _, domain := range []string{"Runtime", "Log", "Network", "Page"} {
		b.call(t, p.session, domain+".enable", nil, nil)
	}
	b.call(t, p.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	b.call(t, p.session, "Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		t.Fatalf("%s: %s", url, nav.ErrorText)
	}
	b.waitFor(t, p.session, "Page.loadEventFired")
	return p
}

// Problems are what the browser reported while it loaded and showed the
// page: errors and warnings on the console, exceptions thrown, and its
// log's errors and warnings (a load refused by the page's security
// policy, a resource not found).
func (p *Page) Problems() []string {
	var out []string
	for _, m := range p.b.eventsOf(p.session) {
		switch m.Method {
		case "Runtime.consoleAPICalled":
			var e struct {
				Type string `json:"type"`
				Args []struct {
					Value       any    `json:"value"`
					Description string `json:"description"`
				} `json:"args"`
			}
			if json.Unmarshal(m.Params, &e) == nil && (e.Type == "error" || e.Type == "warning" || e.Type == "assert") {
				var words []string
				for _, a := range e.Args {
					words = append(words, fmt.Sprint(a.Value)+a.Description)
				}
				out = append(out, "console."+e.Type+": "+strings.Join(words, " "))
			}
		case "Runtime.exceptionThrown":
			var e struct {
				Details struct {
					Text      string `json:"text"`
					Exception struct {
						Description string `json:"description"`
					} `json:"exception"`
				} `json:"exceptionDetails"`
			}
			_ = json.Unmarshal(m.Params, &e)
			out = append(out, "exception: "+e.Details.Text+" "+e.Details.Exception.Description)
		case "Log.entryAdded":
			var e struct {
				Entry struct {
					Source, Level, Text, URL string
				} `json:"entry"`
			}
			if json.Unmarshal(m.Params, &e) == nil && (e.Entry.Level == "error" || e.Entry.Level == "warning") {
				out = append(out, "log "+e.Entry.Level+" ("+e.Entry.Source+"): "+e.Entry.Text+" "+e.Entry.URL)
			}
		}
	}
	return out
}

// Requests are the URLs the page asked for, itself first.
func (p *Page) Requests() []string {
	var out []string
	for _, m := range p.b.eventsOf(p.session) {
		if m.Method != "Network.requestWillBeSent" {
			continue
		}
		var e struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(m.Params, &e) == nil {
			out = append(out, e.Request.URL)
		}
	}
	return out
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value, as JSON, into out.
func (p *Page) Eval(t testing.TB, expr string, out any) {
	t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	p.b.call(t, p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	if r.Exception != nil {
		t.Fatalf("%s: %s", expr, r.Exception.Text)
	}
	if err := json.Unmarshal(r.Result.Value, out); err != nil {
		t.Fatalf("%s: %v: %s", expr, err, r.Result.Value)
	}
}

// Screenshot takes a PNG of the page's top, as wide as the tab and height
// pixels high (the whole page when it is shorter), in its 256 most
// frequent colours (a page of flat charts and text has few more), so that
// it stays small enough for the docs.
func (p *Page) Screenshot(t testing.TB, height int) []byte {
	t.Helper()
	var size struct{ W, H float64 }
	p.Eval(t, `({W: document.documentElement.clientWidth, H: document.documentElement.scrollHeight})`, &size)
	var shot struct {
		Data string `json:"data"`
	}
	clip := map[string]any{"x": 0, "y": 0, "width": size.W, "height": min(float64(height), size.H), "scale": 1}
	p.b.call(t, p.session, "Page.captureScreenshot", map[string]any{"format": "png", "clip": clip, "captureBeyondViewport": true}, &shot)
	data, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatal(err)
	}
	im, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&out, paletted(im)); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// paletted is im in its 256 most frequent colours, the others drawn in
// the nearest of them.
func paletted(im image.Image) *image.Paletted {
	b := im.Bounds()
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.RGBAModel.Convert(im.At(x, y)).(color.RGBA)]++
		}
	}
	colors := slices.Collect(maps.Keys(count))
	slices.SortFunc(colors, func(a, b color.RGBA) int {
		if c := cmp.Compare(count[b], count[a]); c != 0 {
			return c
		}
		return cmp.Compare(uint32(a.R)<<24|uint32(a.G)<<16|uint32(a.B)<<8|uint32(a.A), uint32(b.R)<<24|uint32(b.G)<<16|uint32(b.B)<<8|uint32(b.A))
	})
	pal := make(color.Palette, 0, 256)
	for _, c := range colors[:min(len(colors), 256)] {
		pal = append(pal, c)
	}
	out := image.NewPaletted(b, pal)
	draw.Draw(out, b, im, b.Min, draw.Src)
	return out
}
