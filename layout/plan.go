package layout

import (
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/parallel"
)

// Kind says where an entry's bytes come from.
type Kind int

const (
	// KindFile is a skill's file, copied byte for byte from the source.
	KindFile Kind = iota + 1
	// KindArchive is an archive the build packed; Format says which.
	KindArchive
	// KindDoc is a document rendered by Write, or the catalog, which the
	// caller writes.
	KindDoc
	// KindVersion is a file (File) or archive (Format) of a skill's
	// published version, in <name>/<version>/, which the build stages
	// from this build's files or the previous bundle's (versions.go).
	KindVersion
	// KindPage is a skill's page in the catalog (CatalogPage), which the
	// caller renders and writes, as it does the catalog.
	KindPage
)

// kindNames are the kinds as the golden files show them.
var kindNames = [...]string{KindFile: "file", KindArchive: "archive", KindDoc: "doc", KindVersion: "version", KindPage: "page"}

func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Entry is one file of the bundle.
type Entry struct {
	Path    string // slash-separated, relative to dist/
	Kind    Kind
	Skill   string // the skill it belongs to; "" for documents
	File    string // KindFile, KindVersion: the path within the skill
	Format  string // KindArchive, KindVersion: TarGz or Zip
	Version string // KindVersion: the version whose folder it is in
	Exec    bool   // KindFile, a plugin's file: the source had an execute bit (pack.Perm)
	// Write renders a KindDoc entry to w: the bytes that Digest and Size
	// describe, the same on every call, safe from several goroutines at
	// once. It streams the document skill by skill, in small pieces (give
	// it a buffered writer), and returns the first error w returns. It is
	// nil for every other kind and for the catalog, which the caller
	// renders and writes itself.
	Write  func(w io.Writer) error
	Digest Digest
	Size   int64
}

// Planned is everything a build writes to dist/, so that the writer, verify
// and serve share one list. It holds the documents and a row per skill,
// not an entry per file: Entries reads each skill again as it reaches it,
// so a bundle of any size is listed in bounded memory.
type Planned struct {
	Excluded []Excluded // skills left out of the v0.1 index and tree
	OffMCP   []Excluded // skills left out of the MCP documents (Skill.OffMCP)

	set   *set
	docs  []Entry
	parts []part // every entry in path order: documents, runs of files, archives
	n     int
}

// Len is the number of entries.
func (b *Planned) Len() int { return b.n }

// Entries yields every entry of the bundle, sorted bytewise by path, once
// each. A skill that cannot be read again ends the sequence with its error.
func (b *Planned) Entries() iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		for _, p := range b.parts {
			run := b.unread(p) // the part's entries: one skill's at most
			if p.kind == partFiles || p.kind == partLegacy {
				r := &b.set.rows[p.i]
				sk, err := b.set.load(r)
				if err != nil {
					yield(Entry{}, fmt.Errorf("layout: %w", err))
					return
				}
				for _, f := range sk.Files {
					e := Entry{Path: SkillFile(r.name, f.Path), Kind: KindFile, Skill: r.name, File: f.Path, Digest: f.Digest, Size: f.Size, Exec: f.Exec}
					if p.kind == partLegacy {
						e.Path = LegacyFile(r.name, f.Path)
					}
					run = append(run, e)
				}
				slices.SortFunc(run, func(x, y Entry) int { return strings.Compare(x.Path, y.Path) })
			}
			for _, e := range run {
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}

// unread is the entries of a part that need no skill read: all but a
// run's files, for which it gives the files of the skill's versions.
func (b *Planned) unread(p part) []Entry {
	s := b.set
	switch p.kind {
	case partFixed:
		return []Entry{b.docs[p.i]}
	case partVersions:
		return s.versionEntries(p.i)
	case partFiles:
		if h := s.rows[p.i].hist; h > 0 {
			return s.versionEntries(h)
		}
	case partPage:
		r := &s.rows[p.i]
		return []Entry{{Path: CatalogPage(r.name), Kind: KindPage, Skill: r.name, Digest: r.page.Digest, Size: r.page.Size}}
	case partTarGz, partZip:
		return []Entry{s.archive(p)}
	}
	return nil
}

// Docs returns the documents of the bundle, sorted by path: the entries of
// kind KindDoc, few whatever the bundle's size.
func (b *Planned) Docs() []Entry { return slices.Clone(b.docs) }

// Plan lays out the bundle of skills: each skill's files in the v0.2 tree
// and, unless o.NoLegacy, in the v0.1 tree (but skills whose paths break
// its rules); each skill's .tar.gz and .zip; every index; checksums.txt;
// .nojekyll and _headers; and what o asks for: the catalog and the skills'
// pages, llms.txt, the AI Catalog, the plugins, the marketplace files, and
// the versions' folders, versions.json and the release's snapshot.
//
// checksums.txt lists every archive, page and document but .nojekyll,
// _headers and itself; it leaves out the skill files, whose digests the
// indexes carry, so the sums of the indexes vouch for everything else.
//
// Plan reads every skill once to check it, then renders each document
// once (o.Render) to learn its digest and size, keeping a few strings per
// skill and nothing per file.
func Plan(skills Skills, o Options) (*Planned, error) {
	if err := CheckSkills(skills.Len()); err != nil {
		return nil, err
	}
	set, err := newSet(skills, o)
	if err != nil {
		return nil, err
	}
	if c := o.Catalog; c != nil {
		if !c.Digest.Valid() || c.Size < 0 {
			return nil, fmt.Errorf("layout: catalog digest %q or size %d is not valid", c.Digest, c.Size)
		}
		if err := CheckDocument(Catalog, c.Size); err != nil {
			return nil, err
		}
	}
	b := &Planned{set: set}
	if !o.NoLegacy {
		b.Excluded = set.excluded()
	}
	for _, r := range set.rows {
		if r.offMCP != "" {
			b.OffMCP = append(b.OffMCP, Excluded{Name: r.name, Reason: r.offMCP, Fix: r.mcpFix})
		}
	}

	doc := func(path string, write func(io.Writer) error) {
		b.docs = append(b.docs, Entry{Path: path, Kind: KindDoc, Write: write})
	}
	doc(V2Index, set.v2)
	if !o.NoLegacy {
		doc(V1Index, set.v1)
	}
	doc(MCPSkills, set.mcpSkills)
	doc(MCPIndex, set.mcpIndex)
	doc(MCPResources, nil) // set below: it lists mcp/index.json's digest
	if c := o.Catalog; c != nil {
		// No Write: the caller streams the page it rendered.
		b.docs = append(b.docs, Entry{Path: Catalog, Kind: KindDoc, Digest: c.Digest, Size: c.Size})
	}
	var discovery []string
	if o.LLMsTxt != nil {
		doc(LLMsTxt, set.llmsTxt)
		discovery = append(discovery, LLMsTxt)
	}
	if o.AICatalog {
		doc(AICatalog, set.aiCatalog)
		discovery = append(discovery, AICatalog)
	}
	if err := checkPlugins(o.Plugins); err != nil {
		return nil, err
	}
	b.docs = append(b.docs, pluginDocs(o.Plugins, o)...)
	if len(o.Plugins) > 0 {
		discovery = append(discovery, PluginsIndex)
	}
	if m := o.Marketplace; m != nil {
		if CheckName(m.Name) != nil || m.Owner == "" {
			return nil, fmt.Errorf("layout: a marketplace is named by a kebab-case name and an owner, not %q and %q", m.Name, m.Owner)
		}
		for _, f := range m.Files {
			if !slices.Contains(marketplaces, f) {
				return nil, fmt.Errorf("layout: %q is no marketplace file", f)
			}
		}
		for _, f := range marketplaces {
			if slices.Contains(m.Files, f) {
				discovery = append(discovery, f)
				doc(f, marketplaceDoc(f, o.Plugins, *m))
			}
		}
	}
	doc(Checksums, b.checksums)
	doc(NoJekyll, fixed(nil))
	shadowed := set.shadowed || slices.ContainsFunc(o.Plugins, func(pl Plugin) bool {
		return slices.ContainsFunc(pl.Files, func(f PluginFile) bool { return Shadowed(PluginDir(pl.Name) + "/" + f.Path) })
	})
	doc(Headers, fixed(HeadersDoc(shadowed, discovery...)))
	if set.hist != nil {
		if err := b.versionDocs(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(b.docs, func(x, y Entry) int { return strings.Compare(x.Path, y.Path) })

	for i := range b.docs {
		b.parts = append(b.parts, part{partFixed, int32(i)})
	}
	b.n = len(b.docs)
	for i := range set.rows {
		r := &set.rows[i]
		b.parts = append(b.parts, part{partFiles, int32(i)}, part{partTarGz, int32(i)}, part{partZip, int32(i)})
		b.n += int(r.files) + 2
		if !o.NoLegacy && r.left == "" {
			b.parts = append(b.parts, part{partLegacy, int32(i)})
			b.n += int(r.files)
		}
		if r.page.Digest != "" {
			b.parts = append(b.parts, part{partPage, int32(i)})
			b.n++
		}
	}
	if set.hist != nil {
		b.versionParts()
	}
	set.sortParts(b.parts, SkillsDir+"/", func(i int32) string { return b.docs[i].Path })

	// mcp/resources.json lists mcp/index.json, and checksums.txt every
	// other document, so those two are rendered last, in that order.
	at := func(path string) *Entry {
		i, _ := slices.BinarySearchFunc(b.docs, path, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
		return &b.docs[i]
	}
	// versions.json, when there is one, lists the digest of this build's
	// snapshot, so it goes before those two.
	last := []string{MCPResources, Checksums}
	if set.hist != nil {
		last = []string{VersionsIndex, MCPResources, Checksums}
	}
	render := o.Render
	if render == nil {
		render = func(_ string, write func(io.Writer) error) (Rendered, error) { return Render(io.Discard, write) }
	}
	// The others list none of one another, so they render at once: each
	// walks every skill, and one at a time they would leave a core idle.
	var first []*Entry
	for i := range b.docs {
		if d := &b.docs[i]; !slices.Contains(last, d.Path) {
			first = append(first, d)
		}
	}
	if err := parallel.Each(len(first), 0, func(i int) error { return measureDoc(first[i], render) }); err != nil {
		return nil, err
	}
	if h := set.hist; h != nil {
		var snap Rendered
		if h.snapshot {
			s := at(Snapshot(h.v.Release))
			snap = Rendered{Digest: s.Digest, Size: s.Size}
		}
		at(VersionsIndex).Write = set.versionsDoc(snap)
	}
	index := at(MCPIndex)
	at(MCPResources).Write = set.resources(Rendered{Digest: index.Digest, Size: index.Size})
	for _, p := range last {
		if err := measureDoc(at(p), render); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// measureDoc measures a document that has a Write.
func measureDoc(d *Entry, render func(string, func(io.Writer) error) (Rendered, error)) error {
	if d.Write == nil || d.Digest != "" {
		return nil // the catalog, which the caller renders, or a document carried forward
	}
	r, err := render(d.Path, d.Write)
	if err != nil {
		return fmt.Errorf("layout: rendering %s: %w", d.Path, err)
	}
	d.Digest, d.Size = r.Digest, r.Size
	return CheckDocument(d.Path, d.Size)
}

// checksums renders checksums.txt from the entries in path order, reading
// no skill: it lists only documents and archives.
func (b *Planned) checksums(w io.Writer) error {
	for _, p := range b.parts {
		for _, e := range b.unread(p) {
			// Archives (the versions' too), pages and the documents summed lists.
			if e.Format != "" || e.Kind == KindPage || e.Kind == KindDoc && summed(e.Path) {
				if _, err := io.WriteString(w, checksumLine(Sum{Path: e.Path, Digest: e.Digest})); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// summed reports whether checksums.txt lists the document at path.
func summed(path string) bool {
	switch path {
	case V2Index, V1Index, MCPSkills, MCPIndex, MCPResources, Catalog, VersionsIndex, LLMsTxt, AICatalog, PluginsIndex:
		return true
	}
	if pluginArchive(path) || pluginFile(path) || slices.Contains(marketplaces, path) {
		return true
	}
	_, snapshot := parseSnapshot(path)
	return snapshot
}
