package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/layout"
)

// serveTwice serves one bundle twice: with the fast path, and with every
// request going to net/http, the reference the fast path must match.
func serveTwice(t *testing.T) (fast, slow string, s *Server) {
	t.Helper()
	_, dist := newSkills(t)
	b := open(t, dist)
	fast, s = serveBundle(t, b, Options{})
	ref := New(b, Options{})
	ref.noFast = true
	return fast, serveWith(t, ref), s
}

// Every file, by GET and HEAD, gets from the fast path the status, headers
// and bytes net/http gives it (Date aside), and the fast path answers the
// plain requests. (The catalog, which names the host asked, goes to
// net/http; TestFastLeavesTheRest has it.)
func TestFastMatchesNetHTTP(t *testing.T) {
	fast, slow, s := serveTwice(t)
	paths := pathsOf(t, slow)
	if len(paths) < 20 {
		t.Fatalf("only %d paths", len(paths))
	}
	get := func(base, method, p string) (int, http.Header, []byte) {
		t.Helper()
		resp, body := fetch(t, method, base+"/"+p)
		resp.Header.Del("Date")
		return resp.StatusCode, resp.Header, body
	}
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		for _, p := range append(paths, "no/such/file", ".well-known/agent-skills/../index.json") {
			sc, sh, sb := get(slow, method, p)
			fc, fh, fb := get(fast, method, p)
			if fc != sc || !maps.EqualFunc(fh, sh, slices.Equal) || !bytes.Equal(fb, sb) {
				t.Errorf("%s /%s: fast path %d %v (%d bytes), net/http %d %v (%d bytes)", method, p, fc, fh, len(fb), sc, sh, len(sb))
			}
		}
	}
	if n := s.fast.Load(); n < int64(len(paths)) {
		t.Errorf("the fast path answered %d requests of %d plain ones", n, 2*len(paths))
	}
}

// A connection goes to net/http at its first request that is not plain,
// with the bytes read of it, and stays there: pipelined requests are each
// answered once, in order.
func TestFastHandsOver(t *testing.T) {
	fast, _, s := serveTwice(t)
	p := "/.well-known/agent-skills/commit-messages/SKILL.md"
	resp, err := http.Get(fast + p)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	etag := resp.Header.Get("Etag")
	before := s.fast.Load()

	c, err := net.Dial("tcp", strings.TrimPrefix(fast, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	plain := "GET " + p + " HTTP/1.1\r\nHost: x\r\n\r\n"
	fmt.Fprint(c, plain+"GET "+p+" HTTP/1.1\r\nHost: x\r\nIf-None-Match: "+etag+"\r\n\r\n"+plain+"HEAD "+p+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	br := bufio.NewReader(c)
	for i, code := range []int{200, 304, 200, 200} {
		req := &http.Request{Method: http.MethodGet}
		if i == 3 {
			req.Method = http.MethodHead
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != code || (code == 200 && req.Method == http.MethodGet && !bytes.Equal(body, want)) {
			t.Errorf("response %d: %d with %d bytes, want %d", i, resp.StatusCode, len(body), code)
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("after Connection: close, read %v, want EOF", err)
	}
	if n := s.fast.Load() - before; n != 1 {
		t.Errorf("the fast path answered %d of the connection's requests, want the first only", n)
	}
}

// Requests the fast path must not answer get what net/http alone gives
// them: a missing or doubled Host, folded or malformed lines, bodies,
// conditions, ranges, other methods and versions, odd targets, a head
// longer than the fast path reads.
func TestFastLeavesTheRest(t *testing.T) {
	fast, slow, s := serveTwice(t)
	p := "/.well-known/agent-skills/commit-messages/SKILL.md"
	for _, raw := range []string{
		"GET " + p + " HTTP/1.1\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nX-A: b\r\n  folded\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a b\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nX-A: \x01\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nX A: b\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a\nX-A: b\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nRange: bytes=0-3\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
		"GET " + p + " HTTP/1.0\r\n\r\n",
		"GET " + p + "?x=1 HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /.well-known/agent-skills/%2e%2e/index.json HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /.well-known/agent-skills/../index.json HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET //" + p + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nX-Long: " + strings.Repeat("a", 5000) + "\r\n\r\n",
		"GET /" + strings.Repeat("a", 3000) + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST " + p + " HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
		"OPTIONS " + p + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"get " + p + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
	} {
		got, want := exchange(t, fast, raw), exchange(t, slow, raw)
		if got != want {
			t.Errorf("%.60q:\nfast path: %q\n  net/http: %q", raw, got, want)
		}
	}
	if n := s.fast.Load(); n != 0 {
		t.Errorf("the fast path answered %d of them", n)
	}
}

// exchange sends raw on a new connection and returns the first response's
// status line and its body's length and digest, with a time limit.
func exchange(t *testing.T, base, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%s, %d bytes, %s", resp.Status, len(body), layout.DigestOf(body).Short())
}

// With tokens, nothing is answered before net/http has checked one.
func TestFastWithTokens(t *testing.T) {
	fast, _, s := serveTwice(t)
	s.SetTokens([]string{"secret"})
	resp, err := http.Get(fast + "/.well-known/agent-skills/index.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || s.fast.Load() != 0 {
		t.Errorf("without a token: %d, %d answered on the fast path; want 401 and none", resp.StatusCode, s.fast.Load())
	}
}

// FuzzParseHead: whatever the bytes, parseHead does not panic, and a head
// it accepts is one net/http reads the same way: the same method and path,
// one Host, no body, the same wish to close.
func FuzzParseHead(f *testing.F) {
	for _, s := range []string{
		"GET /a HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD /a/b.md HTTP/1.1\r\nHost: x:80\r\nConnection: close\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: x\r\nAccept: */*\r\nUser-Agent: curl/8\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		r, ok := parseHead(head, 2048)
		if !ok {
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
		if err != nil {
			t.Fatalf("accepted %q, which net/http refuses: %v", head, err)
		}
		switch {
		case req.Method != r.method || req.URL.Path != "/"+r.path || req.RequestURI != "/"+r.path:
			t.Fatalf("%q: %s %s, net/http reads %s %s", head, r.method, r.path, req.Method, req.RequestURI)
		case req.ContentLength != 0 || len(req.TransferEncoding) > 0:
			t.Fatalf("%q: net/http reads a body", head)
		case req.Close != r.close:
			t.Fatalf("%q: close %v, net/http %v", head, r.close, req.Close)
		case len(req.Header.Values("Host")) > 0 || req.Host == "":
			t.Fatalf("%q: net/http reads the host %q", head, req.Host)
		}
		if n, _ := req.Body.Read(make([]byte, 1)); n > 0 {
			t.Fatalf("%q: net/http reads a body", head)
		}
	})
}
