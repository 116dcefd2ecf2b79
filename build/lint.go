package build

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/plugin"
)

// lintAcross runs the checks across skills (names, nesting), reports every
// finding, and refuses an error-level one or, with SkipInvalid, leaves out
// the skills that have one.
func (b *builder) lintAcross(p *packed) error {
	named := make([]lint.Named, len(p.work))
	for i, w := range p.work {
		named[i] = w.named
	}
	across := lint.CheckAcross(named, nil, nil, p.broken, b.lintOpts)
	plugins := b.lintPlugins(p)
	all := append(slices.Clone(across), plugins...)
	for _, w := range p.work {
		all = append(all, w.findings...)
	}
	b.res.Findings = lint.Sort(all)
	errs, warns, _ := lint.Count(b.res.Findings)
	// A plugin's errors leave the plugin out (lintPlugins), never its
	// skills, which are judged on their own: they stop no build.
	// The tally is lint's (the same findings, the same count), with the
	// errors that stop no build said apart.
	total := errs
	perrs, _, _ := lint.Count(plugins)
	errs -= perrs
	var apart []string
	if perrs > 0 {
		apart = append(apart, fmt.Sprintf("%d in plugins, left out of the bundle", perrs))
	}
	// Two plugins' skills of one name are the build's to refuse or leave
	// out (checkClashes, clashFindings), once the invalid skills are: not
	// counted among lint's errors, nor left out with them.
	clash := func(f lint.Finding) bool { return f.Rule == "name-bundle-clash" }
	clashes := 0
	if n := len(across); slices.ContainsFunc(across, clash) {
		across = slices.DeleteFunc(across, clash)
		clashes = n - len(across)
		errs -= clashes
		apart = append(apart, fmt.Sprintf("%d for skills sharing a name with another plugin's, which one bundle cannot publish", clashes))
	}
	why := ""
	if len(apart) > 0 {
		why = " (" + strings.Join(apart, "; ") + ")"
	}
	b.logf("• lint: %s, %s%s", human.Plural(total, "error", "errors"), human.Plural(warns, "warning", "warnings"), why)
	// An error the settings lowered is the build's own (Rule.Publish):
	// said once a rule, or the user reads lint's pass and the build's
	// refusal as a contradiction.
	said := map[string]bool{}
	for _, f := range b.res.Findings {
		if r := lint.Lookup(f.Rule); f.Severity == lint.Error && r.Publish && !said[r.ID] && b.lintOpts.Settings.Lowers(r) {
			said[r.ID] = true
			b.logf("  %s: the profile or skillpack.yaml sets it below %s, which a build does not follow: it guards what a bundle can carry", r.ID, r.Severity)
		}
	}
	if errs > 0 {
		if !b.opts.SkipInvalid {
			valid := 0
			for _, w := range p.work {
				if !w.invalid {
					valid++
				}
			}
			return &LintError{Errors: errs, Valid: valid, Clashes: clashes}
		}
		if err := b.skipInvalid(p, across, errs); err != nil {
			return err
		}
	}
	// A skill inside another's folder that leaves its name to a skill
	// outside (lint.Shadowed) is published only in the archive holding it;
	// a client's copy of a plugin's skill, only in the plugin's.
	var variants []string           // the client variant folders, in order
	copies := map[string][]string{} // their skills left to the plugin's
	for i, dir := range lint.Shadowed(named) {
		if w := p.work[i]; dir != "" && !w.skipped {
			w.skipped = true
			p.inside = append(p.inside, w.src.Dir)
			if v, _ := w.src.ClientCopy(); v != "" {
				if copies[v] == nil {
					variants = append(variants, v)
				}
				copies[v] = append(copies[v], w.name)
				continue
			}
			b.logf("  %s (%s) is published only inside the skill holding it: %s has its name", w.name, b.rel(w.src.Dir), b.rel(dir))
		}
	}
	for _, v := range variants {
		b.logf("  %s holds a client's copies of its plugin's skills, published only in the plugin's archives: %s",
			b.rel(v), b.some(copies[v]))
	}
	if !b.opts.SkipInvalid {
		return nil // checkClashes refuses two skills of one name
	}
	// Skills that lint passed may still share a name (in two plugins):
	// left out too, once the invalid ones are, so that a skill whose
	// namesake is broken is published.
	if clash := b.clashFindings(p); len(clash) > 0 {
		// The build's errors replace lint's warnings about the same
		// skills: here the clash decides what is published.
		kept := slices.DeleteFunc(b.res.Findings, func(f lint.Finding) bool { return f.Rule == "name-bundle-clash" })
		b.res.Findings = lint.Sort(append(kept, clash...))
		err := b.skipInvalid(p, clash, errs)
		if le, ok := err.(*LintError); ok {
			le.Clashes = len(clash)
		}
		return err
	}
	return nil
}

// lint is the lint step: the checks across skills, then the verdict on
// the tree. Every finding is reported before any error met while packing,
// since the finding says what to fix; with SkipInvalid the invalid skills
// are left out and the others go on. It returns the skills to publish.
func (b *builder) lint(p *packed) (*packed, string, error) {
	if err := b.lintAcross(p); err != nil {
		return nil, "", err
	}
	if err := b.checkClashes(p); err != nil {
		return nil, "", err
	}
	for _, w := range p.work {
		if w.err != nil && !w.skipped {
			return nil, "", &packError{w.err}
		}
	}
	if err := p.sums.Seal(); err != nil {
		return nil, "", err
	}
	if b.opts.SkipInvalid {
		if err := b.skipEnclosing(p); err != nil {
			return nil, "", err
		}
	}
	if err := b.leaveOut(p); err != nil {
		return nil, "", err
	}
	p.claims = nil // a word per skill that no later step reads
	for _, w := range p.work {
		if w.reused {
			b.res.Reused++
		} else {
			b.res.Packed++
		}
	}
	p.named = slices.SortedFunc(slices.Values(p.work), func(x, y *work) int { return strings.Compare(x.name, y.name) })
	if n := len(b.res.Skipped); n > 0 {
		b.logf("  %s left out", human.Plural(n, "invalid skill", "invalid skills"))
	}
	return p, "", nil
}

// packError is an error met while packing, reported by the lint step
// once every finding is (see lint): named for the step it happened in.
type packError struct{ err error }

func (e *packError) Error() string { return "pack: " + e.err.Error() }
func (e *packError) Unwrap() error { return e.err }

// lintPlugins runs the plugin rules, and leaves out of the bundle's
// plugins each one that has an error-level finding, and says so: what the
// clients accept of a repository is its skills, which are built whatever
// its plugins' manifests say.
func (b *builder) lintPlugins(p *packed) []lint.Finding {
	fs := lint.CheckAcross(nil, p.plugins, p.markets, nil, b.lintOpts)
	bad := map[string][]string{} // a plugin's folder: the rules of its errors
	for _, f := range fs {
		if f.Severity == lint.Error {
			// Compared whole: a plugin at the root is ".", which no
			// finding's path starts with.
			at := f.Path // relative to lint's Base
			if !filepath.IsAbs(at) {
				at = filepath.Join(b.lintOpts.Base, at)
			}
			for _, pl := range p.plugins {
				if dir, _ := filepath.Abs(pl.Dir); at == dir || inside(at, dir) {
					bad[pl.Dir] = append(bad[pl.Dir], f.Rule)
				}
			}
		}
	}
	p.plugins = slices.DeleteFunc(p.plugins, func(pl *plugin.Plugin) bool {
		rules := bad[pl.Dir]
		if len(rules) > 0 {
			slices.Sort(rules)
			b.leaveOutPlugin(pl, fmt.Sprintf("%s (%s)", human.Plural(len(rules), "error", "errors"), strings.Join(slices.Compact(rules), ", ")))
		}
		return len(rules) > 0
	})
	return fs
}
