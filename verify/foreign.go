package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// A foreign bundle is one whose v0.2 index another tool wrote (a site's
// hand-made index, a docs framework's): its generator does not name
// skillpack. Its index is held to the discovery format and each skill to
// what the skills CLI takes from it (its url's bytes match the digest, an
// archive unpacks safely with a SKILL.md at its root, and that SKILL.md
// names the skill and describes it); skillpack's own conventions
// (content-addressed names, served copies, the other documents) are not
// applied, and --previous is not compared.

// isForeign reports whether the bundle is another tool's: its v0.2 index
// names no skillpack generator, and it holds neither checksums.txt nor a
// build record, one of which every skillpack build writes, so that a
// skillpack bundle whose index was replaced is held to them still. It
// reads checksums.txt, which drops the document loaded last.
func (c *checker) isForeign(generator string) bool {
	if strings.HasPrefix(generator, "skillpack") {
		return false
	}
	if _, summed, _ := c.checksumLines(); summed {
		return false
	}
	rc, _, err := c.src.Open(c.ctx, layout.BuildRecord)
	if err == nil {
		rc.Close()
	}
	return errors.Is(err, fs.ErrNotExist)
}

// notInFolder reports whether a foreign index's url, which locate took
// to loc (or refused with err), is absolute and leads out of the folder
// or store read: a site's url on another origin, or on its own, which a
// folder cannot tell apart, when the folder does not hold the file.
func (c *checker) notInFolder(ref, loc string, err error) bool {
	if _, site := c.src.(*bundle.Site); !c.foreign || site {
		return false
	}
	if err != nil || !strings.Contains(ref, "://") {
		return errors.Is(err, errOutside)
	}
	rc, _, err := c.src.Open(c.ctx, loc)
	if err == nil {
		rc.Close()
	}
	return errors.Is(err, fs.ErrNotExist)
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
				c.problem(s.loc, "skill %q: its %s has no %s in its frontmatter, so the skills CLI skips the skill", name, layout.EntryFile, key)
			}
		}
	}
	c.signatures()
	if c.o.Previous != "" {
		c.rep.Warnings = append(c.rep.Warnings, Problem{c.rep.Source, fmt.Sprintf("not compared with %s: --previous compares bundles skillpack built", c.o.Previous)})
	}
}
