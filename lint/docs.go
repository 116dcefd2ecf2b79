package lint

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/skillpack/skillpack/internal/human"
)

// Explain writes a rule's full documentation, as --explain shows it.
func Explain(w io.Writer, r *Rule) error {
	fix := ""
	if Fixable(r.ID) {
		fix = "; `skillpack lint --fix` repairs it"
	}
	_, err := fmt.Fprintf(w, "%s: %s\ndefault severity: %s%s; category: %s%s\n\n%s\n\nBad:\n%s\nGood:\n%s", r.ID, r.Title,
		r.Severity, otherLevels(r), r.Category, fix, human.Wrap(r.Explain, "", 76), indent(r.Bad, "    "), indent(r.Good, "    "))
	return err
}

// ListRules writes one line a rule: ID, default severity, category, title.
func ListRules(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tCATEGORY\tTITLE")
	for _, r := range registry {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Category, r.Title)
	}
	return tw.Flush()
}

// RuleTable writes the Markdown table of rules that docs/rules.md carries,
// with each rule's level under every profile and the principle behind
// them; a test keeps the two equal.
func RuleTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString("An error is what breaks something: the build cannot publish the skill, an index cannot carry it, " +
		"or the clients that load skills (Claude Code, Codex, Cursor, OpenClaw, the Vercel skills CLI) refuse or " +
		"misread it. A deviation from the specification that those clients accept is a warning under the default " +
		"profile, `" + profiles[0].Name + "`, even where a validator of the letter (skills-ref, the official MCP SDK's " +
		"entry checks and YAML subset: the build leaves a skill MCP hosts refuse out of the MCP documents) refuses it. `--profile spec` holds skills to the letter with the levels skillpack had before " +
		"(a name unlike its folder is an error there, as in skills-ref). `--strict` makes every warning fail, " +
		"under any profile.\n\n")
	b.WriteString("| ID |")
	for _, p := range profiles {
		fmt.Fprintf(&b, " `%s` |", p.Name)
	}
	fmt.Fprintf(&b, " category | what it checks | `--fix` |\n|---|%s---|---|---|\n", strings.Repeat("---|", len(profiles)))
	for _, r := range registry {
		fix := ""
		if Fixable(r.ID) {
			fix = "yes"
		}
		fmt.Fprintf(&b, "| `%s` |", r.ID)
		for _, p := range profiles {
			fmt.Fprintf(&b, " %s |", p.level(r))
		}
		fmt.Fprintf(&b, " %s | %s | %s |\n", r.Category, strings.ReplaceAll(r.Title, "|", `\|`), fix)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// otherLevels names the profiles under which a rule weighs otherwise than
// by default, as " (under spec: error)", or "".
func otherLevels(r *Rule) string {
	var out []string
	for _, p := range profiles {
		if s := p.level(r); s != r.Severity {
			out = append(out, fmt.Sprintf("%s: %s", p.Name, s))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (under " + strings.Join(out, ", ") + ")"
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}
