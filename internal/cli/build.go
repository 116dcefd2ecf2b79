package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/lint"
)

type buildOptions struct {
	LintOptions
	SignOptions
	Sign     bool
	Roots    []string
	Out      string
	Jobs     int
	Force    bool
	DryRun   bool
	JSON     bool
	BaseURL  string
	NoLegacy bool
	Summary  string // file to append a Markdown summary to (GitHub's step summary)
}

func newBuildCmd(ios *IO) *cobra.Command {
	opts := &buildOptions{}
	cmd := &cobra.Command{
		Use:   "build [SKILLS...] -o DIST",
		Short: "Lint, pack and index skills into a servable bundle",
		Long: `Build lints every skill at or below each SKILLS folder (default: the working
directory), packs each into a byte-reproducible .tar.gz and .zip, and writes a
bundle that a static host or a thin MCP server serves unchanged: discovery
indexes (/.well-known/agent-skills/ v0.2.0 and /.well-known/skills/ v0.1.0),
content-addressed archives, MCP documents and checksums.

Any error-level finding stops the build before anything is written. The
bundle is built in a temporary folder beside DIST and swapped in at the end,
so DIST is either the previous bundle or the new one, never half of each.
Unchanged skills reuse their archives from the previous bundle.

Archives take their one fixed time from SOURCE_DATE_EPOCH when it is set,
else 1980-01-01T00:00:00Z.`,
		Example: `  skillpack build ./skills -o dist
  skillpack build ./skills -o dist --json > build.json
  skillpack build ./skills -o public --base-url https://example.com`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Roots = args
			// Flags given on the command line win over the config's build section.
			return runBuild(ios, opts, cmd.Flags().Changed("no-legacy"), cmd.Flags().Changed("base-url"))
		},
	}
	opts.LintOptions.AddFlags(cmd.Flags())
	opts.SignOptions.AddFlags(cmd.Flags())
	f := cmd.Flags()
	f.BoolVar(&opts.Sign, "sign", false, "sign the archives and indexes with Sigstore (keyless, or --key)")
	f.StringVarP(&opts.Out, "out", "o", "dist", "output `folder` (replaced as a whole)")
	f.IntVarP(&opts.Jobs, "jobs", "j", 0, "skills packed at once (default: one per CPU)")
	f.BoolVar(&opts.Force, "force", false, "replace an output folder that holds files skillpack did not write")
	f.BoolVar(&opts.DryRun, "dry-run", false, "report what would be written, write nothing")
	f.BoolVar(&opts.JSON, "json", false, "print a machine-readable summary (every artifact with digest and size) on stdout")
	f.StringVar(&opts.BaseURL, "base-url", "", "absolute `URL` the bundle is served at (default: relative URLs)")
	f.BoolVar(&opts.NoLegacy, "no-legacy", false, "leave out the legacy /.well-known/skills/ v0.1.0 tree")
	f.StringVar(&opts.Summary, "step-summary", "", "append a Markdown summary to this `file` (e.g. $GITHUB_STEP_SUMMARY)")
	return cmd
}

func runBuild(ios *IO, opts *buildOptions, setLegacy, setBase bool) error {
	cfg, err := opts.load()
	if err != nil {
		return err
	}
	if !setLegacy {
		opts.NoLegacy = cfg.Build.NoLegacy
	}
	if !setBase {
		opts.BaseURL = cfg.Build.BaseURL
	}
	roots := opts.Roots
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for _, r := range roots {
		if _, err := os.Stat(r); err != nil {
			return usageErr("%s: no such file or folder", r)
		}
	}
	epoch, err := sourceDateEpoch(ios)
	if err != nil {
		return err
	}
	bo := build.Options{
		Out: opts.Out, Jobs: opts.Jobs, Force: opts.Force, DryRun: opts.DryRun, Time: epoch,
		BaseURL: opts.BaseURL, NoLegacy: opts.NoLegacy,
		Lint: lint.Options{Config: cfg, Strict: opts.Strict},
		Log:  ios.Err,
		// Only the summaries list every skill and file; without them a
		// build's memory does not grow with the tree.
		Inventory: opts.JSON || opts.Summary != "",
	}
	if !opts.Sign && opts.SignOptions != (SignOptions{}) {
		return usageErr("signing flags (--key, --identity-token, ...) need --sign")
	}
	if opts.Sign && !opts.DryRun {
		ctx := context.Background()
		s, err := opts.newSigner(ctx, ios)
		if err != nil {
			return err
		}
		bo.Sign = func(data []byte) ([]byte, error) { return s.Sign(ctx, data) }
	}
	if isTerminal(ios.Err) && ios.Getenv("CI") == "" {
		bo.Progress = ios.Err
	}
	res, err := build.Run(roots, bo)
	if res != nil && len(res.Findings) > 0 {
		lint.Format(ios.Err, "text", &lint.Result{Findings: res.Findings}, lint.Tool{})
	}
	if opts.Summary != "" && res != nil && err == nil {
		if err := appendSummary(opts.Summary, res); err != nil {
			return &exitError{code: ExitInternal, err: fmt.Errorf("--step-summary: %w", err)}
		}
	}
	if opts.JSON && res != nil && err == nil {
		enc := json.NewEncoder(ios.Out)
		enc.SetIndent("", "  ")
		if res.Findings == nil {
			res.Findings = []lint.Finding{}
		}
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	return buildErr(err)
}

// appendSummary appends a Markdown table of the built skills to file, the
// way GitHub Actions collects a job's step summary.
func appendSummary(file string, res *build.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### skillpack build\n\n%d skills → `%s` (%d packed, %d reused)\n\n", len(res.Skills), res.Out, res.Packed, res.Reused)
	b.WriteString("| skill | files | size | archive | digest |\n|---|---:|---:|---|---|\n")
	for _, s := range res.Skills {
		fmt.Fprintf(&b, "| %s | %d | %d B | `%s` | `%s` |\n", s.Name, s.Files, s.Size, path.Base(s.TarGz.Path), s.TarGz.Digest)
	}
	errs, warns, _ := lint.Count(res.Findings)
	fmt.Fprintf(&b, "\nLint: %d errors, %d warnings.\n", errs, warns)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// buildErr maps a build error to its exit code: lint errors are findings
// (1), a refused output folder is the user's to fix (2), anything else is a
// failure (3).
func buildErr(err error) error {
	var le *build.LintError
	var oe *build.OutputError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &le):
		return &exitError{code: ExitFindings, err: err}
	case errors.As(err, &oe):
		return &exitError{code: ExitUsage, err: err}
	}
	return &exitError{code: ExitInternal, err: err}
}

func sourceDateEpoch(ios *IO) (time.Time, error) {
	s := ios.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, nil
	}
	t, err := build.SourceDateEpoch(s)
	if err != nil {
		return t, usageErr("%v", err)
	}
	return t, nil
}

// isTerminal reports whether w is a character device, so progress counters
// go only where a person watches and never into CI logs or pipes.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
