package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
)

// Argument and flag checks. Every mistake on the command line comes back
// as a usage error (exit 2) made here, typed, with what to do; nothing
// reads cobra's or pflag's message text to learn what went wrong.

// oneArg is the check of a command that takes one argument: its name is
// what follows the command's in Use ("pack SKILLDIR").
func oneArg(cmd *cobra.Command, args []string) error {
	if len(args) == 1 {
		return nil
	}
	_, name, _ := strings.Cut(cmd.Use, " ")
	return usageOf(cmd, "%s takes one %s, not %d arguments", cmd.Name(), name, len(args))
}

// noArgs is the check of a command that takes no argument.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return usageOf(cmd, "%s takes no arguments, not %q", cmd.Name(), strings.Join(args, " "))
}

// usageOf is a usage error of cmd's arguments or flags, pointing at its help.
func usageOf(cmd *cobra.Command, format string, args ...any) error {
	return usageErr(format+"\nRun '%s --help' for usage.", append(args, cmd.CommandPath())...)
}

// commandArgs is the root's check: an argument there is a command that does not exist.
func commandArgs(root *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommand(root, args[0])
}

func unknownCommand(root *cobra.Command, name string) error {
	return usageOf(root, "unknown command %q%s", name, human.DidYouMean(name, subcommands(root)))
}

func subcommands(parent *cobra.Command) []string {
	var names []string
	for _, c := range parent.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return names
}

// groupArgs makes a command that only groups others (completion) refuse
// an argument, which cobra would take without a word and answer with the
// help and exit 0 (completion tcsh): it names the subcommands there are.
func groupArgs(c *cobra.Command) {
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		names := subcommands(cmd)
		return usageOf(cmd, "%s takes %s, not %q%s", cmd.CommandPath(), orList(names), args[0], human.DidYouMean(args[0], names))
	}
	// Runnable, so that cobra checks the arguments; with none it prints
	// the help, as it did.
	c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

// reportArgs makes check's error part of the command's --json document
// too (doc), which is printed however the command ends.
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
		return usageOf(cmd, "%w", err)
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
	return usageOf(c, "%w%s", err, hint)
}

// singleDash finds a long flag written with one dash, as Go's flag
// package and find take them (-output dist), which pflag reads as
// shorthands (-o utput). Nothing after "--" is looked at.
func singleDash(root *cobra.Command, args []string) error {
	c, _, err := root.Find(args)
	if err != nil || c.DisableFlagParsing {
		return nil
	}
	c.InheritedFlags() // merges the parents' persistent flags into c.Flags()
	fs := c.Flags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		var f *pflag.Flag
		switch {
		case a == "--":
			return nil
		case strings.HasPrefix(a, "--"):
			f = fs.Lookup(strings.TrimPrefix(a, "--"))
		case len(a) == 2 && a[0] == '-':
			f = fs.ShorthandLookup(a[1:])
		case len(a) > 3 && a[0] == '-' && isFlagWord(a[1:]):
			// Only a flag's whole name, or one it starts with (-output
			// for --out): -fjson is -f json, not a typo of --json.
			name, _, _ := strings.Cut(a[1:], "=")
			s := longerFlag(name, flagNames(c))
			for _, n := range flagNames(c) {
				if s == "" && strings.HasPrefix(n, name) {
					s = n // -out for --output
				}
			}
			if s != "" {
				return usageOf(c, "%s: a long flag takes two dashes (did you mean --%s?)", a, s)
			}
		}
		if f != nil && f.NoOptDefVal == "" {
			i++ // the flag's value, whatever it looks like
		}
	}
	return nil
}

// isFlagWord reports whether s could be a flag's name (and a value after
// "="): lowercase letters and hyphens, so that -j4 or -qv stay
// shorthands.
func isFlagWord(s string) bool {
	s, _, _ = strings.Cut(s, "=")
	return !strings.ContainsFunc(s, func(r rune) bool { return (r < 'a' || r > 'z') && r != '-' })
}

// notBundle refuses a bundle, or a folder inside one, given as the skills
// to build: its copies of the skills would be read as skills of their own
// (-output dist is read as -o utput, and dist as the input).
func notBundle(input string) error {
	if _, err := os.Stat(filepath.Join(input, filepath.FromSlash(layout.BuildRecord))); err == nil {
		return usageErr("%s is a bundle skillpack built (it has %s); give the skills folder, and -o for the output", input, layout.BuildRecord)
	}
	if above := bundleAbove(input); above != "" {
		return usageErr("%s is inside the bundle %s, whose skills are copies a build wrote; build the skills folder %s was built from", input, above, above)
	}
	return nil
}
