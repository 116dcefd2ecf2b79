package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/internal/atomicfile"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/jsonenc"
	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/skill"
)

// LintOptions are the flags that choose how skills are checked; `build`
// shares them so that both commands judge skills alike.
type LintOptions struct {
	Config   string // path of skillpack.yaml; "" = search upward
	Profile  string // overrides the config's profile
	Strict   bool
	Baseline string // baseline file; overrides the config's

	writingBaseline bool // lint --write-baseline: the config's baseline is not read
}

// AddFlags registers the shared lint flags.
func (o *LintOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Config, "config", "", "`path` of skillpack.yaml (default: found upward from the working directory)")
	fs.StringVar(&o.Profile, "profile", "", "rule profile: clients, spec, claude or relaxed (default: the config's, else clients)")
	fs.BoolVar(&o.Strict, "strict", false, "treat warnings as errors")
	fs.StringVar(&o.Baseline, "baseline", "", "report only findings this baseline `file` does not record (default: the config's baseline)")
}

// load reads the config the options name, or finds one.
func (o *LintOptions) load() (*config.Config, error) {
	path, err := configPath(o.Config)
	if err != nil {
		return nil, usageErr("%w", err)
	}
	cfg := config.Default()
	if path != "" {
		loaded, err := config.Load(path)
		var fe *config.ForeignError
		switch {
		case errors.As(err, &fe) && o.Config == "":
			// Found, not named: another tool's file (see noteConfig).
		case err != nil:
			return nil, usageErr("%w", err)
		default:
			cfg = loaded
		}
	}
	p, err := o.flagProfile()
	if err != nil {
		return nil, err
	}
	if p != nil {
		cfg.Lint.Profile = p
	}
	switch {
	case o.writingBaseline:
		// Recording every finding: the baseline may not exist yet.
	case o.Baseline != "":
		b, err := lint.LoadBaseline(o.Baseline)
		if err != nil {
			return nil, usageErr("--baseline: %w", err)
		}
		cfg.Lint.Baseline = b
	default:
		if err := cfg.ReadBaseline(); err != nil {
			return nil, usageErr("%w", err)
		}
	}
	return cfg, nil
}

// flagProfile is the profile --profile names; nil when it names none.
func (o *LintOptions) flagProfile() (*lint.Profile, error) {
	if o.Profile == "" {
		return nil, nil
	}
	p, err := lint.LookupProfile(o.Profile)
	if err != nil {
		return nil, enumErr("profile", "profile", o.Profile, profiles())
	}
	return p, nil
}

// ScopeFlags choose which skills below the paths given lint checks and
// build publishes, the same ones (skill.Scope).
type ScopeFlags struct {
	Ignore []string
	All    bool
}

// AddFlags registers --ignore and --all; verb is what the command does to
// a skill ("build", "lint").
func (f *ScopeFlags) AddFlags(fs *pflag.FlagSet, verb string) {
	fs.StringArrayVar(&f.Ignore, "ignore", nil, "leave out the skills this gitignore-style `glob` names (repeatable; '!tests/' brings a folder back)")
	fs.BoolVar(&f.All, "all", false, verb+" every skill found, also those no manifest declares and those in tests, templates and clients' install folders")
}

// check refuses an --ignore pattern that can name nothing below the paths
// given (roots), as a ".." or an absolute path (skill.Outside): silently
// matching nothing, it would leave in the skills it was meant to leave out.
func (f *ScopeFlags) check(roots []string) error {
	dirs := folders(roots)
	for _, g := range f.Ignore {
		why, instead := skill.Outside(g, dirs...)
		if why == "" {
			continue
		}
		if instead == "" {
			// Written from the working folder (--ignore ../skills/old run
			// in skills/, with the root ..): the same path below a root.
			glob, neg := strings.CutPrefix(g, "!")
			if abs, err := filepath.Abs(glob); err == nil {
				if strings.HasSuffix(glob, "/") {
					abs += "/"
				}
				if neg {
					abs = "!" + abs
				}
				_, instead = skill.Outside(abs, dirs...)
			}
		}
		fix := "drop it: only the folders given are read"
		if instead != "" {
			fix = "write --ignore " + human.ShellQuote(instead)
		}
		given := "each folder given"
		if len(dirs) > 0 {
			given += " (" + strings.Join(dirs, ", ") + ")"
		}
		return usageErr("--ignore %q: a pattern is relative to %s and matches only below it; this one %s: %s", g, given, why, fix)
	}
	return nil
}

type lintCmdOptions struct {
	LintOptions
	ScopeFlags
	Paths     []string
	Format    string
	JSON      bool // --json, the same as --format json
	FailOn    string
	ListRules bool
	Explain   string

	WriteBaseline string // record the findings here instead of failing on them
	fix           fixOptions
	conflict      error // --json with another --format, reported in the JSON document
}

func newLintCmd(ios *IO, runF func(*lintCmdOptions) error) *cobra.Command {
	opts := &lintCmdOptions{}
	cmd := &cobra.Command{
		Use:   "lint [PATH...]",
		Short: "Check skills against the Agent Skills rules",
		Long: `Lint checks every skill (a folder holding SKILL.md) at or below each PATH,
or the skill enclosing each file PATH, against the Agent Skills specification
and what the clients that load skills accept. --list-rules lists the rules
and --explain ID explains one; --fix repairs the mechanical findings.

It checks the skills build would publish, and says which it left out:
folders of tests, fixtures and templates, skills a repository's marketplace
or plugin manifests do not declare, which no client installing from it
loads as skills, plugins its marketplace does not list that hold no skill taken, and
clients' install folders (.claude/skills) beside other skills. --ignore GLOB leaves
out more, as skillpack.yaml's ignore list does; --all checks every skill
found.

A folder PATH with no skill at or below it is a mistake (exit 2); a file
PATH outside every skill is ignored, so that a pre-commit hook may pass
every changed file. --json prints one document however the run ends
(schema/lint.schema.json).` + "\n\n" + docs("lint.md"),
		Example: `  skillpack lint                      # every skill below the working directory
  skillpack lint skills/ --strict     # warnings fail too
  skillpack lint --json > lint.json
  skillpack lint --format sarif > lint.sarif
  skillpack lint --explain name-mismatch`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if opts.JSON {
				if cmd.Flags().Changed("format") && opts.Format != "json" {
					opts.conflict = usageErr("--json is --format json; leave out --format %s", opts.Format)
				}
				opts.Format = "json"
			}
			if runF != nil {
				return runF(opts)
			}
			return runLint(ios, opts)
		},
	}
	opts.LintOptions.AddFlags(cmd.Flags())
	opts.ScopeFlags.AddFlags(cmd.Flags(), "lint")
	opts.fix.AddFlags(cmd.Flags())
	cmd.Flags().StringVarP(&opts.Format, "format", "f", "text", "output `format`: text, json, sarif or github")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON document on stdout, even on failure (the same as --format json)")
	cmd.Flags().StringVar(&opts.FailOn, "fail-on", "error", "exit 1 on findings at or above this `level`: error, warning, info or never")
	cmd.Flags().BoolVar(&opts.ListRules, "list-rules", false, "list every rule, at its severity under --profile, and exit")
	cmd.Flags().StringVar(&opts.Explain, "explain", "", "explain the rule with this `ID` and exit")
	cmd.Flags().StringVar(&opts.WriteBaseline, "write-baseline", "", "record every finding in this baseline `file` and exit 0, so that --baseline fails only on new ones")
	return cmd
}

func runLint(ios *IO, opts *lintCmdOptions) error {
	if opts.ListRules {
		return listRules(ios, opts)
	}
	if opts.Explain != "" {
		r := lint.Lookup(opts.Explain)
		if r == nil {
			err := usageErr("--explain: unknown rule %q%s; --list-rules lists them",
				opts.Explain, human.DidYouMean(opts.Explain, values(ruleIDs())))
			return jsonResult(ios.Out, opts.Format == "json", newStatus(err, ""), err)
		}
		if opts.Format == "json" {
			return jsonenc.Write(ios.Out, newRuleJSON(r))
		}
		return lint.Explain(ios.Out, r)
	}
	if opts.Format != "json" {
		return lintRun(ios, opts, nil)
	}
	// The document is printed however the run ends, with what it found.
	var doc lintJSON
	err := lintRun(ios, opts, &doc)
	if doc.Report == nil {
		doc.Report = lint.NewReport(&lint.Result{}, lintTool())
	}
	doc.status = newStatus(err, fmt.Sprintf("findings at or above --fail-on %s (%s, %s, %s)", opts.FailOn,
		human.Plural(doc.Errors, "error"), human.Plural(doc.Warnings, "warning"), human.Plural(doc.Infos, "info")))
	return jsonResult(ios.Out, true, doc, err)
}

// lintJSON is lint's --json document (schema/lint.schema.json): lint's
// report, the count of findings --fix repaired, and the status.
type lintJSON struct {
	*lint.Report
	Fixed *int `json:"fixed,omitempty"` // with --fix
	status
}

func lintTool() lint.Tool {
	return lint.Tool{Name: "skillpack", Version: version.Version(), URI: "https://" + version.Module}
}

// lintRun lints and prints the findings in opts.Format, except JSON: then
// it fills doc, which the caller prints once the exit code is known.
func lintRun(ios *IO, opts *lintCmdOptions, doc *lintJSON) error {
	if opts.conflict != nil {
		return opts.conflict
	}
	if !slices.Contains(lint.Formats(), opts.Format) {
		return enumErr("format", "format", opts.Format, formats)
	}
	failOn, err := parseFailOn(opts.FailOn)
	if err != nil {
		return err
	}
	if opts.WriteBaseline != "" && opts.Baseline != "" {
		return usageErr("--write-baseline records every finding; it cannot be combined with --baseline")
	}
	opts.writingBaseline = opts.WriteBaseline != ""
	cfg, err := opts.load()
	if err != nil {
		return err
	}
	paths := opts.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil { // a dangling link names the skill it sits in
			return noPath(p)
		}
	}
	if err := opts.ScopeFlags.check(paths); err != nil {
		return err
	}
	// A changed skillpack.yaml, which a hook passes as it passes any file,
	// changes how every skill is judged and which are published: the
	// working folder is linted, as `skillpack lint` lints it.
	if c, err := os.Stat(cfg.Path); err == nil && slices.ContainsFunc(paths, func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && os.SameFile(fi, c)
	}) {
		paths = append(paths, ".")
	}
	lo := lint.Options{Settings: cfg.Lint, Strict: opts.Strict, Ignore: opts.Ignore, All: opts.All, Verbose: ios.Verbose}
	if opts.fix.Fix || opts.fix.DryRun {
		return runFix(ios, opts, paths, lo, failOn, doc)
	}
	start := ios.clock()()
	res, err := lintPaths(paths, lo, doc)
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		ios.Infof("%s", n) // on stderr: stdout stays the report
	}
	if opts.WriteBaseline != "" {
		return writeBaseline(ios, opts.WriteBaseline, res)
	}
	if doc == nil {
		if err := formatReport(ios, opts.Format, res, failOn, lintTool()); err != nil {
			return &exitError{code: ExitInternal, err: err}
		}
	}
	if opts.Format == "github" {
		// The tally, in the log: a run shows 10 annotations of each kind.
		summarize(ios, res)
		if e, w, i := lint.Count(res.Findings); max(e, w, i) > 10 {
			ios.Infof("GitHub shows 10 annotations of each kind a step; the annotations in this log are all %d", e+w+i)
		}
	}
	if n := len(res.Findings); opts.Format == "sarif" && n > lint.MaxSARIFResults {
		ios.Infof("the SARIF log holds the %d most severe of %d findings: GitHub code scanning refuses a run of more; --format json has them all",
			lint.MaxSARIFResults, n)
	}
	if stale := res.Stale; len(stale) > 0 {
		ios.Infof("%s: %s no longer found (%s); run `skillpack lint --write-baseline %s` to drop them",
			cfg.Lint.Baseline.Path, human.Plural(len(stale), "recorded finding", "recorded findings"), strings.Join(stale[:min(3, len(stale))], "; "), cfg.Lint.Baseline.Path)
	}
	if opts.Format == "text" {
		summarize(ios, res)
		paths := opts.Paths
		if slices.Equal(paths, []string{"."}) {
			paths = nil
		}
		lintDone(ios, res, lo, lintHintArgs(opts), paths, start)
	}
	if failOn != lint.Off && lint.Worst(res.Findings) >= failOn {
		return findingsErr
	}
	return nil
}

// lintPaths lints, puts the report in doc (the --json document, nil for
// other formats) and refuses a folder that held no skill.
func lintPaths(paths []string, lo lint.Options, doc *lintJSON) (*lint.Result, error) {
	res, err := lint.Run(paths, lo)
	if err != nil {
		return nil, &exitError{code: ExitInternal, err: err}
	}
	if doc != nil {
		doc.Report = lint.NewReport(res, lintTool())
	}
	return res, noSkills(paths, res)
}

// noSkills refuses a run that found no skill although a folder was given:
// a wrong path, not a clean tree (files outside every skill are what a
// pre-commit hook passes for a commit that touches none). The run's notes
// are the reasons, and follow the message. A run that checked plugins'
// manifests (a marketplace of MCP servers, or of other repositories'
// plugins) reports on them instead.
func noSkills(paths []string, res *lint.Result) error {
	if len(res.Skills) > 0 || len(res.Plugins) > 0 || len(res.Findings) > 0 {
		return nil
	}
	for _, p := range paths {
		// A link leading nowhere, in no skill, to a folder by its name
		// (.agents/skills -> /home/someone/Skills): a path to check that
		// holds nothing. One to a file is what a pre-commit hook passes.
		if to, err := os.Readlink(p); err == nil && filepath.Ext(to) == "" {
			if _, err := os.Stat(p); err != nil {
				return noPath(p)
			}
		}
	}
	dirs := folders(paths)
	if len(dirs) == 0 {
		return nil
	}
	why := ""
	for _, n := range res.Notes {
		why += "\n  " + n
	}
	return usageErr("no skills found under %s (a skill is a folder holding SKILL.md)%s", strings.Join(dirs, ", "), why)
}

// folders are the paths that are folders.
func folders(paths []string) []string {
	var dirs []string
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

// parseFailOn maps --fail-on to the lowest severity that fails; Off means never.
func parseFailOn(s string) (lint.Severity, error) {
	if s == "never" {
		return lint.Off, nil
	}
	sev, err := lint.ParseSeverity(s)
	if err != nil || sev == lint.Off {
		return 0, enumErr("fail-on", "level", s, failOnLevels, "warn") // lint.ParseSeverity's alias
	}
	return sev, nil
}

// summarize prints a one-line tally on stderr, so stdout stays parseable.
func summarize(ios *IO, res *lint.Result) {
	e, w, i := lint.Count(res.Findings)
	in := human.Plural(len(res.Skills), "skill")
	switch {
	case len(res.Skills) == 0 && e+w+i == 0 && len(res.Plugins) > 0:
		ios.Infof("%s checked, no problems", human.Plural(len(res.Plugins), "plugin's manifests", "plugins' manifests"))
		return
	case len(res.Skills) == 0 && e+w+i == 0 && len(res.Notes) > 0:
		ios.Infof("no skills checked: the notes above say why") // a file of a skill the scope leaves out, passed alone
		return
	case len(res.Skills) == 0 && e+w+i == 0:
		ios.Infof("no skills found (a skill is a folder holding SKILL.md)")
		return
	case len(res.Skills) == 0 && !slices.ContainsFunc(res.Findings, func(f lint.Finding) bool { return f.Rule != "skill-dangling" }):
		in = "the files given" // a hook's link that leads nowhere
	case len(res.Skills) == 0:
		in = "the plugin and marketplace manifests" // a changed manifest, passed alone
	case e+w+i == 0:
		ios.Infof("%s checked, no problems", in)
		return
	}
	ios.Infof("%s, %s, %s in %s", human.Plural(e, "error"), human.Plural(w, "warning"), human.Plural(i, "info"), in)
	if e+w+i > maxUntallied {
		ios.Infof("by rule: %s (skillpack lint --explain RULE says why and how to fix each)", byRule(res.Findings))
	}
}

// maxUntallied is how many findings a reader takes in without a tally
// by rule: about a screen.
const maxUntallied = 40

// byRule names the five rules with the most findings, with their counts.
func byRule(fs []lint.Finding) string {
	n, worst := map[string]int{}, map[string]lint.Severity{}
	for _, f := range fs {
		n[f.Rule]++
		worst[f.Rule] = max(worst[f.Rule], f.Severity)
	}
	// The rules that fail the run first: a rule of one error must not be
	// lost in "and 1 more" behind a hundred warnings.
	rules := slices.SortedFunc(maps.Keys(n), func(a, b string) int {
		return cmp.Or(cmp.Compare(worst[b], worst[a]), n[b]-n[a], strings.Compare(a, b))
	})
	return strings.Join(human.UpTo(len(rules), 5, func(i int) string { return fmt.Sprintf("%s %d", rules[i], n[rules[i]]) }, "and %d more"), ", ")
}

// writeBaseline records the run's findings, atomically: a baseline that an
// interrupted run left half-written would be refused by every later run.
func writeBaseline(ios *IO, path string, res *lint.Result) error {
	base, err := os.Getwd()
	if err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	var buf bytes.Buffer
	if err := lint.WriteBaseline(&buf, path, base, res.Findings); err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	if dir := filepath.Dir(path); !skill.IsDir(dir) {
		return usageErr("--write-baseline %s: there is no folder %s; create it first (mkdir -p %s)", path, dir, human.ShellQuote(dir))
	}
	// Replace only a baseline: a mistyped path must not cost a README,
	// and a link or a device is never one skillpack wrote.
	if _, err := os.Lstat(path); err == nil && !lint.IsBaseline(path) {
		return usageErr("--write-baseline %s: it exists and is not a skillpack baseline, which is all skillpack replaces; name a new file, or remove this one first", path)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o644); err != nil {
		return usageErr("--write-baseline: %w", err)
	}
	files := map[string]bool{}
	for _, f := range res.Findings {
		files[f.Path] = true
	}
	fmt.Fprintf(ios.Err, "wrote %s: %s in %s; lint and build with --baseline %s (or `baseline: %s` in %s) fail only on new ones\n",
		path, human.Plural(len(res.Findings), "finding"), human.Plural(len(files), "file"), path, path, config.File)
	return nil
}

// ruleJSON is a rule in --list-rules --json and --explain --json (schema/lint-rules.schema.json).
type ruleJSON struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Category lint.Category `json:"category"`
	Severity lint.Severity `json:"severity"`
	Explain  string        `json:"explanation"`
	Bad      string        `json:"bad"`
	Good     string        `json:"good"`
	Fixable  bool          `json:"fixable"`
}

func newRuleJSON(r *lint.Rule) ruleJSON {
	return ruleJSON{r.ID, r.Title, r.Category, r.Severity, r.Explain, r.Bad, r.Good, lint.Fixable(r.ID)}
}

// listRules prints every rule, in text at its severity under --profile,
// in JSON at its default, as the schema says. The flags are checked as
// lint checks them: a mistyped value was ignored.
func listRules(ios *IO, opts *lintCmdOptions) error {
	p, err := opts.flagProfile()
	switch {
	case opts.conflict != nil:
		err = opts.conflict
	case !slices.Contains(lint.Formats(), opts.Format):
		err = enumErr("format", "format", opts.Format, formats)
	case opts.Format == "sarif" || opts.Format == "github":
		err = usageErr("--list-rules prints text or json; leave out --format %s", opts.Format)
	}
	if err != nil {
		// No --json document: lint-rules.schema.json is the list alone,
		// so the run stops as on a flag cobra cannot parse (docs/cli.md).
		return usageErr("%v\nRun 'skillpack lint --help' for usage.", err)
	}
	if opts.Format != "json" {
		return lint.ListRules(ios.Out, p)
	}
	out := []ruleJSON{}
	for _, r := range lint.Rules() {
		out = append(out, newRuleJSON(r))
	}
	return jsonenc.Write(ios.Out, out)
}
