package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// A foreign bundle's v0.2 index is another tool's (a site's hand-made
// one, a docs framework's): its generator does not name skillpack. It is
// held to the discovery format, and each skill to what the skills CLI
// takes (its url's bytes match the digest, an archive unpacks safely with
// a SKILL.md at its root that names and describes the skill); skillpack's
// own conventions are not applied, and --previous is not compared.

// isForeign reports whether the bundle is another tool's: its v0.2 index
// names no skillpack generator, and it holds neither checksums.txt nor a
// build record (so a skillpack bundle whose index was replaced is still
// held to them). Reading checksums.txt drops the document loaded last.
func (c *checker) isForeign(generator string) bool {
	if strings.HasPrefix(generator, "skillpack") {
		return false
	}
	if _, summed, _ := c.checksumLines(); summed {
		return false
	}
	return c.lacks(layout.BuildRecord)
}

// lacks reports whether the source has no file at loc (an error that is
// no fs.ErrNotExist is no answer: false).
func (c *checker) lacks(loc string) bool {
	rc, _, err := c.src.Open(c.ctx, loc)
	if err == nil {
		rc.Close()
	}
	return errors.Is(err, fs.ErrNotExist)
}

// notInFolder reports whether a foreign index's url, which locate took
// to loc (or refused with err), is absolute and leads out of the folder or
// store: on another origin, or on the site's own (a folder cannot tell
// them apart) when the folder does not hold the file.
func (c *checker) notInFolder(ref, loc string, err error) bool {
	if _, site := c.src.(*bundle.Site); !c.foreign || site {
		return false
	}
	if err != nil || !strings.Contains(ref, "://") {
		return errors.Is(err, errOutside)
	}
	return c.lacks(loc)
}

// legacyOnly reports whether the bundle is a foreign one with no v0.2
// index but a v0.1 one, which clients then read, and if so reads it.
func (c *checker) legacyOnly() bool {
	if !c.isForeign("") {
		return false
	}
	data, err := c.load(layout.V1Index, true)
	if err != nil {
		return false
	}
	c.foreign, c.rep.Foreign = true, "none"
	c.docs = append(c.docs, layout.V1Index)
	c.rep.Checked.Indexes++
	c.legacy(layout.V1Index, layout.LegacyDir, data)
	return true
}

// isV01 reports whether data is an index in the v0.1 form: one of its
// skills lists "files".
func isV01(data []byte) bool {
	doc, _ := layout.DecodeIndexV1(data)
	return doc != nil && slices.ContainsFunc(doc.Skills, func(e layout.EntryV1) bool { return e.Files != nil })
}

// legacy reads the foreign index at p, in data, as the skills CLI reads a
// v0.1 index (one with no $schema) whose skills are folders under dir:
// one entry it refuses refuses the whole index; each skill's SKILL.md is
// <dir>/<name>/SKILL.md, and every file it lists must be there.
func (c *checker) legacy(p, dir string, data []byte) {
	doc, err := layout.DecodeIndexV1(data)
	if !c.decoded(p, data, err) && doc == nil || c.tooMany(p, len(doc.Skills)) {
		return
	}
	var locs []string
	for i, e := range doc.Skills {
		label := fmt.Sprintf("skills[%d] %q", i, clipped(e.Name))
		why := ""
		switch err := layout.CheckName(e.Name); {
		case c.skills[e.Name] != nil:
			c.problem(p, "%s: a second entry with this name; clients install one of the two", label)
			continue
		case err != nil:
			why = err.Error()
		case e.Description == "":
			why = "has no description"
		case !slices.ContainsFunc(e.Files, func(f string) bool { return strings.EqualFold(f, layout.EntryFile) }):
			why = "its files list no " + layout.EntryFile
		default:
			for _, f := range e.Files {
				if f == "" || strings.ContainsAny(f[:1], `/\`) || strings.Contains(f, "..") || strings.Contains(f, "\x00") {
					why = fmt.Sprintf("file %q is not a safe relative path", clipped(f))
					break
				}
			}
		}
		if why != "" {
			c.problem(p, "%s: %s; the skills CLI refuses the whole index for one bad entry", label, why)
			continue
		}
		loc := dir + "/" + e.Name + "/" + layout.EntryFile
		c.skills[e.Name] = &skillModel{name: e.Name, typ: layout.TypeSkillMD, description: e.Description, loc: loc}
		c.names = append(c.names, e.Name)
		c.skillMDs[loc] = true
		locs = append(locs, loc)
		for _, f := range e.Files {
			if !strings.EqualFold(f, layout.EntryFile) {
				locs = append(locs, dir+"/"+e.Name+"/"+f)
			}
		}
	}
	slices.Sort(c.names)
	c.prefetch(locs)
	for _, loc := range locs {
		c.failed(loc, p)
	}
}

// asClient checks a foreign bundle.
func (c *checker) asClient() {
	c.settle()
	c.unpackArchives()
	for _, name := range c.names {
		s := c.skills[name]
		var head []byte
		if a := c.archives[s.loc]; a != nil && a.unpacked != nil {
			head = a.unpacked.head
		} else if sm := c.sums[s.loc]; sm != nil && s.typ == layout.TypeSkillMD {
			head = sm.head
		}
		if head == nil {
			continue // not read, or no SKILL.md: reported as such
		}
		d := skill.Parse(head)
		for _, key := range []string{"name", "description"} {
			if _, ok := d.String(key); !ok {
				c.problem(s.loc, "skill %q: its %s's frontmatter has no %s that is text, so the skills CLI skips the skill", name, layout.EntryFile, key)
			}
		}
	}
	c.signatures()
	if c.o.Previous != "" {
		c.rep.Warnings = append(c.rep.Warnings, Problem{c.rep.Source, fmt.Sprintf("not compared with %s: --previous compares bundles skillpack built", c.o.Previous)})
	}
}
