package serve

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// TestHTTPEveryPath fetches every path the bundle's documents name, with
// GET and HEAD, and checks status, headers and that the bytes have the
// digest the documents give.
func TestHTTPEveryPath(t *testing.T) {
	dist := pristine(t)
	base, _ := start(t, dist, Options{})
	want := expected(t, dist)
	for p, d := range want {
		resp, err := http.Get(base + "/" + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", p, resp.Status)
			continue
		}
		if got := digest(body); got != d {
			t.Errorf("GET %s: digest %s, want %s", p, got, d)
		}
		h := resp.Header
		if got, want := h.Get("Content-Type"), layout.ContentType(p); got != want {
			t.Errorf("GET %s: Content-Type %q, want %q", p, got, want)
		}
		if h.Get("Content-Encoding") != "" {
			t.Errorf("GET %s: Content-Encoding %q; it would break the digest", p, h.Get("Content-Encoding"))
		}
		if h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: no CORS header", p)
		}
		cc := h.Get("Cache-Control")
		switch {
		case isArchive(p) && !strings.Contains(cc, "immutable"):
			t.Errorf("GET %s: archive Cache-Control %q, want immutable", p, cc)
		case !isArchive(p) && cc != layout.DefaultCache.Control(p):
			t.Errorf("GET %s: Cache-Control %q, want %q", p, cc, layout.DefaultCache.Control(p))
		}
		if h.Get("Etag") != `"`+digest(body)+`"` || h.Get("Last-Modified") == "" {
			t.Errorf("GET %s: ETag %q, Last-Modified %q; want the digest of the body and a time", p, h.Get("Etag"), h.Get("Last-Modified"))
		}

		head, err := http.Head(base + "/" + p)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, head.Body)
		head.Body.Close()
		if head.StatusCode != http.StatusOK || n != 0 || head.ContentLength != int64(len(body)) {
			t.Errorf("HEAD %s: %s, %d body bytes, Content-Length %d, want 200, 0, %d", p, head.Status, n, head.ContentLength, len(body))
		}
	}
	// The digest is the validator: a client holding the bytes gets 304.
	req, _ := http.NewRequest("GET", base+"/"+layout.V2Index, nil)
	req.Header.Set("If-None-Match", `"`+want[layout.V2Index]+`"`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the digest: %s, want 304", resp.Status)
	}
	// Spot checks, so that a wrong table in layout cannot pass unnoticed.
	for p, ct := range map[string]string{
		layout.V2Index:                  "application/json",
		skillMD:                         "text/markdown; charset=utf-8",
		archivePath(t, dist, ".tar.gz"): "application/gzip",
		archivePath(t, dist, ".zip"):    "application/zip",
	} {
		resp, err := http.Head(base + "/" + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); got != ct {
			t.Errorf("%s: Content-Type %q, want %q", p, got, ct)
		}
	}
}

// raw sends a request line as written, with no client-side cleaning, and
// returns the response status.
func raw(t *testing.T, base, method, target string) int {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, method+" "+target+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %.60s: %v", method, target, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestHTTPRefuses(t *testing.T) {
	dist := newDist(t)
	// A file outside the bundle that a traversal would reach.
	os.WriteFile(filepath.Join(filepath.Dir(dist), "secret"), []byte("secret\n"), 0o644)
	base, _ := start(t, dist, Options{})
	tests := []struct {
		method, target string
		want           int
	}{
		{"GET", "/../etc/passwd", 400},
		{"GET", "/../secret", 400},
		{"GET", "/.well-known/agent-skills/../../secret", 400},
		{"GET", "/.well-known/agent-skills/%2e%2e/%2e%2e/secret", 400},
		{"GET", "/.well-known/agent-skills/%2E%2E/index.json", 400},
		{"GET", "/.well-known%2fagent-skills%2findex.json", 400},
		{"GET", "/.well-known/agent-skills%5cindex.json", 400},
		{"GET", "/.well-known/agent-skills/index.json%00", 400},
		{"GET", "/./.well-known/agent-skills/index.json", 400},
		{"GET", "/", 200}, // the catalog
		{"GET", "/.well-known/agent-skills/", 404},
		{"GET", "/.well-known/agent-skills", 404},
		{"GET", "/.well-known/agent-skills/csv-profiler", 404},
		{"GET", "//.well-known/agent-skills/index.json", 404},
		{"GET", "/" + layout.BuildRecord, 404},
		{"GET", "/" + layout.Headers, 404},
		{"GET", "/" + layout.NoJekyll, 404},
		{"GET", "/nope.json", 404},
		{"GET", "/" + strings.ToUpper(layout.V2Index), 404},
		{"GET", "/" + layout.V2Index + "/", 404},
		{"GET", "/" + layout.V2Index + "?x=" + strings.Repeat("a", 3000), 414},
		{"POST", "/" + layout.V2Index, 405},
		{"DELETE", "/" + layout.V2Index, 405},
		{"OPTIONS", "/" + layout.V2Index, 204},
		{"GET", "/" + layout.V2Index, 200},
	}
	for _, tt := range tests {
		if got := raw(t, base, tt.method, tt.target); got != tt.want {
			t.Errorf("%s %.80s: %d, want %d", tt.method, tt.target, got, tt.want)
		}
	}
	// Beyond MaxHeaderBytes the server refuses before any handler runs.
	if got := raw(t, base, "GET", "/"+strings.Repeat("a", 64<<10)); got != 431 && got != 414 {
		t.Errorf("a 64 KiB target: %d, want 414 or 431", got)
	}
	if got := raw(t, base, "GET", "/"+layout.V2Index); got != 200 {
		t.Errorf("after the bad requests: %d, want 200", got)
	}
}

// TestHTTPMCPElsewhere posts an MCP request where a host given the
// server's address, or /mcp/, would: the 405 says where MCP is, in the
// body a host shows.
func TestHTTPMCPElsewhere(t *testing.T) {
	base, _ := serveBundle(t, open(t, pristine(t)), Options{})
	for _, p := range []string{"/", "/mcp/"} {
		resp, err := http.Post(base+p, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := "MCP is at " + base + "/mcp"; resp.StatusCode != 405 || !strings.Contains(string(body), want) {
			t.Errorf("POST %s: %d %q, want 405 saying %q", p, resp.StatusCode, body, want)
		}
	}
}

// TestHTTPChangedAfterStart changes files under a running server. The
// snapshot serves the bytes it verified at startup whatever happens on
// disk, and where it cannot (a file it keeps open, written in place; a
// file it reads by name, replaced) it refuses with 500 and never sends
// the changed bytes. A file restored is served again.
func TestHTTPChangedAfterStart(t *testing.T) {
	for _, tc := range []struct {
		name string
		lim  limits
	}{
		{"in memory", defaultLimits()},
		{"kept open", limits{small: -1, open: 1 << 20}},
		{"by name", limits{small: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dist := newDist(t)
			base, _ := serveBundle(t, openWith(t, dist, tc.lim), Options{})
			get := func(p string) (int, string) {
				resp, err := http.Get(base + "/" + p)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			code, orig := get(skillMD)
			if code != 200 {
				t.Fatalf("GET %s: %d", skillMD, code)
			}
			full := filepath.Join(dist, filepath.FromSlash(skillMD))
			changed := []byte(strings.Replace(orig, "name:", "nome:", 1))
			switch tc.name {
			case "kept open":
				err := os.WriteFile(full, changed, 0o644) // in place: the file held open changes
				if err != nil {
					t.Fatal(err)
				}
			default:
				rewrite(t, dist, skillMD, func([]byte) []byte { return changed })
			}
			code, body := get(skillMD)
			switch {
			case strings.Contains(body, "nome:"):
				t.Fatalf("the changed bytes were served: %d", code)
			case tc.name == "in memory" && (code != 200 || body != orig):
				t.Errorf("changed file: %d, want 200 and the bytes verified at startup", code)
			case tc.name != "in memory" && code != 500:
				t.Errorf("changed file: %d %.40q, want 500", code, body)
			}
			if code, _ := get(script); code != 200 {
				t.Errorf("unchanged file: %d, want 200", code)
			}
			// A symbolic link to a file outside, even one with the right
			// bytes: by name, refused; held, not even looked at.
			outside := filepath.Join(t.TempDir(), "SKILL.md")
			os.WriteFile(outside, []byte(orig), 0o644)
			os.Remove(full)
			if err := os.Symlink(outside, full); err != nil {
				t.Skip(err)
			}
			code, _ = get(skillMD)
			if want := map[string]int{"in memory": 200, "kept open": 500, "by name": 500}[tc.name]; code != want {
				t.Errorf("symlink out: %d, want %d", code, want)
			}
			os.Remove(full)
			os.WriteFile(full, []byte(orig), 0o644)
			if tc.name == "kept open" {
				return // the file held open is gone for good; a reload takes the new one
			}
			if code, body := get(skillMD); code != 200 || body != orig {
				t.Errorf("restored file: %d, want 200 and the original bytes", code)
			}
		})
	}
}

// TestHTTPSlowloris holds a connection open without finishing its headers
// and checks that the server drops it and keeps serving others.
func TestHTTPSlowloris(t *testing.T) {
	base, _ := start(t, pristine(t), Options{readHeaderTimeout: 200 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /"+layout.V2Index+" HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	began := time.Now()
	_, err = io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept a slow client's connection open for %v", time.Since(began))
	}
	if got := raw(t, base, "GET", "/"+layout.V2Index); got != 200 {
		t.Errorf("after a slow client: %d, want 200", got)
	}
}

// TestServeShutdown cancels the context while a client downloads a large
// file: a client that goes on reading gets the whole file, one that
// stalls past the grace is cut; the log says what the server waits for
// and what it cut; Serve returns and stops listening.
func TestServeShutdown(t *testing.T) {
	skills := filepath.Join(t.TempDir(), "skills")
	testtool.WriteTree(t, skills, map[string]string{
		"big/SKILL.md":        "---\nname: big\ndescription: A large asset. Use when testing downloads.\n---\n\nSee assets/.\n",
		"big/assets/blob.bin": strings.Repeat("0123456789abcdef", 1<<20), // 16 MiB: more than the sockets buffer
	})
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	for _, stall := range []bool{false, true} {
		log := &testtool.Buffer{}
		s := New(open(t, dist), Options{Log: slog.New(slog.NewTextHandler(log, nil)), grace: 2 * time.Second})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Serve(ctx, ln) }()
		resp, err := http.Get("http://" + addr + "/" + layout.SkillFile("big", "assets/blob.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.CopyN(io.Discard, resp.Body, 1<<20); err != nil {
			t.Fatal(err)
		}
		cancel()
		logged := func(line string) func() bool { return func() bool { return strings.Contains(log.String(), line) } }
		eventually(t, "the stop logged", logged("stopping: waiting up to 2s for 1 running request"), log)
		if stall {
			eventually(t, "the cut logged", logged("stopped: 1 request cut short after 2s"), log)
		}
		if n, err := io.Copy(io.Discard, resp.Body); stall == (err == nil && n == 15<<20) {
			t.Errorf("stalled %v: the rest of the download after the stop: %d bytes, %v", stall, n, err)
		}
		resp.Body.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return after cancel")
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Error("still accepting connections after shutdown")
		}
	}
}

// A page on another origin fetches an index, then asks again with
// If-None-Match, which makes the browser send a preflight first: the
// preflight allows the header, the GET exposes the ETag, and the second
// GET is a 304.
func TestCORSConditional(t *testing.T) {
	base, _ := start(t, pristine(t), Options{})
	u := base + "/" + layout.V2Index
	resp := preflight(t, u, "GET", "if-none-match")
	allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(allowed, "if-none-match") || !strings.Contains(allowed, "range") {
		t.Errorf("preflight: %d, %v", resp.StatusCode, resp.Header)
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if etag == "" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Fatalf("GET: ETag %q, exposed %q", etag, resp.Header.Get("Access-Control-Expose-Headers"))
	}
	again, _ := http.NewRequest("GET", u, nil)
	again.Header.Set("If-None-Match", etag)
	resp, err = http.DefaultClient.Do(again)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET: %d, want 304", resp.StatusCode)
	}
}

// A browser MCP host on another origin: its POST (JSON, with MCP's
// headers) is preflighted, and the preflight and the answer let the page
// read the result, with a token too. A page whose name was rebound to the
// loopback address is refused, unless the name is --base-url's (a proxy
// in front that passes its Host on).
func TestCORSMCP(t *testing.T) {
	base, _ := start(t, pristine(t), Options{Tokens: []string{"s3cret"}})
	resp := preflight(t, base+MCPPath, "POST", "authorization,content-type,mcp-method,mcp-protocol-version")
	allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(allowed, "authorization") || !strings.Contains(allowed, "mcp-method") {
		t.Errorf("preflight: %d, %v", resp.StatusCode, resp.Header)
	}
	ping := func(base, host, token string) *http.Response {
		t.Helper()
		post, _ := http.NewRequest("POST", base+MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		post.Host = host
		post.Header.Set("Origin", "https://host.example")
		post.Header.Set("Content-Type", "application/json")
		post.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			post.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(post)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, token := range []string{"", "s3cret"} {
		resp := ping(base, "", token)
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" || (token == "") != (resp.StatusCode == 401) ||
			token == "" && !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("POST with token %q: %d, %v", token, resp.StatusCode, resp.Header)
		}
	}
	if resp := ping(base, "rebound.example", "s3cret"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST with Host rebound.example: %d; want 403", resp.StatusCode)
	}
	proxied, _ := start(t, pristine(t), Options{BaseURL: "https://skills.example.com/"})
	for host, want := range map[string]int{"skills.example.com": 200, "SKILLS.example.com:443": 200, "rebound.example": 403, "localhost:8080": 200} {
		if resp := ping(proxied, host, ""); resp.StatusCode != want {
			t.Errorf("with --base-url, POST with Host %s: %d; want %d", host, resp.StatusCode, want)
		}
	}
}

// preflight sends the preflight a page on another origin sends before a
// request of method with headers.
func preflight(t *testing.T, url, method, headers string) *http.Response {
	t.Helper()
	pre, _ := http.NewRequest("OPTIONS", url, nil)
	pre.Header.Set("Origin", "https://page.example")
	pre.Header.Set("Access-Control-Request-Method", method)
	pre.Header.Set("Access-Control-Request-Headers", headers)
	resp, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestMaxConns: a connection past MaxConns is not served while the ones
// before it stay open, and is served once one of them closes, so that a
// flood of clients holds a bounded number of connections' memory. Past
// half of MaxConns a response closes its connection, given back for
// another client's request.
func TestMaxConns(t *testing.T) {
	base, _ := start(t, pristine(t), Options{MaxConns: 1})
	addr := strings.TrimPrefix(base, "http://")
	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	io.WriteString(first, "GET /.well-known/agent-skills/index.json HTTP/1.1\r\n") // the rest to come
	second, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if _, err := io.WriteString(second, "GET /.well-known/agent-skills/index.json HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(second)
	second.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := r.Peek(1); err == nil {
		t.Fatal("a second connection was served while MaxConns (1) was held by the first")
	}
	first.Close()
	second.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("the second connection, once the first closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Errorf("the second connection got %d, Close %v; want 200, closed (past half of MaxConns)", resp.StatusCode, resp.Close)
	}
}

// TestListenStreams: subscriptions/listen streams, which last as long as
// their clients, take half of MaxConns at most; one more is refused at
// once with a 503, and requests are still answered (a host's stream and
// its requests filled MaxConns, and every client waited for good).
func TestListenStreams(t *testing.T) {
	base, _ := start(t, pristine(t), Options{MaxConns: 4})
	listen := func() *http.Response {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{` + newProtocolMeta + `,"notifications":{"resourcesListChanged":true}}}`
		c := &http.Client{Transport: &http.Transport{}} // a connection of its own
		resp, err := c.Do(mcpRequest(base, modernSince, body))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for range 2 {
		resp := listen()
		if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, "event: message") {
			t.Fatalf("a stream of half of MaxConns: %q, %v", line, err)
		}
	}
	if resp := listen(); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a stream past half of MaxConns: %d, Retry-After %q; want 503 and a Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// Each on a connection of its own, given back: a file, and an MCP
	// request, whose event stream the SDK marks keep-alive.
	for i := range 4 {
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequest("GET", base+"/"+layout.V2Index, nil)
		if i%2 == 1 {
			req = mcpRequest(base, modernSince, `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{`+newProtocolMeta+`}}`)
		}
		resp, err := http.DefaultClient.Do(req.WithContext(c))
		if err != nil {
			cancel()
			t.Fatalf("a request beside the streams: %v", err)
		}
		resp.Body.Close()
		cancel()
		if resp.StatusCode != http.StatusOK || !resp.Close {
			t.Errorf("a request beside the streams: %d, Close %v; want 200, closed", resp.StatusCode, resp.Close)
		}
	}
}
