package cli

import (
	"cmp"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/publish"
)

// exitCodesHelp is the one exit-code table of every command, at the end of
// each --help; docs/cli.md has the same table.
const exitCodesHelp = `Exit codes (every command):
  0  success
  1  findings or a failed check: lint findings, a refused build, verify's problems
  2  usage and user mistakes, checked before any work is done
  3  skillpack itself failed: a bug, or an error of the system (a full disk)
  130  interrupted (Ctrl-C, SIGTERM); what was written is whole`

// finishCommands gives every command below root the exit-code table in its
// help, the completions of its flags' values, and a panic turned into
// exit 3 (a bare panic exits 2, which says "usage").
func finishCommands(root *cobra.Command) {
	visit(root, func(c *cobra.Command) {
		c.Long = strings.TrimRight(cmp.Or(c.Long, c.Short+"."), "\n") + "\n\n" + exitCodesHelp
		registerCompletions(c)
		if c.RunE != nil {
			c.RunE = recoverPanic(c.RunE)
		}
	})
}

// checkArgs makes every command's argument check return usage errors,
// cobra's commands' included; and leaves out of each man page the "auto
// generated" line, whose date would change the bytes.
func checkArgs(root *cobra.Command) {
	visit(root, func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		if c.Args != nil {
			c.Args = usageArgs(c.Args)
		}
	})
}

// visit calls fn on c and every command below it.
func visit(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		visit(sub, fn)
	}
}

// exitClasser is an error that knows its exit code, so that no list of
// types is kept here in step with the packages that make them. (Not
// ExitCode: an exec.ExitError has that method, and a helper's exit is no
// class.)
type exitClasser interface{ ExitClass() int }

// exitStatus is the exit code Main returns for err, and the message it
// prints; the --json documents carry both. Any error that does not say
// its class is skillpack's own: 3.
func exitStatus(err error) (code int, msg string) {
	if err == nil {
		return ExitOK, ""
	}
	var c exitClasser
	if errors.As(err, &c) {
		return c.ExitClass(), err.Error()
	}
	return ExitInternal, err.Error()
}

// failedCode is the exit code of a command whose work failed part way: the
// class an error says it has; 2 when the bucket given does not exist; 1
// when a server kept failing until the retries ran out; else 3.
func failedCode(err error) int {
	var c exitClasser
	switch {
	case errors.As(err, &c): // a target's refusal that says its class
		return c.ExitClass()
	case errors.Is(err, publish.ErrNoBucket):
		return ExitUsage
	case errors.Is(err, publish.ErrUnavailable):
		return ExitFindings
	}
	return ExitInternal
}

// recoverPanic makes a panic in run skillpack's own failure, exit 3, with
// the stack for a bug report. A panic in another goroutine still crashes.
func recoverPanic(run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = &exitError{code: ExitInternal, err: fmt.Errorf("internal error: %v; please report it at https://%s/issues with this output:\n%s", r, version.Module, debug.Stack())}
			}
		}()
		return run(cmd, args)
	}
}
