package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Argument and flag checks. Every mistake on the command line comes back
// as a usage error (exit 2) made here, typed, with what to do; nothing
// reads cobra's or pflag's message text to learn what went wrong.

// oneArg is the check of a command that takes one argument: its name is
// the second word of Use ("pack SKILLDIR").
func oneArg(cmd *cobra.Command, args []string) error {
	if len(args) == 1 {
		return nil
	}
	return usageErr("%s takes one %s, not %d arguments\nRun '%s --help' for usage.", cmd.Name(), argName(cmd), len(args), cmd.CommandPath())
}

// noArgs is the check of a command that takes no argument.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return usageErr("%s takes no arguments, not %q\nRun '%s --help' for usage.", cmd.Name(), strings.Join(args, " "), cmd.CommandPath())
}

func argName(cmd *cobra.Command) string {
	if f := strings.Fields(cmd.Use); len(f) > 1 {
		return f[1]
	}
	return "argument"
}

// commandArgs is the root's check: an argument there is a command that
// does not exist, perhaps one mistyped.
func commandArgs(root *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommand(root, args[0])
}

func unknownCommand(root *cobra.Command, name string) error {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	hint := ""
	if s := suggest(name, names); s != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	return usageErr("unknown command %q%s\nRun '%s --help' for usage.", name, hint, root.CommandPath())
}

// reportArgs makes check's error part of the command's --json document
// too (doc), which is printed however the command ends: a CI step that
// writes `--json > out.json` gets a document for a missing argument as
// well.
func reportArgs(check cobra.PositionalArgs, asJSON *bool, doc func(error) any) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		if err == nil || !*asJSON {
			return err
		}
		return jsonResult(cmd.OutOrStdout(), true, doc(err), err)
	}
}

// usageArgs makes whatever check returns a usage error: cobra's own
// commands (completion) check their arguments with cobra's validators,
// which return plain errors.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		var ee *exitError
		if err == nil || errors.As(err, &ee) {
			return err
		}
		return &exitError{code: ExitUsage, err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, cmd.CommandPath())}
	}
}

// flagError turns pflag's parse errors into usage errors (exit 2), with the
// closest flag of the command when one was mistyped. On the root, an
// argument before the bad flag is a command that does not exist, which is
// the mistake to report.
func flagError(c *cobra.Command, err error) error {
	if !c.HasParent() && len(c.Flags().Args()) > 0 {
		return unknownCommand(c, c.Flags().Args()[0])
	}
	hint := ""
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "" {
		if s := suggestFlag(c, ne.GetSpecifiedName()); s != "" {
			hint = fmt.Sprintf(" (did you mean --%s?)", s)
		}
	}
	return &exitError{code: ExitUsage, err: fmt.Errorf("%w%s\nRun '%s --help' for usage.", err, hint, c.CommandPath())}
}
