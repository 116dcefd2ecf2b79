package serve

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpack/skillpack/layout"
)

// serveTwice serves one bundle twice: with the fast path, and on net/http
// alone (the same http.Server, without the fast path's listener), the
// reference the fast path must match. answered counts the responses of
// the fast path.
func serveTwice(t *testing.T, o Options, lim limits) (fast, slow string, s *Server, answered *atomic.Int64) {
	t.Helper()
	_, dist := newSkills(t)
	b := openWith(t, dist, lim)
	s = New(b, o)
	answered = new(atomic.Int64)
	s.onFast = func() { answered.Add(1) }
	fast = serveWith(t, s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(b, o).httpServer(context.Background())
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return fast, "http://" + ln.Addr().String(), s, answered
}

// Every file, by GET and HEAD, gets from the fast path the status, headers
// and bytes net/http gives it (Date aside), and the fast path answers the
// plain requests: files held in memory, and files kept open where it
// sends them with sendfile. (The catalog, which names the host asked,
// goes to net/http; TestFastLeavesTheRest has it.)
func TestFastMatchesNetHTTP(t *testing.T) {
	for _, c := range []struct {
		name string
		lim  limits
	}{
		{"in memory", defaultLimits()},
		{"kept open", limits{small: -1, open: 1 << 20}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fast, slow, _, answered := serveTwice(t, Options{}, c.lim)
			paths := pathsOf(t, slow)
			if len(paths) < 20 {
				t.Fatalf("only %d paths", len(paths))
			}
			// The misses last: the connection they come on goes to net/http.
			var requests [][2]string
			for _, p := range append(paths, "no/such/file", ".well-known/agent-skills/../index.json") {
				requests = append(requests, [2]string{http.MethodGet, p}, [2]string{http.MethodHead, p})
			}
			for _, r := range requests {
				method, p := r[0], r[1]
				sc, sh, sb := getBare(t, slow, method, p)
				fc, fh, fb := getBare(t, fast, method, p)
				if fc != sc || !maps.EqualFunc(fh, sh, slices.Equal) || !bytes.Equal(fb, sb) {
					t.Errorf("%s /%s: fast path %d %v (%d bytes), net/http %d %v (%d bytes)", method, p, fc, fh, len(fb), sc, sh, len(sb))
				}
			}
			want := int64(2 * len(paths))
			if !canSendfile && c.lim.small < 0 {
				want = 0 // every file kept open, and none sent here
			}
			if n := answered.Load(); n != want {
				t.Errorf("the fast path answered %d requests of %d plain ones", n, want)
			}
		})
	}
}

// getBare fetches base/p and returns what it got, Date aside.
func getBare(t *testing.T, base, method, p string) (int, http.Header, []byte) {
	t.Helper()
	resp, body := fetch(t, method, base+"/"+p)
	resp.Header.Del("Date")
	return resp.StatusCode, resp.Header, body
}

// A file kept open that is changed in place after it was verified is not
// sent by the fast path: the request goes to net/http, which checks the
// file again and refuses it, as it would without the fast path.
func TestFastRefusesChangedFile(t *testing.T) {
	fast, slow, s, answered := serveTwice(t, Options{}, limits{small: -1, open: 1 << 20})
	p := ".well-known/agent-skills/commit-messages/SKILL.md"
	if code, _, _ := getBare(t, fast, http.MethodGet, p); code != http.StatusOK {
		t.Fatalf("GET /%s: %d before the change", p, code)
	}
	before := int64(0)
	if canSendfile {
		before = 1
	}
	if err := os.WriteFile(filepath.Join(s.bundle.Load().dir, filepath.FromSlash(p)), []byte("changed in place\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fc, _, fb := getBare(t, fast, http.MethodGet, p)
	sc, _, _ := getBare(t, slow, http.MethodGet, p)
	if fc != http.StatusInternalServerError || sc != fc || bytes.Contains(fb, []byte("changed in place")) {
		t.Errorf("GET /%s after a change in place: fast path %d %q, net/http %d; want both 500", p, fc, fb, sc)
	}
	if n := answered.Load(); n != before {
		t.Errorf("the fast path answered %d requests, want %d: the one before the change only", n, before)
	}
}

// A connection goes to net/http at its first request that is not plain,
// with the bytes read of it, and stays there: pipelined requests are each
// answered once, in order.
func TestFastHandsOver(t *testing.T) {
	fast, _, _, answered := serveTwice(t, Options{}, defaultLimits())
	p := "/.well-known/agent-skills/commit-messages/SKILL.md"
	resp, err := http.Get(fast + p)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	etag := resp.Header.Get("Etag")
	before := answered.Load()

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
	if n := answered.Load() - before; n != 1 {
		t.Errorf("the fast path answered %d of the connection's requests, want the first only", n)
	}
}

// Requests the fast path must not answer get what net/http alone gives
// them: a missing or doubled Host, folded or malformed lines, bodies,
// conditions, ranges, other methods and versions, odd targets, a head
// longer than the fast path reads.
func TestFastLeavesTheRest(t *testing.T) {
	fast, slow, _, answered := serveTwice(t, Options{}, defaultLimits())
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
		"GET " + p + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
		"GET " + p + " HTTP/1.1\r\nHost: a_b\r\n\r\n",
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
	if n := answered.Load(); n != 0 {
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
	fast, _, s, answered := serveTwice(t, Options{}, defaultLimits())
	s.SetTokens([]string{"secret"})
	resp, err := http.Get(fast + "/.well-known/agent-skills/index.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || answered.Load() != 0 {
		t.Errorf("without a token: %d, %d answered on the fast path; want 401 and none", resp.StatusCode, answered.Load())
	}
}

// A connection that sends nothing is closed after ReadHeaderTimeout, as
// net/http closes it, not kept for the idle timeout between requests.
func TestFastFirstRequestTimeout(t *testing.T) {
	fast, _, _, _ := serveTwice(t, Options{ReadHeaderTimeout: 200 * time.Millisecond}, defaultLimits())
	c, err := net.Dial("tcp", strings.TrimPrefix(fast, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a silent connection: read %v, want EOF (closed by the server)", err)
	}
}

// Shutting down waits for a response being written on the fast path, and
// ends the connections waiting for their next request.
func TestFastShutdown(t *testing.T) {
	_, dist := newSkills(t)
	addr, stop := listen(t, New(open(t, dist), Options{}))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	defer c.Close()
	p := "/.well-known/agent-skills/commit-messages/SKILL.md"
	fmt.Fprint(c, "GET "+p+" HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		stop()
		t.Fatalf("before shutdown: %v", err)
	} else {
		io.Copy(io.Discard, resp.Body)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("an idle connection after shutdown: read %v, want EOF", err)
	}
}

// FuzzParseHead: whatever the bytes, parseHead does not panic, and a head
// it accepts is one net/http reads the same way: the same method and path,
// a plain host, no body, no wish to close. (http.ReadRequest is the
// reader, not the server: the server's own refusals are
// TestFastLeavesTheRest's.)
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
		case req.Method != r.method || req.URL.Path != "/"+string(r.path) || req.RequestURI != "/"+string(r.path):
			t.Fatalf("%q: %s %s, net/http reads %s %s", head, r.method, r.path, req.Method, req.RequestURI)
		case req.ContentLength != 0 || len(req.TransferEncoding) > 0:
			t.Fatalf("%q: net/http reads a body", head)
		case req.Close:
			t.Fatalf("%q: net/http reads a wish to close", head)
		case !plainHost(req.Host):
			t.Fatalf("%q: net/http reads the host %q", head, req.Host)
		}
		if n, _ := req.Body.Read(make([]byte, 1)); n > 0 {
			t.Fatalf("%q: net/http reads a body", head)
		}
	})
}
