// Package cli is skillpack's command layer: one file per command, each
// parsing flags into an options struct and calling one run function in a
// library package. Exit codes are decided here and nowhere else.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/lint"
)

// Exit codes, as documented in docs/cli.md: findings are not failures.
const (
	ExitOK       = 0 // clean
	ExitFindings = 1 // findings at or above --fail-on
	ExitUsage    = 2 // bad flags, arguments or config
	ExitInternal = 3 // skillpack itself failed
	// ExitInterrupted is a run stopped by Ctrl-C or SIGTERM, with what it
	// wrote whole: the shell's code for a command an interrupt ended, and
	// not 3, as the stop was the user's.
	ExitInterrupted = 130
)

// IO is the streams a command reads and writes, and how it speaks on them
// (output.go); tests pass buffers and set the rest.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	Getenv   func(string) string
	Now      func() time.Time // nil: time.Now; for --verbose timings

	// OutTTY and ErrTTY tell that Out and Err are terminals, which decides
	// colour and progress lines; Main asks the system, tests set them.
	OutTTY, ErrTTY bool

	// The global flags, bound before any command runs.
	Quiet   bool   // -q: errors only
	Verbose bool   // -v: step times, a line a skill
	Color   string // --color: auto (or ""), always or never

	gone *gone // Main's: closed once stdout's or stderr's reader is
}

// exitError carries an exit code up to Main, which prints the error once.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error  { return e.err }
func (e *exitError) ExitClass() int { return e.code }

// usageErr marks an error as the user's to fix: exit 2.
func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// findingsErr ends a run with exit 1 after findings were printed.
var findingsErr = &exitError{code: ExitFindings}

// interruptible is ctx, ended by an interrupt or SIGTERM: for a command
// that stops cleanly between two steps rather than be killed in one. The
// first signal is the only one caught: a second kills at once, as it
// would any command, so a step that does not end cannot hold the user.
// A closed pipe (build | head) ends it too, where SIGPIPE killed the
// build mid-write and left its staging behind: the write to stdout or
// stderr that finds its reader gone says so (see outlet). SIGPIPE itself
// is caught and dropped, as it is raised as well by a write to a socket
// whose peer left: taken as an interrupt, it stopped serve at the first
// client that hung up mid-answer, and a publish at the first store that
// did.
func interruptible(ctx context.Context, ios *IO) (context.Context, context.CancelFunc) {
	signal.Notify(sigpipe, syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(ctx)
	context.AfterFunc(ctx, stop)
	if ios.gone != nil {
		go func() {
			select {
			case <-ios.gone.c:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, cancel
}

// sigpipe takes SIGPIPE, and nothing reads it.
var sigpipe = make(chan os.Signal, 1)

// outlet is stdout or stderr as Main hands them on: the first write that
// finds the reader of either gone closes gone.
type outlet struct {
	io.Writer
	gone *gone
}

// gone is closed once a reader of the output is.
type gone struct {
	once sync.Once
	c    chan struct{}
}

func (o outlet) Write(p []byte) (int, error) {
	n, err := o.Writer.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		o.gone.once.Do(func() { close(o.gone.c) })
	}
	return n, err
}

// interrupted is err, exit 130, once the signal ended ctx.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return &exitError{code: ExitInterrupted, err: err}
}

// Main runs skillpack with args and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &gone{c: make(chan struct{})}
	ios := &IO{In: stdin, Out: outlet{stdout, g}, Err: outlet{stderr, g}, Getenv: os.Getenv,
		OutTTY: isTerminal(stdout), ErrTTY: isTerminal(stderr), gone: g}
	return run(ios, args)
}

// run runs skillpack with ios and returns the exit code; Main and the
// tests that fake a terminal come through here.
func run(ios *IO, args []string) int {
	root := newRoot(ios)
	root.SetArgs(args)
	err := singleDash(root, args)
	if err == nil {
		err = root.Execute()
	}
	code, msg := exitStatus(err)
	if msg != "" {
		fmt.Fprintf(ios.Err, "skillpack: %s\n", printableLines(msg))
	}
	return code
}

// printableLines is lint.Printable for a message of several lines: each
// line escaped on its own, its leading tabs kept.
func printableLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		body := strings.TrimLeft(l, "\t")
		lines[i] = l[:len(l)-len(body)] + lint.Printable(body)
	}
	return strings.Join(lines, "\n")
}

func newRoot(ios *IO) *cobra.Command {
	root := &cobra.Command{
		Use:   "skillpack",
		Short: "Lint, pack, sign and publish Agent Skills",
		Long: `skillpack is a build tool and static registry publisher for Agent Skills
(folders with a SKILL.md). It lints skills against the Agent Skills
specification, packs them into byte-reproducible archives, and writes a
bundle that a static host or a thin MCP server can serve unchanged.`,
		Version:       version.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Runnable, so that cobra checks the root's arguments with
		// commandArgs (a mistyped command) rather than with a message of
		// its own; with none it prints the help, as cobra would.
		Args: commandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetUsageTemplate(usageTemplate)
	addOutputFlags(root, ios)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := checkOutputFlags(ios); err != nil {
			return err
		}
		noteConfig(ios, cmd)
		return nil
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.Err)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newLintCmd(ios, nil), newBuildCmd(ios, nil), newPackCmd(ios, nil), newVersionCmd(ios), newNewCmd(ios, nil), newServeCmd(ios, nil), newVerifyCmd(ios, nil), newSignCmd(ios, nil), newPublishCmd(ios, nil), newPullCmd(ios, nil))
	root.AddCommand(newInitCmd(ios, nil), newDoctorCmd(ios, nil), newManCmd(ios))
	finishCommands(root)
	// Cobra's completion command, added now rather than when the root
	// runs, so that its arguments are checked below like the others'.
	root.InitDefaultCompletionCmd()
	completion, _, _ := root.Find([]string{"completion"})
	groupArgs(completion)
	checkArgs(root)
	return root
}

// noteConfig says, with -v, which skillpack.yaml a command with --config
// will read, or that none applies; and, always, when the one found is
// another tool's file, which the command leaves unread (LintOptions.load).
func noteConfig(ios *IO, cmd *cobra.Command) {
	f := cmd.Flags().Lookup("config")
	if f == nil {
		return
	}
	switch path, err := configPath(f.Value.String()); {
	case err != nil:
		// The command reports it.
	case path == "":
		ios.Verbosef("config: no %s here or above; the defaults apply", config.File)
	default:
		var fe *config.ForeignError
		if _, err := config.Load(path); errors.As(err, &fe) && f.Value.String() == "" {
			fmt.Fprintf(ios.Err, "note: %v, so the defaults apply; name skillpack's own with --config\n", fe)
			return
		}
		ios.Verbosef("config: %s", path)
	}
}
