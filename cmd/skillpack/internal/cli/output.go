package cli

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
)

// Human output: how much a command says on stderr (-q, -v), whether it is
// in colour (--color, NO_COLOR), and the progress line. Machine output
// (--json, --format json|sarif|github) is never affected.

// addOutputFlags registers the global output flags on root, bound to ios.
func addOutputFlags(root *cobra.Command, ios *IO) {
	fs := root.PersistentFlags()
	fs.BoolVarP(&ios.Quiet, "quiet", "q", false, "print errors only (and what a build left out): no progress, tally or hints; what goes to stdout (the objects publish sent) stays")
	fs.BoolVarP(&ios.Verbose, "verbose", "v", false, "print when each step ended, a line a skill and the time taken")
	fs.StringVar(&ios.Color, "color", "auto", "colour the output: auto (on a terminal, unless NO_COLOR is set), always or never")
}

// checkOutputFlags rejects contradictory or unknown output flags.
func checkOutputFlags(ios *IO) error {
	if ios.Quiet && ios.Verbose {
		return usageErr("--quiet and --verbose cannot be combined")
	}
	if !slices.Contains(values(colorModes), ios.Color) {
		return enumErr("color", "mode", ios.Color, colorModes)
	}
	return nil
}

// isTerminal reports whether w is a terminal (not a file, pipe or
// /dev/null, which is a character device too).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colorOn decides colour for a stream that is (tty) or is not a terminal.
// The flag wins; in auto mode NO_COLOR (https://no-color.org) turns colour
// off, FORCE_COLOR or CLICOLOR_FORCE turn it on (a CI log that renders
// escapes), and otherwise a terminal that is not "dumb" gets it.
func (ios *IO) colorOn(tty bool) bool {
	switch ios.Color {
	case "always":
		return true
	case "never":
		return false
	}
	env := ios.getenv
	if env("NO_COLOR") != "" {
		return false
	}
	for _, v := range []string{"FORCE_COLOR", "CLICOLOR_FORCE"} {
		if s := env(v); s != "" && s != "0" && s != "false" {
			return true
		}
	}
	return tty && env("TERM") != "dumb"
}

// ColorOut and ColorErr tell whether stdout and stderr are in colour.
func (ios *IO) ColorOut() bool { return ios.colorOn(ios.OutTTY) }
func (ios *IO) ColorErr() bool { return ios.colorOn(ios.ErrTTY) }

// Infof prints a line on stderr for a person, unless --quiet.
func (ios *IO) Infof(format string, args ...any) {
	if !ios.Quiet {
		fmt.Fprintf(ios.Err, format+"\n", args...)
	}
}

// Verbosef prints a line on stderr with --verbose only.
func (ios *IO) Verbosef(format string, args ...any) {
	if ios.Verbose {
		fmt.Fprintf(ios.Err, format+"\n", args...)
	}
}

// Nextf prints the closing line that says what to do next, "next: ...",
// dimmed in colour so that the results above it stand out.
func (ios *IO) Nextf(format string, args ...any) {
	if ios.Quiet {
		return
	}
	line := fmt.Sprintf(format, args...)
	if ios.ColorErr() {
		line = "\x1b[2m" + line + "\x1b[0m"
	}
	fmt.Fprintln(ios.Err, line)
}

// progress is where a long step may draw its live counter: stderr on a
// terminal, outside CI and without --quiet; otherwise nil, so that no
// carriage return reaches a log, a pipe or a file.
func (ios *IO) progress() io.Writer {
	if ios.Quiet || !ios.ErrTTY || ios.getenv("CI") != "" {
		return nil
	}
	return ios.Err
}

// stepLog is where a pipeline logs its steps ("• pack: ..."): nothing with
// --quiet, stderr otherwise, and with --verbose each step line ends with
// the time since the command started.
func (ios *IO) stepLog() io.Writer {
	switch {
	case ios.Quiet:
		return nil
	case ios.Verbose:
		now := ios.clock()
		return &stepTimer{w: ios.Err, now: now, start: now()}
	}
	return ios.Err
}

func (ios *IO) getenv(name string) string {
	if ios.Getenv == nil {
		return ""
	}
	return ios.Getenv(name)
}

func (ios *IO) clock() func() time.Time {
	if ios.Now != nil {
		return ios.Now
	}
	return time.Now
}

// stepTimer ends each step line with the time since the start: "(at
// 120ms)". Not the steps' durations: some steps run at once (the build
// lints and packs in one pass) and some log nothing (index).
type stepTimer struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
}

func (t *stepTimer) Write(p []byte) (int, error) {
	line, ok := bytes.CutSuffix(p, []byte("\n"))
	if !ok || !bytes.HasPrefix(line, []byte("• ")) || bytes.Contains(line, []byte("\n")) {
		return t.w.Write(p)
	}
	if _, err := fmt.Fprintf(t.w, "%s  (at %s)\n", line, duration(t.now().Sub(t.start))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// duration rounds d for a person: milliseconds below a second, then hundredths.
func duration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "<1ms"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// quietFindings is what --quiet keeps of a text report: the findings that
// fail the run (at or above failOn; errors when nothing fails it).
func quietFindings(fs []lint.Finding, failOn lint.Severity) []lint.Finding {
	if failOn == lint.Off {
		failOn = lint.Error
	}
	return slices.DeleteFunc(slices.Clone(fs), func(f lint.Finding) bool { return f.Severity < failOn })
}

// printSkillLines prints, with --verbose, a line for each skill checked:
// its folder and what was found in it, by the innermost skill whose
// folder holds a finding's file (others are left to the report).
func printSkillLines(ios *IO, res *lint.Result) {
	if !ios.Verbose || len(res.Skills) == 0 {
		return
	}
	skills := map[string]int{} // by folder, slashed
	for i, s := range res.Skills {
		skills[filepath.ToSlash(filepath.Clean(s.Dir))] = i
	}
	found := make([][]lint.Finding, len(res.Skills))
	for _, f := range res.Findings {
		// The finding's path, then each folder above it up to ".".
		for p := filepath.ToSlash(filepath.Clean(f.Path)); ; p = path.Dir(p) {
			if i, ok := skills[p]; ok {
				found[i] = append(found[i], f)
				break
			}
			if p == "." || p == path.Dir(p) {
				break
			}
		}
	}
	for i, s := range res.Skills {
		var parts []string
		e, w, n := lint.Count(found[i])
		for _, c := range []struct {
			n    int
			word string
		}{{e, "error"}, {w, "warning"}, {n, "info"}} {
			if c.n > 0 {
				parts = append(parts, human.Plural(c.n, c.word))
			}
		}
		verdict := cmp.Or(strings.Join(parts, ", "), "ok")
		fmt.Fprintf(ios.Err, "  %s: %s\n", lint.Printable(filepath.ToSlash(filepath.Clean(s.Dir))), verdict)
	}
}

// fixHint says, after a text report, how many of its findings
// `skillpack lint --fix` would repair (counted by a dry run of the fixes:
// a fixable rule has findings that need a person), with the command to
// run, repeating the run's flags and paths, or the files the fixes change
// where those are fewer (a pre-commit hook's many paths).
func fixHint(ios *IO, res *lint.Result, lo lint.Options, flags, paths []string) {
	if ios.Quiet || !slices.ContainsFunc(res.Findings, func(f lint.Finding) bool { return lint.Fixable(f.Rule) }) {
		return
	}
	rep, err := lint.Fix(context.Background(), res, lint.FixOptions{Lint: lo, DryRun: true})
	if err != nil || rep.Fixed == 0 {
		return
	}
	if len(paths) > len(rep.Files) {
		paths = rep.Files
	}
	cmd := "skillpack lint --fix"
	for _, a := range slices.Concat(flags, paths) {
		cmd += " " + human.ShellQuote(a)
	}
	cmd = lint.Printable(cmd)
	n := len(res.Findings)
	switch {
	case n == 1:
		ios.Nextf("next: run `%s` to repair it", cmd)
	case rep.Fixed >= n:
		ios.Nextf("next: run `%s` to repair all %d findings", cmd, n)
	default:
		ios.Nextf("next: run `%s` to repair %d of the %d findings", cmd, rep.Fixed, n)
	}
}

// printBuildFindings prints the build's findings on stderr as lint's text
// format does; --quiet keeps the errors, which stopped the build.
func printBuildFindings(ios *IO, fs []lint.Finding) {
	if ios.Quiet {
		fs = quietFindings(fs, lint.Error)
	}
	lint.FormatText(ios.Err, &lint.Result{Findings: fs}, lint.TextOptions{Color: ios.ColorErr()})
}

// buildDone closes a build that succeeded: with --verbose a line a skill
// and the whole time, then what to do next with the bundle.
func buildDone(ios *IO, out string, res *build.Result, start time.Time) {
	if ios.Verbose {
		for _, s := range res.Skills {
			how := "packed"
			if s.Reused {
				how = "reused"
			}
			if len(s.LeftOut) > 0 { // junk and .skillignore's, which docs/build.md says are reported
				how += fmt.Sprintf("; left out %s", strings.Join(human.UpTo(len(s.LeftOut), 5, func(i int) string { return lint.Printable(s.LeftOut[i]) }, "%d more"), ", "))
			}
			fmt.Fprintf(ios.Err, "  %s (%s): %s, %s, %s\n", s.Name, lint.Printable(s.Dir), human.Plural(s.Files, "file"), human.Bytes(s.Size), how)
		}
		fmt.Fprintf(ios.Err, "built %s in %s\n", human.Plural(len(res.Skills), "skill"), duration(ios.clock()().Sub(start)))
	}
	if res.DryRun {
		return
	}
	open := "open"
	if runtime.GOOS == "windows" {
		open = "start"
	}
	ios.Nextf("next: skillpack serve %s   (or %s %s)", lint.Printable(human.ShellQuote(out)), open, lint.Printable(human.ShellQuote(filepath.Join(out, layout.Catalog))))
}

// formatReport prints lint's report on stdout; the text format in colour
// on a terminal and, with --quiet, only the findings that fail the run.
func formatReport(ios *IO, format string, res *lint.Result, failOn lint.Severity, tool lint.Tool) error {
	if format != "text" {
		return lint.Format(ios.Out, format, res, tool)
	}
	fs := res.Findings
	if ios.Quiet {
		fs = quietFindings(fs, failOn)
	}
	return lint.FormatText(ios.Out, &lint.Result{Findings: fs}, lint.TextOptions{Color: ios.ColorOut()})
}

// lintDone closes a text report, after its tally: with --verbose a line a
// skill and the time taken, then the `lint --fix` hint when it applies.
func lintDone(ios *IO, res *lint.Result, lo lint.Options, flags, paths []string, start time.Time) {
	if ios.Verbose && len(res.Skills) > 0 {
		printSkillLines(ios, res)
		fmt.Fprintf(ios.Err, "checked %s in %s\n", human.Plural(len(res.Skills), "skill"), duration(ios.clock()().Sub(start)))
	}
	fixHint(ios, res, lo, flags, paths)
}

// lintHintArgs are the arguments of a run that `lint --fix` must repeat to
// see the same findings: the config, the profile and the scope.
func lintHintArgs(o *lintCmdOptions) []string {
	var args []string
	if o.Config != "" {
		args = append(args, "--config", o.Config)
	}
	if o.Profile != "" {
		args = append(args, "--profile", o.Profile)
	}
	for _, g := range o.Ignore {
		args = append(args, "--ignore", g)
	}
	if o.All {
		args = append(args, "--all")
	}
	return args
}
