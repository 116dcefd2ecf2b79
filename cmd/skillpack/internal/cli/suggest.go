package cli

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
)

// Did-you-mean for flags and flag values (cobra's is for subcommands), and their completion.

// Closed sets of flag values, in the order help and completion list them,
// each value with what it means after a tab: the one list that both the
// check of a value (enumErr) and its completion read.
var (
	formats = []string{
		"text\tone line a finding, as compilers print",
		"json\ta JSON document",
		"sarif\tSARIF 2.1.0, for code scanning",
		"github\tGitHub Actions annotations"}
	failOnLevels = []string{
		"error\texit 1 on errors (the default)",
		"warning\texit 1 on warnings and errors",
		"info\texit 1 on any finding",
		"never\texit 0 whatever is found"}
	layouts = []string{
		"flat\tSKILL.md at the archive root, as discovery clients want",
		"wrapped\tevery file under SKILLNAME/, as upload APIs want"}
	colorModes = []string{
		"auto\ton a terminal, unless NO_COLOR is set",
		"always\teven into a pipe or file",
		"never\tplain text"}
	ciProviders = []string{"github"}
)

// values are the values of a closed set, without what they mean.
func values(set []string) []string {
	out := make([]string, len(set))
	for i, v := range set {
		out[i], _, _ = strings.Cut(v, "\t")
	}
	return out
}

// profiles are --profile's values, lint's profiles, as a closed set.
func profiles() []string {
	var set []string
	for _, p := range lint.Profiles() {
		set = append(set, p.Name+"\t"+p.Description)
	}
	return set
}

// ruleIDs are --explain's values, lint's rule IDs, each with its title.
func ruleIDs() []string {
	var set []string
	for _, r := range lint.Rules() {
		set = append(set, r.ID+"\t"+r.Title)
	}
	return set
}

// noPath is the usage error for a path given that is not there: the
// closest name beside where it would be, as a mistyped flag gets.
func noPath(p string) error {
	if to, err := os.Readlink(p); err == nil {
		return usageErr("%s is a symbolic link to %s, which does not exist", p, to)
	}
	dir, base := filepath.Split(p)
	ents, _ := os.ReadDir(cmp.Or(dir, "."))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	hint := ""
	if s := human.Closest(base, names); s != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", filepath.Join(dir, s))
	}
	return usageErr("%s: no such file or folder%s", p, hint)
}

// enumErr is the usage error for a flag value outside its closed set
// (set, as above or bare names): `--format: unknown format "jsno" (did
// you mean "json"?); want text, json, sarif or github`.
// Aliases it also takes (--fail-on warn) are offered, not listed.
func enumErr(flag, what, got string, set []string, aliases ...string) error {
	want := values(set)
	return usageErr("--%s: unknown %s %q%s; want %s", flag, what, got, human.DidYouMean(got, append(slices.Clone(want), aliases...)), orList(want))
}

// orList joins words as prose: "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// suggestFlag returns the name of the command's flag closest to name, or "".
// A name that starts with a flag's, as other tools' longer spellings do
// (--output for --out, --config-file for --config), gets that flag too.
func suggestFlag(c *cobra.Command, name string) string {
	name, _, _ = strings.Cut(name, "=")
	names := flagNames(c)
	if s := human.Closest(name, names); s != "" {
		return s
	}
	return longerFlag(name, names)
}

// longerFlag returns the longest of names, of three letters or more, that name starts with.
func longerFlag(name string, names []string) string {
	best := ""
	for _, n := range names {
		if len(n) >= 3 && len(n) > len(best) && strings.HasPrefix(name, n) {
			best = n
		}
	}
	return best
}

// flagNames lists the long names of the flags c takes.
func flagNames(c *cobra.Command) []string {
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return names
}

// completeValues completes a flag from a fixed list ("value\tmeaning").
func completeValues(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		others := func(v string) bool { return !strings.HasPrefix(v, prefix) }
		return slices.DeleteFunc(slices.Clone(values), others), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFiles completes file names with one of the extensions.
func completeFiles(ext ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return ext, cobra.ShellCompDirectiveFilterFileExt
	}
}

// completeDirs completes folder names.
func completeDirs(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// registerCompletions registers the value completions of the flags cmd
// has, by name, so that every command completes a flag alike.
func registerCompletions(cmd *cobra.Command) {
	// layout.Marketplaces is the one list of marketplaces, which the value
	// check (layout.CheckMarketplace) reads too; each completes with its file.
	var marketplaces []string
	for _, m := range slices.Sorted(maps.Keys(layout.Marketplaces)) {
		marketplaces = append(marketplaces, m+"\t"+layout.Marketplaces[m])
	}
	fns := map[string]cobra.CompletionFunc{
		"marketplace":    completeValues(marketplaces...),
		"format":         completeValues(formats...),
		"fail-on":        completeValues(failOnLevels...),
		"profile":        completeValues(profiles()...),
		"explain":        completeValues(ruleIDs()...),
		"layout":         completeValues(layouts...),
		"color":          completeValues(colorModes...),
		"ci":             completeValues(ciProviders...),
		"config":         completeFiles("yaml", "yml"),
		"baseline":       completeFiles("json"),
		"write-baseline": completeFiles("json"),
		"llms-txt-merge": completeFiles("txt", "md"),
		"out":            completeDirs,
		"watch":          completeDirs,
		"dir":            completeDirs,
	}
	for name, fn := range fns {
		// Each flag where it is defined: a persistent flag is
		// registered once, on the command that owns it.
		if cmd.Flags().Lookup(name) != nil || cmd.PersistentFlags().Lookup(name) != nil {
			// Registering twice is the only error, and each name is registered once here.
			_ = cmd.RegisterFlagCompletionFunc(name, fn)
		}
	}
}
