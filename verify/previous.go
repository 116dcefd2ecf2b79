package verify

import (
	"net/url"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// previous compares the bundle with the one published before it
// (Options.Previous), as build --previous does, with layout's rule
// (Published.Compare): a version whose content changed, a version or
// release that went down, a published version or release that is gone
// or changed, are problems; a skill that is gone is a warning.
func (c *checker) previous() {
	po := c.o.http()
	if h, ok := c.src.(*bundle.Site); !ok || !strings.Contains(c.o.Previous, "://") || !sameOrigin(h.String(), c.o.Previous) {
		po.Header = nil // credentials are for the origin they were given with
	}
	src, err := bundle.OpenSource(c.o.Previous, po)
	if err != nil {
		c.problem(c.o.Previous, "the previous bundle: %v", err)
		return
	}
	defer src.Close()
	was, err := bundle.Open(c.ctx, src, c.o.MaxSize)
	if err != nil {
		c.problem(c.o.Previous, "the previous bundle cannot be compared with: %v", err)
		return
	}
	now, err := bundle.Open(c.ctx, c.src, c.o.MaxSize)
	if err != nil {
		c.problem(layout.V2Index, "cannot be compared with the previous bundle: %v", err)
		return
	}
	c.rep.Previous = &Compared{Source: c.o.Previous, Skills: len(was.Index.Skills)}
	if was.Versions != nil {
		for _, s := range was.Versions.Skills {
			c.rep.Previous.Versions += len(s.Versions)
		}
	}
	for _, ch := range was.Compare(&now.Published) {
		path := layout.VersionsIndex
		switch {
		case ch.Skill != "":
			path = layout.SkillDir(ch.Skill)
		case ch.Release != "":
			path = layout.Snapshot(ch.Release)
		}
		if ch.Error {
			c.problem(path, "%s", ch.Message)
		} else {
			c.rep.Warnings = append(c.rep.Warnings, Problem{Path: path, Message: ch.Message})
		}
	}
}

func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && bundle.Origin(ua) == bundle.Origin(ub)
}
