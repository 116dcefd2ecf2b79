package lint

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Explain writes a rule's full documentation, as --explain shows it.
func Explain(w io.Writer, r *Rule) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", r.ID, r.Title)
	fmt.Fprintf(&b, "default severity: %s; category: %s", r.Severity, r.Category)
	if Fixable(r.ID) {
		b.WriteString("; `skillpack lint --fix` repairs it")
	}
	b.WriteString("\n\n")
	b.WriteString(wrap(r.Explain, 76))
	b.WriteString("\n\nBad:\n")
	b.WriteString(indent(r.Bad, "    "))
	b.WriteString("\nGood:\n")
	b.WriteString(indent(r.Good, "    "))
	_, err := io.WriteString(w, b.String())
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

// RuleTable writes the Markdown table of rules that the README carries; a
// test keeps the two equal.
func RuleTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| ID | severity | category | what it checks | `--fix` |\n|---|---|---|---|---|\n")
	for _, r := range registry {
		fix := ""
		if Fixable(r.ID) {
			fix = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.ID, r.Severity, r.Category, strings.ReplaceAll(r.Title, "|", `\|`), fix)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(word) > width {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}
