package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/publish/oci"
)

type pullOptions struct {
	Source   string
	Output   string
	Skill    string
	Insecure bool
	Login    LoginFlags
}

func newPullCmd(ios *IO, runF func(context.Context, *pullOptions) error) *cobra.Command {
	opts := &pullOptions{}
	cmd := &cobra.Command{
		Use:   "pull SOURCE",
		Short: "Fetch the skills of a bundle published to an OCI registry",
		Long: `Pull fetches skills that skillpack publish pushed to an OCI registry
(oci://host[:port]/repo[:tag], tag latest when none) and unpacks each into
a folder of its name under --output.

A release tag gives the bundle's collection: every skill it lists, or only
--skill NAME. A skill's own tag (NAME-VERSION) or digest (@sha256:...) gives
that skill. Every manifest and archive is checked against its digest, and
an archive that holds anything but plain files at clean paths is refused;
a skill's folder that already exists is not overwritten. A skill published
from a signed build comes with its folder signature (skill.oms.sig), so that
skillpack verify DIR/NAME checks the pulled files.

The credentials are those of docker login (the Docker config and its
credential helpers), or --username and --password-stdin. Plain http is
used only for a registry on this machine, unless --insecure allows it
elsewhere.`,
		Example: `  skillpack pull oci://ghcr.io/OWNER/skills:v1 -o .agents/skills
  skillpack pull oci://ghcr.io/OWNER/skills --skill pdf-processing -o .agents/skills
  skillpack pull oci://ghcr.io/OWNER/skills:pdf-processing-2.1.0 -o .agents/skills`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("%s takes one SOURCE, such as oci://ghcr.io/OWNER/skills:v1, not %d arguments\nRun '%s --help' for usage.", cmd.Name(), len(args), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPull(cmd.Context(), ios, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Output, "output", "o", ".", "the `folder` each skill's folder is written in")
	f.StringVar(&opts.Skill, "skill", "", "only the skill of this `name`")
	f.BoolVar(&opts.Insecure, "insecure", false, "allow plain http to a registry that is not on this machine")
	opts.Login.AddFlags(f)
	return cmd
}

func runPull(ctx context.Context, ios *IO, opts *pullOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := oci.CheckSource(opts.Source); err != nil {
		return usageErr("%w", err)
	}
	if err := opts.Login.read(ios.In); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	pulled, err := oci.Pull(ctx, opts.Source, opts.Output, opts.Skill, oci.Options{
		Insecure: opts.Insecure,
		Username: opts.Login.Username,
		Password: opts.Login.password,
	})
	for _, p := range pulled {
		fmt.Fprintf(ios.Out, "pulled %s %s\n", p.Name, p.Dir)
	}
	switch {
	case errors.Is(err, oci.ErrExists):
		return usageErr("%w", err)
	case err != nil:
		return &exitError{code: ExitInternal, err: err}
	}
	ios.Infof("%s: %s", opts.Source, plural(len(pulled), "skill"))
	return nil
}
