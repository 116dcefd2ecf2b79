package lint

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Suppressions, as linters' users expect them: an `allow` entry in
// skillpack.yaml silences one or more rules on some paths, with a reason
// that reviewers read; a comment in a Markdown file silences rules on the
// next line, or in the whole code block whose fence opens there (a
// comment inside the block would show in the code sample). A suppression that silences nothing is reported, so that they
// do not outlive the findings they were written for.

// Directive is the word that starts an inline suppression:
//
//	<!-- skillpack-disable-next-line link-broken -- generated at install time -->
//
// In the YAML frontmatter the same words follow a "#".
const Directive = "skillpack-disable-next-line"

// suppressRules are reported by the engine itself, after every other rule of
// a skill has run (see runner.settle).
var suppressRules = []*Rule{
	{
		ID:       "suppression-unused",
		Title:    "Suppressions silence something",
		Severity: Warning,
		Explain: "An inline `" + Directive + "` comment, or an `allow` entry of skillpack.yaml, that " +
			"silences no finding has outlived its cause (the defect was fixed, the line moved, or the " +
			"rule never fired there) and would hide the next real finding at that place. Delete it. An " +
			"`allow` entry is only judged when lint runs over the whole folder of skillpack.yaml.",
		Bad:    "<!-- " + Directive + " link-broken -->\n[guide](guide.md)   (guide.md exists)",
		Good:   "[guide](guide.md)",
		Engine: true,
	},
	{
		ID:       "suppression-invalid",
		Title:    "Suppression comments name known rules",
		Severity: Warning,
		Explain: "A `" + Directive + "` comment must name one or more rule IDs, separated by commas " +
			"or spaces, optionally followed by `-- reason`. An unknown ID silences nothing, so the " +
			"finding it was meant for is still reported; `skillpack lint --list-rules` lists the IDs.",
		Bad:    "<!-- " + Directive + " link-brokn -->",
		Good:   "<!-- " + Directive + " link-broken -- the file is generated at install time -->",
		Engine: true,
	},
}

// Allow is one entry of the config's allow list.
type Allow struct {
	Rules  []string // rule IDs
	Path   string   // gitignore-style glob, relative to the config's folder
	Reason string   // why; required
	Line   int      // of the entry in skillpack.yaml
}

// ruleIDs holds every rule's ID. It is filled in by init, not from the
// registry's initializer, since parseInline runs in checks too (unknown-key
// keeps a suppressed key's finding at its line), and the registry refers
// to the checks.
var ruleIDs = map[string]bool{}

func init() {
	for _, r := range registry {
		ruleIDs[r.ID] = true
	}
}

// inline is one suppression comment of a file.
type inline struct {
	line  int      // of the comment; it covers line+1 to last
	last  int      // line+1, or the line closing the code block that opens there
	col   int      // where the directive starts
	rules []string // known IDs
	bad   []string // unknown IDs
	used  []bool   // per rule
}

// parseInline finds the suppression comments of a Markdown file (or
// SKILL.md, frontmatter included). It costs one search of the bytes for
// files without any, which is nearly all of them.
func parseInline(data []byte) []*inline {
	if !bytes.Contains(data, []byte(Directive)) {
		return nil
	}
	var out []*inline
	lines := bytes.Split(data, []byte("\n"))
	for n, line := range lines {
		i := bytes.Index(line, []byte(Directive))
		if i < 0 {
			continue
		}
		// Only a comment counts: prose that mentions the directive (this
		// package's own README does) silences nothing.
		before := strings.TrimSpace(string(line[:i]))
		if before != "<!--" && before != "#" {
			continue
		}
		rest := strings.TrimSpace(string(line[i+len(Directive):]))
		rest = strings.TrimSpace(strings.TrimSuffix(rest, "-->"))
		ids, _, _ := strings.Cut(rest, "--")
		in := &inline{line: n + 1, last: blockEnd(lines, n+1), col: i + 1}
		for _, id := range strings.FieldsFunc(ids, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			if ruleIDs[id] {
				in.rules = append(in.rules, id)
			} else {
				in.bad = append(in.bad, id)
			}
		}
		in.used = make([]bool, len(in.rules))
		out = append(out, in)
	}
	return out
}

// blockEnd returns the file line that a comment before lines[next]
// covers to: that line, or when it opens a code fence, the line closing
// the block (the file's last if none does), found as CommonMark finds it:
// the fence's character, at least as many, nothing after them, indented
// no deeper than the opening fence allows inside a list item.
func blockEnd(lines [][]byte, next int) int {
	if next >= len(lines) {
		return next + 1
	}
	open := bytes.TrimLeft(lines[next], " ")
	indent, run := len(lines[next])-len(open), fenceRun(open)
	if !opensFence(open) || open[0] == '`' && bytes.IndexByte(open[run:], '`') >= 0 {
		return next + 1
	}
	for i := next + 1; i < len(lines); i++ {
		l := bytes.TrimLeft(lines[i], " ")
		if len(lines[i])-len(l) <= indent+3 && len(l) > 0 && l[0] == open[0] && fenceRun(l) >= run &&
			len(bytes.TrimSpace(l[fenceRun(l):])) == 0 {
			return i + 1
		}
	}
	return len(lines)
}

// suppresses reports whether the comment covers a finding of rule at line,
// and marks it used.
func (in *inline) suppresses(rule string, line int) bool {
	i := slices.Index(in.rules, rule)
	if line <= in.line || line > in.last || i < 0 {
		return false
	}
	in.used[i] = true
	return true
}

// report adds the findings about the comment itself.
func (in *inline) report(p *Pass, file string) {
	report := func(rule, msg, fix string) {
		p.report(Lookup(rule), Finding{Path: file, Line: in.line, Column: in.col, Message: msg, Fix: fix})
	}
	for _, id := range in.bad {
		msg := fmt.Sprintf("%s names %q, which is no rule%s", Directive, id, DidYouMean(id))
		report("suppression-invalid", msg, "`skillpack lint --list-rules` lists the rule IDs")
	}
	if len(in.rules) == 0 && len(in.bad) == 0 {
		report("suppression-invalid", Directive+" names no rule, so it silences nothing",
			"name the rule: <!-- "+Directive+" RULE-ID -- reason -->")
	}
	where := fmt.Sprintf("line %d has", in.line+1)
	if in.last > in.line+1 {
		where = fmt.Sprintf("the code block on lines %d-%d has", in.line+1, in.last)
	}
	for i, id := range in.rules {
		if !in.used[i] {
			report("suppression-unused", fmt.Sprintf("%s %s silences nothing: %s no %s finding", Directive, id, where, id),
				"delete the comment (or the rule's ID from it)")
		}
	}
}
