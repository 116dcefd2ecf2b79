package serve

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// pageSize is small so that five skills and a three-entry folder take
// several pages.
const pageSize = 2

func newClient(t *testing.T) *mcp.Client { return newClientWith(t, nil) }

// newClientWith is newClient with options (handlers of notifications).
func newClientWith(t *testing.T, opts *mcp.ClientOptions) *mcp.Client {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "0"}, opts)
	for _, err := range []error{
		mcp.AddSendingCustomMethod[*ListSkillsParams, *ListSkillsResult](c, MethodListSkills),
		mcp.AddSendingCustomMethod[*GetSkillParams, *GetSkillResult](c, MethodGetSkill),
		mcp.AddSendingCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](c, MethodReadDirectory),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// connectHTTP connects the SDK's client over streamable HTTP; version ""
// lets the SDK negotiate the newest protocol.
func connectHTTP(t *testing.T, base, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := newClient(t).Connect(ctx(t), &mcp.StreamableClientTransport{Endpoint: base + MCPPath},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectStdio serves s over an in-process pair of pipes, as `serve
// --stdio` serves stdin and stdout, and connects the SDK's client to it.
func connectStdio(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	return connectStdioWith(t, s, newClient(t))
}

// connectStdioWith is connectStdio with a client of the caller's.
func connectStdioWith(t *testing.T, s *Server, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	c, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(c, inR, outW); outW.Close() }()
	cs, err := client.Connect(ctx(t), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return")
		}
	})
	return cs
}

func code(err error) int64 {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return 0
}

func TestMCPStreamableHTTP(t *testing.T) {
	dist := pristine(t)
	base, _ := start(t, dist, Options{pageSize: pageSize})
	for _, version := range []string{"", "2025-11-25", "2025-06-18"} {
		t.Run("protocol="+version, func(t *testing.T) {
			cs := connectHTTP(t, base, version)
			// Stateless, the newest protocol is spoken over HTTP; a
			// stateful SDK handler refuses it with -32022.
			if got := cs.InitializeResult().ProtocolVersion; version == "" && got != modernSince {
				t.Errorf("negotiated %s over HTTP, want %s", got, modernSince)
			}
			// A session opened with initialize has no stream to hear of
			// changes on; 2026-07-28's subscriptions/listen has one.
			if got, want := cs.InitializeResult().Capabilities.Resources.ListChanged, version == ""; got != want {
				t.Errorf("resources.listChanged = %v over HTTP at protocol %q, want %v", got, version, want)
			}
			checkMCP(t, cs, dist)
		})
	}
}

func TestMCPStdio(t *testing.T) {
	dist := pristine(t)
	s := New(open(t, dist), Options{pageSize: pageSize})
	cs := connectStdio(t, s)
	if !cs.InitializeResult().Capabilities.Resources.ListChanged {
		t.Error("resources.listChanged is not declared over stdio, where changes are sent")
	}
	checkMCP(t, cs, dist)
}

// checkMCP runs every MCP check against one session.
func checkMCP(t *testing.T, cs *mcp.ClientSession, dist string) {
	c := ctx(t)

	// The capability, where the Inspector and ChatGPT look for it.
	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil {
		t.Error("the resources capability is not declared")
	}
	if got, want := caps.Extensions[Extension], map[string]any{"directoryRead": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("capabilities.extensions[%q] = %#v, want %v", Extension, got, want)
	}
	if caps.Experimental != nil {
		t.Errorf("capabilities.experimental = %v; the extension belongs under extensions only", caps.Experimental)
	}

	// ttlMs and cacheScope come only with protocol 2026-07-28 and later
	// (TestCacheHintsGate); the SDK's client negotiates an earlier one with
	// this server, over either transport, but may not always.
	hints := cs.InitializeResult().ProtocolVersion >= modernSince
	cacheable := func(c mcp.Cacheable) bool {
		if hints {
			return c.TTLMs > 0 && c.CacheScope == "public"
		}
		return c == mcp.Cacheable{}
	}

	// skills/list, page by page, equals mcp/skills.json.
	var want []any
	readJSON(t, dist, layout.MCPSkills, &want)
	var got []any
	cursor, pages := "", 0
	for {
		res, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](c, cs, MethodListSkills, &ListSkillsParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("skills/list page %d: %v", pages+1, err)
		}
		pages++
		if res.ResultType != "complete" || !cacheable(res.Cacheable) {
			t.Errorf("skills/list page %d: resultType %q, ttlMs %d, cacheScope %q", pages, res.ResultType, res.TTLMs, res.CacheScope)
		}
		if len(res.Skills) > pageSize {
			t.Errorf("skills/list page %d has %d skills, page size %d", pages, len(res.Skills), pageSize)
		}
		for _, s := range res.Skills {
			var v any
			json.Unmarshal(s, &v)
			got = append(got, v)
		}
		if cursor = res.NextCursor; cursor == "" || pages > 10 {
			break
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skills/list differs from %s:\n got %v\nwant %v", layout.MCPSkills, got, want)
	}
	if wantPages := (len(want) + pageSize - 1) / pageSize; pages != wantPages {
		t.Errorf("skills/list took %d pages, want %d", pages, wantPages)
	}

	// skills/get returns each element unchanged.
	for _, w := range want {
		uri := w.(map[string]any)["uri"].(string)
		res, err := mcp.CallCustomMethod[*GetSkillParams, *GetSkillResult](c, cs, MethodGetSkill, &GetSkillParams{URI: uri})
		if err != nil {
			t.Errorf("skills/get %s: %v", uri, err)
			continue
		}
		var g any
		json.Unmarshal(res.Skill, &g)
		if !reflect.DeepEqual(g, w) || res.ResultType != "complete" || !cacheable(res.Cacheable) {
			t.Errorf("skills/get %s: %+v", uri, res)
		}
	}

	// resources/list shows each SKILL.md with its frontmatter's name and
	// description.
	var listed []string
	for r, err := range cs.Resources(c, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		if r.MIMEType != "text/markdown" || !strings.HasSuffix(r.URI, "/"+r.Name+"/SKILL.md") || r.Description == "" {
			t.Errorf("resources/list: %+v", r)
		}
		listed = append(listed, r.URI)
	}
	if len(listed) != len(want) {
		t.Errorf("resources/list has %d resources, want one SKILL.md per skill (%d)", len(listed), len(want))
	}

	// resources/read: every URI of resources.json, exact bytes.
	var rs []layout.Resource
	readJSON(t, dist, layout.MCPResources, &rs)
	for _, r := range rs {
		res, err := cs.ReadResource(c, &mcp.ReadResourceParams{URI: r.URI})
		if err != nil {
			t.Errorf("resources/read %s: %v", r.URI, err)
			continue
		}
		if len(res.Contents) != 1 {
			t.Errorf("resources/read %s: %d contents", r.URI, len(res.Contents))
			continue
		}
		rc := res.Contents[0]
		data := rc.Blob
		if rc.Text != "" {
			data = []byte(rc.Text)
		}
		if d := digest(data); d != string(r.Digest) || rc.URI != r.URI || rc.MIMEType != r.MimeType {
			t.Errorf("resources/read %s: digest %s, uri %s, mimeType %s; want %s, %s, %s", r.URI, d, rc.URI, rc.MIMEType, r.Digest, r.URI, r.MimeType)
		}
		if strings.HasSuffix(r.URI, "/SKILL.md") && rc.Text == "" {
			t.Errorf("resources/read %s: SKILL.md came as blob; clients need it as text", r.URI)
		}
		if strings.HasSuffix(r.URI, ".tar.gz") && rc.Blob == nil {
			t.Errorf("resources/read %s: an archive came as text", r.URI)
		}
	}

	// resources/directory/read, with pagination.
	dir := func(uri string) ([]string, error) {
		var names []string
		cursor := ""
		for range 10 {
			res, err := mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](c, cs, MethodReadDirectory,
				&ReadDirectoryParams{URI: uri, Cursor: cursor})
			if err != nil {
				return nil, err
			}
			if res.ResultType != "complete" || !cacheable(res.Cacheable) || len(res.Resources) > pageSize {
				t.Errorf("directory read %s: %+v", uri, res)
			}
			for _, r := range res.Resources {
				names = append(names, r.Name+":"+r.MIMEType)
			}
			if cursor = res.NextCursor; cursor == "" {
				break
			}
		}
		return names, nil
	}
	for uri, want := range map[string]string{
		"skill://github-rest-api":            "SKILL.md:text/markdown references:inode/directory",
		"skill://github-rest-api/references": "README.md:text/markdown api:inode/directory guides:inode/directory",
		"skill://csv-profiler/scripts":       "profile.py:text/x-python",
		"skill://csv-profiler/scripts/":      "profile.py:text/x-python", // a trailing slash says "folder"
		"skill://github-rest-api/":           "SKILL.md:text/markdown references:inode/directory",
	} {
		got, err := dir(uri)
		if err != nil {
			t.Errorf("directory read %s: %v", uri, err)
		} else if strings.Join(got, " ") != want {
			t.Errorf("directory read %s: %q, want %q", uri, strings.Join(got, " "), want)
		}
	}

	// Errors: -32602 for anything unknown, and the session survives.
	errs := map[string]error{}
	_, errs["read unknown"] = cs.ReadResource(c, &mcp.ReadResourceParams{URI: "skill://nope/SKILL.md"})
	_, errs["read traversal"] = cs.ReadResource(c, &mcp.ReadResourceParams{URI: "skill://csv-profiler/../../etc/passwd"})
	_, errs["read file scheme"] = cs.ReadResource(c, &mcp.ReadResourceParams{URI: "file:///etc/passwd"})
	_, errs["read directory"] = cs.ReadResource(c, &mcp.ReadResourceParams{URI: "skill://csv-profiler"})
	_, errs["get unknown"] = mcp.CallCustomMethod[*GetSkillParams, *GetSkillResult](c, cs, MethodGetSkill, &GetSkillParams{URI: "skill://nope/SKILL.md"})
	_, errs["get not SKILL.md"] = mcp.CallCustomMethod[*GetSkillParams, *GetSkillResult](c, cs, MethodGetSkill, &GetSkillParams{URI: "skill://csv-profiler/scripts/profile.py"})
	_, errs["get no uri"] = mcp.CallCustomMethod[*GetSkillParams, *GetSkillResult](c, cs, MethodGetSkill, &GetSkillParams{})
	_, errs["list bad cursor"] = mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](c, cs, MethodListSkills, &ListSkillsParams{Cursor: "!!"})
	_, errs["list foreign cursor"] = mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](c, cs, MethodListSkills, &ListSkillsParams{Cursor: "YWJj"})
	_, errs["dir of a file"] = mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](c, cs, MethodReadDirectory, &ReadDirectoryParams{URI: "skill://csv-profiler/SKILL.md"})
	_, errs["dir unknown"] = mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](c, cs, MethodReadDirectory, &ReadDirectoryParams{URI: "skill://nope"})
	_, errs["dir two slashes"] = mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](c, cs, MethodReadDirectory, &ReadDirectoryParams{URI: "skill://csv-profiler//"})
	_, errs["read directory with a slash"] = cs.ReadResource(c, &mcp.ReadResourceParams{URI: "skill://csv-profiler/"})
	_, errs["dir bad cursor"] = mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](c, cs, MethodReadDirectory, &ReadDirectoryParams{URI: "skill://csv-profiler", Cursor: "%%"})
	_, errs["list long bad cursor"] = mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](c, cs, MethodListSkills, &ListSkillsParams{Cursor: strings.Repeat("!", 10000)})
	for name, err := range errs {
		if code(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %v (code %d), want -32602", name, err, code(err))
		}
	}
	if err := errs["list long bad cursor"]; err != nil && len(err.Error()) > 300 { // not echoed whole
		t.Errorf("a 10,000-character cursor's error is %d characters long", len(err.Error()))
	}
	if _, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](c, cs, MethodListSkills, &ListSkillsParams{}); err != nil {
		t.Errorf("skills/list after the errors: %v", err)
	}
}

// TestMCPLegacyIndex reads skill://index.json and checks it is
// mcp/index.json byte for byte, in the shape mcpc needs.
func TestMCPLegacyIndex(t *testing.T) {
	dist := pristine(t)
	cs := connectStdio(t, New(open(t, dist), Options{}))
	res, err := cs.ReadResource(ctx(t), &mcp.ReadResourceParams{URI: layout.IndexURI})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Skills []struct{ Name, URL string }
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &doc); err != nil {
		t.Fatal(err)
	}
	var want struct {
		Skills []struct{ Name, URL string }
	}
	readJSON(t, dist, layout.MCPIndex, &want)
	if len(doc.Skills) != 5 || !reflect.DeepEqual(doc, want) || res.Contents[0].MIMEType != "application/json" {
		t.Errorf("skill://index.json: %+v", res.Contents[0])
	}
	for _, s := range doc.Skills {
		if s.Name == "" || s.URL == "" {
			t.Errorf("entry without name or url: %+v", s)
		}
	}
}

// TestMCPChangedAfterStart checks that a file changed under a running
// server is never sent: the snapshot's bytes go out instead, or, for a
// file the snapshot keeps open and that was written in place, an internal
// error.
func TestMCPChangedAfterStart(t *testing.T) {
	dist := newDist(t)
	held, _ := serveBundle(t, openWith(t, dist, limits{small: -1, open: 1 << 20}), Options{})
	mem, _ := start(t, dist, Options{})
	orig, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(script)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dist, filepath.FromSlash(script)), flip(bytes.Clone(orig)), 0o644); err != nil {
		t.Fatal(err)
	}
	const uri = "skill://csv-profiler/scripts/profile.py"
	_, err = connectHTTP(t, held, "").ReadResource(ctx(t), &mcp.ReadResourceParams{URI: uri})
	if code(err) != jsonrpc.CodeInternalError || !strings.Contains(err.Error(), "changed after the bundle was built") {
		t.Errorf("changed file kept open: %v, want -32603 saying it changed", err)
	}
	res, err := connectHTTP(t, mem, "").ReadResource(ctx(t), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != string(orig) {
		t.Errorf("changed file in memory: %v, want the bytes verified at startup", err)
	}
	if _, err := connectHTTP(t, held, "").ReadResource(ctx(t), &mcp.ReadResourceParams{URI: "skill://csv-profiler/SKILL.md"}); err != nil {
		t.Errorf("unchanged file: %v", err)
	}
}

// TestMCPMalformed sends what no client should: bodies that are not
// JSON-RPC, over HTTP and over stdio. Each gets an error and the server
// keeps serving.
func TestMCPMalformed(t *testing.T) {
	dist := pristine(t)
	base, s := start(t, dist, Options{maxBodyBytes: 64 << 10})
	post := func(body string) int {
		req, _ := http.NewRequest("POST", base+MCPPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, body := range []string{"{not json", `[]`, `{"jsonrpc":"2.0","id":1,"method":5}`, `"x"`, strings.Repeat("[", 100<<10)} {
		if got := post(body); got < 400 || got > 499 {
			t.Errorf("POST %.30q: %d, want a 4xx", body, got)
		}
	}
	checkList := func(cs *mcp.ClientSession) {
		res, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](ctx(t), cs, MethodListSkills, &ListSkillsParams{})
		if err != nil || len(res.Skills) != 5 {
			t.Errorf("skills/list after malformed requests: %v", err)
		}
	}
	checkList(connectHTTP(t, base, ""))

	// stdio: a line that is not JSON gets a parse error, then the next
	// request is answered.
	send, notify, end := rawStdio(t, s)
	for line, want := range map[string]int64{
		"{not json":                           jsonrpc.CodeParseError,
		`"x"`:                                 jsonrpc.CodeInvalidRequest,
		`[]`:                                  jsonrpc.CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":1,"method":5}`: jsonrpc.CodeInvalidRequest,
		strings.Repeat("x", 70<<10):           jsonrpc.CodeInvalidRequest,
	} {
		if m := send(line); code(toErr(m)) != want || m["id"] != nil {
			t.Errorf("%.30q: %v, want error %d with id null", line, m, want)
		}
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	if m := send(init); m["result"] == nil {
		t.Fatalf("initialize after a bad line: %v", m)
	}
	// The SDK's session answers these with code 0, which is no JSON-RPC
	// code: a second initialize is an invalid request.
	if m := send(strings.Replace(init, `"id":1`, `"id":5`, 1)); code(toErr(m)) != jsonrpc.CodeInvalidRequest || m["id"] != float64(5) {
		t.Errorf("a second initialize: %v, want -32600", m)
	}
	notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// A batch, which the SDK would end the session at (MCP dropped
	// batches in 2025-06-18): an error, and the session goes on.
	if m := send(`[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]`); code(toErr(m)) != jsonrpc.CodeInvalidRequest || m["id"] != nil {
		t.Errorf("a batch: %v, want error -32600 with id null", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"uri":7}}`); code(toErr(m)) != jsonrpc.CodeInvalidParams {
		t.Errorf("skills/get with a number for uri: %v, want -32602", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":3,"method":"nope/nope"}`); code(toErr(m)) != jsonrpc.CodeMethodNotFound {
		t.Errorf("unknown method: %v, want -32601", m)
	}
	m := send(`{"jsonrpc":"2.0","id":4,"method":"skills/list"}`)
	res, _ := m["result"].(map[string]any)
	if skills, _ := res["skills"].([]any); len(skills) != 5 || res["resultType"] != "complete" {
		t.Errorf("skills/list without params: %v", m)
	}
	// A request with id null is owed an answer, which the SDK would not
	// give (it takes it for a notification): the next line is that, not
	// the answer to the ping after it.
	if m := send(`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":7,"method":"ping"}`); code(toErr(m)) != jsonrpc.CodeInvalidRequest || m["id"] != nil {
		t.Errorf("id null: %v first, want error -32600 with id null", m)
	}
	end()
}

// toErr turns the error member of a raw JSON-RPC response into an error.
func toErr(m map[string]any) error {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return nil
	}
	n, _ := e["code"].(float64)
	msg, _ := e["message"].(string)
	return &jsonrpc.Error{Code: int64(n), Message: msg}
}

// TestMCPSwap checks that resources/list follows a swapped bundle.
func TestMCPSwap(t *testing.T) {
	s := New(open(t, pristine(t)), Options{})
	cs := connectStdio(t, s)
	uris := func(cs *mcp.ClientSession) []string {
		var out []string
		for r, err := range cs.Resources(ctx(t), nil) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.URI)
		}
		slices.Sort(out)
		return out
	}
	before := uris(cs)
	b := open(t, pristine(t))
	b.entries = b.entries[:2] // as if three skills were removed
	s.Swap(b)
	// A new session: the client caches the old list for ttlMs.
	if after := uris(connectStdio(t, s)); len(before) != 5 || !reflect.DeepEqual(after, before[:2]) {
		t.Errorf("resources/list after a swap: %v, want %v", after, before[:2])
	}
}

// TestMCPResourceUpdated: a client subscribed to a file is told when a
// new build changes its bytes (notifications/resources/updated), and not
// of a file that stayed the same: told only that the list changed, the
// TypeScript SDK read what it had cached.
func TestMCPResourceUpdated(t *testing.T) {
	s := New(open(t, pristine(t)), Options{})
	updated := make(chan string, 10)
	cs := connectStdioWith(t, s, newClientWith(t, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	}))
	if !cs.InitializeResult().Capabilities.Resources.Subscribe {
		t.Fatal("resources.subscribe is not declared")
	}
	const changed, same = "skill://csv-profiler/SKILL.md", "skill://csv-profiler/scripts/profile.py"
	for _, uri := range []string{changed, same} {
		if err := cs.Subscribe(ctx(t), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	// At 2026-07-28 the subscription rides on a listen stream, which the
	// server may take up after Subscribe returns: swapped until told,
	// each build's SKILL.md another's.
	deadline := time.After(10 * time.Second)
	for n, told := 0, false; !told; n++ {
		b := open(t, pristine(t))
		if n%2 == 0 {
			b.files[skillMD].digest = layout.Digest("sha256:" + strings.Repeat("0", 64)) // as if rebuilt with other bytes
		}
		s.Swap(b)
		select {
		case uri := <-updated:
			if told = true; uri != changed {
				t.Errorf("told %s was updated, want %s", uri, changed)
			}
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no notifications/resources/updated for %s", changed)
		}
	}
	for quiet := time.After(200 * time.Millisecond); ; { // (of SKILL.md again, once per flip)
		select {
		case uri := <-updated:
			if uri != changed {
				t.Errorf("also told %s was updated", uri)
			}
			continue
		case <-quiet:
		}
		break
	}

	// A client of 2025-11-25 subscribes with resources/subscribe: over
	// stdio it is told too; over HTTP its session has no stream to be
	// told on, so the method is not there, as initialize declared.
	send, notify, end := rawStdio(t, s)
	defer end()
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := send(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"` + changed + `"}}`); m["result"] == nil {
		t.Fatalf("resources/subscribe over stdio: %v", m)
	}
	// SKILL.md's bytes changed again (a third digest); swapped while the
	// client reads, as the server's notifications wait for it to.
	b := open(t, pristine(t))
	b.files[skillMD].digest = layout.Digest("sha256:" + strings.Repeat("1", 64))
	go s.Swap(b)
	told := false
	for i, deadline := 0, time.Now().Add(10*time.Second); !told && time.Now().Before(deadline); i++ {
		m := send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 10+i)) // a line: a notification, or the answer
		p, _ := m["params"].(map[string]any)
		told = m["method"] == "notifications/resources/updated" && p["uri"] == changed
	}
	if !told {
		t.Errorf("a 2025-11-25 client subscribed over stdio was not told %s changed", changed)
	}
	select { // the first client is told last; then nothing is left to send it
	case <-updated:
	case <-time.After(10 * time.Second):
		t.Errorf("the 2026-07-28 client was not told %s changed again", changed)
	}
	base, _ := serveBundle(t, open(t, pristine(t)), Options{})
	_, id, _ := postMCP(t, base, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if _, _, m := postMCP(t, base, id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+changed+`"}}`); code(toErr(m)) != jsonrpc.CodeMethodNotFound {
		t.Errorf("resources/subscribe over HTTP at 2025-11-25: %v, want method not found", m)
	}
}

// TestMCPMalformedTable sends every kind of malformed input over stdio and
// over HTTP, each followed by a good request: each gets the JSON-RPC error
// it calls for, and the server keeps serving.
func TestMCPMalformedTable(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, tc := range []struct {
		name, line string
		code       int64 // over stdio; 0 = a result
	}{
		{"not JSON", "{not json", jsonrpc.CodeParseError},
		{"batch", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, jsonrpc.CodeInvalidRequest},
		{"deeply nested", `{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":` + deep + `}}`, jsonrpc.CodeParseError},
		{"huge", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("x", 70<<10) + `"}}`, jsonrpc.CodeInvalidRequest},
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"nope/nope"}`, jsonrpc.CodeMethodNotFound},
		{"bad params", `{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":7}}`, jsonrpc.CodeInvalidParams},
		{"params not an object", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":[1]}`, jsonrpc.CodeInvalidParams},
		{"control character in a URI", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"skill://a\u007f\u0000"}}`, jsonrpc.CodeInvalidParams},
		{"no id, no method", `{"jsonrpc":"2.0"}`, jsonrpc.CodeInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(open(t, pristine(t)), Options{maxBodyBytes: 64 << 10})
			send, notify, end := rawStdio(t, s)
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
			notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			if m := send(tc.line); code(toErr(m)) != tc.code {
				t.Errorf("stdio: %.200v, want error %d", m, tc.code)
			}
			if m := send(`{"jsonrpc":"2.0","id":9,"method":"skills/list"}`); m["result"] == nil {
				t.Errorf("stdio: skills/list after it: %v", m)
			}
			if err := end(); err != nil {
				t.Errorf("ServeStdio: %v", err)
			}

			// Over HTTP, in a session: a 4xx, or the same error.
			base, _ := serveBundle(t, open(t, pristine(t)), Options{maxBodyBytes: 64 << 10})
			_, id, _ := postMCP(t, base, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
			postMCP(t, base, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			status, _, m := postMCP(t, base, id, tc.line)
			if (status < 400 || status > 499) && code(toErr(m)) != tc.code {
				t.Errorf("HTTP: %d %.200v, want a 4xx or error %d", status, m, tc.code)
			}
			if status, _, m := postMCP(t, base, id, `{"jsonrpc":"2.0","id":9,"method":"skills/list"}`); status != 200 || m["result"] == nil {
				t.Errorf("HTTP: skills/list after it: %d %v", status, m)
			}
		})
	}
}

// TestMCPMalformedModern sends bad requests of protocol 2026-07-28 (per-
// request _meta, no session) over stdio and over stateless HTTP, each
// followed by a good one: each gets the JSON-RPC error the specification
// names, on both transports alike, and the server keeps serving.
func TestMCPMalformedModern(t *testing.T) {
	meta := newProtocolMeta
	req := func(method, params string) string {
		if params != "" {
			params = "," + params
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":%q,"params":{%s%s}}`, method, meta, params)
	}
	const unsupportedVersion = -32022 // SEP-2575: data.supported lists the versions
	resourceNotFound := mcp.CodeResourceNotFound
	for _, tc := range []struct {
		name, line string
		code       int64
		http       int64 // over HTTP, where not code
	}{
		{"no _meta", `{"jsonrpc":"2.0","id":3,"method":"skills/list","params":{}}`, jsonrpc.CodeInvalidParams, 0},
		{"_meta without clientCapabilities", `{"jsonrpc":"2.0","id":3,"method":"skills/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, jsonrpc.CodeInvalidParams, 0},
		{"unknown version", strings.Replace(req(MethodListSkills, ""), "2026-07-28", "2099-01-01", 1), unsupportedVersion, 0},
		{"unknown method", req("nope/nope", ""), jsonrpc.CodeMethodNotFound, 0},
		{"undeclared capability", req("completion/complete", `"ref":{"type":"ref/resource","uri":"skill://x"},"argument":{"name":"a","value":"b"}`), jsonrpc.CodeMethodNotFound, 0},
		{"unknown skill", req(MethodGetSkill, `"uri":"skill://nope/SKILL.md"`), jsonrpc.CodeInvalidParams, 0},
		{"dot-dot in a URI", req("resources/read", `"uri":"skill://commit-messages/../../etc/passwd"`), resourceNotFound, 0},
		// Over HTTP such a URI travels base64-wrapped in Mcp-Name
		// (SEP-2243), which must be decoded before the SDK compares it with
		// the body (go-sdk v1.8.0 refused it: decodeName).
		{"control character in a URI", req("resources/read", `"uri":"skill://a\u007f\u0000"`), resourceNotFound, 0},
		{"non-ASCII URI", req("resources/read", `"uri":"skill://commit-messages/références/café.md"`), resourceNotFound, 0},
		{"directory as a file", req("resources/read", `"uri":"skill://github-rest-api/references"`), jsonrpc.CodeInvalidParams, 0},
		{"bad cursor", req(MethodListSkills, `"cursor":"%%%"`), jsonrpc.CodeInvalidParams, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(open(t, pristine(t)), Options{maxBodyBytes: 64 << 10})
			send, _, end := rawStdio(t, s)
			m := send(tc.line)
			if code(toErr(m)) != tc.code {
				t.Errorf("stdio: %.300v, want error %d", m, tc.code)
			}
			if e, _ := m["error"].(map[string]any); tc.code == unsupportedVersion && e["data"] == nil {
				t.Errorf("stdio: %v: no data naming the supported versions", m)
			}
			if m := send(req(MethodListSkills, "")); m["result"] == nil {
				t.Errorf("stdio: skills/list after it: %v", m)
			}
			if err := end(); err != nil {
				t.Errorf("ServeStdio: %v", err)
			}

			base, _ := serveBundle(t, open(t, pristine(t)), Options{maxBodyBytes: 64 << 10})
			version := modernSince // in the header, as in the body
			if tc.code == unsupportedVersion {
				version = "2099-01-01"
			}
			status, _, m := postMCPAt(t, base, version, "", tc.line)
			if want := cmp.Or(tc.http, tc.code); status >= 500 || code(toErr(m)) != want {
				t.Errorf("HTTP: %d %.300v, want error %d", status, m, want)
			}
			if status, _, m := postMCPAt(t, base, modernSince, "", req(MethodListSkills, "")); status != 200 || m["result"] == nil {
				t.Errorf("HTTP: skills/list after it: %d %v", status, m)
			}
		})
	}
}

// TestMCPNoTools lists the tools and prompts, of which serve has none, as
// Codex and the Copilot CLI do on connecting whatever serve declares:
// each is an empty list, not "method not found", which those hosts count
// as a failed start; over stdio and HTTP.
func TestMCPNoTools(t *testing.T) {
	base, _ := serveBundle(t, open(t, pristine(t)), Options{})
	send, _, end := rawStdio(t, New(open(t, pristine(t)), Options{}))
	for _, list := range []string{"tools", "prompts"} {
		line := `{"jsonrpc":"2.0","id":1,"method":"` + list + `/list","params":{` + newProtocolMeta + `}}`
		_, _, overHTTP := postMCPAt(t, base, modernSince, "", line)
		for how, m := range map[string]map[string]any{"stdio": send(line), "HTTP": overHTTP} {
			if r, _ := m["result"].(map[string]any); r == nil || r[list] == nil || len(r[list].([]any)) != 0 {
				t.Errorf("%s/list over %s: %.300v, want an empty list", list, how, m)
			}
		}
	}
	if err := end(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestMCPOddIDs sends requests whose id is a number the SDK would answer
// under another id (it reads ids as float64 and answers their int64): each
// is refused with its own id, over stdio and HTTP; a string id and an
// integer are answered.
func TestMCPOddIDs(t *testing.T) {
	list := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + MethodListSkills + `","params":{` + newProtocolMeta + `}}`
	}
	base, _ := serveBundle(t, open(t, pristine(t)), Options{})
	s := New(open(t, pristine(t)), Options{})
	send, _, end := rawStdio(t, s)
	for _, tc := range []struct {
		id   string
		code int64 // 0: a result
	}{
		{"1.5", jsonrpc.CodeInvalidRequest},
		{"9007199254740993", jsonrpc.CodeInvalidRequest},
		{"18446744073709551616", jsonrpc.CodeInvalidRequest},
		{"-1e300", jsonrpc.CodeInvalidRequest},
		{"true", jsonrpc.CodeInvalidRequest},
		{"9007199254740991", 0},
		{"-7", 0},
		{"2.0", 0},
		{`"1.5"`, 0},
	} {
		var want any
		json.Unmarshal([]byte(tc.id), &want)
		m := send(list(tc.id))
		if code(toErr(m)) != tc.code || m["id"] != want {
			t.Errorf("stdio, id %s: %v, want error %d with the id sent", tc.id, m, tc.code)
		}
		_, _, m = postMCPAt(t, base, modernSince, "", list(tc.id))
		if code(toErr(m)) != tc.code || m["id"] != want {
			t.Errorf("HTTP, id %s: %v, want error %d with the id sent", tc.id, m, tc.code)
		}
	}
	if err := end(); err != nil {
		t.Error(err)
	}
}

// postMCP posts one message in session id ("" = none) and returns the
// status, the session id the response gives, and the JSON-RPC message in
// the body (sent as JSON or as an event stream), if any.
func postMCP(t *testing.T, base, id, body string) (int, string, map[string]any) {
	t.Helper()
	return postMCPAt(t, base, "2025-11-25", id, body)
}

// mcpRequest is a POST of body to base's MCP endpoint at a protocol
// version, with the headers a client of that version sends.
func mcpRequest(base, version, body string) *http.Request {
	req, _ := http.NewRequest("POST", base+MCPPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	if version >= modernSince {
		// SEP-2243: the method and the URI travel as headers too.
		var m struct {
			Method string
			Params struct{ URI string }
		}
		json.Unmarshal([]byte(body), &m)
		req.Header.Set("Mcp-Method", m.Method)
		if uri := m.Params.URI; uri != "" {
			if strings.ContainsFunc(uri, func(r rune) bool { return r < ' ' || r > '~' }) {
				uri = "=?base64?" + base64.StdEncoding.EncodeToString([]byte(uri)) + "?="
			}
			req.Header.Set("Mcp-Name", uri)
		}
	}
	return req
}

// postMCPAt is postMCP at another protocol version.
func postMCPAt(t *testing.T, base, version, id, body string) (int, string, map[string]any) {
	t.Helper()
	req := mcpRequest(base, version, body)
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	for _, line := range strings.Split(string(data), "\n") {
		if msg, ok := strings.CutPrefix(line, "data: "); ok {
			data = []byte(msg)
		}
	}
	json.Unmarshal(data, &m)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), m
}

// TestMCPBeforeInitialize sends requests before initialize: each is
// refused, and initialize still works after them.
func TestMCPBeforeInitialize(t *testing.T) {
	s := New(open(t, pristine(t)), Options{})
	send, _, end := rawStdio(t, s)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://csv-profiler/SKILL.md"}}`,
	} {
		if m := send(line); code(toErr(m)) != jsonrpc.CodeInvalidParams || m["id"] == nil {
			t.Errorf("%s before initialize: %v, want error %d with the request's id", line, m, jsonrpc.CodeInvalidParams)
		}
	}
	if m := send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`); m["result"] == nil {
		t.Errorf("initialize after refused requests: %v", m)
	}
	end()
}

// rawStdio runs s.ServeStdio on pipes. send writes one line and returns
// the answer, which must be a JSON object; notify writes a line that gets
// none; end closes the input and returns what ServeStdio returned.
func rawStdio(t *testing.T, s *Server) (send func(line string) map[string]any, notify func(line string), end func() error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(c, inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send = func(line string) map[string]any {
		t.Helper()
		go io.WriteString(inW, line+"\n")
		if !lines.Scan() {
			t.Fatalf("no answer to %.40q: %v", line, lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("the answer to %.40q is not JSON: %.200q", line, lines.Text())
		}
		return m
	}
	notify = func(line string) { go io.WriteString(inW, line+"\n") }
	end = func() error {
		go func() { // what the server still writes (notifications) must not hold it up
			for lines.Scan() {
			}
		}()
		inW.Close()
		return <-done
	}
	return send, notify, end
}

// TestStdioBounded writes requests to `serve --stdio` faster than it
// reads the answers: serve takes no more than maxInFlight requests it has
// not answered, so the rest wait in the client's pipe, not in serve's
// memory (the SDK alone reads every line at once: 200,000 requests held
// 1 GB).
func TestStdioBounded(t *testing.T) {
	s := New(open(t, pristine(t)), Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(c, inR, outW); outW.Close() }()
	const n = 3000
	var written, read, most atomic.Int64
	go func() {
		for i := range n {
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{%s}}`+"\n", i, newProtocolMeta)
			if _, err := io.WriteString(inW, line); err != nil {
				return
			}
			if ahead := written.Add(1) - read.Load(); ahead > most.Load() {
				most.Store(ahead)
			}
		}
		inW.Close()
	}()
	lines := bufio.NewScanner(outR)
	for lines.Scan() {
		if read.Add(1)%10 == 0 {
			time.Sleep(time.Millisecond) // a slow reader
		}
	}
	<-done
	if read.Load() != n {
		t.Errorf("%d answers to %d requests", read.Load(), n)
	}
	// maxInFlight in the SDK, and what the guard's bufio.Reader read ahead
	// (4 KiB of lines of ~150 bytes).
	if m := most.Load(); m > maxInFlight+40 {
		t.Errorf("serve took %d requests it had not answered; at most %d are held", m, maxInFlight)
	}
}

// TestMCPTurns: an MCP request over HTTP waits while every turn is taken,
// and is answered once one is given back; a subscriptions/listen stream,
// which lasts, takes no turn.
func TestMCPTurns(t *testing.T) {
	base, s := start(t, pristine(t), Options{})
	for range cap(s.turns) {
		s.turns <- struct{}{}
	}
	listen := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{` + newProtocolMeta + `,"notifications":{"resourcesListChanged":true}}}`
	req := mcpRequest(base, modernSince, listen)
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(c))
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "event: message") {
		t.Fatalf("subscriptions/listen while every turn is taken: %q, %v", line, err)
	}
	cancel()
	resp.Body.Close()
	answered := make(chan int, 1)
	go func() {
		body := `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{` + newProtocolMeta + `}}`
		resp, err := http.DefaultClient.Do(mcpRequest(base, modernSince, body))
		if err != nil {
			answered <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	select {
	case code := <-answered:
		t.Fatalf("answered (%d) while every turn was taken", code)
	case <-time.After(300 * time.Millisecond):
	}
	<-s.turns
	select {
	case code := <-answered:
		if code != http.StatusOK {
			t.Errorf("answered %d once a turn was free, want 200", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not answered once a turn was free")
	}
	for range cap(s.turns) - 1 {
		<-s.turns
	}
}

// TestMCPEscapedURI: resources.json writes a path as it is but for "%",
// "#" and "?", which it percent-encodes; a client that builds a URI with
// new URL() or a {+path} expansion percent-encodes a space or non-ASCII
// too, and a {+path} expansion of the template keeps "#" and "?" as they
// are: every form reads the file, and a "%" that begins no escape is read
// as itself.
func TestMCPEscapedURI(t *testing.T) {
	skills := filepath.Join(t.TempDir(), "skills")
	files := map[string]string{
		"odd/SKILL.md":            "---\nname: odd\ndescription: Files with odd names. Use when testing URIs.\n---\n\nSee references/.\n",
		"odd/references/a b.md":   "space\n",
		"odd/references/说明.md":    "cjk\n",
		"odd/references/100%.md":  "percent as written\n",
		"odd/references/c d.md":   "decoded\n",
		"odd/references/c%20d.md": "as written\n",
		"odd/references/x y/z.md": "in a folder\n",
		"odd/references/F#/C#.md": "sharp\n",
		"odd/references/what?.md": "question\n",
		"odd/scripts/__init__.py": "",
	}
	testtool.WriteTree(t, skills, files)
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	cs := connectStdio(t, New(open(t, dist), Options{}))
	c := ctx(t)
	for uri, want := range map[string]string{
		"skill://odd/references/a b.md":                   "space\n",
		"skill://odd/references/a%20b.md":                 "space\n",
		"skill://odd/references/%E8%AF%B4%E6%98%8E.md":    "cjk\n",
		"skill://odd/references/100%25.md":                "percent as written\n",
		"skill://odd/references/100%.md":                  "percent as written\n",
		"skill://odd/references/c%2520d.md":               "as written\n",
		"skill://odd/references/c%20d.md":                 "decoded\n",
		"skill://odd/references/c d.md":                   "decoded\n",
		"skill://odd/references/F%23/C%23.md":             "sharp\n",
		"skill://odd/references/what%3F.md":               "question\n",
		"skill://odd/references/what%3f.md":               "question\n",
		"skill://odd/references/F#/C#.md":                 "sharp\n",
		"skill://odd/references/what?.md":                 "question\n",
		"skill://odd/references/F#/C%23.md":               "sharp\n",
		"skill://odd/references/x%20y/z.md":               "in a folder\n",
		"skill://odd/references/%E8%AF%B4%E6%98%8E.md?no": "",
	} {
		res, err := cs.ReadResource(c, &mcp.ReadResourceParams{URI: uri})
		switch {
		case want == "" && err == nil:
			t.Errorf("resources/read %s: no error; it names no file", uri)
		case want == "":
		case err != nil:
			t.Errorf("resources/read %s: %v", uri, err)
		case res.Contents[0].Text != want || res.Contents[0].URI != uri:
			t.Errorf("resources/read %s: %q at %s, want %q", uri, res.Contents[0].Text, res.Contents[0].URI, want)
		}
	}
	res, err := mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](c, cs, MethodReadDirectory, &ReadDirectoryParams{URI: "skill://odd/references/x%20y"})
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "skill://odd/references/x y/z.md" {
		t.Errorf("%s of an escaped folder URI: %v, %v", MethodReadDirectory, res, err)
	}
	// An empty file's size is 0, not left out as unknown; a folder has none.
	sizes := func(uri string) (got []string) {
		res, err := mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](c, cs, MethodReadDirectory, &ReadDirectoryParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			if got = append(got, r.Name); r.Size != nil {
				got = append(got, strconv.FormatInt(*r.Size, 10))
			}
		}
		return got
	}
	if got := strings.Join(append(sizes("skill://odd"), sizes("skill://odd/scripts")...), " "); !regexp.MustCompile(`^SKILL\.md [1-9][0-9]* references scripts __init__\.py 0$`).MatchString(got) {
		t.Errorf("%s: %q, want folders with no size, an empty file of size 0", MethodReadDirectory, got)
	}
	res, err = mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](c, cs, MethodReadDirectory, &ReadDirectoryParams{URI: "skill://odd/references/F%23"})
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "skill://odd/references/F%23/C%23.md" || res.Resources[0].Name != "C#.md" {
		t.Errorf("%s of a folder named with #: %v, %v", MethodReadDirectory, res, err)
	}
	// What skills/list gives is what a URL parser reads as the files'
	// paths (the SDK refuses a fragment or query).
	list, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](c, cs, MethodListSkills, &ListSkillsParams{})
	if err != nil || len(list.Skills) != 1 {
		t.Fatal(list, err)
	}
	var entry layout.SkillMCP
	if err := json.Unmarshal(list.Skills[0], &entry); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range entry.Resources {
		if u, err := url.Parse(r.URI); err == nil && u.Fragment == "" && u.RawQuery == "" && u.Host == "odd" {
			paths = append(paths, u.Path)
		}
	}
	slices.Sort(paths)
	var want []string
	for name := range files {
		want = append(want, strings.TrimPrefix(name, "odd"))
	}
	slices.Sort(want)
	if !slices.Equal(paths, want) {
		t.Errorf("resources/list, read as URLs: %q, want %q", paths, want)
	}
}

// TestStdioIDInUse: a request whose id is that of one not yet answered (a
// subscriptions/listen stream lasts) gets an invalid-request error; the
// SDK dropped it without a word, and the client waited for ever.
func TestStdioIDInUse(t *testing.T) {
	send, _, end := rawStdio(t, New(open(t, pristine(t)), Options{}))
	listen := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + newProtocolMeta + `,"notifications":{"resourcesListChanged":true}}}`
	if m := send(listen); m["error"] != nil {
		t.Fatalf("subscriptions/listen: %v", m)
	}
	list := `{"jsonrpc":"2.0","id":%d,"method":"skills/list","params":{` + newProtocolMeta + `}}`
	m := send(fmt.Sprintf(list, 7))
	if e, _ := m["error"].(map[string]any); m["id"] != float64(7) || e["code"] != float64(jsonrpc.CodeInvalidRequest) || !strings.Contains(fmt.Sprint(e["message"]), "not yet answered") {
		t.Errorf("skills/list under the listen stream's id: %v", m)
	}
	if m := send(fmt.Sprintf(list, 8)); m["result"] == nil {
		t.Errorf("skills/list after: %v", m)
	}
	_ = end // the listen stream would hold it for drainTimeout; the test's cleanup ends the session
}
