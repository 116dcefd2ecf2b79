package layout

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
)

// Skills is the skills of a bundle, read one at a time: Plan keeps a row
// of a few strings per skill, and every document reads them again, so that
// a bundle is written holding one skill per writer. A few fit a List.
type Skills interface {
	Len() int
	// Skill returns the i-th skill, 0 <= i < Len(), the same on every
	// call. It is called from several goroutines at once when documents
	// are written at once.
	Skill(i int) (Skill, error)
}

// List is Skills held in a slice.
type List []Skill

func (l List) Len() int                   { return len(l) }
func (l List) Skill(i int) (Skill, error) { return l[i], nil }

// set is a checked set of skills in name order, what every document is
// rendered from, keeping a row per skill.
type set struct {
	src  Skills
	rows []row   // by name
	uris []int32 // rows by skill URI, the order of mcp/skills.json
	o    Options
	hist *history // with Options.Versioned: every version of every skill
	// shadowed: a skill's file is named like an archive (Shadowed)
	shadowed bool
}

// row is what a set keeps of a skill.
type row struct {
	name    string
	src     int32 // its index in the Skills
	files   int32
	left    string // why it is left out of the v0.1 tree (legacyReason), "" when it is in
	offMCP  string // why it is left out of the MCP documents (Skill.OffMCP), "" when it is in
	mcpFix  string // Skill.OffMCPFix
	version string // its SemVer version, "" for none
	tgz     Archive
	zip     Archive
	hist    int32 // its entry in set.hist.skills, 1-based; 0 for none
	page    Rendered
}

// newSet reads and checks every skill once. The errors name each skill.
func newSet(src Skills, o Options) (*set, error) {
	errs := []error{CheckBaseURL(o.BaseURL), checkDiscovery(o)} // errors.Join drops the nils
	s := &set{src: src, o: o, rows: make([]row, src.Len())}
	if o.Versioned != nil {
		var err error
		s.hist, err = newHistory(o.Versioned)
		errs = append(errs, err)
	}
	for i := range s.rows {
		sk, err := src.Skill(i)
		if err != nil {
			return nil, fmt.Errorf("layout: skill %d: %w", i, err)
		}
		errs = append(errs, checkSkill(sk))
		s.shadowed = s.shadowed || slices.ContainsFunc(sk.Files, func(f File) bool { return Shadowed(SkillFile(sk.Name, f.Path)) })
		s.rows[i] = row{name: sk.Name, src: int32(i), files: int32(len(sk.Files)), left: legacyReason(sk), offMCP: sk.OffMCP, mcpFix: sk.OffMCPFix, version: sk.Version, tgz: sk.TarGz, zip: sk.Zip}
		if sk.Page != nil {
			s.rows[i].page = *sk.Page
		}
		if s.hist != nil {
			errs = append(errs, s.hist.add(sk))
		}
	}
	slices.SortFunc(s.rows, func(a, b row) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(s.rows); i++ {
		if s.rows[i].name == s.rows[i-1].name {
			errs = append(errs, fmt.Errorf("skill %q: two skills have this name; names must be unique in a bundle", s.rows[i].name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if s.hist != nil {
		s.hist.settle(s.rows)
	}
	// By URI, not name: "skill://a-b/" sorts before "skill://a/".
	s.uris = make([]int32, len(s.rows))
	for i := range s.uris {
		s.uris[i] = int32(i)
	}
	slices.SortFunc(s.uris, func(a, b int32) int {
		return compareParts(keyOf(s.rows[a].name, "/"), keyOf(s.rows[b].name, "/"))
	})
	return s, nil
}

// load reads the skill of a row, its files sorted by path.
func (s *set) load(r *row) (Skill, error) {
	sk, err := s.src.Skill(int(r.src))
	if err != nil {
		return Skill{}, fmt.Errorf("skill %q: %w", r.name, err)
	}
	// Skills promise the same skill on every call; one that broke it
	// would make documents that contradict their digests.
	if sk.Name != r.name || len(sk.Files) != int(r.files) || sk.TarGz != r.tgz || sk.Zip != r.zip || (sk.Page != nil) != (r.page.Digest != "") {
		return Skill{}, fmt.Errorf("skill %q changed between two reads", r.name)
	}
	less := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(sk.Files, less) {
		sk.Files = slices.Clone(sk.Files)
		slices.SortFunc(sk.Files, less)
	}
	return sk, nil
}

// each yields what entry makes of each row keep accepts (nil: all) and its
// skill, read again, in name order: a document's streamed array.
func (s *set) each(keep func(*row) bool, entry func(r *row, sk Skill) (any, error)) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for i := range s.rows {
			r := &s.rows[i]
			if keep != nil && !keep(r) {
				continue
			}
			sk, err := s.load(r)
			var v any
			if err == nil {
				v, err = entry(r, sk)
			}
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// archive is the Entry of a partTarGz or partZip part.
func (s *set) archive(p part) Entry {
	r := &s.rows[p.i]
	a := archives(r.tgz, r.zip)[p.kind-partTarGz]
	return Entry{Path: ArchivePath(r.name, a.a.Digest, a.ext), Kind: KindArchive, Skill: r.name, Format: a.ext, Digest: a.a.Digest, Size: a.a.Size}
}

// A folder of the bundle (the v0.2 tree, the v0.1 tree, the skill:// URIs)
// holds, for each skill, a run of its files under "<name>/" and its two
// archives, beside a few fixed names. No path outside a run starts with
// its prefix, so a run sorts as a whole, by its prefix: sorting parts by
// key lists the folder in path order without building every file's path.

// part is one thing a folder lists: a run of a skill's files, one of its
// archives, or a fixed path.
type part struct {
	kind partKind
	i    int32 // the row; for partFixed, an index the caller knows
}

type partKind uint8

const (
	partFiles partKind = iota
	partTarGz          // archives follow partFiles: a part's archive is archives()[kind-partTarGz]
	partZip
	partLegacy // a run of the v0.1 tree, wherever the folder is
	partFixed
	partVersions // a skill not in the build, with published versions: i is its set.hist entry, 1-based
	partPage     // the skill's page in the catalog, in a folder of its own
)

// key returns the pieces whose concatenation sorts the part in a folder
// whose prefix is dir; fixed(i) gives the path of a fixed part.
func (s *set) key(p part, dir string, fixed func(int32) string) key {
	switch p.kind {
	case partFiles:
		return keyOf(dir, s.rows[p.i].name, "/")
	case partTarGz, partZip:
		r := &s.rows[p.i]
		a := archives(r.tgz, r.zip)[p.kind-partTarGz]
		n := archiveNameParts(r.name, a.a.Digest.Short(), a.ext)
		return keyOf(dir, n[0], n[1], n[2], n[3], n[4])
	case partLegacy:
		return keyOf(LegacyDir+"/", s.rows[p.i].name, "/")
	case partVersions:
		return keyOf(dir, s.hist.skills[p.i-1].name, "/")
	case partPage:
		return keyOf(PagesDir+"/", s.rows[p.i].name, PageExt)
	}
	return keyOf(fixed(p.i))
}

func (s *set) sortParts(ps []part, dir string, fixed func(int32) string) {
	slices.SortFunc(ps, func(a, b part) int {
		return compareParts(s.key(a, dir, fixed), s.key(b, dir, fixed))
	})
}

// key is a path in pieces, compared as their concatenation. An array,
// not a slice, so that sorting thousands of paths allocates nothing.
type key [6]string

func keyOf(pieces ...string) key {
	var k key
	copy(k[:], pieces)
	return k
}

// compareParts compares the concatenation of a with that of b bytewise,
// as strings.Compare would, without building either.
func compareParts(ka, kb key) int {
	a, b := ka[:], kb[:]
	var x, y string
	for {
		for x == "" && len(a) > 0 {
			x, a = a[0], a[1:]
		}
		for y == "" && len(b) > 0 {
			y, b = b[0], b[1:]
		}
		if x == "" || y == "" {
			return len(x) - len(y) // the one that ran out first sorts first
		}
		n := min(len(x), len(y))
		if c := strings.Compare(x[:n], y[:n]); c != 0 {
			return c
		}
		x, y = x[n:], y[n:]
	}
}
