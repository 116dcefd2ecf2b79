package build

import (
	"cmp"
	"slices"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// discover finds the skills to build, as lint.Run does (lint.Scope), each
// once when several folders hold identical copies of it. Each choice is
// said in the output, with the way to undo it.
func (b *builder) discover() (discovery, string, error) {
	sc := b.lintOpts.Scope()
	f, err := sc.Find(b.roots)
	if err != nil {
		return discovery{}, "", err
	}
	if len(f.Skills) == 0 {
		return discovery{}, "", &NoSkillsError{Roots: b.roots, Notes: f.Notes}
	}
	found, notes := f.Skills, f.Notes
	skills, same, err := sc.Dedupe(b.ctx, found, b.opts.Jobs)
	if err != nil {
		return discovery{}, "", cmp.Or(b.interrupted(), err)
	}
	var copies []*skill.Skill
	if len(found) > len(skills) {
		kept := make(map[*skill.Skill]bool, len(skills))
		for _, s := range skills {
			kept[s] = true
		}
		copies = slices.DeleteFunc(slices.Clone(found), func(s *skill.Skill) bool { return kept[s] })
	}
	notes = append(notes, same...)
	// Without SkipInvalid every skill found is published or the build
	// fails, so a tree over the limit is refused now, not after packing
	// it whole.
	if !b.opts.SkipInvalid {
		if err := layout.CheckSkills(len(skills)); err != nil {
			return discovery{}, "", err
		}
	}
	b.logf("• discover: %s", human.Plural(len(skills), "skill", "skills"))
	for _, n := range notes {
		b.logf("  %s", n)
	}
	return discovery{skills, f.Plugins, f.Markets, f.Broken, copies}, "", nil
}
