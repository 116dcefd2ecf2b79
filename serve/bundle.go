package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillpack/skillpack/layout"
)

// maxDoc bounds how much of a JSON document Open reads: layout's limit,
// which the build holds every document to (and verify reads no more), so
// anything larger is not a bundle skillpack wrote.
const maxDoc = layout.MaxDocument

// A Bundle is a built dist folder, checked and ready to serve. Open reads
// the documents the build wrote and nothing else: every servable file, its
// digest and its size come from them, so a file the build did not record
// can never be served.
type Bundle struct {
	dir    string
	root   *os.Root
	refs   atomic.Int64             // the server's and each request's; see acquire
	files  map[string]*file         // HTTP: dist path → file
	mem    map[layout.Digest][]byte // the in-memory bytes of the snapshot, by digest
	record fs.FileInfo              // the build record as read
	// byName is how many files did not fit the snapshot's budgets and are
	// opened by name per request.
	byName int
	// retired are the immutable files of the bundles this one replaced
	// that it does not serve itself, each until its grace period ends
	// (see retire); expire reloads the bundle once the first has ended.
	retired map[string]retiredFile
	expire  *time.Timer
	res     map[string]*resource // MCP: URI → resource
	// skills are the entries of mcp/skills.json in file order (sorted by
	// uri), each kept as the build wrote it.
	skills  []skillEntry
	byURI   map[string]int             // skill URI → index in skills
	dirs    map[string][]*mcp.Resource // directory URI → children, sorted by URI
	entries []*mcp.Resource            // SKILL.md resources for resources/list
}

// file is one servable file of the bundle.
type file struct {
	path   string // slash-separated, relative to dist/
	digest layout.Digest
	size   int64
	source string // the document that recorded the digest, for messages
	ctype  string // HTTP Content-Type
	etag   string // HTTP ETag: the digest, which names the bytes

	mod time.Time // the file's modification time, for Last-Modified

	// The snapshot's hold on the bytes (see limits): data for a file in
	// memory, fh for one kept open, neither for one opened by name.
	how     holding
	data    []byte
	fh      *os.File
	holders atomic.Int32 // the bundles that hold fh open (see drop)
	mu      sync.Mutex
	seen    fs.FileInfo // the file as last verified, unless in memory
}

// resource is one URI of mcp/resources.json.
type resource struct {
	uri  string
	mime string
	file *file
}

// skillEntry is one element of mcp/skills.json.
type skillEntry struct {
	uri  string
	raw  json.RawMessage
	name string
	desc string
	size int64 // of SKILL.md
}

// Dir is the folder the bundle was opened from.
func (b *Bundle) Dir() string { return b.dir }

// Skills is the number of skills in the bundle.
func (b *Bundle) Skills() int { return len(b.skills) }

// Close gives up the caller's hold on the bundle. Its folder and the files
// it keeps open are closed once no server serves it and no response is
// being written from it.
func (b *Bundle) Close() error {
	b.release()
	return nil
}

// Unheld is how many of the bundle's files are not held by the snapshot,
// for lack of memory or file handles, and are opened by name for each
// request: only those can fail while the folder is rebuilt.
func (b *Bundle) Unheld() int { return b.byName }

// Open checks the bundle in dir and returns it ready to serve. It refuses a
// bundle whose documents disagree with each other, or any of whose files is
// missing, is not a regular file, or does not have the size and digest the
// build recorded; each file is hashed here, once, so that requests never
// hash anything unless the file changes on disk afterwards.
func Open(dir string) (*Bundle, error) { return openBundle(dir, nil, defaultLimits()) }

// openBundle opens the bundle in dir, sparing the work that prev, the bundle it
// replaces, has done already (see hold).
func openBundle(dir string, prev *Bundle, lim limits) (*Bundle, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (build a bundle there with `skillpack build SKILLS -o %s`)", dir, unwrapPath(err), dir)
	}
	b := &Bundle{dir: dir, root: root, files: map[string]*file{}, mem: map[layout.Digest][]byte{},
		res: map[string]*resource{}, byURI: map[string]int{}, dirs: map[string][]*mcp.Resource{}}
	b.refs.Store(1)
	if err := b.load(); err != nil {
		root.Close()
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if err := b.hold(prev, lim); err != nil {
		b.release()
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return b, nil
}

// load reads the documents and cross-checks them. Every document except
// checksums.txt and the build record is checked against the digest that
// checksums.txt gives it, and checksums.txt in turn must list every
// archive with the digest mcp/resources.json gives it, so that no document
// can be changed alone without the change showing.
func (b *Bundle) load() error {
	// What Follow compares is the record read here: a build replaces it
	// whenever it replaces the bundle.
	recData, info, err := b.readDocInfo(layout.BuildRecord)
	b.record = info
	if err != nil {
		return fmt.Errorf("%w; this folder is not a skillpack bundle, build one with `skillpack build`", err)
	}
	// The record is the largest document, and is needed last: it is
	// decoded while the others are read and checked (with the cut of
	// mcp/skills.json below, a reload of 2,000 skills takes 0.14 s, not
	// 0.17).
	decoded := background(func() (*layout.Record, error) { return layout.DecodeRecord(recData) })
	var rec *layout.Record
	written := map[string]bool{}
	record := func() error {
		if rec != nil {
			return nil
		}
		if rec, err = decoded(); err != nil {
			return fmt.Errorf("%w; rebuild the bundle with `skillpack build`", err)
		}
		for _, p := range rec.Files {
			written[p] = true
		}
		return nil
	}
	defer record() // never leave the goroutine behind

	sumData, err := b.readDoc(layout.Checksums)
	if err != nil {
		return err
	}
	sums, err := checksums(sumData)
	if err != nil {
		return err
	}
	b.add(&file{path: layout.Checksums, digest: layout.DigestOf(sumData), size: int64(len(sumData)), source: layout.Checksums})

	// doc reads a JSON document and checks it against checksums.txt.
	doc := func(p string) ([]byte, error) {
		data, err := b.readDoc(p)
		if err != nil {
			return nil, err
		}
		want, ok := sums[p]
		if !ok {
			return nil, fmt.Errorf("%s does not list %s; rebuild the bundle with `skillpack build`", layout.Checksums, p)
		}
		if got := layout.DigestOf(data); got != want {
			return nil, fmt.Errorf("%w; rebuild the bundle with `skillpack build`", tampered(p, got, want, layout.Checksums))
		}
		b.add(&file{path: p, digest: want, size: int64(len(data)), source: layout.Checksums})
		return data, nil
	}

	resData, err := doc(layout.MCPResources)
	if err != nil {
		return err
	}
	rs, err := layout.DecodeResources(resData)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if err := b.addResource(r, sums); err != nil {
			return fmt.Errorf("%s: %s: %w", layout.MCPResources, r.URI, err)
		}
	}
	if _, err := doc(layout.MCPIndex); err != nil {
		return err
	}
	if err := record(); err != nil {
		return err
	}
	// Each document is parsed from the very bytes that were checked.
	for _, d := range []struct {
		path string
		load func([]byte) error
		want bool
	}{
		{layout.MCPSkills, b.loadSkills, true},
		{layout.V2Index, b.checkV2, true},
		{layout.V1Index, b.loadV1, written[layout.V1Index]}, // absent with --no-legacy
	} {
		if !d.want {
			continue
		}
		data, err := doc(d.path)
		if err != nil {
			return err
		}
		if err := d.load(data); err != nil {
			return fmt.Errorf("%s: %w", d.path, err)
		}
	}
	// The catalog, llms.txt and the AI Catalog are served only once the
	// build vouches for them in checksums.txt: nothing else records their
	// digests, and the catalog is HTML on this origin.
	for _, p := range []string{layout.Catalog, layout.LLMsTxt, layout.AICatalog} {
		if _, ok := sums[p]; ok {
			if _, err := doc(p); err != nil {
				return err
			}
		}
	}
	// So is each skill's page, skills/<name>.html, of a skill the bundle has.
	for p := range sums {
		if pp, ok := layout.ParsePath(p); ok && pp.Kind == layout.KindPage && b.files[layout.SkillFile(pp.Skill, layout.EntryFile)] != nil {
			if _, err := doc(p); err != nil {
				return err
			}
		}
	}
	if _, ok := sums[layout.VersionsIndex]; ok { // build --versioned
		data, err := doc(layout.VersionsIndex)
		if err != nil {
			return err
		}
		if err := b.loadVersions(data, sums, doc); err != nil {
			return fmt.Errorf("%s: %w", layout.VersionsIndex, err)
		}
	}
	// Signatures are served beside their artifacts. No document records
	// their digests (a signature is made after the bytes it signs), so each
	// is pinned as found here, and a change while serving is refused like
	// any other; a signature altered before then fails verification on the
	// client, which is where trust is decided.
	for _, p := range rec.Files {
		art, ok := layout.SignedArtifact(p)
		if name, folder := layout.ParseFolderSignature(p); folder && b.files[p] == nil {
			// A skill folder's signature goes with the skill's files.
			art, ok = layout.SkillFile(name, layout.EntryFile), true
		}
		if ok && b.files[art] != nil {
			data, err := b.readDoc(p)
			if err != nil {
				return err
			}
			b.add(&file{path: p, digest: layout.DigestOf(data), size: int64(len(data)), source: layout.BuildRecord})
		}
	}
	for p := range sums {
		if b.files[p] == nil {
			return fmt.Errorf("%s lists %s, which no index names; rebuild the bundle with `skillpack build`", layout.Checksums, p)
		}
	}
	for p := range b.files {
		if !written[p] {
			return fmt.Errorf("%s names %s, which the build record %s does not list; rebuild the bundle with `skillpack build`",
				b.files[p].source, p, layout.BuildRecord)
		}
	}
	return nil
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

// add records a servable file with the headers its path calls for. The
// first record of a path wins: mcp/index.json is both a resource and a
// document, and both records were checked against checksums.txt.
func (b *Bundle) add(f *file) {
	if b.files[f.path] != nil {
		return
	}
	f.ctype = layout.ContentType(f.path)
	f.etag = `"` + string(f.digest) + `"`
	b.files[f.path] = f
}

func (b *Bundle) addResource(r layout.Resource, sums map[string]layout.Digest) error {
	u, ok := layout.ParseURI(r.URI)
	switch {
	case r.URI == "":
		return errors.New("a resource has no uri")
	case b.res[r.URI] != nil:
		return errors.New("listed twice")
	case layout.CheckPath(r.Path) != nil:
		return fmt.Errorf("path %q is not a plain relative path inside the bundle", r.Path)
	case !ok || u.String() != r.Path:
		return fmt.Errorf("path %q is not where the bytes of this URI are", r.Path)
	case !r.Digest.Valid():
		return fmt.Errorf("digest %q is not sha256:<64 lowercase hex>", r.Digest)
	case r.Size == nil:
		return errors.New("no size")
	case *r.Size < 0:
		return fmt.Errorf("size %d is negative", *r.Size)
	}
	if want, ok := sums[r.Path]; ok && want != r.Digest {
		return fmt.Errorf("%s gives %s the digest %s, %s gives %s; rebuild the bundle with `skillpack build`",
			layout.Checksums, r.Path, want, layout.MCPResources, r.Digest)
	}
	if u.Kind == layout.KindArchive {
		if _, ok := sums[r.Path]; !ok {
			return fmt.Errorf("%s does not list the archive %s; rebuild the bundle with `skillpack build`", layout.Checksums, r.Path)
		}
	}
	f := b.files[r.Path]
	if f == nil {
		f = &file{path: r.Path, digest: r.Digest, size: *r.Size, source: layout.MCPResources}
		b.add(f)
	} else if f.digest != r.Digest {
		return fmt.Errorf("two digests for %s", r.Path)
	}
	b.res[r.URI] = &resource{uri: r.URI, mime: r.MimeType, file: f}
	return nil
}

// loadSkills reads mcp/skills.json, checks every file it lists against
// mcp/resources.json, and derives the directory resources from the paths.
func (b *Bundle) loadSkills(data []byte) error {
	// Each entry is served as the build wrote it: its bytes are cut out
	// while the entries are decoded.
	cut := background(func() (raws []json.RawMessage, err error) { return raws, json.Unmarshal(data, &raws) })
	skills, err := layout.DecodeSkillsMCP(data)
	raws, cutErr := cut()
	if err != nil {
		return err
	}
	if cutErr != nil {
		return cutErr
	}
	for i, d := range skills {
		name, desc, err := layout.FrontmatterNames(d.Frontmatter)
		if err != nil {
			return fmt.Errorf("entry %d: frontmatter: %w", i, err)
		}
		if u, ok := layout.ParseURI(d.URI); !ok || u.Kind != layout.KindFile || u.File != layout.EntryFile || u.Skill != name {
			return fmt.Errorf("entry %d: uri %q is not skill://<name>/%s for the name %q", i, d.URI, layout.EntryFile, name)
		}
		if i > 0 && d.URI <= b.skills[i-1].uri {
			return fmt.Errorf("entry %d: %s is out of order or listed twice", i, d.URI)
		}
		// The skill's directory resource: SKILL.md's parent, as every
		// folder is its files' (see addToDirs).
		root := d.URI[:strings.LastIndexByte(d.URI, '/')]
		e := skillEntry{uri: d.URI, raw: raws[i], name: name, desc: desc, size: -1}
		seen := map[string]bool{}
		for _, r := range d.Resources {
			res := b.res[r.URI]
			ru, _ := layout.ParseURI(r.URI)
			switch {
			case seen[r.URI]:
				return fmt.Errorf("%s lists %s twice", d.URI, r.URI)
			case res == nil:
				return fmt.Errorf("%s lists %s, which %s does not", d.URI, r.URI, layout.MCPResources)
			case r.Size == nil:
				return fmt.Errorf("%s gives %s no size", d.URI, r.URI)
			case res.file.digest != r.Digest || res.file.size != *r.Size:
				return fmt.Errorf("%s gives %s %s (%d bytes), %s gives %s (%d bytes)", d.URI, r.URI, r.Digest, *r.Size,
					layout.MCPResources, res.file.digest, res.file.size)
			case ru.Kind != layout.KindFile || ru.Skill != name:
				return fmt.Errorf("%s lists %s, which is outside the skill", d.URI, r.URI)
			}
			seen[r.URI] = true
			if r.URI == d.URI {
				e.size = *r.Size
			}
			b.addToDirs(root, r.URI, res)
		}
		if e.size < 0 {
			return fmt.Errorf("%s does not list its own %s", d.URI, layout.EntryFile)
		}
		b.byURI[e.uri] = len(b.skills)
		b.skills = append(b.skills, e)
		b.entries = append(b.entries, &mcp.Resource{URI: e.uri, Name: e.name, Description: e.desc,
			MIMEType: layout.MimeType(layout.EntryFile), Size: e.size})
	}
	for _, children := range b.dirs {
		slices.SortFunc(children, func(x, y *mcp.Resource) int { return strings.Compare(x.URI, y.URI) })
	}
	return nil
}

// dirMime is the MIME type of a directory resource in the skills extension.
const dirMime = "inode/directory"

// addToDirs records uri and every folder above it up to the skill root as
// directory resources. Directory URIs have no trailing slash.
func (b *Bundle) addToDirs(root, uri string, res *resource) {
	child := &mcp.Resource{URI: uri, Name: path.Base(uri), MIMEType: res.mime, Size: res.file.size}
	for {
		parent := uri[:strings.LastIndex(uri, "/")]
		kids, known := b.dirs[parent]
		b.dirs[parent] = append(kids, child)
		if known || parent == root {
			return // everything above a known folder is known too
		}
		uri, child = parent, &mcp.Resource{URI: parent, Name: path.Base(parent), MIMEType: dirMime}
	}
}

// checkV2 checks that every entry of the v0.2 index points at a file the
// bundle serves, with that file's digest.
func (b *Bundle) checkV2(data []byte) error {
	idx, err := layout.DecodeIndexV2(data)
	if err != nil {
		return err
	}
	for _, e := range idx.Skills {
		var p string
		switch e.Type {
		case layout.TypeSkillMD:
			p = layout.SkillFile(e.Name, layout.EntryFile)
		case layout.TypeArchive:
			p = layout.ArchivePath(e.Name, e.Digest, layout.TarGz)
		default:
			return fmt.Errorf("%s: unknown type %q", e.Name, e.Type)
		}
		f := b.files[p]
		switch {
		case f == nil:
			return fmt.Errorf("%s: %s is not in %s", e.Name, p, layout.MCPResources)
		case f.digest != e.Digest:
			return fmt.Errorf("%s: digest %s, but %s gives %s %s", e.Name, e.Digest, f.source, p, f.digest)
		}
		// URLs are relative to the index unless the bundle was built with
		// a base URL, which only adds a prefix.
		if u, ok := layout.ParseIndexURL(e.URL); !ok || u.String() != p {
			return fmt.Errorf("%s: url %q does not lead to %s", e.Name, e.URL, p)
		}
	}
	return nil
}

// loadV1 adds the legacy tree: the v0.1 index names each file, which is a
// copy of the v0.2 file with the digest mcp/resources.json gives.
func (b *Bundle) loadV1(data []byte) error {
	idx, err := layout.DecodeIndexV1(data)
	if err != nil {
		return err
	}
	for _, e := range idx.Skills {
		for _, f := range e.Files {
			src := b.files[layout.SkillFile(e.Name, f)]
			p := layout.LegacyFile(e.Name, f)
			if _, ok := layout.ParsePath(p); src == nil || !ok {
				return fmt.Errorf("%s: file %q has no copy in the v0.2 tree", e.Name, f)
			}
			b.add(&file{path: p, digest: src.digest, size: src.size, source: src.source})
		}
	}
	return nil
}

// checksums reads checksums.txt and insists it is exactly what the build
// writes, so that a hand-edited line cannot slip past.
func checksums(data []byte) (map[string]layout.Digest, error) {
	list, err := layout.ParseChecksums(data)
	if err != nil {
		return nil, fmt.Errorf("%w\nrebuild the bundle with `skillpack build`", err)
	}
	if !bytes.Equal(layout.ChecksumsDoc(list), data) {
		return nil, fmt.Errorf("%s is not sorted or not in sha256sum format; rebuild the bundle with `skillpack build`", layout.Checksums)
	}
	sums := make(map[string]layout.Digest, len(list))
	for _, s := range list {
		sums[s.Path] = s.Digest
	}
	return sums, nil
}

// readDoc reads a whole document of the bundle, bounded by maxDoc.
func (b *Bundle) readDoc(p string) ([]byte, error) {
	data, _, err := b.readDocInfo(p)
	return data, err
}

// readDocInfo is readDoc that also says which file it read.
func (b *Bundle) readDocInfo(p string) ([]byte, fs.FileInfo, error) {
	f, err := b.openRegular(p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDoc+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(data) > maxDoc {
		return nil, nil, fmt.Errorf("%s is larger than %d MiB; this is not a bundle skillpack wrote", p, maxDoc>>20)
	}
	return data, info, nil
}

// openRegular opens a file of the bundle, refusing anything but a regular
// file. The os.Root refuses paths and symbolic links that lead outside the
// folder; a link that stays inside is refused too, because the build
// never writes one.
func (b *Bundle) openRegular(p string) (*os.File, error) {
	info, err := b.root.Lstat(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, unwrapPath(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is a %s, not a regular file; the build writes only regular files", p, kind(info.Mode()))
	}
	f, err := b.root.Open(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, unwrapPath(err))
	}
	return f, nil
}

// unwrapPath drops the *PathError wrapper, whose path is relative to the
// root and would repeat the one the caller names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "folder"
	}
	return "special file"
}
