package serve

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// MCPPath is where MCP is served over streamable HTTP.
const MCPPath = "/mcp"

// maxURLLength bounds the request target; longer ones get 414.
const maxURLLength = 2048

// Handler is the server's HTTP handler: MCP at MCPPath, the bundle's files
// everywhere else. Every request passes the same guard first, which
// refuses over-long targets and any path that is not plainly a file name,
// then, when the server has tokens, asks for one.
func (s *Server) Handler() http.Handler {
	mcpH := s.mcpHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.running.Add(1)
		defer s.running.Add(-1)
		began := time.Now()
		rw := &response{ResponseWriter: w, rc: http.NewResponseController(w), grace: s.opts.writeTimeout, status: http.StatusOK}
		// Past half of MaxConns a connection is not kept for the client's
		// next request: given back, it serves another client's (streams
		// and kept-alive connections would fill MaxConns and leave every
		// new client waiting).
		rw.closing = s.conns.Load() > int64(s.opts.MaxConns/2) && !listening(r)
		switch msg := badPath(r); {
		case len(r.RequestURI) > maxURLLength:
			http.Error(rw, "request URI too long", http.StatusRequestURITooLong)
		case msg != "":
			http.Error(rw, msg, http.StatusBadRequest)
		// A preflight carries no credentials (Fetch leaves them out), so
		// it is answered before the token check.
		case r.Method != http.MethodOptions && !s.authorized(r):
			rw.Header().Set("WWW-Authenticate", `Bearer realm="skillpack"`)
			rw.Header().Set("Access-Control-Allow-Origin", "*")
			rw.Header().Set("Access-Control-Expose-Headers", "WWW-Authenticate")
			http.Error(rw, "this server needs a bearer token: send Authorization: Bearer <token>", http.StatusUnauthorized)
		case r.URL.Path == MCPPath:
			mcpH.ServeHTTP(rw, r)
		default:
			s.serveFile(rw, r)
		}
		if s.opts.LogRequests {
			s.logRequest(r, rw, began)
		}
	})
}

// listening reports whether r opens a subscriptions/listen stream, which
// lasts as long as its client (the SDK refuses a request whose Mcp-Method
// header is not its method).
func listening(r *http.Request) bool { return r.Header.Get("Mcp-Method") == "subscriptions/listen" }

// authorized reports whether r carries one of the server's tokens, or the
// server has none. Tokens are compared by their SHA-256 in constant time,
// so that neither a token's length nor its bytes show in the time taken.
func (s *Server) authorized(r *http.Request) bool {
	tokens := *s.tokens.Load()
	if len(tokens) == 0 {
		return true
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	match := 0
	for _, t := range tokens {
		match |= subtle.ConstantTimeCompare(got[:], t[:])
	}
	return match == 1
}

// badPath says why a request path is refused, or "". The file lookup is an
// exact match against the bundle's list, so this is not what keeps a
// request inside the folder: it gives probing a clear 400, and keeps any
// later lookup from making "..", an encoded separator or a NUL mean anything.
func badPath(r *http.Request) string {
	raw := strings.ToLower(cmp.Or(r.URL.RawPath, r.URL.Path))
	if strings.Contains(raw, "%2f") || strings.Contains(raw, "%5c") || strings.Contains(raw, "%00") {
		return "encoded separators are not allowed in paths"
	}
	p := r.URL.Path
	if !strings.HasPrefix(p, "/") {
		return "the path must start with /"
	}
	if strings.ContainsAny(p, "\\\x00") {
		return "backslashes and NUL are not allowed in paths"
	}
	if segs := strings.Split(p[1:], "/"); slices.Contains(segs, ".") || slices.Contains(segs, "..") {
		return "dot segments are not allowed in paths"
	}
	return ""
}

// serveFile serves one file of the bundle with the headers bundle.md
// asks for. Folders are never listed; a file the bundle does not list is
// 404 whether or not it exists on disk.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// Any page may read a file.
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		// A page reads the validator, to ask again with If-None-Match.
		h.Set("Access-Control-Expose-Headers", layout.ExposeHeaders)
	case http.MethodOptions:
		// The preflight of a conditional or ranged GET from a page.
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Accept, If-None-Match, If-Modified-Since, Range, Authorization")
		h.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		msg := "method not allowed"
		if r.Method == http.MethodPost { // an MCP host given the wrong address, which it shows
			msg += ": this address serves the bundle's files; MCP is at " + cmp.Or(strings.TrimRight(s.opts.BaseURL, "/"), requestBase(r)) + MCPPath
		}
		http.Error(w, msg, http.StatusMethodNotAllowed)
		return
	}
	b := s.acquire()
	defer b.release()
	p := strings.TrimPrefix(r.URL.Path, "/")
	if p == "" {
		// The catalog as a browser opens it, with this server's address
		// in its install commands. /index.html stays the bytes the build
		// recorded, as every other path does, so that verify URL and
		// mirrors get what checksums.txt names.
		if f := b.files[layout.Catalog]; f != nil {
			s.serveCatalog(w, r, b, f)
			return
		}
	}
	f := b.file(p) // a retired archive too (see retire)
	if f == nil {
		http.NotFound(w, r)
		return
	}
	body, done, err := b.content(f)
	if err != nil {
		http.Error(w, "this file "+s.refused(f.path, err), http.StatusInternalServerError)
		return
	}
	defer done()
	s.send(w, r, f.path, `"`+string(f.digest)+`"`, layout.ContentType(f.path), f.lastModified(), body)
}

// refused logs why the file at name is not served, and says it in the
// words a client is given.
func (s *Server) refused(name string, err error) string {
	s.logf("refused %s: %v", name, err)
	if errors.As(err, new(*bundle.ChangedError)) {
		return "changed after the bundle was built and is not served"
	}
	return "cannot be read"
}

// send writes one response body with its validators; ServeContent answers
// If-None-Match (before If-Modified-Since, ignored when both come), Range
// and HEAD, except for a plain GET or HEAD of bytes in memory, the
// commonest request by far, where it has nothing to decide. It never sets
// Content-Encoding, which would make clients unpack a .tar.gz and break
// its digest.
func (s *Server) send(w http.ResponseWriter, r *http.Request, p, etag, ctype string, mod time.Time, body io.ReadSeeker) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", s.opts.Cache.Control(p))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Etag", etag)
	plain := !slices.ContainsFunc(conditions, func(k string) bool { return r.Header[k] != nil })
	if mem, ok := body.(*bytes.Reader); ok && plain {
		// What ServeContent would add.
		h.Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
		h.Set("Accept-Ranges", "bytes")
		h.Set("Content-Length", strconv.Itoa(mem.Len()))
		if r.Method != http.MethodHead {
			mem.WriteTo(w)
		}
		return
	}
	http.ServeContent(w, r, p, mod, body)
}

// decodeName decodes an Mcp-Name header wrapped as "=?base64?…?=", as the
// 2026-07-28 transport has it for a value that is not plain ASCII (a URI
// with "é"): go-sdk v1.8.0 compares the wrapped value with the body's and
// refuses every such read (modelcontextprotocol/go-sdk#1234, fixed after
// v1.8.0; drop this with the next version). A value that does not decode
// is left for the SDK to refuse.
func decodeName(h http.Header) {
	v, wrapped := strings.CutPrefix(h.Get("Mcp-Name"), "=?base64?")
	v, closed := strings.CutSuffix(v, "?=")
	if !wrapped || !closed {
		return
	}
	if b, err := base64.StdEncoding.DecodeString(v); err == nil && utf8.Valid(b) {
		h.Set("Mcp-Name", string(b))
	}
}

// conditions are the request headers that ask for less than a whole file,
// or for it only if something holds: ServeContent answers them.
var conditions = []string{"Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"}

// rebound reports a request that reached a loopback address under a name
// that is neither loopback nor BaseURL's host: a page whose name was
// rebound to this address (DNS rebinding), which MCP servers must refuse.
// A proxy in front that passes the public Host on (Caddy's default, or
// nginx's proxy_set_header Host $host) uses BaseURL's.
func (s *Server) rebound(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil || !loopback(local.String()) || loopback(r.Host) {
		return false
	}
	return s.baseHost == "" || !strings.EqualFold(s.baseHost, hostOf(r.Host))
}

// loopback reports whether a host, or host:port, is localhost or a
// loopback address.
func loopback(hostport string) bool {
	host := hostOf(hostport)
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.IsLoopback()
	}
	return strings.EqualFold(host, "localhost")
}

// hostOf is the host of a host:port, [v6]:port or bare host.
func hostOf(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// mcpHandler serves MCP over stateless streamable HTTP, with a bounded
// request body that must arrive within 30 seconds. Stateless, no session
// outlives a request, clients of any era (2026-07-28's per-request _meta,
// or the older initialize) share one endpoint, and instances behind a load
// balancer answer alike.
func (s *Server) mcpHandler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: s.opts.maxBodyBytes,
		// rebound stands in for it: the SDK knows no BaseURL.
		DisableLocalhostProtection: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.rebound(r) {
			http.Error(w, "Forbidden: invalid Host header "+strconv.Quote(r.Host)+"; behind a proxy that passes its own Host on, give serve --base-url with that address", http.StatusForbidden)
			return
		}
		// A page on any origin may use the endpoint, as it may read every
		// file (a browser MCP host's POST needs a preflight); a DNS-rebound
		// page was refused above.
		hdr := w.Header()
		hdr.Set("Access-Control-Allow-Origin", "*")
		hdr.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate")
		if r.Method == http.MethodOptions {
			hdr.Set("Access-Control-Allow-Methods", "POST, GET, DELETE, OPTIONS")
			hdr.Set("Access-Control-Allow-Headers", r.Header.Get("Access-Control-Request-Headers"))
			hdr.Set("Access-Control-Max-Age", "86400")
			hdr.Add("Vary", "Access-Control-Request-Headers")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(30 * time.Second))
		decodeName(r.Header)
		if r.Method == http.MethodPost { // an id the SDK would answer under another (oddID), as over stdio
			data, _ := io.ReadAll(io.LimitReader(r.Body, s.opts.maxBodyBytes+1))
			if reply := oddID(data); reply != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write(reply)
				return
			}
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(data), r.Body), r.Body}
		}
		// A subscriptions/listen stream lasts as long as its client wants,
		// so it takes no turn, and holds its connection: half of MaxConns
		// at most, or streams would leave no connection to any request.
		if listening(r) {
			defer s.listens.Add(-1)
			if n := max(1, s.opts.MaxConns/2); s.listens.Add(1) > int64(n) {
				s.crowded(&s.listensFull, "%d subscriptions/listen streams, half of --max-connections: more are refused (503) until one ends", n)
				w.Header().Set("Retry-After", "60")
				http.Error(w, "too many subscriptions/listen streams open: try again later", http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		select {
		case s.turns <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-s.turns }()
		h.ServeHTTP(w, r)
	})
}
