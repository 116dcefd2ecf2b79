package build

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// discover finds the skills to build: those lint.Scope keeps below each
// root (lint.Run's too: the user's ignore patterns, skill.DefaultIgnore,
// what a repository declares, clients' install folders), and each skill
// once when several folders hold identical copies of it. Each choice is
// said in the output, with the way to undo it.
func (b *builder) discover() (discovery, string, error) {
	set := b.opts.Lint.Settings
	sc := lint.Scope{All: b.opts.All, Ignore: b.opts.Ignore, Config: set.Ignore, ConfigDir: set.Dir(), Rel: b.rel}
	skills, plugins, markets, notes, err := sc.Find(b.roots)
	if err != nil {
		return discovery{}, "", err
	}
	if len(skills) == 0 {
		return discovery{}, "", &NoSkillsError{Roots: b.roots}
	}
	skills, same, err := b.dedupe(skills)
	if err != nil {
		return discovery{}, "", err
	}
	if len(same) > maxCopyNotes && !b.opts.Verbose {
		// A vendor repository ships dozens: one line, and -v for each.
		same = []string{fmt.Sprintf("%s found in identical copies, each published once (-v says from which)",
			human.Plural(len(same), "skill", "skills"))}
	}
	notes = append(notes, same...)
	b.logf("• discover: %s", human.Plural(len(skills), "skill", "skills"))
	for _, n := range notes {
		b.logf("  %s", n)
	}
	return discovery{skills, plugins, markets}, "", nil
}

// Identical copies: vendor repositories ship one skill in several plugin
// folders (one skill in six providers' plugins), byte for byte. They are
// one skill, published once. Skills are copies when their folders have one
// name and the files they publish are equal: same paths, same bytes, same
// modes (pack.ContentDigest). Which copy is published does not depend on
// the workers' timing: the one a manifest declares, else one outside
// hidden folders (.claude/skills is a client's working copy), else the
// first in path order.

// maxCopyNotes is how many sets of identical copies the log names one by
// one without -v.
const maxCopyNotes = 3

// dedupe keeps one skill of each set of identical copies, and returns a
// note for each set.
func (b *builder) dedupe(skills []*skill.Skill) ([]*skill.Skill, []string, error) {
	byName := map[string][]int{}
	for i, s := range skills {
		if s.Mirror == "" { // a mirror is reported by lint (skill-mirror)
			byName[s.Name()] = append(byName[s.Name()], i)
		}
	}
	var cand []int
	for _, g := range byName {
		if len(g) > 1 {
			cand = append(cand, g...)
		}
	}
	if len(cand) == 0 {
		return skills, nil, nil
	}
	slices.Sort(cand)
	sums := make([]string, len(skills))
	err := parallel.Each(len(cand), b.opts.Jobs, func(i int) error {
		if err := b.interrupted(); err != nil {
			return err
		}
		sums[cand[i]] = contentOf(skills[cand[i]])
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	type set struct{ name, sum string }
	copies := map[set][]int{}
	for _, i := range cand {
		if sums[i] != "" {
			k := set{skills[i].Name(), sums[i]}
			copies[k] = append(copies[k], i)
		}
	}
	drop := map[int]bool{}
	var notes []string
	for _, g := range copies {
		if len(g) < 2 {
			continue
		}
		keep, why := b.pick(skills, g)
		var others []string
		for _, i := range g {
			if i != keep {
				drop[i] = true
				others = append(others, b.rel(skills[i].Dir))
			}
		}
		notes = append(notes, fmt.Sprintf("%s: %d identical copies, published once, from %s (%s); not from %s",
			skills[keep].Name(), len(g), b.rel(skills[keep].Dir), why, strings.Join(others, ", ")))
	}
	slices.Sort(notes)
	kept := skills[:0:0]
	for i, s := range skills {
		if !drop[i] {
			kept = append(kept, s)
		}
	}
	return kept, notes, nil
}

// contentOf is the content digest of the files a skill publishes, or ""
// when they cannot all be read (lint and pack say why).
func contentOf(s *skill.Skill) string {
	files, err := skill.Collect(s.Dir)
	if err != nil || len(files.Refused) > 0 {
		return ""
	}
	entries, err := hashFiles(&task{work: &work{src: s}, files: files})
	if err != nil {
		return ""
	}
	d := pack.ContentDigest(entries)
	return string(layout.SumDigest(d[:]))
}

// pick chooses the copy to publish among identical ones (indexes into
// skills, in path order), and says why.
func (b *builder) pick(skills []*skill.Skill, g []int) (int, string) {
	var why []string
	if d := slices.DeleteFunc(slices.Clone(g), func(i int) bool { return skills[i].Declared == "" }); len(d) > 0 && len(d) < len(g) {
		g, why = d, append(why, "declared by "+b.rel(skills[d[0]].Declared))
	}
	if v := slices.DeleteFunc(slices.Clone(g), func(i int) bool { return hidden(b.rel(skills[i].Dir)) }); len(v) > 0 && len(v) < len(g) {
		g, why = v, append(why, "outside hidden folders")
	}
	if len(g) > 1 {
		why = append(why, "the first in path order")
	}
	return g[0], strings.Join(why, ", ")
}

// hidden reports whether a slash path passes through a hidden folder.
func hidden(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if len(part) > 1 && part[0] == '.' && part != ".." {
			return true
		}
	}
	return false
}
