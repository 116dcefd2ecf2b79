package verify

import (
	"bytes"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// unpackArchives reads every archive any document names, on the
// workers, each unpacked in memory as soon as it is read; then, in order,
// checks its digest against every claim and its name against its digest.
func (c *checker) unpackArchives() {
	var locs []string
	for _, loc := range slices.Sorted(maps.Keys(c.archives)) {
		if s, ok := c.sums[loc]; !ok || s.err == nil {
			locs = append(locs, loc)
		}
	}
	got, us := c.unpackEach(locs, layout.EntryFile)
	for i, loc := range locs {
		a, s := c.archives[loc], got[i]
		if a.unpacked = us[i]; s.err != nil {
			c.failed(loc, "")
			continue
		}
		for _, cl := range a.claims {
			c.differs(s, cl)
		}
		if want := layout.ArchiveName(a.skill, s.digest, a.ext); path.Base(loc) != want && !c.foreign {
			c.problem(loc, "name does not carry its own digest: its sha256 begins %s, so it should be named %s (content-addressed names never change meaning)", s.digest.Short(), want)
		}
		for _, msg := range a.unpacked.problems {
			c.problem(loc, "%s", msg)
		}
	}
}

// unpackEach reads each archive at locs on the workers, each unpacked in
// memory as soon as it is read (root as unpack says), and records and
// counts what the reads found.
func (c *checker) unpackEach(locs []string, root string) ([]*sum, []*unpacked) {
	l := pack.Limits{File: c.o.MaxSize, Unpacked: c.o.MaxUnpacked, Entries: c.o.MaxEntries, Ratio: c.o.MaxRatio}
	us := make([]*unpacked, len(locs))
	got := c.fetchHeld(locs, func(i int, data []byte) {
		ext := layout.ArchiveFormat(locs[i])
		if ext == "" { // a foreign index's: known by its bytes, as clients know it
			ext = layout.TarGz
			if bytes.HasPrefix(data, []byte("PK")) {
				ext = layout.Zip
			}
		}
		us[i] = unpack(data, ext, l, root, c.foreign)
	})
	for i, loc := range locs {
		if c.sums[loc] = got[i]; got[i].err == nil {
			c.rep.Checked.Archives++
		}
	}
	return got, us
}

// checkMCP checks what the MCP documents say of s against what MCP hosts
// take of it (skill.CheckMCP, as the build judges it, from its served
// SKILL.md and files): a skill hosts refuse must be in none of them (the
// official SDK refuses a whole listing that holds its entry, or cannot
// read the skill), every other skill in each.
func (c *checker) checkMCP(s *skillModel) {
	entry := c.sums[layout.SkillFile(s.name, layout.EntryFile)]
	if entry == nil || entry.head == nil {
		return // SKILL.md cannot be read: reported as such
	}
	d := skill.Parse(entry.head)
	var served int64
	for _, f := range s.files {
		if h := s.served[f]; h != nil {
			served += skill.ServedSize(h.size, h.text)
		}
	}
	off := d.CheckMCP(len(s.files), served)
	var in []string // the MCP documents that list it
	for _, p := range []string{layout.MCPSkills, layout.MCPIndex, layout.MCPResources} {
		listed, read := c.mcpListed[p]
		switch {
		case listed[s.name]:
			in = append(in, p)
		case read && off == nil && p != layout.MCPResources:
			c.problem(p, "skill %q of %s is missing; the indexes must list the same skills", s.name, layout.V2Index)
		}
	}
	if off != nil && len(in) > 0 {
		c.problem(in[0], "skill %q: MCP hosts refuse its entry: %s; a build leaves such a skill out of the MCP documents (%s list it): fix the skill (%s) or rebuild the bundle",
			s.name, off.Reason, strings.Join(in, ", "), off.Fix)
	}
	// MCP hosts compare the entry with their own reading of SKILL.md.
	if fm, ok := c.fmByURI[layout.SkillURI(s.name, layout.EntryFile)]; ok {
		if j, err := d.FrontmatterJSON(); err == nil && !sameJSON(fm, j) {
			c.problem(layout.MCPSkills, "skill %q: frontmatter differs from its SKILL.md's; MCP hosts refuse a skill whose entry is not the file's", s.name)
		}
	}
}

// checkSkills checks every skill: the served files of all of them are
// fetched at once first.
func (c *checker) checkSkills() {
	var locs []string
	for _, name := range c.names {
		s := c.skills[name]
		c.listFiles(s)
		for _, f := range s.files {
			if layout.CheckPath(f) == nil {
				locs = append(locs, layout.SkillFile(name, f))
			}
		}
		if e := c.v1[name]; e != nil {
			for _, f := range e.Files {
				if layout.CheckPath(f) == nil {
					locs = append(locs, layout.LegacyFile(name, f))
				}
			}
		}
	}
	c.prefetch(locs)
	for _, name := range c.names {
		c.skill(c.skills[name])
		c.checkMCP(c.skills[name])
	}
	c.settle()
	c.checkUnheld()
}

// listFiles says what the skill's files are: the MCP listing's, or else
// the v0.1 index's, or else the .tar.gz's entries, or else SKILL.md alone.
func (c *checker) listFiles(s *skillModel) {
	a := c.archives[s.loc]
	switch e := c.v1[s.name]; {
	case s.filesFrom != "":
	case e != nil:
		s.files, s.filesFrom = slices.Clone(e.Files), layout.V1Index
	case s.typ == layout.TypeArchive && a != nil && a.unpacked != nil:
		for _, e := range a.unpacked.entries {
			s.files = append(s.files, e.Path)
		}
		s.filesFrom = s.loc
	default:
		s.files, s.filesFrom = []string{layout.EntryFile}, layout.V2Index
	}
	slices.Sort(s.files)
	s.files = slices.Compact(s.files)
}

// skill checks one skill's served files against every list of them: the
// v0.1 index and copies, mcp/skills.json, and each archive.
func (c *checker) skill(s *skillModel) {
	if s.typ == layout.TypeSkillMD && len(s.files) > 1 {
		c.problem(layout.V2Index, "skill %q: type skill-md, but it has %d files (%s); clients would install only %s, so it must be type archive", s.name, len(s.files), s.filesFrom, layout.EntryFile)
	}
	for _, f := range s.files {
		if err := layout.CheckPath(f); err != nil {
			c.problem(s.filesFrom, "skill %q: file %q: %v", s.name, f, err)
			continue
		}
		loc := layout.SkillFile(s.name, f)
		if cl, ok := s.listed[f]; ok {
			c.expect(loc, layout.MCPSkills, cl.digest, cl.size)
		}
		if h := c.hash(loc); h.err == nil {
			s.served[f] = h
		}
	}
	if e := c.v1[s.name]; e == nil && c.v1 != nil && !slices.ContainsFunc(s.files, func(f string) bool { return layout.CheckLegacyPath(f) != nil }) {
		c.problem(layout.V1Index, "skill %q of %s is missing, though its files meet the v0.1 rules; the build lists every such skill", s.name, layout.V2Index)
	} else if e != nil {
		if !slices.Equal(slices.Sorted(slices.Values(e.Files)), s.files) {
			c.problem(layout.V1Index, "skill %q: files %v differ from %v in %s", s.name, e.Files, s.files, s.filesFrom)
		}
		for _, f := range e.Files {
			if layout.CheckPath(f) != nil {
				continue
			}
			if v2 := s.served[f]; v2 != nil {
				c.expect(layout.LegacyFile(s.name, f), "the v0.2 copy "+layout.SkillFile(s.name, f), v2.digest, v2.size)
			} else {
				c.hash(layout.LegacyFile(s.name, f))
			}
		}
	}
	var exec map[string]pack.Member
	var execFrom string
	for _, a := range s.archives {
		if a.unpacked == nil || a.unpacked.stopped {
			continue
		}
		c.compareArchive(s, a)
		cd := contentDigest(a.unpacked.entries)
		if s.contentDigest != "" && cd != s.contentDigest {
			c.problem(a.loc, "content digest of its entries (paths, modes, bytes) is %s, but %s says %s", cd, layout.V2Index, s.contentDigest)
		}
		m := a.unpacked.byPath()
		if exec == nil {
			exec, execFrom = m, a.loc
			continue
		}
		for _, p := range slices.Sorted(maps.Keys(m)) { // sorted, for the same report every run
			if y, ok := exec[p]; ok && m[p].Exec != y.Exec {
				c.problem(a.loc, "entry %q has exec bit %v, but %s has %v; both archives must agree", p, m[p].Exec, execFrom, y.Exec)
			}
		}
	}
}

// compareArchive checks that an archive holds exactly the skill's served
// files, byte for byte.
func (c *checker) compareArchive(s *skillModel, a *archiveRef) {
	in := map[string]bool{}
	for _, e := range a.unpacked.entries {
		in[e.Path] = true
		if !slices.Contains(s.files, e.Path) {
			c.problem(a.loc, "entry %q is not a file of skill %q (%s lists %d files); the archive does not match the served skill", e.Path, s.name, s.filesFrom, len(s.files))
			continue
		}
		served := s.served[e.Path]
		if served == nil {
			continue
		}
		if d := layout.SumDigest(e.Sum[:]); d != served.digest {
			c.problem(a.loc, "entry %q has digest %s, but the served %s has %s", e.Path, d, layout.SkillFile(s.name, e.Path), served.digest)
		}
	}
	for _, f := range s.files {
		if !in[f] {
			c.problem(a.loc, "lacks %q, a file of skill %q (%s)", f, s.name, s.filesFrom)
		}
	}
}
