package serve

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unique"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
)

// A Held is the bundle a Server serves: a built dist folder, checked and
// held ready. Every servable file, its digest and its size come from its
// documents, read through package bundle, so that a file the build did not
// record is never served.
type Held struct {
	dir    string
	src    *bundle.Folder
	refs   atomic.Int64             // the server's and each request's; see acquire
	files  map[string]*file         // HTTP: dist path → file
	mem    map[layout.Digest]string // the in-memory bytes of the snapshot, by digest
	record fs.FileInfo              // the build record as read
	byName int                      // files that did not fit the snapshot, opened by name per request
	// retired are the immutable files of the bundles this one replaced
	// that it does not serve itself, each until its grace period ends
	// (see retire); expire reloads the bundle once the first has ended.
	retired map[string]retiredFile
	expire  *time.Timer
	skills  []skillEntry // mcp/skills.json's entries, sorted by uri, as the build wrote them
	offMCP  int          // skills the MCP documents leave out, by the record
	// trees holds each skill's files by its root URI: their paths below it,
	// sorted, each ended by a NUL, from which directory resources are made
	// per request (see directory): a resource or a string each would be
	// most of what every collection marks.
	trees   map[string]string
	entries []*mcp.Resource // SKILL.md resources for resources/list
}

// file is one servable file of the bundle.
type file struct {
	path   string // slash-separated, relative to dist/
	digest layout.Digest
	size   int64
	source string // the document that gives the digest and size, for messages

	// An MCP resource: mcp/resources.json lists it, with its MIME type.
	resource bool
	mime     string

	mod time.Time // the file's modification time, for Last-Modified

	// The snapshot's hold on the bytes (see limits): data for a file in
	// memory, fh for one kept open, neither for one opened by name.
	how     holding
	data    string // a string, so that an MCP read's text is these bytes
	fh      *os.File
	holders atomic.Int32 // the bundles that hold fh open (see drop)
	mu      sync.Mutex
	seen    fs.FileInfo // the file as last verified, unless in memory
}

// skillEntry is one element of mcp/skills.json.
type skillEntry struct {
	uri string
	raw json.RawMessage
}

// Skills is the number of skills in the bundle: those MCP lists and
// those the MCP documents leave out (layout.Planned.OffMCP).
func (b *Held) Skills() int { return len(b.skills) + b.offMCP }

// Tally says how many skills the bundle serves, and how many of them not
// over MCP, for the lines that say what is served.
func (b *Held) Tally() string {
	n := human.Plural(b.Skills(), "skill", "skills")
	if b.offMCP == 0 {
		return n
	}
	return fmt.Sprintf("%s, %d of them not over MCP, whose hosts would refuse them", n, b.offMCP)
}

// Close gives up the caller's hold on the bundle. Its folder and the files
// it keeps open are closed once no server serves it and no response is
// being written from it.
func (b *Held) Close() error {
	b.release()
	return nil
}

// Unheld is how many of the bundle's files are not held by the snapshot,
// for lack of memory or file handles, and are opened by name for each
// request: only those can fail while the folder is rebuilt.
func (b *Held) Unheld() int { return b.byName }

// Open checks the bundle in dir and returns it ready to serve. It refuses a
// bundle whose documents are not the ones the build wrote, or any of whose
// files is missing, not a regular file, or not of the size and digest the
// build recorded. Each file is hashed here, once: requests hash nothing
// unless the file changes on disk afterwards.
func Open(dir string) (*Held, error) { return openHeld(dir, nil, defaultLimits()) }

// openHeld opens the bundle in dir, sparing the work that prev, the bundle it
// replaces, has done already (see hold).
func openHeld(dir string, prev *Held, lim limits) (*Held, error) {
	src, err := bundle.OpenFolder(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !strings.Contains(dir, "://") {
			hint := ""
			if !filepath.IsAbs(dir) {
				hint = "; an MCP host starts serve --stdio in a working folder of its own: give DIST as an absolute path"
			}
			return nil, fmt.Errorf("%w (build a bundle there with `skillpack build SKILLS -o %s`%s)", err, dir, hint)
		}
		return nil, fmt.Errorf("%w: serve takes the folder skillpack build wrote (skillpack build SKILLS -o DIST, then skillpack serve DIST)", err)
	}
	b := &Held{dir: dir, src: src, files: map[string]*file{}, mem: map[layout.Digest]string{},
		trees: map[string]string{}}
	b.refs.Store(1)
	if err := b.load(); err != nil {
		src.Close()
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if err := b.hold(prev, lim); err != nil {
		b.release()
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return b, nil
}

// recorded is what serve takes from the build record: every file the
// build wrote, every document and page with its digest and size, and
// every skill's files and archives with theirs.
type recorded struct {
	files  map[string]bool
	docs   map[string]layout.Artifact
	skills []layout.Artifact
	offMCP int // skills the MCP documents leave out
}

// load reads the documents through bundle.Open, which checks each against
// checksums.txt before it is decoded, and makes the tables of what is
// served: every file checksums.txt lists, every resource of
// mcp/resources.json, the legacy copies the v0.1 index names, the files of
// versions.json, and the signatures beside them, if the build record
// lists them.
func (b *Held) load() error {
	ctx := context.Background()
	// The record is needed last and the largest document: it is read while
	// the others are read and checked.
	rec := background(b.readRecord)
	defer rec() // never leave the goroutine behind
	pub, err := bundle.Open(ctx, b.src, bundle.MaxDoc)
	if err != nil {
		_, recErr := rec() // a folder without a record is no bundle at all
		return cmp.Or(recErr, fmt.Errorf("%w; %s", changed(err), rebuild))
	}
	doc := func(p string) ([]byte, error) {
		data, err := pub.Doc(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("%w; %s", changed(err), rebuild)
		}
		return data, nil
	}
	data, err := doc(layout.MCPResources)
	if err != nil {
		return err
	}
	rs, err := layout.DecodeResources(data)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if u, ok := layout.ParseURI(r.URI); !ok || u.String() != r.Path || r.Size == nil {
			return fmt.Errorf("%s: %s: path %q or size is not that of the URI's bytes; %s", layout.MCPResources, r.URI, r.Path, rebuild)
		}
		f := b.add(layout.Artifact{Path: r.Path, Digest: r.Digest, Size: *r.Size}, layout.MCPResources)
		f.resource, f.mime = true, unique.Make(r.MimeType).Value() // one string per MIME type, not per file
	}
	if data, err = doc(layout.MCPSkills); err != nil {
		return err
	}
	if err := b.loadSkills(data); err != nil {
		return fmt.Errorf("%s: %w", layout.MCPSkills, err)
	}
	r, err := rec()
	if err != nil {
		return err
	}
	// The skills the MCP documents leave out, which MCP hosts would refuse
	// (layout.Planned.OffMCP), are served over HTTP as the others are:
	// their files and archives, as the record gives them.
	for _, a := range r.skills {
		b.add(a, layout.BuildRecord)
	}
	b.offMCP = r.offMCP
	if r.files[layout.V1Index] { // absent with --no-legacy
		if data, err = doc(layout.V1Index); err != nil {
			return err
		}
		if err := b.loadV1(data); err != nil {
			return err
		}
	}
	if pub.Versions != nil { // build --versioned
		for _, a := range pub.Versions.Artifacts() {
			b.add(a, layout.VersionsIndex)
		}
	}
	// The documents checksums.txt lists, and checksums.txt itself, are
	// served with the digest and size the record gives them; every file
	// checksums.txt lists must be served with the digest it gives.
	for p, a := range r.docs {
		if _, ok := pub.Sums[p]; ok || p == layout.Checksums {
			b.add(a, layout.BuildRecord)
		}
	}
	for p, d := range pub.Sums {
		switch f := b.files[p]; {
		case f == nil:
			return fmt.Errorf("%s lists %s, which no index names; %s", layout.Checksums, p, rebuild)
		case f.digest != d:
			return fmt.Errorf("%s gives %s the digest %s, %s gives %s; %s", layout.Checksums, p, d, f.source, f.digest, rebuild)
		}
	}
	// Signatures are served beside their artifacts. No document records
	// their digests (a signature is made after what it signs), so each is
	// pinned as found here; one altered before fails on the client, which
	// is where trust is decided.
	for p := range r.files {
		art, ok := layout.SignedArtifact(p)
		if name, folder := layout.ParseFolderSignature(p); folder {
			art, ok = layout.SkillFile(name, layout.EntryFile), true // it goes with the skill's files
		}
		if ok && b.files[art] != nil {
			data, err := bundle.ReadAll(ctx, b.src, p, bundle.MaxDoc)
			if err != nil {
				return err
			}
			b.add(layout.Artifact{Path: p, Digest: layout.DigestOf(data), Size: int64(len(data))}, layout.BuildRecord)
		}
	}
	for p, f := range b.files {
		if !r.files[p] {
			return fmt.Errorf("%s names %s, which the build record %s does not list; %s", f.source, p, layout.BuildRecord, rebuild)
		}
	}
	return nil
}

// readRecord reads the build record, and notes which file it read: what
// Follow compares is the record read here, since a build replaces it
// whenever it replaces the bundle.
func (b *Held) readRecord() (recorded, error) {
	r := recorded{files: map[string]bool{}, docs: map[string]layout.Artifact{}}
	fh, _, err := b.src.File(layout.BuildRecord)
	if err == nil {
		defer fh.Close()
		b.record, err = fh.Stat()
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w; this folder is not a skillpack bundle, build one with `skillpack build`", layout.BuildRecord, err)
	}
	h, err := layout.ReadRecord(&bundle.LimitReader{R: fh, Limit: bundle.MaxDoc}, func(s layout.RecordSkill) error {
		for _, f := range s.Files {
			r.skills = append(r.skills, layout.Artifact{Path: layout.SkillFile(s.Name, f.Path), Digest: f.Digest, Size: f.Size})
		}
		a := s.Archives()
		r.skills = append(r.skills, a[:]...)
		if s.Page != nil {
			p := layout.CatalogPage(s.Name)
			r.docs[p] = layout.Artifact{Path: p, Digest: s.Page.Digest, Size: s.Page.Size}
		}
		return nil
	}, func(p string) error {
		r.files[p] = true
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("%s: %w; %s", layout.BuildRecord, err, rebuild)
	}
	r.offMCP = len(h.MCPExcluded)
	for _, a := range h.Docs {
		r.docs[a.Path] = a
	}
	return r, nil
}

// background runs f on a goroutine of its own, and returns a function
// that waits for its result.
func background[T any](f func() (T, error)) func() (T, error) {
	var (
		v    T
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		v, err = f()
	}()
	return func() (T, error) {
		<-done
		return v, err
	}
}

// rebuild is the fix for a bundle that is not as its build left it.
const rebuild = "rebuild the bundle with `skillpack build`"

// changed says of bytes that are not the ones the build wrote that they
// changed since; other errors pass unchanged.
func changed(err error) error {
	var c *bundle.ChangedError
	if errors.As(err, &c) {
		return fmt.Errorf("%s: changed since the build: %w", c.Path, c)
	}
	return err
}

// resource returns the file of an MCP resource URI, or nil: one that
// mcp/resources.json lists, at the path its URI gives (load checks that
// each does). URIs are not held in a table of their own: a bundle of
// 10,000 skills has 100,000, which every collection would mark.
func (b *Held) resource(uri string) *file {
	u, ok := layout.ParseURI(uri)
	if !ok {
		return nil
	}
	if f := b.files[u.String()]; f != nil && f.resource {
		return f
	}
	return nil
}

// add records a servable file with the headers its path calls for, and
// returns it. The first record of a path wins: mcp/index.json is both a
// resource and a document.
func (b *Held) add(a layout.Artifact, source string) *file {
	if f := b.files[a.Path]; f != nil {
		return f
	}
	f := &file{path: a.Path, digest: a.Digest, size: a.Size, source: source}
	b.files[a.Path] = f
	return f
}

// loadSkills reads mcp/skills.json, and derives the directory resources
// from the paths of the resources each skill lists.
func (b *Held) loadSkills(data []byte) error {
	// Each entry is served as the build wrote it: its bytes are cut out
	// while the entries are decoded.
	cut := background(func() (raws []json.RawMessage, err error) { return raws, json.Unmarshal(data, &raws) })
	skills, err := layout.DecodeSkillsMCP(data)
	raws, cutErr := cut()
	if err = cmp.Or(err, cutErr); err != nil {
		return err
	}
	for i, d := range skills {
		name, desc, err := layout.FrontmatterNames(d.Frontmatter)
		if err != nil {
			return fmt.Errorf("entry %d: frontmatter: %w", i, err)
		}
		own := b.resource(d.URI)
		if u, ok := layout.ParseURI(d.URI); !ok || u.Kind != layout.KindFile || u.File != layout.EntryFile || u.Skill != name || own == nil {
			return fmt.Errorf("entry %d: uri %q is not skill://<name>/%s for the name %q in %s", i, d.URI, layout.EntryFile, name, layout.MCPResources)
		}
		if i > 0 && d.URI <= b.skills[i-1].uri {
			return fmt.Errorf("entry %d: %s is out of order or listed twice", i, d.URI)
		}
		// The skill's directory resource: SKILL.md's parent, as every
		// folder is its files' (see directory).
		root := d.URI[:strings.LastIndexByte(d.URI, '/')]
		tree := make([]string, 0, len(d.Resources))
		for _, r := range d.Resources {
			if ru, _ := layout.ParseURI(r.URI); b.resource(r.URI) == nil || ru.Kind != layout.KindFile || ru.Skill != name || strings.ContainsRune(r.URI, 0) {
				return fmt.Errorf("%s lists %s, which is not a file of the skill in %s", d.URI, r.URI, layout.MCPResources)
			}
			tree = append(tree, r.URI[len(root)+1:]+"\x00")
		}
		slices.Sort(tree)
		b.trees[root] = strings.Join(tree, "")
		b.skills = append(b.skills, skillEntry{uri: d.URI, raw: raws[i]})
		b.entries = append(b.entries, &mcp.Resource{URI: d.URI, Name: name, Description: desc,
			MIMEType: layout.MimeType(layout.EntryFile), Size: own.size})
	}
	return nil
}

// loadV1 adds the legacy tree: the v0.1 index names each file, which is a
// copy of the v0.2 file with the digest mcp/resources.json gives.
func (b *Held) loadV1(data []byte) error {
	idx, err := layout.DecodeIndexV1(data)
	if err != nil {
		return err
	}
	for _, e := range idx.Skills {
		for _, f := range e.Files {
			src := b.files[layout.SkillFile(e.Name, f)]
			if src == nil {
				return fmt.Errorf("%s: %s: file %q has no copy in the v0.2 tree", layout.V1Index, e.Name, f)
			}
			b.add(layout.Artifact{Path: layout.LegacyFile(e.Name, f), Digest: src.digest, Size: src.size}, src.source)
		}
	}
	return nil
}
