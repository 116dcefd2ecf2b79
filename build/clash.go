package build

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/lint"
)

// A bundle has one namespace: every index holds one entry per name, and
// every path and URL is made of it. Lint's name-duplicate rule may accept
// two skills of one name (Claude Code plugin marketplaces scope names to
// their plugin, so `access` in two plugins is two skills), and a config
// may turn it off; the build must still never publish both.

// ClashError refuses a tree in which skills that would be published share
// a name. Like a LintError it is the user's to fix, and nothing was
// written.
type ClashError struct {
	Clashes     []Clash
	Out         string // the output folder, for the commands suggested
	SkipInvalid bool   // the build was asked to skip invalid skills
}

// Clash is one name that several skills would be published under.
type Clash struct {
	Name   string
	Skills []Clashing // in the order found
}

// Clashing is one skill of a Clash: where it is, and the plugin folder
// holding it ("" outside any plugin).
type Clashing struct {
	Dir, Plugin string
}

func (e *ClashError) Error() string {
	var b strings.Builder
	var plugins []string
	for i, c := range e.Clashes {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d skills would be published as %q, but a bundle holds one skill per name:", len(c.Skills), c.Name)
		for _, s := range c.Skills {
			fmt.Fprintf(&b, "\n  %s", s.Dir)
			if s.Plugin != "" {
				fmt.Fprintf(&b, " (plugin %s)", s.Plugin)
				if !slices.Contains(plugins, s.Plugin) {
					plugins = append(plugins, s.Plugin)
				}
			}
		}
	}
	if len(plugins) > 0 {
		b.WriteString("\nBuild each plugin into its own bundle:")
		for _, p := range plugins {
			abs, _ := filepath.Abs(p) // a plugin above the input is "..", whose base is no name
			fmt.Fprintf(&b, "\n  skillpack build %s -o %s", p, filepath.Join(e.Out, filepath.Base(abs)))
		}
		b.WriteString("\nor rename one of the skills of each name (folder and name together).")
	} else {
		b.WriteString("\nRename one of the skills of each name (folder and name together).")
	}
	if e.SkipInvalid {
		b.WriteString("\n--skip-invalid leaves out only skills with error-level findings, and these have none.")
	}
	b.WriteString("\nNothing was written.")
	return b.String()
}

// checkClashes refuses the build if two skills it would publish share a
// name.
func (b *builder) checkClashes() error {
	var published []lint.Named
	for _, w := range b.work {
		if !w.skipped {
			published = append(published, w.named)
		}
	}
	if cs := clashes(published); len(cs) > 0 {
		return &ClashError{Clashes: cs, Out: b.opts.Out, SkipInvalid: b.opts.SkipInvalid}
	}
	return nil
}

// clashes returns every name that more than one of skills has, sorted by
// name, each with its skills in the order given.
func clashes(skills []lint.Named) []Clash {
	byName := slices.Clone(skills)
	slices.SortStableFunc(byName, func(x, y lint.Named) int { return cmp.Compare(x.Name, y.Name) })
	var out []Clash
	for i := 0; i < len(byName); {
		j := i + 1
		for j < len(byName) && byName[j].Name == byName[i].Name {
			j++
		}
		if j-i > 1 {
			c := Clash{Name: byName[i].Name}
			for _, s := range byName[i:j] {
				c.Skills = append(c.Skills, Clashing{Dir: s.Dir, Plugin: s.Plugin})
			}
			out = append(out, c)
		}
		i = j
	}
	return out
}
