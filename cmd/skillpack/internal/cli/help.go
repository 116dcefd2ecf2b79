package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/version"
)

// docs is where a command's help sends the reader for what does not fit
// a screen: the page of docs/ on the module's main branch.
func docs(page string) string {
	return "Documentation: https://" + version.Module + "/blob/main/docs/" + page
}

// flagGroup is a heading of the flags in --help: a command shows the flags
// it has of each group under its title, in this order, after its other
// flags. A group only on some commands (on) comes ahead of another that
// has the same flags. On a command named in brief, the group shows its
// first flag and only the names of the rest, explained by command see.
type flagGroup struct {
	title string
	names []string
	on    []string // the commands it is on; none: every command
	brief []string // commands that show the group by name only
	see   string   // the command whose help explains the group
}

var flagGroups = []flagGroup{
	{title: "Lint", names: []string{"strict", "profile", "config", "baseline", "skip-invalid", "all", "ignore"}},
	{title: "Versions", names: []string{"versioned", "release-version", "previous", "previous-token-file", "previous-header"}},
	{title: "Discovery documents", names: []string{"llms-txt", "llms-txt-merge", "ai-catalog"}},
	{title: "Signature checks", on: []string{"verify"}, names: []string{"require-signatures", "key", "certificate-identity", "certificate-identity-regexp", "certificate-oidc-issuer", "certificate-oidc-issuer-regexp", "certificate-chain", "signature", "trusted-root"}},
	{title: "Signing", names: []string{"sign", "key", "identity-token", "fulcio-url", "rekor-url", "tsa-url", "signing-config", "trusted-root"},
		brief: []string{"build", "publish"}, see: "sign"},
	{title: "Target (s3://, oci://, file://)", names: []string{"publish", "endpoint", "insecure", "prune", "keep", "username", "password-stdin"},
		brief: []string{"build"}, see: "publish"},
	{title: "HTTP", names: []string{"auth-token-file", "cache-index", "cache-files", "log-format", "token-file", "header"}},
	{title: "Limits", names: []string{"timeout", "deadline", "max-size", "max-skills", "max-total"}},
}

// flagUsages is the flags part of a command's help: its own flags by
// group, then the global ones.
func flagUsages(c *cobra.Command) string {
	local := c.LocalFlags()
	section := func(b *strings.Builder, title string, fs *pflag.FlagSet) {
		if fs.HasAvailableFlags() {
			b.WriteString("\n" + title + ":\n" + strings.TrimRight(fs.FlagUsages(), " \n") + "\n")
		}
	}
	grouped := map[string]bool{}
	var groups strings.Builder // written after the other flags, which need grouped
	for _, g := range flagGroups {
		if len(g.on) > 0 && !slices.Contains(g.on, c.Name()) {
			continue
		}
		fs := pflag.NewFlagSet(g.title, pflag.ContinueOnError)
		fs.SortFlags = false
		var rest []string // the brief group's flags shown by name
		brief := slices.Contains(g.brief, c.Name())
		for _, name := range g.names {
			f := local.Lookup(name)
			if f == nil || f.Hidden || grouped[name] {
				continue
			}
			grouped[name] = true
			if brief && fs.HasFlags() {
				rest = append(rest, "--"+name)
			} else {
				fs.AddFlag(f)
			}
		}
		section(&groups, g.title+" flags", fs)
		if len(rest) > 0 {
			groups.WriteString(human.Wrap("also "+strings.Join(rest, ", ")+": see 'skillpack "+g.see+" --help'", "      ", 80) + "\n")
		}
	}
	other := pflag.NewFlagSet("flags", pflag.ContinueOnError)
	local.VisitAll(func(f *pflag.Flag) {
		if !grouped[f.Name] {
			other.AddFlag(f)
		}
	})
	var b strings.Builder
	section(&b, "Flags", other)
	b.WriteString(groups.String())
	section(&b, "Global Flags", c.InheritedFlags())
	return b.String()
}

// usageTemplate is cobra's, with the flags in groups (flagUsages) and the
// subcommand list and help topics of the root and completion kept.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}
{{flagUsages .}}{{if .HasAvailableSubCommands}}
Use "{{.CommandPath}} [command] --help" for more information about a command.
{{end}}`

func init() {
	cobra.AddTemplateFunc("flagUsages", flagUsages)
}
