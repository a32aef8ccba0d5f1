package proxy

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// refusal is why the proxy refuses a request before it reads its body, and
// the status it answers with; "" for none.
//
// A web page can reach a proxy on 127.0.0.1: a "simple" cross-origin POST
// (text/plain, no preflight) gets there, and its body, were it compacted,
// would plant the page's words in the archive that the agent recalls. No
// agent sends an Origin header, nor a body that is not JSON, and an agent
// names the proxy by its address (or localhost); a page's requests carry
// an Origin, and one that rebinds a name of its own to 127.0.0.1 carries
// that name in its Host.
func (p *Proxy) refusal(r *http.Request, api API) (why string, status int) {
	if _, ok := r.Header["Origin"]; ok {
		return "a web page's request (it has an Origin header)", http.StatusForbidden
	}
	if !p.ownHost(r) {
		return "a request for another host than the proxy's address", http.StatusForbidden
	}
	if api != "" && !jsonType(r.Header.Get("Content-Type")) {
		return "a request body that is not JSON (Content-Type: application/json)", http.StatusUnsupportedMediaType
	}
	return "", 0
}

// jsonType reports whether a Content-Type is JSON's.
func jsonType(ct string) bool {
	t, _, err := mime.ParseMediaType(ct)
	return err == nil && (t == "application/json" || strings.HasPrefix(t, "application/") && strings.HasSuffix(t, "+json"))
}

// ownHost reports whether a request's Host names the address it came in
// on: that address itself; localhost with its port, when it is a loopback
// one; or a name the proxy was told it listens on (Config.Names).
func (p *Proxy) ownHost(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return true // not served by net/http's server: nothing to check against
	}
	addr, err := netip.ParseAddrPort(local.String())
	if err != nil {
		return false
	}
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80"
	}
	if port != strconv.Itoa(int(addr.Port())) {
		return false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return ip.Unmap() == addr.Addr().Unmap()
	}
	if host == "localhost" && addr.Addr().IsLoopback() {
		return true
	}
	for _, n := range p.cfg.Names {
		if strings.EqualFold(strings.TrimSuffix(n, "."), host) {
			return true
		}
	}
	return false
}
