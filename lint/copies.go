package lint

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/skill"
)

// Identical copies: vendor repositories ship one skill in several plugin
// folders (one skill in six providers' plugins), byte for byte. They are
// one skill, linted and published once. Skills are copies when they have
// one name and publish the same files (skill.Identical). Which copy is kept
// does not depend on the workers' timing: the one a manifest declares,
// else one outside hidden folders (.claude/skills is a client's working
// copy), else the shallowest (a package's payload copies one deeper),
// else the first in path order.

// maxCopyNotes is how many sets of identical copies Dedupe's notes name
// one by one, unless Scope.Verbose.
const maxCopyNotes = 3

// Dedupe keeps one skill of each set of identical copies among skills,
// in their order, and returns a note for each set. Lint and the build call
// it after Find, so that both judge the same skills. ctx stops it between
// two comparisons.
func (sc Scope) Dedupe(ctx context.Context, skills []*skill.Skill, jobs int) ([]*skill.Skill, []string, error) {
	byName := map[string][]int{}
	for i, s := range skills {
		if s.Mirror == "" { // a mirror is reported by skill-mirror
			byName[s.Name()] = append(byName[s.Name()], i)
		}
	}
	var groups [][]int
	for _, g := range byName {
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return skills, nil, nil
	}
	slices.SortFunc(groups, func(a, b []int) int { return a[0] - b[0] })
	// Each group falls into sets of copies: a skill joins the first set
	// whose first skill it is identical to.
	sets := make([][][]int, len(groups))
	err := parallel.Each(len(groups), jobs, func(k int) error {
		for _, i := range groups[k] {
			if err := ctx.Err(); err != nil {
				return err
			}
			j := slices.IndexFunc(sets[k], func(set []int) bool { return skill.Identical(skills[set[0]], skills[i]) })
			if j < 0 {
				sets[k] = append(sets[k], []int{i})
			} else {
				sets[k][j] = append(sets[k][j], i)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	drop := map[int]bool{}
	var notes []string
	for _, g := range slices.Concat(sets...) {
		if len(g) < 2 {
			continue
		}
		keep, why := sc.pick(skills, g)
		var others []string
		skills[keep].Copies = nil
		for _, i := range g {
			if i != keep {
				drop[i] = true
				others = append(others, sc.rel(skills[i].Dir))
				skills[keep].Copies = append(skills[keep].Copies, skills[i].Dir)
			}
		}
		notes = append(notes, fmt.Sprintf("%s: %d identical copies, published once, from %s (%s); not from %s",
			skills[keep].Name(), len(g), sc.rel(skills[keep].Dir), why, strings.Join(others, ", ")))
	}
	slices.Sort(notes)
	if len(notes) > maxCopyNotes && !sc.Verbose {
		// A vendor repository ships dozens: one line, and -v for each.
		notes = []string{fmt.Sprintf("%d skills found in identical copies, each linted and published once (-v says from which)", len(notes))}
	}
	kept := skills[:0:0]
	for i, s := range skills {
		if !drop[i] {
			kept = append(kept, s)
		}
	}
	return kept, notes, nil
}

// pick chooses the copy to keep among identical ones (indexes into
// skills, in path order), and says why.
func (sc Scope) pick(skills []*skill.Skill, g []int) (int, string) {
	var why []string
	if d := slices.DeleteFunc(slices.Clone(g), func(i int) bool { return skills[i].Declared == "" }); len(d) > 0 && len(d) < len(g) {
		g, why = d, append(why, "declared by "+sc.rel(skills[d[0]].Declared))
	}
	if v := slices.DeleteFunc(slices.Clone(g), func(i int) bool { return hidden(sc.rel(skills[i].Dir)) }); len(v) > 0 && len(v) < len(g) {
		g, why = v, append(why, "outside hidden folders")
	}
	depth := func(i int) int { return strings.Count(filepath.Clean(skills[i].Dir), string(filepath.Separator)) }
	least := depth(slices.MinFunc(g, func(a, b int) int { return depth(a) - depth(b) }))
	if s := slices.DeleteFunc(slices.Clone(g), func(i int) bool { return depth(i) > least }); len(s) < len(g) {
		g, why = s, append(why, "the shallowest")
	}
	if len(g) > 1 {
		why = append(why, "the first in path order")
	}
	return g[0], strings.Join(why, ", ")
}

// hidden reports whether a slash path passes through a hidden folder.
func hidden(p string) bool { return slices.ContainsFunc(strings.Split(p, "/"), hiddenName) }

// hiddenName reports whether a file or folder name is hidden: ".x", not ".." or ".".
func hiddenName(name string) bool { return len(name) > 1 && name[0] == '.' && name != ".." }
