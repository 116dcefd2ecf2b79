package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/lint"
)

// fixOptions are lint's flags for repairing findings.
type fixOptions struct {
	Fix    bool
	DryRun bool
}

// AddFlags registers --fix and --dry-run.
func (o *fixOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Fix, "fix", false, "repair the findings that have a safe, mechanical fix, then lint again")
	fs.BoolVar(&o.DryRun, "dry-run", false, "with --fix: print the fixes as a unified diff and write nothing")
}

// runFix is lint with --fix: lint, fix, lint again, and print what is left
// as lint would, with the count of findings fixed (on stderr, or in doc).
// With --dry-run it prints the diff instead and exits as lint would have.
func runFix(ios *IO, opts *lintCmdOptions, paths []string, lo lint.Options, failOn lint.Severity, doc *lintJSON) error {
	switch {
	case !opts.fix.Fix:
		return usageErr("--dry-run needs --fix")
	case opts.fix.DryRun && opts.Format != "text":
		return usageErr("--dry-run prints a unified diff; it cannot be combined with --format %s", opts.Format)
	case opts.WriteBaseline != "":
		return usageErr("--fix cannot be combined with --write-baseline; fix first, then record what is left")
	}
	res, err := lintPaths(paths, lo, doc)
	if err != nil {
		return err
	}
	// An interrupt stops the fixes between two files, so that none is left
	// half-written and no temporary file is left behind.
	ctx, stop := interruptible(context.Background(), ios)
	defer stop()
	fo := lint.FixOptions{Lint: lo, DryRun: opts.fix.DryRun}
	if opts.fix.DryRun {
		fo.Diff = ios.Out
	}
	rep, err := lint.Fix(ctx, res, fo)
	if rep != nil {
		for _, f := range rep.Failed {
			fmt.Fprintf(ios.Err, "%s\n", lint.Printable(f.Error()))
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, errors.New("interrupted: every file is either fixed or as it was"))
		}
		return &exitError{code: ExitInternal, err: err}
	}
	if ctx.Err() != nil {
		return interrupted(ctx, errors.New("interrupted once every fix was written; run lint to see what is left"))
	}
	// Nothing is left to protect: an interrupt during the lint that
	// follows ends the run at once, as it would any lint.
	stop()
	done := fmt.Sprintf("%s in %s", human.Plural(rep.Fixed, "finding"), human.Plural(len(rep.Files), "file"))
	if rep.Copies > 0 { // linted once, written to each copy: more files than findings
		done += fmt.Sprintf(" (%s of a fixed file, kept identical)", human.Plural(rep.Copies, "is a copy", "are copies"))
	}
	if opts.fix.DryRun {
		fmt.Fprintf(ios.Err, "would fix %s; nothing was written\n", done)
	} else {
		if res, err = lintPaths(paths, lo, doc); err != nil {
			return err
		}
		if doc != nil {
			doc.Fixed = &rep.Fixed
		} else if err := formatReport(ios, opts.Format, res, failOn, lintTool()); err != nil {
			return &exitError{code: ExitInternal, err: err}
		} else {
			fmt.Fprintf(ios.Err, "fixed %s\n", done)
		}
		if opts.Format == "text" {
			summarize(ios, res)
		}
	}
	if failOn != lint.Off && lint.Worst(res.Findings) >= failOn {
		return findingsErr
	}
	return nil
}
