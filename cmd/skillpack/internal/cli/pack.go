package cli

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/skill"
)

type packOptions struct {
	BuildFlags // the lint flags only; shared with build and serve --watch
	Dir        string
	Out        string
	Layout     string
	JSON       bool
}

func newPackCmd(ios *IO, runF func(*packOptions) error) *cobra.Command {
	opts := &packOptions{}
	cmd := &cobra.Command{
		Use:   "pack SKILLDIR",
		Short: "Pack one skill into a .tar.gz and a .zip",
		Long: `Pack lints one skill and writes SKILLNAME.tar.gz and SKILLNAME.zip into the
output folder, replacing a file of that name only if it is a skill's
archive (an earlier pack's). The default flat layout puts SKILL.md at the archive root, as
discovery clients want; --layout wrapped puts every file under SKILLNAME/, as
the OpenAI and Anthropic skill upload APIs want.

SKILLDIR is one skill's folder, the one holding SKILL.md (build packs every
skill of a tree). --json prints one document however pack ends
(schema/pack.schema.json).` + "\n\n" + docs("build.md"),
		Example: `  skillpack pack skills/pdf-tools
  skillpack pack skills/pdf-tools --layout wrapped -o upload/`,
		Args: reportArgs(oneArg, &opts.JSON, func(err error) any { return newPackJSON(opts, nil, err) }),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runPack(ios, opts)
		},
	}
	opts.LintOptions.AddFlags(cmd.Flags())
	cmd.Flags().StringVarP(&opts.Out, "out", "o", ".", "output `folder` for the archives")
	cmd.Flags().StringVar(&opts.Layout, "layout", "flat", "archive `layout`: flat (SKILL.md at the root) or wrapped (under SKILLNAME/)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON document on stdout, even on failure")
	return cmd
}

// resolve is pack's options: the shared ones (BuildFlags.options; of them
// one skill's archives take how it is linted and their time) and pack's
// own.
func (o *packOptions) resolve(ios *IO) (build.PackOptions, error) {
	if !slices.Contains(values(layouts), o.Layout) {
		return build.PackOptions{}, enumErr("layout", "layout", o.Layout, layouts)
	}
	cfg, err := o.load()
	if err != nil {
		return build.PackOptions{}, err
	}
	bo, err := o.options(ios, cfg)
	if err != nil {
		return build.PackOptions{}, err
	}
	return build.PackOptions{Out: o.Out, Wrapped: o.Layout == "wrapped", Lint: bo.Lint, Time: bo.Time}, nil
}

// runPack packs, and with --json prints the document however pack ends.
func runPack(ios *IO, opts *packOptions) error {
	res, err := packRun(ios, opts)
	return jsonResult(ios.Out, opts.JSON, newPackJSON(opts, res, err), err)
}

func packRun(ios *IO, opts *packOptions) (*build.Packed, error) {
	if err := checkSkillDir(opts.Dir); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(opts.Out); err == nil && !fi.IsDir() {
		return nil, usageErr("-o %s is a file; pack writes its two archives into a folder", opts.Out)
	}
	// Archives written into the skill would be packed by the next run,
	// which would then differ and grow every time.
	skillDir, _ := filepath.Abs(opts.Dir)
	if out, _ := filepath.Abs(opts.Out); out == skillDir || strings.HasPrefix(out, skillDir+string(filepath.Separator)) {
		return nil, usageErr("-o %s is inside the skill %s, whose next archives would take in these; write them outside it, such as -o %s",
			opts.Out, filepath.Base(skillDir), relWD(filepath.Dir(skillDir)))
	}
	po, err := opts.resolve(ios)
	if err != nil {
		return nil, err
	}
	res, err := build.PackSkill(opts.Dir, po)
	if res != nil && len(res.Findings) > 0 {
		printBuildFindings(ios, res.Findings)
	}
	if err != nil {
		return res, err
	}
	if !opts.JSON {
		for _, a := range res.Artifacts {
			fmt.Fprintf(ios.Out, "%s  %s  %d bytes\n", a.Digest, a.Path, a.Size)
		}
	}
	return res, nil
}

// checkSkillDir refuses what pack cannot take, saying what to pass
// instead: pack takes one skill's folder.
func checkSkillDir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		return usageErr("%s: no such folder; give the folder of one skill (the folder holding SKILL.md)", dir)
	case !info.IsDir() && strings.EqualFold(filepath.Base(dir), skill.FileName):
		return usageErr("%s is the skill's %s; give its folder: skillpack pack %s", dir, skill.FileName, filepath.Dir(dir))
	case !info.IsDir():
		return usageErr("%s is a file; give the folder of one skill (the folder holding SKILL.md)", dir)
	}
	if skill.Load(dir).Err == nil {
		return nil
	}
	found, _ := skill.Find(dir)
	switch len(found) {
	case 0:
		return usageErr("%s holds no %s, nor does any folder below it; give the folder of one skill", dir, skill.FileName)
	case 1:
		return usageErr("%s holds no %s; its one skill is %s: skillpack pack %s", dir, skill.FileName, found[0].Dir, found[0].Dir)
	}
	return usageErr("%s is a folder of %d skills, not one skill; pack one of them (skillpack pack %s) or build them all (skillpack build %s)",
		dir, len(found), found[0].Dir, dir)
}

// packJSON is pack's --json document (schema/pack.schema.json).
type packJSON struct {
	*build.Packed
	status
}

func newPackJSON(opts *packOptions, res *build.Packed, err error) packJSON {
	res = cmp.Or(res, &build.Packed{Layout: opts.Layout})
	res.Artifacts = nonNil(res.Artifacts)
	res.Findings = nonNil(res.Findings)
	return packJSON{Packed: res, status: newStatus(err, "pack failed")}
}
