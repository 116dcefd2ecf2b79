package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/scaffold"
)

type newOptions struct {
	Name        string
	Dir         string
	Description string
}

func newNewCmd(ios *IO) *cobra.Command {
	opts := &newOptions{}
	cmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Create a new skill from a template",
		Long: `New creates the folder DIR/NAME holding a lint-clean SKILL.md for the author
to fill in. NAME must be a valid skill name (lowercase letters, digits and
single hyphens); an existing folder is never touched.`,
		Example: `  skillpack new pdf-tools --dir skills
  skillpack new pdf-tools --description "Fill and merge PDF forms. Use when the user works with PDFs."`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return runNew(ios, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", ".", "parent `folder` of the new skill")
	cmd.Flags().StringVar(&opts.Description, "description", "", "what the skill does and when to use it")
	return cmd
}

func runNew(ios *IO, opts *newOptions) error {
	dir, err := scaffold.New(opts.Dir, opts.Name, scaffold.Options{Description: opts.Description})
	if err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprintf(ios.Out, "created %s\n", dir)
	ios.Nextf("next: edit %s/SKILL.md, then run: skillpack lint %s", dir, dir)
	return nil
}
