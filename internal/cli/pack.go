package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/lint"
)

type packOptions struct {
	LintOptions
	Dir    string
	Out    string
	Layout string
	JSON   bool
}

func newPackCmd(ios *IO) *cobra.Command {
	opts := &packOptions{}
	cmd := &cobra.Command{
		Use:   "pack SKILLDIR",
		Short: "Pack one skill into a .tar.gz and a .zip",
		Long: `Pack lints one skill and writes SKILLNAME.tar.gz and SKILLNAME.zip into the
output folder. The default flat layout puts SKILL.md at the archive root, as
discovery clients want; --layout wrapped puts every file under SKILLNAME/, as
the OpenAI and Anthropic skill upload APIs want.`,
		Example: `  skillpack pack skills/pdf-tools
  skillpack pack skills/pdf-tools --layout wrapped -o upload/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runPack(ios, opts)
		},
	}
	opts.AddFlags(cmd.Flags())
	cmd.Flags().StringVarP(&opts.Out, "out", "o", ".", "output `folder` for the archives")
	cmd.Flags().StringVar(&opts.Layout, "layout", "flat", "archive `layout`: flat (SKILL.md at the root) or wrapped (under SKILLNAME/)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the archives' paths, digests and sizes as JSON")
	return cmd
}

func runPack(ios *IO, opts *packOptions) error {
	if opts.Layout != "flat" && opts.Layout != "wrapped" {
		return usageErr("--layout: want flat or wrapped, not %q", opts.Layout)
	}
	cfg, err := opts.load()
	if err != nil {
		return err
	}
	epoch, err := sourceDateEpoch(ios)
	if err != nil {
		return err
	}
	res, err := build.PackSkill(opts.Dir, build.PackOptions{
		Out: opts.Out, Wrapped: opts.Layout == "wrapped", Time: epoch,
		Lint: lint.Options{Config: cfg, Strict: opts.Strict},
	})
	if res != nil && len(res.Findings) > 0 {
		lint.Format(ios.Err, "text", &lint.Result{Findings: res.Findings}, lint.Tool{})
	}
	if err != nil {
		return buildErr(err)
	}
	if opts.JSON {
		enc := json.NewEncoder(ios.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	for _, a := range res.Artifacts {
		fmt.Fprintf(ios.Out, "%s  %s  %d bytes\n", a.Digest, a.Path, a.Size)
	}
	return nil
}
