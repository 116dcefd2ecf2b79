package layout

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Kind says where an entry's bytes come from.
type Kind int

const (
	// KindFile is a skill's file, copied byte for byte from the source.
	KindFile Kind = iota + 1
	// KindArchive is an archive the build packed; Format says which.
	KindArchive
	// KindDoc is a document: made here and rendered by Write, or the
	// catalog, which the caller writes.
	KindDoc
)

// String names the kind as the golden files show it.
func (k Kind) String() string {
	switch k {
	case KindFile:
		return "file"
	case KindArchive:
		return "archive"
	case KindDoc:
		return "doc"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Entry is one file of the bundle.
type Entry struct {
	Path   string // slash-separated, relative to dist/
	Kind   Kind
	Skill  string // the skill it belongs to; "" for documents
	File   string // KindFile: the path within the skill
	Format string // KindArchive: TarGz or Zip
	// Write renders a KindDoc entry to w: the bytes that Digest and Size
	// describe, the same on every call, and safe to call from several
	// goroutines at once. It streams the document skill by skill, so that
	// writing a bundle of any size holds one skill's part of a document at
	// a time, never the whole; Plan rendered it once into a hash and kept
	// nothing. It writes in small pieces, one per array element, so give
	// it a buffered writer; it returns the first error w returns.
	//
	// Write is nil for every other kind, and for the catalog (Catalog),
	// which the caller renders and writes itself (see Options.Catalog).
	Write  func(w io.Writer) error
	Digest string // "sha256:<hex>"
	Size   int64
}

// Bundle is everything a build writes to dist/, so that the writer, verify
// and serve share one list. The catalog (index.html) is in it when
// Options.Catalog is set.
type Bundle struct {
	Entries  []Entry    // sorted bytewise by Path, no duplicates
	Excluded []Excluded // skills left out of the v0.1 index and tree
}

// Lookup returns the entry at a dist path.
func (b *Bundle) Lookup(path string) (Entry, bool) {
	i, ok := slices.BinarySearchFunc(b.Entries, path, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
	if !ok {
		return Entry{}, false
	}
	return b.Entries[i], true
}

// Plan lays out the bundle of skills: each skill's files in the v0.2 tree
// and, unless o.NoLegacy, again in the v0.1 tree (skills whose paths break
// the v0.1 rules are left out of both the legacy index and tree); the
// .tar.gz and .zip of each skill; every index; checksums.txt; .nojekyll and
// _headers; and index.html if o.Catalog is set.
//
// checksums.txt lists every archive, every JSON index (v0.2, v0.1,
// mcp/skills.json, mcp/index.json, mcp/resources.json) and index.html. It
// leaves out the skill files, whose digests the indexes already carry, so
// the sums of the indexes vouch for everything else.
//
// Plan renders each document once to learn its digest and size, and keeps
// none of them: the memory it takes grows with the number of skills and
// files, not with the size of the documents.
func Plan(skills []Skill, o Options) (*Bundle, error) {
	ss, err := prepare(skills, o)
	if err != nil {
		return nil, err
	}
	if c := o.Catalog; c != nil && (!ValidDigest(c.Digest) || c.Size < 0) {
		return nil, fmt.Errorf("layout: catalog digest %q or size %d is not valid", c.Digest, c.Size)
	}
	b := &Bundle{}
	add := func(e Entry) { b.Entries = append(b.Entries, e) }
	var sums []Sum
	// Rendering fails only if encoding/json does, which valid skills never
	// make it do; the first failure is kept and returned once at the end.
	var docErr error
	doc := func(path string, write func(io.Writer) error, sum bool) Rendered {
		r, err := measure(write)
		if err != nil {
			if docErr == nil {
				docErr = fmt.Errorf("layout: rendering %s: %w", path, err)
			}
			return r
		}
		add(Entry{Path: path, Kind: KindDoc, Write: write, Digest: r.Digest, Size: r.Size})
		if sum {
			sums = append(sums, Sum{Path: path, Digest: r.Digest})
		}
		return r
	}

	doc(V2Index, v2Writer(ss, o), true)
	excluded := map[string]bool{}
	if !o.NoLegacy {
		v1, left := v1Writer(ss, o)
		doc(V1Index, v1, true)
		b.Excluded = left
		for _, x := range left {
			excluded[x.Name] = true
		}
	}
	doc(MCPSkills, mcpSkillsWriter(ss), true)
	index := doc(MCPIndex, mcpIndexWriter(ss, o), true)
	doc(MCPResources, resourcesWriter(ss, index), true)

	for _, s := range ss {
		for _, f := range s.Files {
			e := Entry{Path: SkillFile(s.Name, f.Path), Kind: KindFile, Skill: s.Name, File: f.Path, Digest: f.Digest, Size: f.Size}
			add(e)
			if !o.NoLegacy && !excluded[s.Name] {
				e.Path = LegacyFile(s.Name, f.Path)
				add(e)
			}
		}
		for _, a := range s.archives() {
			p := ArchivePath(s.Name, a.a.Digest, a.ext)
			add(Entry{Path: p, Kind: KindArchive, Skill: s.Name, Format: a.ext, Digest: a.a.Digest, Size: a.a.Size})
			sums = append(sums, Sum{Path: p, Digest: a.a.Digest})
		}
	}

	if c := o.Catalog; c != nil {
		// No Write: the caller streams the page it rendered. In
		// checksums.txt too, so that a server can vouch for the page.
		add(Entry{Path: Catalog, Kind: KindDoc, Digest: c.Digest, Size: c.Size})
		sums = append(sums, Sum{Path: Catalog, Digest: c.Digest})
	}
	doc(Checksums, checksumsWriter(sums), false)
	doc(NoJekyll, fixed(nil), false)
	doc(Headers, fixed(HeadersDoc()), false)
	if docErr != nil {
		return nil, docErr
	}

	slices.SortFunc(b.Entries, func(x, y Entry) int { return strings.Compare(x.Path, y.Path) })
	for i := 1; i < len(b.Entries); i++ {
		// Skill names cannot produce this (no dots, no slashes); a
		// duplicate means a bug here, and two writes to one path must not
		// pass silently.
		if b.Entries[i].Path == b.Entries[i-1].Path {
			return nil, fmt.Errorf("layout: two entries at %s (skills %q and %q)", b.Entries[i].Path, b.Entries[i-1].Skill, b.Entries[i].Skill)
		}
	}
	return b, nil
}
