package cli

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/scaffold"
	"github.com/skillpack/skillpack/skill"
)

type newOptions struct {
	Name        string
	Dir         string
	Description string
	JSON        bool
}

func newNewCmd(ios *IO, runF func(*newOptions) error) *cobra.Command {
	opts := &newOptions{}
	cmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Create a new skill from a template",
		Long: `New creates the folder DIR/NAME holding a lint-clean SKILL.md for the author
to fill in. NAME must be a valid skill name (lowercase letters, digits and
single hyphens); an existing folder is never touched.

--json prints one document however new ends (schema/new.schema.json).` + "\n\n" + docs("getting-started.md"),
		Example: `  skillpack new pdf-tools --dir skills
  skillpack new pdf-tools --description "Fill and merge PDF forms. Use when the user works with PDFs."`,
		Args: reportArgs(oneArg, &opts.JSON, func(err error) any { return newNewJSON(opts, "", err) }),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runNew(ios, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", ".", "parent `folder` of the new skill")
	cmd.Flags().StringVar(&opts.Description, "description", "", "what the skill does and when to use it")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON document on stdout, even on failure")
	return cmd
}

// runNew scaffolds, and with --json prints the document however new ends.
func runNew(ios *IO, opts *newOptions) error {
	dir, err := "", error(nil)
	if fi, serr := os.Stat(opts.Dir); serr == nil && !fi.IsDir() {
		err = fmt.Errorf("--dir %s is a file; give the folder to make the skill in", opts.Dir)
	} else if in := skill.Enclosing(opts.Dir); in != "" {
		// A skill inside another is packed into the other's archives
		// (lint's skill-nested): the new one goes beside it.
		abs, _ := filepath.Abs(in)
		name, beside := relWD(abs), relWD(filepath.Dir(abs))
		if name == "." {
			name = filepath.Base(abs) + " (the working folder)"
		}
		err = fmt.Errorf("--dir %s is in the skill %s; a skill made inside another is published inside its archives: "+
			"make it beside it (--dir %s)", opts.Dir, name, beside)
	} else {
		dir, err = scaffold.New(opts.Dir, opts.Name, scaffold.Options{Description: opts.Description})
	}
	if err != nil {
		err = usageErr("%w", err)
		return jsonResult(ios.Out, opts.JSON, newNewJSON(opts, "", err), err)
	}
	if !opts.JSON {
		fmt.Fprintf(ios.Out, "created %s\n", dir)
	}
	ios.Nextf("next: edit %s/SKILL.md, then run: skillpack lint %s", dir, dir)
	return jsonResult(ios.Out, opts.JSON, newNewJSON(opts, dir, nil), nil)
}

// relWD is the absolute path p relative to the working folder, where it can be.
func relWD(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil {
			return rel
		}
	}
	return p
}

// newJSON is new's --json document (schema/new.schema.json); dir and
// skillFile are empty when nothing was created.
type newJSON struct {
	Name      string `json:"name"`
	Dir       string `json:"dir"`
	SkillFile string `json:"skillFile"`
	status
}

func newNewJSON(opts *newOptions, dir string, err error) newJSON {
	doc := newJSON{Name: opts.Name, Dir: filepath.ToSlash(dir), status: newStatus(err, "")}
	if dir != "" {
		doc.SkillFile = path.Join(doc.Dir, skill.FileName)
	}
	return doc
}
