package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/publish/oci"
	"github.com/skillpack/skillpack/verify"
)

type pullOptions struct {
	oci.Options // --insecure, --timeout, --max-total
	Source      string
	Out         string
	Skill       string
	Deadline    time.Duration
	Login       LoginFlags
}

func newPullCmd(ios *IO, runF func(context.Context, *pullOptions) error) *cobra.Command {
	opts := &pullOptions{}
	cmd := &cobra.Command{
		Use:   "pull SOURCE",
		Short: "Fetch the skills of a bundle published to an OCI registry",
		Long: `Pull fetches skills that skillpack publish pushed to an OCI registry
(oci://host[:port]/repo[:tag], tag latest when none) and unpacks each into
a folder of its name under -o/--out. A release tag gives every skill of the
bundle (or --skill NAME), a skill's own tag (NAME-VERSION) or digest that
skill.

Every manifest and archive is checked against its digest and held to
verify's limits; a folder that exists is never overwritten. A request the
registry fails is retried for up to a minute, as publish's are. A signed
skill comes with its skill.oms.sig, so skillpack verify DIR/NAME checks it.
Credentials are those of docker login, or --username and --password-stdin.` + "\n\n" + docs("publish.md"),
		Example: `  skillpack pull oci://ghcr.io/OWNER/skills:v1 -o .agents/skills
  skillpack pull oci://ghcr.io/OWNER/skills --skill pdf-processing -o .agents/skills
  skillpack pull oci://ghcr.io/OWNER/skills:pdf-processing-2.1.0 -o .agents/skills`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageOf(cmd, "%s takes one SOURCE, such as oci://ghcr.io/OWNER/skills:v1, not %d arguments", cmd.Name(), len(args))
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
	f.StringVarP(&opts.Out, "out", "o", ".", "the `folder` each skill's folder is written in")
	f.StringVar(&opts.Skill, "skill", "", "only the skill of this `name`")
	f.BoolVar(&opts.Insecure, "insecure", false, "allow plain http to a registry that is not on this machine")
	f.DurationVar(&opts.Timeout, "timeout", verify.DefaultTimeout, "time allowed for each request, body included")
	f.DurationVar(&opts.Deadline, "deadline", verify.DefaultDeadline, "time allowed for the whole pull")
	opts.MaxTotal = oci.DefaultMaxTotal
	f.Var((*byteSize)(&opts.MaxTotal), "max-total", "most bytes the skills pulled unpack to, all together, such as 1GiB or 500MB")
	opts.Login.AddFlags(f)
	return cmd
}

func runPull(ctx context.Context, ios *IO, opts *pullOptions) error {
	if err := oci.CheckSource(opts.Source); err != nil {
		return usageErr("%w", err)
	}
	switch {
	case opts.Timeout <= 0:
		return usageErr("--timeout %v: give a positive duration such as 30s", opts.Timeout)
	case opts.Deadline <= 0:
		return usageErr("--deadline %v: give a positive duration such as 5m", opts.Deadline)
	}
	if err := opts.Login.read(ios.In); err != nil {
		return err
	}
	ctx, stop := interruptible(ctx, ios)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, opts.Deadline, errPullDeadline)
	defer cancel()
	o := opts.Options // the archives' limits are layout's, as verify's
	o.Username, o.Password = opts.Login.Username, opts.Login.password
	o.Log = ios.Err // what a retry waits for
	pulled, err := oci.Pull(ctx, opts.Source, opts.Out, opts.Skill, o)
	for _, p := range pulled {
		fmt.Fprintf(ios.Out, "pulled %s %s\n", p.Name, p.Dir)
	}
	if err != nil {
		return pullErr(ctx, opts, err)
	}
	ios.Infof("%s: %s", opts.Source, human.Plural(len(pulled), "skill"))
	return nil
}

// errPullDeadline is the cause of a pull's context when --deadline passes.
var errPullDeadline = errors.New("deadline passed")

// pullErr classifies a pull's error: one that says its class has it; a
// skill folder that was there before is the user's to move (2); a failure to write is the system's (3); an
// interrupt is 130; anything the registry sent or failed to send is a failed
// check (1), as a URL verify cannot fetch.
func pullErr(ctx context.Context, opts *pullOptions, err error) error {
	switch {
	case errors.As(err, new(exitClasser)): // the registry's refusal of a login, a folder that cannot be pulled into
		return err
	case errors.Is(err, oci.ErrExists):
		return usageErr("%w", err)
	case errors.Is(err, oci.ErrWrite):
		return &exitError{code: ExitInternal, err: err}
	case errors.Is(context.Cause(ctx), errPullDeadline):
		err = fmt.Errorf("%w: the pull took longer than --deadline %v; the skills pulled before stay", err, opts.Deadline)
	case ctx.Err() != nil:
		return interrupted(ctx, fmt.Errorf("interrupted: %w; the skills pulled before stay", err))
	}
	return &exitError{code: ExitFindings, err: err}
}
