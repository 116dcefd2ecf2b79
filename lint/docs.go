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
	if r.Publish {
		fix = fmt.Sprintf("; a build holds it at %s at least", r.Severity)
	}
	if Fixable(r.ID) {
		fix += "; `skillpack lint --fix` repairs it"
	}
	_, err := fmt.Fprintf(w, "%s: %s\ndefault severity: %s%s; category: %s%s\n\n%s\n\nBad:\n%s\nGood:\n%s", r.ID, r.Title,
		r.Severity, otherLevels(r), r.Category, fix, human.Wrap(r.Explain, "", 76), indent(r.Bad, "    "), indent(r.Good, "    "))
	return err
}

// ListRules writes one line a rule: ID, severity under p (nil: the
// default profile), category, title.
func ListRules(w io.Writer, p *Profile) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tCATEGORY\tTITLE")
	for _, r := range registry {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, p.level(r), r.Category, r.Title)
	}
	return tw.Flush()
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
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix) + "\n"
}
