package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
)

type buildOptions struct {
	BuildFlags // shared with pack and serve --watch
	SignOptions
	Sign    bool
	Roots   []string
	Out     string
	Force   bool
	DryRun  bool
	JSON    bool
	Summary string // file to append a Markdown summary to (GitHub's step summary)
	// PublishTo is --publish's TARGET: DIST is published there once it is
	// built, with Publish's flags, as skillpack publish DIST TARGET does.
	PublishTo string
	Publish   PublishFlags

	Versions Versions // --versioned, --release-version, --previous (versions.go)

	given     func(flag string) bool // the flags on the command line, which win over the config
	result    *build.Result          // what runBuild built, for the --json document
	published *publishOptions        // the publish after it, once it began
}

func newBuildCmd(ios *IO, runF func(*buildOptions) error) *cobra.Command {
	opts := &buildOptions{}
	cmd := &cobra.Command{
		Use:   "build [SKILLS...] -o DIST",
		Short: "Lint, pack and index skills into a servable bundle",
		Long: `Build lints every skill at or below each SKILLS folder (default: the working
directory), packs each into a byte-reproducible .tar.gz and .zip, and writes
into DIST a bundle that a static host or an MCP server serves unchanged: the
discovery indexes, the archives, MCP documents, checksums and a catalog page.

An error-level finding stops the build before anything is written (exit 1);
--skip-invalid leaves those skills out instead and publishes the rest. A
plugin with one is left out of the bundle's plugins, and said so: its
skills are judged on their own.
Skills that a repository's marketplace or plugin manifests declare are
built, and folders of tests and templates are left out (--all, --ignore).
DIST is replaced whole, at the end; unchanged skills reuse their archives.

The build section of skillpack.yaml sets the defaults; the flags win.
--versioned and --previous keep published versions immutable; --sign
signs with Sigstore; --publish uploads DIST once it is built.` + "\n\n" + docs("build.md"),
		Example: `  skillpack build ./skills -o dist
  skillpack build ./skills -o dist --json > build.json
  skillpack build ./skills -o dist --skip-invalid
  skillpack build ./skills -o public --base-url https://example.com
  skillpack build ./skills -o dist --publish s3://my-bucket/skills --prune
  skillpack build ./skills -o public --base-url https://example.com --ai-catalog --llms-txt-merge site/llms.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Roots = args
			opts.given = cmd.Flags().Changed
			if runF != nil {
				return runF(opts)
			}
			return runBuild(cmd.Context(), ios, opts)
		},
	}
	f := cmd.Flags()
	opts.BuildFlags.AddFlags(f)
	opts.SignOptions.AddFlags(f)
	f.BoolVar(&opts.Sign, "sign", false, "sign the archives, indexes and skill folders with Sigstore (keyless, or --key)")
	f.StringVarP(&opts.Out, "out", "o", "dist", "output `folder` (replaced as a whole)")
	f.BoolVar(&opts.Force, "force", false, "replace an output folder that holds files skillpack did not write")
	f.BoolVar(&opts.DryRun, "dry-run", false, "report what would be written, write nothing")
	f.BoolVar(&opts.JSON, "json", false, "print a JSON document on stdout, even on failure")
	f.StringVar(&opts.Summary, "step-summary", "", "append a Markdown summary to this `file` (e.g. $GITHUB_STEP_SUMMARY)")
	opts.Versions.AddFlags(f)
	f.StringVar(&opts.PublishTo, "publish", "", "publish the bundle once built to `TARGET`: "+targetExamples())
	opts.Publish.AddFlags(f)
	return cmd
}

// publishOptions is what --publish runs: publish's options for DIST. With
// --sign, a registry's manifests are signed too, as publish --sign signs
// them, so that cosign verify accepts what build --sign publishes.
func (o *buildOptions) publishOptions() *publishOptions {
	if o.published == nil {
		o.published = &publishOptions{PublishFlags: o.Publish, Dist: o.Out, Target: o.PublishTo, JSON: o.JSON}
		if t := targetOf(o.PublishTo); o.Sign && t != nil && t.sign {
			o.published.Sign, o.published.SignOptions = true, o.SignOptions
		}
	}
	return o.published
}

// checkPublish refuses --publish's flags when they cannot work, and reads
// the password, before anything is built.
func (o *buildOptions) checkPublish(ios *IO) error {
	switch {
	case o.PublishTo == "" && o.Publish.given():
		return usageErr("--endpoint, --insecure, --prune, --keep, --username and --password-stdin say how --publish publishes; give --publish TARGET, or leave them out")
	case o.PublishTo == "":
		return nil
	case o.DryRun:
		return usageErr("--dry-run writes nothing, so --publish has nothing to publish; leave one out, or see what a publish would send with skillpack publish %s %s --dry-run", o.Out, o.PublishTo)
	}
	p := o.publishOptions()
	if err := p.check(); err != nil {
		return err
	}
	return p.Login.read(ios.In)
}

// resolve is build's options: the shared ones (BuildFlags.resolveBundle)
// and build's own. The signer and the output streams are runBuild's to add.
func (o *buildOptions) resolve(ios *IO) (build.Options, error) {
	bo, cfg, err := o.resolveBundle(ios, o.given)
	if err != nil {
		return bo, err
	}
	bo.Out, bo.Force, bo.DryRun = o.Out, o.Force, o.DryRun
	if bo.Versioned, bo.Release, err = o.Versions.resolve(cfg, o.given); err != nil {
		return bo, err
	}
	// Only the summaries list every skill and file; without them a
	// build's memory does not grow with the tree.
	bo.Inventory = o.JSON || o.Summary != "" || ios.Verbose
	return bo, nil
}

// runBuild builds, and with --json prints the document however the build ends.
func runBuild(ctx context.Context, ios *IO, opts *buildOptions) error {
	err := buildRun(ctx, ios, opts)
	return jsonResult(ios.Out, opts.JSON, newBuildJSON(opts, err), err)
}

func buildRun(ctx context.Context, ios *IO, opts *buildOptions) error {
	bo, err := opts.resolve(ios)
	if err != nil {
		return err
	}
	roots := opts.Roots
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for _, r := range roots {
		if _, err := os.Stat(r); err != nil {
			return noPath(r)
		}
		if err := notBundle(r); err != nil {
			return err
		}
	}
	if err := opts.ScopeFlags.check(roots); err != nil {
		return err
	}
	if !opts.Sign && opts.SignOptions != (SignOptions{}) {
		return usageErr("signing flags (--key, --identity-token, ...) need --sign")
	}
	prev, err := opts.Versions.open()
	if err != nil {
		return err
	}
	if prev != nil {
		defer prev.Close()
		bo.Previous = prev
	}
	if err := opts.checkPublish(ios); err != nil {
		return err
	}
	if opts.Sign && !opts.DryRun {
		s, err := opts.newSigner(ctx, ios)
		if err != nil {
			return err
		}
		defer s.Close()
		bo.Sign = func(data []byte) ([]byte, error) { return s.Sign(ctx, data) }
		bo.SignFolder = func(st []byte) ([]byte, error) { return s.SignStatement(ctx, st) }
	}
	bo.Log = ios.stepLog()
	bo.Verbose = ios.Verbose
	bo.Progress = ios.progress()
	start := ios.clock()()
	// An interrupt stops the build between two skills or two files; the
	// staging folder goes, and the output is left as it was.
	ctx, stop := interruptible(ctx, ios)
	defer stop()
	res, err := build.RunContext(ctx, roots, bo)
	opts.result = res
	if res != nil && len(res.Findings) > 0 {
		printBuildFindings(ios, res.Findings)
	}
	if le := (*build.LintError)(nil); errors.As(err, &le) && le.Valid > 0 && !opts.SkipInvalid {
		ios.Nextf("next: fix the errors, or publish the other skills with --skip-invalid")
	}
	if err != nil {
		if opts.Summary != "" { // the run that most needs a summary
			if serr := appendFailed(opts.Summary, res, err); serr != nil {
				fmt.Fprintf(ios.Err, "warning: --step-summary: %v\n", serr)
			}
		}
		return interrupted(ctx, err)
	}
	if len(res.Skipped) > 0 {
		warnSkipped(ios, res.Skipped)
	}
	if len(res.PluginsOut) > 0 {
		warnPluginsOut(ios, res.PluginsOut)
	}
	warnLeftOut(ios, res.Excluded, "the legacy v0.1 index (.well-known/skills/)")
	warnLeftOut(ios, res.MCPExcluded, "the MCP documents (mcp/*.json), whose hosts would refuse its entry")
	for _, e := range res.Unwritten {
		// Asked for by name, so said even with -q (GPZ12138: a CI job's
		// missing file, and exit 0).
		fmt.Fprintf(ios.Err, "warning: --marketplace: %s is not written: %s\n", e.Name, e.Reason)
	}
	buildDone(ios, opts.Out, res, start)
	if opts.Summary != "" {
		if err := appendSummary(opts.Summary, res); err != nil {
			return fmt.Errorf("--step-summary: %w", err) // skillpack's own: exit 3
		}
	}
	if opts.PublishTo == "" {
		return nil
	}
	return publishRun(ctx, ios, opts.publishOptions())
}

// buildJSON is build's --json document (schema/build.schema.json). A build
// that stopped before it began (a usage error) reports an empty result.
type buildJSON struct {
	*build.Result
	Published *published `json:"published,omitempty"` // --publish's run, once it began
	status
}

func newBuildJSON(opts *buildOptions, err error) buildJSON {
	res := cmp.Or(opts.result, &build.Result{DryRun: opts.DryRun})
	res.Out = cmp.Or(res.Out, opts.Out) // a build refused before it wrote anything
	res.Skills = nonNil(res.Skills)
	res.Artifacts = nonNil(res.Artifacts)
	res.Findings = nonNil(res.Findings)
	res.Skipped = nonNil(res.Skipped)
	for i := range res.Skipped {
		res.Skipped[i].Findings = nonNil(res.Skipped[i].Findings)
	}
	what := "the build failed"
	if errs, _, _ := lint.Count(res.Findings); errs > 0 {
		what = human.Plural(errs, "lint error") + "; nothing was written"
	}
	doc := buildJSON{Result: res}
	if p := opts.published; p != nil && p.done != nil {
		what = "the publish failed"
		run := p.published()
		doc.Published = &run
	}
	doc.status = newStatus(err, what)
	return doc
}

// appendSummary appends a Markdown table of the built skills to file, the
// way GitHub Actions collects a job's step summary.
func appendSummary(file string, res *build.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### skillpack build\n\n%s → `%s` (%d packed, %d reused)\n\n", human.Plural(len(res.Skills), "skill", "skills"), res.Out, res.Packed, res.Reused)
	b.WriteString("| skill | files | size | archive | digest |\n|---|---:|---:|---|---|\n")
	for _, s := range res.Skills[:min(len(res.Skills), summaryRows)] {
		fmt.Fprintf(&b, "| %s | %d | %d B | `%s` | `%s` |\n", s.Name, s.Files, s.Size, path.Base(s.TarGz.Path), s.TarGz.Digest)
	}
	if n := len(res.Skills) - summaryRows; n > 0 {
		fmt.Fprintf(&b, "\nand %d more: the bundle's indexes list every one.\n", n)
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(&b, "\n**%s, not in the bundle:**\n\n| skill | folder | errors |\n|---|---|---|\n", skippedCount(len(res.Skipped)))
		for _, s := range res.Skipped[:min(len(res.Skipped), summaryRows)] {
			var why []string
			for _, f := range s.Findings {
				// The messages name no file: the path in the folder does.
				where := f.Path
				dir, _ := filepath.Abs(s.Dir)
				at, _ := filepath.Abs(filepath.FromSlash(f.Path))
				if r, err := filepath.Rel(dir, at); err == nil && filepath.IsLocal(r) {
					where = filepath.ToSlash(r)
				}
				if f.Line > 0 {
					where += fmt.Sprintf(":%d", f.Line)
				}
				why = append(why, fmt.Sprintf("`%s` %s: %s", f.Rule, lint.Printable(where), lint.Printable(f.Message)))
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s |\n", lint.Printable(s.Name), lint.Printable(s.Dir), strings.ReplaceAll(strings.Join(why, "<br>"), "|", "\\|"))
		}
	}
	if n := len(res.Skipped) - summaryRows; n > 0 {
		fmt.Fprintf(&b, "\nand %d more left out: the build's log lists every one.\n", n)
	}
	if len(res.PluginsOut) > 0 {
		fmt.Fprintf(&b, "\n**%s left out of the bundle:**\n\n| plugin | folder | why |\n|---|---|---|\n", human.Plural(len(res.PluginsOut), "plugin"))
		for _, pl := range res.PluginsOut {
			cell := func(s string) string { return strings.ReplaceAll(lint.Printable(s), "|", "\\|") }
			fmt.Fprintf(&b, "| %s | `%s` | %s |\n", cell(pl.Name), cell(pl.Dir), cell(pl.Reason))
		}
	}
	errs, warns, _ := lint.Count(res.Findings)
	fmt.Fprintf(&b, "\nLint: %s, %s.\n", human.Plural(errs, "error"), human.Plural(warns, "warning"))
	return appendFile(file, b.String())
}

// appendFailed appends why the build failed to file, with the error
// findings that refused it (res is nil when it stopped before lint).
func appendFailed(file string, res *build.Result, err error) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### skillpack build\n\n**The build failed:** %s\n", strings.ReplaceAll(lint.Printable(err.Error()), "\n", " "))
	var refused []lint.Finding
	if res != nil {
		refused = slices.DeleteFunc(slices.Clone(res.Findings), func(f lint.Finding) bool { return f.Severity != lint.Error })
	}
	if len(refused) > 0 {
		b.WriteString("\n| file | rule | error |\n|---|---|---|\n")
		for _, f := range refused[:min(len(refused), summaryRows)] {
			where := f.Path
			if f.Line > 0 {
				where += fmt.Sprintf(":%d", f.Line)
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", lint.Printable(where), f.Rule, strings.ReplaceAll(lint.Printable(f.Message), "|", "\\|"))
		}
		if n := len(refused) - summaryRows; n > 0 {
			fmt.Fprintf(&b, "\nand %d more: the build's log lists every one.\n", n)
		}
	}
	return appendFile(file, b.String())
}

// summaryRows is as many skills as the step summary lists in a table:
// GitHub drops a step's summary over 1 MiB (6,000 skills made 934 KB).
const summaryRows = 200

// warnLeftOut says which skills an index leaves out (in the words of
// what, for one skill), and why, with the fix where there is one. Every
// build says it, a no-op too: the bundle still leaves them out.
func warnLeftOut(ios *IO, off []layout.Excluded, what string) {
	if len(off) == 0 {
		return
	}
	them := "it"
	if len(off) > 1 {
		what, them = strings.Replace(what, "its entry", "their entries", 1), "them"
	}
	fmt.Fprintf(ios.Err, "warning: %s out of %s; the other indexes keep %s\n",
		human.Plural(len(off), "skill is left", "skills are left"), what, them)
	for _, line := range byReason(off) {
		fmt.Fprintf(ios.Err, "  %s\n", line)
	}
}

// warnPluginsOut says which plugins the bundle leaves out, and why, under
// -q too, as skipped skills are; in GitHub Actions the same lines are one
// annotation (a step shows ten: gkkirsch's 71 plugins were 71 of them).
func warnPluginsOut(ios *IO, out []build.PluginOut) {
	off := make([]layout.Excluded, len(out))
	for i, pl := range out {
		off[i] = layout.Excluded{Name: pl.Name + " (" + pl.Dir + ")", Reason: pl.Reason}
	}
	head, lines := human.Plural(len(out), "plugin")+" left out of the bundle", byReason(off)
	fmt.Fprintf(ios.Err, "warning: %s:\n  %s\n", head, strings.Join(lines, "\n  "))
	if ios.getenv("GITHUB_ACTIONS") == "true" {
		lint.Annotate(ios.Err, "warning", "skillpack build", head+": "+strings.Join(lines, "; "))
	}
}

// byReason says what off leaves out, a line per reason naming the first
// five left out for it (a collection's shared metadata, or 71 plugins'
// one manifest error: lines alike said less than one).
func byReason(off []layout.Excluded) []string {
	type why struct{ reason, fix string }
	var order []why
	names := map[why][]string{}
	for _, e := range off {
		w := why{e.Reason, e.Fix}
		if names[w] == nil {
			order = append(order, w)
		}
		names[w] = append(names[w], lint.Printable(e.Name))
	}
	lines := make([]string, len(order))
	for i, w := range order {
		fix := ""
		if w.fix != "" {
			fix = " (fix: " + lint.Printable(w.fix) + ")"
		}
		lines[i] = fmt.Sprintf("%s: %s%s", human.Few(names[w], 5), lint.Printable(w.reason), fix)
	}
	return lines
}

// warnSkipped says which skills --skip-invalid left out, and why, after
// their findings: the last lines of a CI log are the ones read.
func warnSkipped(ios *IO, skipped []build.Skipped) {
	// Ten names say what kind of skills they are; a registry can skip
	// hundreds, each listed on its own line below.
	// A name several skipped skills share (name-duplicate's both copies)
	// says which only by their folders.
	count := map[string]int{}
	for _, s := range skipped {
		count[s.Name]++
	}
	names := human.UpTo(len(skipped), 10, func(i int) string {
		if s := skipped[i]; count[s.Name] == 1 && s.Name != "" {
			return lint.Printable(s.Name)
		}
		return lint.Printable(skipped[i].Dir)
	}, "and %d more")
	fmt.Fprintf(ios.Err, "warning: %s, not in the bundle: %s\n", skippedCount(len(skipped)), strings.Join(names, ", "))
	for _, s := range skipped {
		var why []string // the rules, each once
		for _, f := range s.Findings {
			if !slices.Contains(why, f.Rule) {
				why = append(why, f.Rule)
			}
		}
		fmt.Fprintf(ios.Err, "  %s (%s): %s: %s\n", lint.Printable(s.Name), lint.Printable(s.Dir), human.Plural(len(s.Findings), "error"), strings.Join(why, ", "))
	}
	if ios.getenv("GITHUB_ACTIONS") == "true" {
		// An annotation on the run's summary page, where a skipped skill
		// is seen without reading the log.
		lint.Annotate(ios.Err, "warning", "skillpack build", skippedCount(len(skipped))+", not in the bundle: "+strings.Join(names, ", "))
	}
}

func skippedCount(n int) string { return "skipped " + human.Plural(n, "invalid skill") }
