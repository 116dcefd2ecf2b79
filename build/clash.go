package build

import (
	"fmt"
	"maps"
	"path"
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
// written. With SkipInvalid the build leaves such skills out instead
// (clashFindings).
type ClashError struct {
	Clashes []Clash
	Out     string   // the output folder, for the commands suggested
	Roots   []string // the folders given, which --ignore's patterns are relative to
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
			fmt.Fprintf(&b, "\n  %s", lint.PluginBuild(p, p, plugins, e.Out))
		}
		b.WriteString("\nor rename one of the skills of each name (folder and name together),")
	} else {
		b.WriteString("\nRename one of the skills of each name (folder and name together),")
	}
	var flags []string
	for _, d := range e.sides() {
		if f := lint.IgnoreFlag(e.Roots, d); f != "" { // a root: no pattern leaves it out
			flags = append(flags, f)
		}
	}
	if len(flags) > 0 {
		// One folder holds one skill of every name (a second client's
		// copies: codex-plugins/ beside skills/): one flag leaves it out.
		fmt.Fprintf(&b, "\nor leave out the copies you do not publish, all in one folder: %s.", strings.Join(flags, " or "))
	} else {
		fmt.Fprintf(&b, "\nor leave out each copy you do not publish with --ignore and its folder (%s).", lint.IgnoreFlag(e.Roots, e.Clashes[0].Skills[len(e.Clashes[0].Skills)-1].Dir))
	}
	b.WriteString("\n(Copies whose files are identical are one skill, published once: these differ.)")
	b.WriteString("\n--skip-invalid publishes every other skill and lists these as left out.")
	b.WriteString("\nNothing was written.")
	return b.String()
}

// sides are the folders that each hold exactly one skill of every clash,
// the shallowest of each side, when the clashes are more than one: a
// folder of copies.
func (e *ClashError) sides() []string {
	if len(e.Clashes) < 2 {
		return nil
	}
	one := func(d string) bool { // every clash has one skill below d
		return !slices.ContainsFunc(e.Clashes, func(c Clash) bool {
			return len(slices.DeleteFunc(slices.Clone(c.Skills), func(s Clashing) bool { return !strings.HasPrefix(filepath.ToSlash(s.Dir), d+"/") })) != 1
		})
	}
	var out []string
	for _, s := range e.Clashes[0].Skills {
		top := ""
		for d := path.Dir(filepath.ToSlash(s.Dir)); d != "." && d != "/"; d = path.Dir(d) {
			if one(d) {
				top = d
			}
		}
		if top != "" && !slices.Contains(out, top) {
			out = append(out, top)
		}
	}
	return out
}

// ExitClass is the command's exit code: 1, a failed check.
func (*ClashError) ExitClass() int { return 1 }

// clashFindings turns the name clashes among the skills still to be
// published into findings that name each skill, for --skip-invalid. No
// clashing skill is preferred to another: which one clients got must not
// depend on folder order.
func (b *builder) clashFindings(p *packed) []lint.Finding {
	var valid []lint.Named
	byDir := map[string]lint.Named{}
	for _, w := range p.work {
		if !w.invalid && !w.skipped {
			valid = append(valid, w.named)
			byDir[w.named.Dir] = w.named
		}
	}
	var out []lint.Finding
	for _, c := range clashes(valid) {
		for _, s := range c.Skills {
			var others []string
			for _, o := range c.Skills {
				if o.Dir != s.Dir {
					others = append(others, b.rel(o.Dir))
				}
			}
			fix := "rename one of the skills (folder and name together)"
			if s.Plugin != "" {
				var plugins []string
				for _, o := range c.Skills {
					plugins = append(plugins, o.Plugin)
				}
				fix = "build its plugin into its own bundle: " + lint.PluginBuild(s.Plugin, b.rel(s.Plugin), plugins, b.opts.Out)
			}
			n := byDir[s.Dir]
			out = append(out, lint.Finding{Path: b.rel(n.EntryPath()), Line: n.Line, Column: n.Column,
				Rule: "name-bundle-clash", Severity: lint.Error, Fix: fix,
				Message: fmt.Sprintf("%q is also the name of %s; a bundle holds one skill per name, so none of them is published in this one", c.Name, strings.Join(others, ", "))})
		}
	}
	return out
}

// checkClashes refuses the build if two skills it would publish share a name.
func (b *builder) checkClashes(p *packed) error {
	var published []lint.Named
	for _, w := range p.work {
		if !w.skipped {
			published = append(published, w.named)
		}
	}
	if cs := clashes(published); len(cs) > 0 {
		return &ClashError{Clashes: cs, Out: b.opts.Out, Roots: b.roots}
	}
	return nil
}

// clashes returns every name that more than one of skills has, sorted by
// name, each with its skills in the order given.
func clashes(skills []lint.Named) []Clash {
	byName := map[string][]Clashing{}
	for _, s := range skills {
		byName[s.Name] = append(byName[s.Name], Clashing{Dir: s.Dir, Plugin: s.Carrier})
	}
	var out []Clash
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		if len(byName[name]) > 1 {
			out = append(out, Clash{Name: name, Skills: byName[name]})
		}
	}
	return out
}
