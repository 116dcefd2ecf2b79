package serve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// Extension is the MCP Skills extension's identifier, the key under
// capabilities.extensions.
const Extension = "io.modelcontextprotocol/skills"

// The extension's methods. The SDK knows none of them; they are added with
// mcp.AddReceivingCustomMethod, so they pass through the SDK's middleware,
// session and protocol-version handling like any standard method.
const (
	MethodListSkills    = "skills/list"
	MethodGetSkill      = "skills/get"
	MethodReadDirectory = "resources/directory/read"
)

// resultComplete is the resultType of every result here: the extension
// requires it, and nothing here ever asks the client for more input.
const resultComplete = "complete"

// ListSkillsParams are the params of skills/list.
type ListSkillsParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// ListSkillsResult is a page of skills/list. Each skill is an element of
// mcp/skills.json exactly as the build wrote it.
type ListSkillsResult struct {
	mcp.ResultBase
	mcp.Cacheable                   // first, as in the SDK's results: see uncached
	ResultType    string            `json:"resultType"`
	Skills        []json.RawMessage `json:"skills"`
	NextCursor    string            `json:"nextCursor,omitempty"`
}

// GetSkillParams are the params of skills/get.
type GetSkillParams struct {
	mcp.ParamsBase
	URI string `json:"uri"` // of the skill's SKILL.md
}

// GetSkillResult is the answer to skills/get.
type GetSkillResult struct {
	mcp.ResultBase
	mcp.Cacheable                 // first, as in the SDK's results: see uncached
	ResultType    string          `json:"resultType"`
	Skill         json.RawMessage `json:"skill"`
}

// ReadDirectoryParams are the params of resources/directory/read.
type ReadDirectoryParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"` // no trailing slash
	Cursor string `json:"cursor,omitempty"`
}

// ReadDirectoryResult is a page of a folder's direct children: files with
// their resource metadata, folders as inode/directory.
type ReadDirectoryResult struct {
	mcp.ResultBase
	mcp.Cacheable         // first, as in the SDK's results: see uncached
	ResultType    string  `json:"resultType"`
	Resources     []Entry `json:"resources"`
	NextCursor    string  `json:"nextCursor,omitempty"`
}

// Entry is a folder's child. Size is the file's, 0 too: the SDK's
// Resource leaves a size of 0 out, which MCP reads as "unknown".
type Entry struct {
	*mcp.Resource
	Size *int64 `json:"size,omitempty"`
}

// skillTemplate matches every skill:// URI, so that resources/read reaches
// s.read for the files and archives that resources/list leaves out; s.read
// answers only for the URIs of mcp/resources.json.
const skillTemplate = layout.URIScheme + "{+path}"

func (s *Server) newMCP() *mcp.Server {
	// Tools and prompts, of which there are none, are declared all the
	// same: Codex and the Copilot CLI call tools/list whatever a server
	// declares, and count its "method not found" as a failed start.
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{ListChanged: true},
		Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{}}
	caps.AddExtension(Extension, map[string]any{"directoryRead": true})
	srv := mcp.NewServer(&mcp.Implementation{Name: "skillpack", Version: version.Version()}, &mcp.ServerOptions{
		Capabilities: caps,
		PageSize:     s.opts.pageSize,
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
			if c.TTLMs == 0 {
				c.TTLMs = s.ttl()
			}
		},
		// Any URI may be subscribed to, as in the reference server: one
		// that a later build serves is told of then (register).
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: skillTemplate,
		Name:        "skill-files",
		Description: "Every file and archive of the skills this server publishes; skills/list gives each with its digest.",
	}, s.read)
	// Every resources/read is answered by s.read, which knows every URI
	// served: the SDK's handler answers an unknown URI holding a control
	// character with invalid JSON, which ends the session, and its template
	// cannot match every URI a bundle serves (a space, non-ASCII); s.read's
	// results get the resultType 2026-07-28 requires (complete). Every
	// result loses ttlMs and cacheScope unless the request's protocol
	// version has them (modern), which the SDK does not ask.
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			// Over HTTP a session opened with initialize has no stream to
			// hear of updates on, and is not promised them (unlisted).
			legacyHTTP := req.GetExtra() != nil && req.GetExtra().Header != nil && !modern(req)
			if undeclared[method] || legacyHTTP && (method == "resources/subscribe" || method == "resources/unsubscribe") {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
			}
			if r, ok := req.(*mcp.ReadResourceRequest); ok && method == "resources/read" && r.Params != nil {
				res, err := s.read(ctx, r)
				switch {
				case err != nil:
					return nil, err
				case modern(req):
					return complete{res}, nil
				}
				return uncached{res}, nil
			}
			res, err := next(ctx, method, req)
			if init, ok := res.(*mcp.InitializeResult); ok && req.GetExtra() != nil && req.GetExtra().Header != nil {
				return unlisted(init), nil
			}
			if _, ok := res.(mcp.CacheableResult); ok && err == nil && !modern(req) {
				return uncached{res}, nil
			}
			return res, err
		}
	})
	// Registration fails only for a standard method's name: a bug here.
	must(mcp.AddReceivingCustomMethod(srv, MethodListSkills, s.listSkills))
	must(mcp.AddReceivingCustomMethod(srv, MethodGetSkill, s.getSkill))
	must(mcp.AddReceivingCustomMethod(srv, MethodReadDirectory, s.readDirectory))
	return srv
}

// unlisted is initialize's result over HTTP, without resources'
// listChanged: a session opened with initialize has no stream here to hear
// of changes on (stateless HTTP refuses the GET stream), so promising them
// would leave the client's list stale. 2026-07-28 clients ask
// server/discover and listen with subscriptions/listen, which is served.
func unlisted(r *mcp.InitializeResult) *mcp.InitializeResult {
	res, caps := *r, *r.Capabilities
	caps.Resources = &mcp.ResourceCapabilities{}
	res.Capabilities = &caps
	return &res
}

// undeclared are the methods of capabilities this server does not declare,
// which the SDK answers all the same: a client must be told they are not
// found, as server/discover's capabilities promise (the conformance suite
// checks).
var undeclared = map[string]bool{"completion/complete": true, "logging/setLevel": true}

// modern reports whether a request speaks protocol 2026-07-28 or later,
// whose results carry resultType, ttlMs and cacheScope (SEP-2640). Such a
// request names its version in _meta (SEP-2575); one in a session opened
// with initialize does not, and speaks 2025-11-25 at most (the SDK's
// highest there), whatever the client asked for.
func modern(req mcp.Request) bool {
	p := req.GetParams()
	if v := reflect.ValueOf(p); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		return false // no params, so no _meta; GetMeta would dereference nil
	}
	v, _ := p.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	return v >= modernSince
}

// modernSince is the first protocol version with resultType, ttlMs and
// cacheScope. Versions are dates, so they compare as strings.
const modernSince = "2026-07-28"

// complete is a result of resources/read at 2026-07-28, with the
// resultType the SDK keeps unexported, added last as the SDK adds it: the
// JSON is extended where it was written, not copied (a file's text is most
// of a read's bytes).
type complete struct{ mcp.Result }

func (c complete) MarshalJSON() ([]byte, error) {
	data, err := marshal(c.Result)
	if err != nil {
		return nil, err
	}
	body := bytes.TrimRight(data[:len(data)-1], " \t\r\n") // up to the closing brace
	if !bytes.HasSuffix(body, []byte("{")) {
		body = append(body, ',')
	}
	return append(body, `"resultType":"`+resultComplete+`"}`...), nil
}

// marshal is json.Marshal of a result without its check of what a
// MarshalJSON method returns: the SDK checks every result's JSON anyway,
// twice, as it writes the response.
func marshal(r mcp.Result) ([]byte, error) {
	if m, ok := r.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return json.Marshal(r)
}

// uncached is a result without ttlMs and cacheScope, for a client whose
// protocol version has neither. The SDK always writes both (its Cacheable
// has no omitempty), so they are cut out of the JSON, among the object's
// first members (Cacheable comes before a result's own fields): a large
// result is encoded once and scanned only up to them.
type uncached struct{ mcp.Result }

func (u uncached) MarshalJSON() ([]byte, error) {
	data, err := marshal(u.Result)
	if err != nil {
		return nil, err
	}
	return withoutMembers(data, "ttlMs", "cacheScope")
}

// withoutMembers removes the named members of the JSON object data,
// reading it only up to the last of them, in place: the result is data's
// own storage, so that a large object is not copied.
func withoutMembers(data []byte, names ...string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %.40q", data)
	}
	out := []byte{'{'} // the members kept before the last one removed
	found := 0
	for found < len(names) && dec.More() {
		from := dec.InputOffset() // after the member before, if any
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		if k, _ := key.(string); slices.Contains(names, k) {
			found++
			continue
		}
		member := bytes.TrimLeft(data[from:dec.InputOffset()], " \t\r\n,")
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, member...)
	}
	// The rest: more members, each after a comma, then the closing brace.
	rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")
	if len(out) == 1 {
		rest = bytes.TrimLeft(rest, ",")
	}
	// Both move towards the start (out is no longer than what it was read
	// from), and copy allows the overlap.
	n := copy(data, out)
	n += copy(data[n:], rest)
	return data[:n], nil
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// ttl is the ttlMs of MCP results: index.json's max-age over HTTP; 0,
// stale at once, as HTTP's no-cache.
func (s *Server) ttl() int { return int(s.opts.Cache.Index.Milliseconds()) }

func (s *Server) cacheable() mcp.Cacheable {
	return mcp.Cacheable{TTLMs: s.ttl(), CacheScope: "public"}
}

// register makes resources/list show the SKILL.md files of next instead of
// those of prev. The SDK tells subscribed clients the list changed, and
// register those subscribed to a resource whose bytes changed: told only
// that the list changed, a client may read what it cached of a file.
func (s *Server) register(prev, next *Held) {
	keep := map[string]bool{}
	for _, r := range next.entries {
		keep[r.URI] = true
	}
	if prev != nil {
		var gone []string
		for _, r := range prev.entries {
			if !keep[r.URI] {
				gone = append(gone, r.URI)
			}
		}
		s.mcp.RemoveResources(gone...)
		var changed []string
		for p, f := range next.files {
			old := prev.files[p]
			if pp, ok := layout.ParsePath(p); ok && f.resource && old != nil && old.digest != f.digest && pp.URI() != "" {
				changed = append(changed, pp.URI())
			}
		}
		// Sent apart: a client slow to read must not hold up the swap.
		go func() {
			for _, uri := range changed {
				s.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
			}
		}()
	}
	for _, r := range next.entries {
		s.mcp.AddResource(r, s.read)
	}
}

// invalidParams is the error for an unknown URI, skill or cursor: -32602,
// which the extension prescribes for unknown skills and directories and
// the base protocol for unknown resources.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// notFound is the error for a URI no resource has: mcp.ResourceNotFoundError's
// code and data, with the URI encoded as JSON (the SDK quotes it the Go
// way, not JSON for a control character, which breaks the session).
func notFound(uri string) error {
	data, _ := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
	return &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: "Resource not found", Data: data}
}

// read answers resources/read with the exact bytes of the file: as text
// when they are valid UTF-8 without a BOM (skill.IsText), else base64 as
// blob, so that no byte is rewritten.
func (s *Server) read(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	b := s.acquire()
	defer b.release()
	uri := req.Params.URI
	at := b.unescape(uri)
	f := b.resource(at)
	if f == nil {
		if _, ok := b.directory(at); ok {
			return nil, invalidParams("%s is a directory resource; list it with %s", uri, MethodReadDirectory)
		}
		return nil, notFound(uri)
	}
	data, err := b.read(f)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: uri + " " + s.refused(uri, err)}
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: f.mime}
	if skill.IsText(data) {
		c.Text = data
	} else {
		c.Blob = []byte(data) // non-nil even when empty, so that "blob" is present
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}, Cacheable: s.cacheable()}, nil
}

func (s *Server) listSkills(_ context.Context, _ *mcp.ServerSession, p *ListSkillsParams) (*ListSkillsResult, error) {
	b := s.bundle.Load()
	cursor := ""
	if p != nil {
		cursor = p.Cursor
	}
	skills, next, err := pageOf(b.skills, cursor, s.opts.pageSize, func(e skillEntry) string { return e.uri })
	if err != nil {
		return nil, err
	}
	res := &ListSkillsResult{ResultType: resultComplete, Skills: []json.RawMessage{}, NextCursor: next, Cacheable: s.cacheable()}
	for _, e := range skills {
		res.Skills = append(res.Skills, e.raw)
	}
	return res, nil
}

func (s *Server) getSkill(_ context.Context, _ *mcp.ServerSession, p *GetSkillParams) (*GetSkillResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("skills/get needs params.uri, the URI of a skill's SKILL.md")
	}
	b := s.bundle.Load()
	i, ok := slices.BinarySearchFunc(b.skills, p.URI, func(e skillEntry, uri string) int { return strings.Compare(e.uri, uri) })
	if !ok {
		return nil, invalidParams("no skill is served at %s", p.URI)
	}
	return &GetSkillResult{ResultType: resultComplete, Skill: b.skills[i].raw, Cacheable: s.cacheable()}, nil
}

func (s *Server) readDirectory(_ context.Context, _ *mcp.ServerSession, p *ReadDirectoryParams) (*ReadDirectoryResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("%s needs params.uri, the URI of a directory resource", MethodReadDirectory)
	}
	b := s.bundle.Load()
	uri := b.unescape(p.URI)
	kids, ok := b.directory(uri)
	if !ok {
		if b.resource(uri) != nil {
			return nil, invalidParams("%s is not a directory resource", p.URI)
		}
		return nil, invalidParams("no directory is served at %s", p.URI)
	}
	kids, next, err := pageOf(kids, p.Cursor, s.opts.pageSize, func(e Entry) string { return e.URI })
	if err != nil {
		return nil, err
	}
	return &ReadDirectoryResult{ResultType: resultComplete, Resources: kids, NextCursor: next, Cacheable: s.cacheable()}, nil
}

// Cursors name the last URI of the previous page, not a position, so a
// listing stays right across a rebuild between two pages; they are opaque
// to clients, as MCP requires.
const cursorPrefix = "after:"

// pageOf returns the page of items, sorted by key, that follows cursor, and
// the cursor of the next page, or "" when it is the last.
func pageOf[T any](items []T, cursor string, size int, key func(T) string) ([]T, string, error) {
	start := 0
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		last, ok := strings.CutPrefix(string(raw), cursorPrefix)
		if err != nil || !ok {
			return nil, "", invalidParams("invalid cursor %.60q: pass back a nextCursor exactly as received", cursor) // at most 60 characters of it
		}
		start = sort.Search(len(items), func(i int) bool { return key(items[i]) > last })
	}
	end := min(start+size, len(items))
	if end == len(items) {
		return items[start:end], "", nil
	}
	return items[start:end], base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + key(items[end-1]))), nil
}

// unescape returns uri as the bundle spells it (layout.SkillURI) when it
// names something served only once respelt: the bundle escapes only "%",
// "#" and "?", while new URL() also encodes a space or a non-ASCII letter
// (a%20b.md), and a {+path} expansion of the template does that but keeps
// "#" and "?" as they are (C#.md).
func (b *Held) unescape(uri string) string {
	if !strings.ContainsAny(uri, "%#?") || b.resource(uri) != nil {
		return uri
	}
	if _, ok := b.directory(uri); ok {
		return uri
	}
	u, err := url.PathUnescape(uri)
	if err != nil {
		u = uri // a "%" that begins no escape is itself
	}
	rest, ok := strings.CutPrefix(u, layout.URIScheme)
	name, file, nested := strings.Cut(rest, "/")
	if !ok || !nested {
		return uri
	}
	return layout.SkillURI(name, file)
}

// directory returns the children of a directory resource. Its URI has no
// trailing slash, but one is taken too: clients add it to say "folder".
func (b *Held) directory(uri string) ([]Entry, bool) {
	if base, ok := strings.CutSuffix(uri, "/"); ok && !strings.HasSuffix(base, "/") {
		uri = base
	}
	// The skill whose root is uri or above it.
	root := uri
	tree, ok := b.trees[root]
	for !ok {
		i := strings.LastIndexByte(root, '/')
		if i < 0 {
			return nil, false
		}
		root = root[:i]
		tree, ok = b.trees[root]
	}
	// Its files under uri, in order: each is a child, or lies in a folder
	// that is one.
	var kids []Entry
	under := strings.TrimPrefix(strings.TrimPrefix(uri, root), "/")
	if under != "" {
		under += "/"
	}
	for name := range strings.SplitSeq(strings.TrimSuffix(tree, "\x00"), "\x00") {
		name, ok := strings.CutPrefix(name, under)
		if !ok {
			continue
		}
		if dir, _, nested := strings.Cut(name, "/"); nested {
			if n := len(kids); n == 0 || kids[n-1].Name != dir || kids[n-1].MIMEType != dirMime {
				kids = append(kids, Entry{Resource: &mcp.Resource{URI: root + "/" + under + dir, Name: unescaped(dir), MIMEType: dirMime}})
			}
			continue
		}
		file := root + "/" + under + name
		f := b.resource(file)
		kids = append(kids, Entry{&mcp.Resource{URI: file, Name: unescaped(name), MIMEType: f.mime}, &f.size})
	}
	if len(kids) == 0 {
		return nil, false // a file, or nothing
	}
	// "a/b" sorts after "a.md/…" but before "a.md": order by the
	// children's own URIs.
	slices.SortFunc(kids, func(x, y Entry) int { return strings.Compare(x.URI, y.URI) })
	return kids, true
}

// unescaped is a name as its file is named: the part of a URI that
// spells it (layout.SkillURI) decoded.
func unescaped(part string) string {
	name, _ := layout.UnescapeURI(part)
	return name
}

// dirMime is the MIME type of a directory resource in the skills extension.
const dirMime = "inode/directory"
