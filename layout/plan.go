package layout

import (
	"fmt"
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
	// KindDoc is a document made here; Data holds its bytes.
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
	Data   []byte // KindDoc: the bytes to write
	Digest string // "sha256:<hex>"
	Size   int64
}

// Bundle is everything a build writes to dist/, so that the writer, verify
// and serve share one list. The catalog (index.html) is not in it yet.
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
// _headers.
//
// checksums.txt lists every archive and every JSON index (v0.2, v0.1,
// mcp/skills.json, mcp/index.json, mcp/resources.json). It leaves out the
// skill files, whose digests the indexes already carry, so the sums of the
// indexes vouch for everything else.
func Plan(skills []Skill, o Options) (*Bundle, error) {
	ss, err := prepare(skills, o)
	if err != nil {
		return nil, err
	}
	b := &Bundle{}
	add := func(e Entry) { b.Entries = append(b.Entries, e) }
	var sums []Sum
	doc := func(path string, data []byte, sum bool) {
		e := Entry{Path: path, Kind: KindDoc, Data: data, Digest: Digest(data), Size: int64(len(data))}
		add(e)
		if sum {
			sums = append(sums, Sum{Path: path, Digest: e.Digest})
		}
	}

	v2, err := v2Doc(ss, o)
	if err != nil {
		return nil, err
	}
	doc(V2Index, v2, true)
	excluded := map[string]bool{}
	if !o.NoLegacy {
		v1, left, err := v1Doc(ss, o)
		if err != nil {
			return nil, err
		}
		doc(V1Index, v1, true)
		b.Excluded = left
		for _, x := range left {
			excluded[x.Name] = true
		}
	}
	skillsDoc, err := mcpSkillsDoc(ss)
	if err != nil {
		return nil, err
	}
	doc(MCPSkills, skillsDoc, true)
	index, err := mcpIndexDoc(ss, o)
	if err != nil {
		return nil, err
	}
	doc(MCPIndex, index, true)
	res, err := mcpResourcesDoc(ss, index)
	if err != nil {
		return nil, err
	}
	doc(MCPResources, res, true)

	for _, s := range ss {
		for _, f := range s.Files {
			e := Entry{Path: SkillFile(s.Name, f.Path), Kind: KindFile, Skill: s.Name, File: f.Path, Digest: f.Digest, Size: f.Size}
			add(e)
			if !o.NoLegacy && !excluded[s.Name] {
				e.Path = LegacyFile(s.Name, f.Path)
				add(e)
			}
		}
		for _, a := range []struct {
			ext string
			a   Archive
		}{{TarGz, s.TarGz}, {Zip, s.Zip}} {
			p := ArchivePath(s.Name, a.a.Digest, a.ext)
			add(Entry{Path: p, Kind: KindArchive, Skill: s.Name, Format: a.ext, Digest: a.a.Digest, Size: a.a.Size})
			sums = append(sums, Sum{Path: p, Digest: a.a.Digest})
		}
	}

	if o.Catalog != nil {
		// In checksums.txt too, so that a server can vouch for the page.
		doc(Catalog, o.Catalog, true)
	}
	doc(Checksums, ChecksumsDoc(sums), false)
	doc(NoJekyll, []byte{}, false)
	doc(Headers, HeadersDoc(), false)

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
