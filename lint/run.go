package lint

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

// Options controls a run. The zero value lints with the defaults.
type Options struct {
	Settings Settings // skillpack.yaml's (package config)
	Strict   bool     // warnings become errors
	Base     string   // findings' paths are relative to this folder ("" = working directory)
	Jobs     int      // skills checked at once (0 = one per CPU)

	// Ignore and All choose which skills found below a path Run checks,
	// as they choose which the build publishes (Scope, with the config's
	// ignore list).
	Ignore []string
	All    bool

	Verbose bool // Run's notes name every set of identical copies (Scope.Verbose)

	// Publishing is the build's: the rules that guard what a bundle can
	// carry (Rule.Publish) keep their default severity at least, whatever
	// the settings say.
	Publishing bool
	// Out is the bundle the build writes, beside which the fixes offering
	// a bundle of one plugin put it; "" names dist.
	Out string

	// Roots are the folders given, which --ignore's patterns are relative
	// to: the fixes offering one spell it so (IgnoreFlag). Run takes its
	// paths when it is nil.
	Roots []string

	// PluginFiles collects a plugin's files as its archives hold them:
	// the build's leaves out its own output, and packs what it collected.
	// Nil is PluginFiles(skill.Built), leaving out what builds write.
	PluginFiles func(dir string) (*skill.Files, error)
}

// PluginFiles returns a collector of plugins' files, leaving out what omit
// reports (skill.CollectOmitting), that walks each plugin's folder once
// however many checks ask for it: five rules do, and the build's packing.
func PluginFiles(omit func(disk string, isDir bool) bool) func(dir string) (*skill.Files, error) {
	type collected struct {
		files *skill.Files
		err   error
	}
	var mu sync.Mutex
	seen := map[string]collected{}
	return func(dir string) (*skill.Files, error) {
		mu.Lock()
		defer mu.Unlock()
		c, ok := seen[dir]
		if !ok {
			c.files, c.err = skill.CollectOmitting(dir, omit)
			seen[dir] = c
		}
		return c.files, c.err
	}
}

// Result is the outcome of a run.
type Result struct {
	Skills   []*skill.Skill   // every skill checked, sorted by folder
	Plugins  []*plugin.Plugin // every plugin checked (Run only), sorted by folder
	Findings []Finding        // sorted, de-duplicated

	// Stale lists the entries of the config's baseline, under the paths
	// Run was given, that no finding matched: "path: rule (n)". Only Run
	// fills it in.
	Stale []string

	// Notes say which skills Run left out of those found and why
	// (Scope), and which manifests it could not read.
	Notes []string

	// Base is the absolute folder the findings' paths are relative to.
	Base string
}

// Run discovers the skills at or below each path and checks them. An error
// is returned only when a path cannot be walked at all; everything wrong
// with a skill is a finding.
func Run(paths []string, opts Options) (*Result, error) {
	if opts.Base == "" {
		if _, err := os.Getwd(); err != nil {
			return nil, err
		}
	}
	if opts.Roots == nil {
		opts.Roots = paths
	}
	r := newRunner(opts)
	sc := opts.Scope()
	found, err := sc.Find(paths)
	if err != nil {
		return nil, err
	}
	if len(found.Skills) > 0 || found.Judged { // else the notes say it, with "no skills found"
		r.broken = found.Broken
	}
	skills, same, err := sc.Dedupe(context.Background(), found.Skills, opts.Jobs)
	if err != nil {
		return nil, err
	}
	skill.ReadAll(skills, opts.Jobs)
	res := r.run(skills, found.Plugins, found.Markets, opts.Jobs)
	res.Notes = append(found.Notes, same...)
	if r.coversConfig(paths) {
		res.Findings = Sort(append(res.Findings, r.baselined(Sort(r.unusedAllows()))...))
	}
	res.Stale = r.set.Baseline.stale(r.seen, paths)
	return res, nil
}

// coversConfig reports whether the run's paths include the config's whole
// folder: only then is an allow entry that silenced nothing known to be
// unused, rather than about a part of the tree this run did not look at.
func (r *runner) coversConfig(paths []string) bool {
	if r.set.File == "" || len(r.set.Allow) == 0 {
		return false
	}
	return slices.ContainsFunc(paths, func(p string) bool { return below(p, r.set.Dir()) })
}

func (r *runner) unusedAllows() []Finding {
	var out []Finding
	rule := Lookup("suppression-unused")
	for i, a := range r.set.Allow {
		if r.allowUsed[i].Load() {
			continue
		}
		f := Finding{Path: r.rel(r.set.File), Line: a.Line, Rule: rule.ID, Severity: r.set.effective(rule),
			Message: fmt.Sprintf("allow entry for %s on %q silences nothing", strings.Join(a.Rules, ", "), a.Path),
			Fix:     "delete the entry, or correct its rule or path"}
		if f.Severity != Off {
			out = append(out, f)
		}
	}
	return out
}

// CheckSkill lints one skill for a caller that collected its files itself
// (files, or err: why it could not) and keeps verdicts (the build, in its
// record): kept, when not nil, gives the skill's kept verdict
// (DecodeVerdict), and when it has one the rules are not run again. It
// returns the verdict, for the caller to keep (EncodeVerdict), and the
// findings to report: the verdict's, with those the checks across skills
// make of the skill alone, less the baseline's, sorted.
func CheckSkill(s *skill.Skill, files *skill.Files, err error, kept func() ([]Finding, bool), opts Options) (verdict, findings []Finding) {
	r := newRunner(opts)
	done := s.Mirror != "" // see run
	if !done && kept != nil {
		verdict, done = kept()
	}
	if !done {
		verdict = r.checkSkill(s, files, err, runNames{})
	}
	return verdict, r.baselined(Sort(append(slices.Clone(verdict), r.across([]Named{NameOf(s)}, nil, nil)...)))
}

func newRunner(opts Options) *runner {
	set := opts.Settings
	if set.Profile == nil {
		set.Profile = profiles[0]
	}
	if opts.Publishing {
		sev := maps.Clone(set.Severity)
		if sev == nil {
			sev = map[string]Severity{}
		}
		for _, r := range registry {
			if r.Publish && set.effective(r) < r.Severity {
				sev[r.ID] = r.Severity
			}
		}
		set.Severity = sev
	}
	base, _ := filepath.Abs(opts.Base) // "" is the working folder
	r := &runner{set: set, strict: opts.Strict, all: opts.All, base: base, roots: opts.Roots, out: cmp.Or(opts.Out, "dist"), publishing: opts.Publishing, allowUsed: make([]atomic.Bool, len(set.Allow)), pluginFiles: opts.PluginFiles}
	if r.pluginFiles == nil {
		r.pluginFiles = PluginFiles(skill.Built)
	}
	for _, a := range set.Allow {
		r.allow = append(r.allow, skill.NewIgnore([]string{a.Path}))
	}
	return r
}

type runner struct {
	set         Settings
	strict      bool
	pluginFiles func(dir string) (*skill.Files, error)
	base        string
	roots       []string           // Options.Roots
	all         bool               // Options.All
	publishing  bool               // Options.Publishing
	out         string             // Options.Out, or dist
	broken      []skill.BrokenLink // RunPass.Broken
	allow       []*skill.Ignore    // each allow entry's glob

	// What this run used of the settings, which are shared by runs (--fix
	// lints again with them): allow entries that silenced something, and
	// the baseline's entries that a finding matched.
	allowUsed []atomic.Bool
	seen      map[[2]string]bool
}

func (r *runner) run(skills []*skill.Skill, plugins []*plugin.Plugin, markets []string, jobs int) *Result {
	named := make([]Named, len(skills))
	for i, s := range skills {
		named[i] = NameOf(s)
	}
	// The names the run's skills declare, for a fix that would give a
	// skill one of them (name-mismatch).
	names := newRunNames(named)
	perSkill := make([][]Finding, len(skills))
	parallel.Each(len(skills), jobs, func(i int) error {
		// A mirror's files are its original's, reported there; the
		// checks across skills report the mirror itself once.
		if skills[i].Mirror == "" {
			files, err := skills[i].Collect()
			perSkill[i] = r.checkSkill(skills[i], files, err, names)
		}
		return nil
	})
	all := append(slices.Concat(perSkill...), r.across(named, plugins, markets)...)
	return &Result{Skills: skills, Plugins: plugins, Findings: r.baselined(Sort(all)), Base: r.base}
}

// baselined drops the findings the baseline records. It runs on the sorted
// list, after duplicates and superseded findings are gone, because that
// is the list WriteBaseline records.
func (r *runner) baselined(fs []Finding) []Finding {
	if r.seen == nil {
		r.seen = map[[2]string]bool{}
	}
	if !r.publishing || r.set.Baseline == nil {
		return r.set.Baseline.filter(fs, r.base, r.seen)
	}
	held := slices.DeleteFunc(slices.Clone(fs), func(f Finding) bool { return !r.held(f.Rule) })
	rest := slices.DeleteFunc(slices.Clone(fs), func(f Finding) bool { return r.held(f.Rule) })
	return Sort(append(r.set.Baseline.filter(rest, r.base, r.seen), held...))
}

// held reports whether the build holds the rule whatever the settings
// say (Rule.Publish): no baseline, allow entry or comment silences it
// there, or the skill would stop the build as skillpack's fault.
func (r *runner) held(id string) bool {
	rule := Lookup(id)
	return r.publishing && rule != nil && rule.Publish
}

// CheckAcross runs only the checks across a run (unique names, no skill
// inside another; the plugin rules), for a caller that ran the per-skill
// rules skill by skill (CheckSkill on each) and kept only what these read:
// the build, which checks its plugins on their own, to leave out those
// with errors. broken are Found.Broken. Its findings are sorted.
func CheckAcross(skills []Named, plugins []*plugin.Plugin, markets []string, broken []skill.BrokenLink, opts Options) []Finding {
	r := newRunner(opts)
	r.broken = broken
	return r.baselined(Sort(r.across(skills, plugins, markets)))
}

// across runs the rules that look at a run as a whole: across its skills
// and over its plugins.
func (r *runner) across(skills []Named, plugins []*plugin.Plugin, markets []string) []Finding {
	var all []Finding
	rp := &RunPass{Skills: skills, Plugins: plugins, Marketplaces: markets, Rel: r.rel, Config: r.set.File, Base: r.base, Broken: r.broken, pluginFiles: r.pluginFiles, roots: r.roots, out: r.out, all: r.all,
		report: func(rule *Rule, f Finding) { all = r.add(all, rule, f) }}
	for _, rule := range registry {
		if rule.CheckRun != nil && r.set.effective(rule) != Off {
			rp.rule = rule
			rule.CheckRun(rp)
		}
	}
	return all
}

// checkSkill runs the per-skill rules on s. names is byScope of the run's
// skills, nil when s is checked alone (CheckSkill).
func (r *runner) checkSkill(s *skill.Skill, files *skill.Files, err error, names runNames) []Finding {
	p := &Pass{Skill: s, Doc: s.Doc, Profile: r.set.Profile, names: names}
	// The folder is made relative once per skill, its files joined to it:
	// each filepath.Abs asks the system for the working folder (two stats).
	dir := r.rel(s.Dir)
	relOf := func(f string) string { return path.Join(dir, f) }
	var out []Finding
	if err == nil {
		p.Files = files
		if slices.ContainsFunc(files.Refused, func(r skill.Refused) bool { return r.Path == s.File }) {
			// A SKILL.md the skill cannot publish (a link out of its
			// folder) is reported once by the file rules; its text,
			// which belongs elsewhere, is not the skill's to lint.
			p.Doc = nil
		}
	} else {
		out = append(out, Finding{Path: dir, Rule: "file-unreadable", Severity: Error,
			Message: fmt.Sprintf("cannot list the skill's files: %v", err),
			Fix:     "make the skill's folders readable, or leave what is not to be published out with .skillignore"})
	}
	p.report = func(rule *Rule, f Finding) {
		f.Path = relOf(f.Path)
		out = r.add(out, rule, f)
	}
	if err := r.runRules(p); err != nil {
		out = append(out, Finding{Path: dir, Rule: p.rule.ID, Severity: Error, Message: err.Error()})
	}
	r.settle(p, &out, relOf)
	return out
}

// runRules runs every per-skill rule in force on one skill.
func (r *runner) runRules(p *Pass) (err error) {
	defer func() {
		// A rule that panics on input nobody foresaw is a bug in skillpack,
		// but it must not take the other skills' findings down with it.
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error in rule %s: %v (please report this)", p.rule.ID, v)
		}
	}()
	for _, rule := range registry {
		if rule.Check != nil && r.set.effective(rule) != Off {
			p.rule = rule
			rule.Check(p)
		}
	}
	return nil
}

// settle applies what the engine guarantees over every rule of one skill:
// a file inside a nested skill of the run (skill.Skill's Inner) is that
// skill's to report, not also each enclosing skill's; and a finding on
// the line after a suppression comment naming its rule is dropped, while
// a comment that drops nothing is itself reported. (One finding per cause
// across rules is Sort's: see Supersedes.)
// out holds the skill's findings, which p reports to; relOf turns a path
// in the skill into the run's relative path.
func (r *runner) settle(p *Pass, out *[]Finding, relOf func(string) string) {
	if p.Files == nil {
		return
	}
	var nested []string // the folders of inner skills of the run, on disk below the base
	comments := map[string][]*inline{}
	for _, d := range p.Skill.Inner {
		if rel, err := filepath.Rel(p.Skill.Dir, d); err == nil && filepath.IsLocal(rel) {
			nested = append(nested, OnDisk(r.base, relOf(filepath.ToSlash(rel))))
		}
	}
	inNested := func(rel string) bool {
		abs := OnDisk(r.base, rel)
		return slices.ContainsFunc(nested, func(d string) bool { return abs != d && below(d, abs) })
	}
	for _, f := range p.Files.Files {
		rel := relOf(f.Path)
		if !isMarkdown(f.Path) || inNested(rel) {
			continue
		}
		if c := p.Content(f); c.Err == nil {
			if in := parseInline(c.Data); in != nil {
				comments[rel] = in
			}
		}
	}
	*out = slices.DeleteFunc(*out, func(f Finding) bool { return inNested(f.Path) || suppressed(comments[f.Path], f) && !r.held(f.Rule) })
	// The comments report through the pass, which appends to out.
	for _, f := range p.Files.Files {
		for _, in := range comments[relOf(f.Path)] {
			in.report(p, f.Path)
		}
	}
}

func suppressed(comments []*inline, f Finding) bool {
	return slices.ContainsFunc(comments, func(in *inline) bool { return in.suppresses(f.Rule, f.Line) })
}

// add fills in the rule's severity and appends the finding unless the
// config ignores its path.
func (r *runner) add(out []Finding, rule *Rule, f Finding) []Finding {
	f.Rule = rule.ID
	sev := r.set.effective(rule)
	if sev == Off {
		return out
	}
	// A finding a check made an error (Pass.Refuse: what the build
	// refuses) stays one whatever severity the rule is given.
	f.Severity = max(f.Severity, sev)
	if !r.publishing && rule.Publish && f.Severity < rule.Severity {
		// Lint passes it; a build of the same tree would stop on it.
		f.Message += "; a build refuses it whatever the profile or skillpack.yaml says: it guards what a bundle can carry"
	}
	if r.strict && f.Severity == Warning {
		f.Severity = Error
	}
	abs := OnDisk(r.base, f.Path)
	// The config's ignore globs are relative to its folder.
	if _, ignored := r.set.Ignore.Path(r.set.Dir(), abs, false); ignored || r.allowed(rule.ID, abs) && !r.held(rule.ID) {
		return out
	}
	return append(out, f)
}

// allowed reports whether an allow entry of the config covers a finding of
// rule at a disk path, and remembers that the entry was used.
func (r *runner) allowed(rule, abs string) bool {
	if len(r.set.Allow) == 0 {
		return false
	}
	dir, _ := filepath.Abs(r.set.Dir())
	rel, err := filepath.Rel(dir, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return false
	}
	for i, a := range r.set.Allow {
		if slices.Contains(a.Rules, rule) && r.allow[i].Match(filepath.ToSlash(rel), false) {
			r.allowUsed[i].Store(true)
			return true
		}
	}
	return false
}

func (r *runner) rel(p string) string { return Rel(r.base, p) }

// Rel spells a disk path as findings do: relative to the run's base
// folder (absolute), with "/", as compilers print them
// ("../skills/x/SKILL.md" from a sibling folder), or absolute where that
// is shorter, as the go command's does: "/srv/skills/x/SKILL.md", not
// "../../../../srv/skills/x/SKILL.md" from a folder far off.
func Rel(base, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil || len(abs) < len(rel) {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// OnDisk is the disk path of a path Rel spelt from base.
func OnDisk(base, rel string) string {
	if p := filepath.FromSlash(rel); filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, filepath.FromSlash(rel))
}

// Scope is the scope Run finds skills in with these options; the build
// takes its skills through it too, so that the two never disagree.
func (o Options) Scope() Scope {
	base, _ := filepath.Abs(o.Base) // "" is the working folder
	return Scope{All: o.All, Ignore: o.Ignore, Config: o.Settings.Ignore, ConfigDir: o.Settings.Dir(),
		Rel: func(p string) string { return Rel(base, p) }, Verbose: o.Verbose}
}
