package serve

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// get sends a GET with headers (name, value, ...) and returns the
// response with its body read.
func get(t *testing.T, url string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	return fetch(t, http.MethodGet, url, headers...)
}

// fetch is get with another method.
func fetch(t *testing.T, method, url string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// TestConditionalAndRange checks the validators and ranges a cache or a
// resuming download relies on: Last-Modified is the file's time on disk,
// If-Modified-Since answers 304 from it unless If-None-Match says
// otherwise, and a Range of an archive gets exactly those bytes.
func TestConditionalAndRange(t *testing.T) {
	dist := pristine(t)
	base, _ := start(t, dist, Options{})
	arch := archivePath(t, dist, ".tar.gz")
	full, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(arch)))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(dist, filepath.FromSlash(arch)))
	resp, body := get(t, base+"/"+arch)
	mod, err := http.ParseTime(resp.Header.Get("Last-Modified"))
	if err != nil || !mod.Equal(info.ModTime().Truncate(time.Second)) {
		t.Errorf("Last-Modified %q, want the file's time %v", resp.Header.Get("Last-Modified"), info.ModTime())
	}
	if !bytes.Equal(body, full) || resp.Header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("GET %s: %d bytes, Accept-Ranges %q", arch, len(body), resp.Header.Get("Accept-Ranges"))
	}
	lm := resp.Header.Get("Last-Modified")
	etag := resp.Header.Get("Etag")

	for _, tc := range []struct {
		name    string
		headers []string
		status  int
		body    []byte
	}{
		{"If-Modified-Since now", []string{"If-Modified-Since", lm}, 304, nil},
		{"If-Modified-Since before", []string{"If-Modified-Since", mod.Add(-time.Hour).UTC().Format(http.TimeFormat)}, 200, full},
		// If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2).
		{"If-None-Match other", []string{"If-None-Match", `"sha256:00"`, "If-Modified-Since", lm}, 200, full},
		{"If-None-Match same", []string{"If-None-Match", etag}, 304, nil},
		{"Range", []string{"Range", "bytes=10-19"}, 206, full[10:20]},
		{"Range suffix", []string{"Range", "bytes=-5"}, 206, full[len(full)-5:]},
		{"If-Range stale", []string{"Range", "bytes=10-19", "If-Range", `"sha256:00"`}, 200, full},
		{"Range past the end", []string{"Range", "bytes=999999999-"}, 416, nil},
	} {
		resp, body := get(t, base+"/"+arch, tc.headers...)
		if resp.StatusCode != tc.status || (tc.body != nil && !bytes.Equal(body, tc.body)) {
			t.Errorf("%s: %d with %d bytes, want %d with %d", tc.name, resp.StatusCode, len(body), tc.status, len(tc.body))
		}
	}
}

// TestCacheSetting checks that the cache lifetimes are settings, and that
// MCP's ttlMs follows the index lifetime.
func TestCacheSetting(t *testing.T) {
	dist := pristine(t)
	base, s := start(t, dist, Options{Cache: &layout.Cache{Index: 42 * time.Second, Files: 0}})
	for p, want := range map[string]string{
		layout.V2Index:                  "public, max-age=42, must-revalidate",
		skillMD:                         "public, no-cache",
		archivePath(t, dist, ".zip"):    "public, max-age=31536000, immutable",
		".well-known/skills/index.json": "public, max-age=42, must-revalidate",
	} {
		if resp, _ := get(t, base+"/"+p); resp.Header.Get("Cache-Control") != want {
			t.Errorf("%s: Cache-Control %q, want %q", p, resp.Header.Get("Cache-Control"), want)
		}
	}
	send, _, end := rawStdio(t, s)
	defer end()
	m := send(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{` + newProtocolMeta + `}}`)
	if res, _ := m["result"].(map[string]any); res == nil || res["ttlMs"] != 42000.0 {
		t.Errorf("skills/list: %v, want ttlMs 42000", m)
	}
	// An index lifetime of 0 (serve --watch's) is HTTP's no-cache, and
	// results stale at once: ttlMs 0, not a second.
	_, s = start(t, dist, Options{Cache: &layout.Cache{}})
	send, _, end = rawStdio(t, s)
	defer end()
	m = send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://` + skillMD[len(".well-known/agent-skills/"):] + `",` + newProtocolMeta + `}}`)
	if res, _ := m["result"].(map[string]any); res == nil || res["ttlMs"] != 0.0 {
		t.Errorf("resources/read: %v, want ttlMs 0", m)
	}
}

// newProtocolMeta is the _meta field of a request of protocol 2026-07-28
// (SEP-2575), which names its version in every request.
var newProtocolMeta = func() string {
	m, _ := json.Marshal(map[string]any{mcp.MetaKeyProtocolVersion: "2026-07-28", mcp.MetaKeyClientCapabilities: map[string]any{}})
	return `"_meta":` + string(m)
}()

// TestAuthToken serves with tokens: files and MCP need one, the wrong one
// or none gets 401 with a challenge, a preflight needs none, and tokens
// can be replaced while serving.
func TestAuthToken(t *testing.T) {
	base, s := start(t, pristine(t), Options{Tokens: []string{"first-token", "second-token"}})
	for _, tc := range []struct {
		auth   string
		status int
	}{
		{"", 401},
		{"Bearer wrong", 401},
		{"Bearer first-token", 200},
		{"bearer second-token", 200}, // the scheme is case-insensitive
		{"Bearer first-token-and-more", 401},
		{"Basic Zmlyc3QtdG9rZW4=", 401},
		{"Bearer", 401},
	} {
		var h []string
		if tc.auth != "" {
			h = []string{"Authorization", tc.auth}
		}
		resp, body := get(t, base+"/"+layout.V2Index, h...)
		if resp.StatusCode != tc.status {
			t.Errorf("Authorization %q: %d, want %d", tc.auth, resp.StatusCode, tc.status)
		}
		if tc.status == 401 && (!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") || bytes.Contains(body, []byte("skills"))) {
			t.Errorf("Authorization %q: WWW-Authenticate %q, body %.60q", tc.auth, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	// MCP over HTTP: the same gate.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	post := func(auth string) int {
		req, _ := http.NewRequest("POST", base+MCPPath, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(""); got != 401 {
		t.Errorf("MCP without a token: %d, want 401", got)
	}
	if got := post("Bearer second-token"); got != 200 {
		t.Errorf("MCP with a token: %d, want 200", got)
	}
	// A preflight carries no credentials.
	pre, _ := http.NewRequest("OPTIONS", base+"/"+layout.V2Index, nil)
	pre.Header.Set("Origin", "https://page.example")
	pre.Header.Set("Access-Control-Request-Method", "GET")
	resp, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Errorf("preflight: %d, want 204", resp.StatusCode)
	}
	s.SetTokens([]string{"rotated"})
	if resp, _ := get(t, base+"/"+layout.V2Index, "Authorization", "Bearer first-token"); resp.StatusCode != 401 {
		t.Errorf("an old token after rotation: %d, want 401", resp.StatusCode)
	}
	if resp, _ := get(t, base+"/"+layout.V2Index, "Authorization", "Bearer rotated"); resp.StatusCode != 200 {
		t.Errorf("the new token: %d, want 200", resp.StatusCode)
	}
}

// TestRequestLog checks one JSON record per request, with what an
// operator needs, and a client-controlled path kept inside its field.
func TestRequestLog(t *testing.T) {
	log := &testtool.Buffer{}
	base, _ := start(t, pristine(t), Options{Log: slog.New(slog.NewJSONHandler(log, nil)), LogRequests: true})
	get(t, base+"/"+layout.V2Index)
	get(t, base+"/nope%0a%1b[31mfake")
	get(t, base+"/"+skillMD, "Range", "bytes=0-9")
	var recs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a log line is not JSON: %q", sc.Text())
		}
		if m["msg"] == "request" {
			recs = append(recs, m)
		}
	}
	if len(recs) != 3 {
		t.Fatalf("%d request records, want 3:\n%s", len(recs), log)
	}
	for i, want := range []struct {
		path   string
		status float64
		bytes  float64
	}{
		{"/" + layout.V2Index, 200, -1},
		{"/nope\n\x1b[31mfake", 404, -1},
		{"/" + skillMD, 206, 10},
	} {
		r := recs[i]
		if r["method"] != "GET" || r["path"] != want.path || r["status"] != want.status || r["remote"] == nil || r["duration"] == nil {
			t.Errorf("record %d: %v, want path %q status %v", i, r, want.path, want.status)
		}
		if n, _ := r["bytes"].(float64); n <= 0 || (want.bytes >= 0 && n != want.bytes) {
			t.Errorf("record %d: bytes %v", i, r["bytes"])
		}
	}
}

// TestCatalogHost checks the install commands of the served catalog: the
// --base-url when given, else the address the request came to, and a Host
// that is not a plain host left out rather than echoed into the page.
func TestCatalogHost(t *testing.T) {
	dist := pristine(t)
	base, _ := start(t, dist, Options{})
	resp, page := get(t, base+"/")
	if !bytes.Contains(page, []byte("npx skills add "+base)) || resp.Header.Get("Vary") != "Host, X-Forwarded-Proto" {
		t.Errorf("catalog: Vary %q; install commands do not name %s", resp.Header.Get("Vary"), base)
	}
	if resp.Header.Get("Etag") != `"`+digest(page)+`"` {
		t.Errorf("catalog: ETag %s is not the digest of the page sent", resp.Header.Get("Etag"))
	}
	if resp, _ := get(t, base+"/", "If-None-Match", resp.Header.Get("Etag")); resp.StatusCode != 304 {
		t.Errorf("catalog revalidated: %d, want 304", resp.StatusCode)
	}
	// /index.html is the page as built, as checksums.txt gives it.
	if _, page := get(t, base+"/"+layout.Catalog); digest(page) != digest(mustReadFile(t, filepath.Join(dist, layout.Catalog))) {
		t.Errorf("GET /%s: not the bytes the build wrote", layout.Catalog)
	}
	// Each skill's page is served as built.
	page1 := layout.CatalogPage("csv-profiler")
	if resp, page := get(t, base+"/"+page1); resp.StatusCode != 200 || digest(page) != digest(mustReadFile(t, filepath.Join(dist, filepath.FromSlash(page1)))) {
		t.Errorf("GET /%s: %d, not the bytes the build wrote", page1, resp.StatusCode)
	}
	// Sent raw: Go's client would not send such a Host.
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: evil.example\"><script>\r\nConnection: close\r\n\r\n")
	raw, _ := io.ReadAll(c)
	if !bytes.Contains(raw, []byte("400 Bad Request")) && (bytes.Contains(raw, []byte("<script>")) || bytes.Contains(raw, []byte("evil.example"))) {
		t.Errorf("a hostile Host was echoed into the page")
	}
	if got := requestBase(&http.Request{Host: `evil.example"><script>`}); got != "" {
		t.Errorf("requestBase of a hostile Host: %q, want none", got)
	}
	// Behind a proxy that ends TLS (Caddy's reverse_proxy, nginx with
	// proxy_set_header X-Forwarded-Proto $scheme).
	if _, page := get(t, base+"/", "X-Forwarded-Proto", "https"); !bytes.Contains(page, []byte("npx skills add https://"+strings.TrimPrefix(base, "http://"))) {
		t.Errorf("behind a TLS proxy, the install commands do not name https")
	}
	fixed, _ := start(t, dist, Options{BaseURL: "https://skills.example.com/"})
	if _, page := get(t, fixed+"/"); !bytes.Contains(page, []byte("npx skills add https://skills.example.com</code>")) {
		t.Errorf("with a base URL, the install commands do not name it")
	}
}

// TestSlowReader asks for a large archive, and over MCP for a large file
// (an answer the SDK writes whole), and reads nothing: the server must
// give up on the connection once a piece's write deadline passes, rather
// than hold it open for as long as the client likes (or the whole
// answer's time at the slowest rate: 1,024 such MCP clients held every
// connection for minutes), and keep serving others.
func TestSlowReader(t *testing.T) {
	skills, _ := newSkills(t)
	for _, f := range []struct {
		skill string
		size  int
	}{
		{"csv-profiler", 32 << 20},    // more than the socket buffers between us hold
		{"commit-messages", 10 << 20}, // base64: 14 MB, and within what MCP hosts take
	} {
		big := make([]byte, f.size)
		rand.Read(big) // incompressible: the archive is as large
		if err := os.MkdirAll(filepath.Join(skills, f.skill, "assets"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(skills, f.skill, "assets", "big.bin"), big, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	base, _ := start(t, dist, Options{writeTimeout: 100 * time.Millisecond})
	mcpRead := mcpRequest(base, "2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{`+newProtocolMeta+`,"uri":"skill://commit-messages/assets/big.bin"}}`)
	for _, c := range []struct {
		name string
		send func(io.Writer) error
		full int64 // at least what the whole answer is
	}{
		{"archive", func(w io.Writer) error {
			_, err := io.WriteString(w, "GET /"+archivePath(t, dist, ".zip")+" HTTP/1.1\r\nHost: x\r\n\r\n")
			return err
		}, 32 << 20},
		{"mcp", mcpRead.Write, 13 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := c.send(conn); err != nil {
				t.Fatal(err)
			}
			// Read nothing until the buffers between us are full and the
			// server's write has waited past its deadline (100 ms and half
			// a second for a 32 KiB piece at 64 KiB/s), then read what is
			// left: the server must have cut the connection, so the answer
			// ends short.
			time.Sleep(3 * time.Second)
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			n, err := io.Copy(io.Discard, conn)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || n >= c.full {
				t.Fatalf("the server kept sending to a client that did not read: %d bytes read, %v", n, err)
			}
			if resp, _ := get(t, base+"/"+layout.V2Index); resp.StatusCode != 200 {
				t.Errorf("after a slow reader: %d", resp.StatusCode)
			}
		})
	}
}

// ttlMs and cacheScope are in every result of a request whose protocol
// version has them (2026-07-28, named in the request's _meta), and in no
// result of a session opened with initialize at 2025-11-25.
func TestCacheHintsGate(t *testing.T) {
	calls := []struct{ method, params, field string }{
		{MethodListSkills, `{}`, "skills"},
		{MethodGetSkill, `{"uri":"skill://commit-messages/SKILL.md"}`, "skill"},
		{MethodReadDirectory, `{"uri":"skill://commit-messages"}`, "resources"},
		{"resources/list", `{}`, "resources"},
		{"resources/read", `{"uri":"skill://commit-messages/SKILL.md"}`, "contents"},
	}
	for _, c := range []struct {
		name  string
		hints bool
	}{{"2025-11-25", false}, {"2026-07-28", true}} {
		t.Run(c.name, func(t *testing.T) {
			s := New(open(t, pristine(t)), Options{})
			send, notify, end := rawStdio(t, s)
			defer end()
			meta := ""
			if c.hints {
				meta = newProtocolMeta
			} else {
				if m := send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + c.name + `","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`); m["result"] == nil {
					t.Fatalf("initialize: %v", m)
				}
				notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			for i, call := range calls {
				params := call.params
				switch {
				case meta != "" && params == "{}":
					params = "{" + meta + "}"
				case meta != "":
					params = "{" + meta + "," + params[1:]
				}
				m := send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, i+1, call.method, params))
				res, ok := m["result"].(map[string]any)
				if !ok {
					t.Fatalf("%s: no result: %v", call.method, m)
				}
				_, ttl := res["ttlMs"]
				_, scope := res["cacheScope"]
				if ttl != c.hints || scope != c.hints {
					t.Errorf("%s: ttlMs present %v, cacheScope present %v; want %v", call.method, ttl, scope, c.hints)
				}
				if res[call.field] == nil {
					t.Errorf("%s: the result lost its %s: %v", call.method, call.field, res)
				}
				// 2026-07-28 requires resultType of every result; clients
				// refuse a result without it.
				if c.hints && res["resultType"] != "complete" {
					t.Errorf("%s: resultType %v, want complete", call.method, res["resultType"])
				}
			}
		})
	}
}
