package verify

import (
	"maps"
	"path"
	"slices"

	"github.com/skillpack/skillpack/layout"
)

// unpackArchives reads every archive any document names, checks its
// digest against every claim and its name against its digest, and
// unpacks it in memory.
func (c *checker) unpackArchives() {
	l := limits{entries: c.o.MaxEntries, unpacked: c.o.MaxUnpacked, file: c.o.MaxSize, ratio: c.o.MaxRatio}
	for _, loc := range slices.Sorted(maps.Keys(c.archives)) {
		a := c.archives[loc]
		data := c.read(loc, false)
		if data == nil {
			continue
		}
		c.rep.Checked.Archives++
		s := c.sums[loc]
		for _, cl := range a.claims {
			switch {
			case cl.digest != s.digest:
				c.problem(loc, "digest is %s, but %s says %s", s.digest, cl.from, cl.digest)
			case cl.size >= 0 && cl.size != s.size:
				c.problem(loc, "is %d bytes, but %s says %d", s.size, cl.from, cl.size)
			}
		}
		if want := layout.ArchiveName(a.skill, s.digest, a.ext); path.Base(loc) != want {
			c.problem(loc, "name does not carry its own digest: its sha256 begins %s, so it should be named %s (content-addressed names never change meaning)", s.digest.Short(), want)
		}
		a.unpacked = unpack(data, a.ext, l)
		for _, msg := range a.unpacked.problems {
			c.problem(loc, "%s", msg)
		}
	}
}

// skill checks one skill's served files against every list of them: the
// v0.1 index and copies, mcp/skills.json, and each archive.
func (c *checker) skill(s *skillModel) {
	if s.filesFrom == "" {
		// No MCP listing: the v0.1 index, then the .tar.gz, says what
		// the skill's files are.
		if e := c.v1Entry(s.name); e != nil {
			s.files, s.filesFrom = slices.Clone(e.Files), layout.V1Index
		} else if s.typ == layout.TypeArchive && c.archives[s.loc] != nil && c.archives[s.loc].unpacked != nil {
			for _, e := range c.archives[s.loc].unpacked.entries {
				s.files = append(s.files, e.path)
			}
			s.filesFrom = s.loc
		} else {
			s.files, s.filesFrom = []string{layout.EntryFile}, layout.V2Index
		}
	}
	slices.Sort(s.files)
	s.files = slices.Compact(s.files)
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
	if e := c.v1Entry(s.name); e != nil {
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
	var exec map[string]bool
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
		m := map[string]bool{}
		for _, e := range a.unpacked.entries {
			m[e.path] = e.exec
		}
		if exec == nil {
			exec, execFrom = m, a.loc
			continue
		}
		for p, x := range m {
			if y, ok := exec[p]; ok && x != y {
				c.problem(a.loc, "entry %q has exec bit %v, but %s has %v; both archives must agree", p, x, execFrom, y)
			}
		}
	}
}

func (c *checker) v1Entry(name string) *layout.EntryV1 {
	if c.v1 == nil {
		return nil
	}
	for i := range c.v1.Skills {
		if c.v1.Skills[i].Name == name {
			return &c.v1.Skills[i]
		}
	}
	return nil
}

// compareArchive checks that an archive holds exactly the skill's served
// files, byte for byte.
func (c *checker) compareArchive(s *skillModel, a *archiveRef) {
	in := map[string]bool{}
	for _, e := range a.unpacked.entries {
		in[e.path] = true
		if !slices.Contains(s.files, e.path) {
			c.problem(a.loc, "entry %q is not a file of skill %q (%s lists %d files); the archive does not match the served skill", e.path, s.name, s.filesFrom, len(s.files))
			continue
		}
		served := s.served[e.path]
		if served == nil {
			continue
		}
		if d := layout.SumDigest(e.sum[:]); d != served.digest {
			c.problem(a.loc, "entry %q has digest %s, but the served %s has %s", e.path, d, layout.SkillFile(s.name, e.path), served.digest)
		}
	}
	for _, f := range s.files {
		if !in[f] {
			c.problem(a.loc, "lacks %q, a file of skill %q (%s)", f, s.name, s.filesFrom)
		}
	}
}
