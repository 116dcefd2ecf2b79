package lint

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/jsonenc"
	"github.com/skillpack/skillpack/skill"
)

// Tool names the program in machine-readable output (SARIF's driver).
type Tool struct {
	Name    string
	Version string
	URI     string // home page, for SARIF's informationUri
}

// formats write a run's findings, each in one output format.
var formats = map[string]func(w io.Writer, res *Result, tool Tool) error{
	"text":   func(w io.Writer, res *Result, _ Tool) error { return FormatText(w, res, TextOptions{}) },
	"json":   func(w io.Writer, res *Result, tool Tool) error { return jsonenc.Write(w, NewReport(res, tool)) },
	"sarif":  formatSARIF,
	"github": formatGitHub,
}

// Formats lists the output format names.
func Formats() []string { return slices.Sorted(maps.Keys(formats)) }

// checkout returns the root that GitHub resolves the paths of annotations
// and SARIF results against, the checkout: the git work tree holding
// base, else base. And it returns a function turning a finding's path,
// relative to base, into one relative to that root, so that a run from a
// subfolder names the same files; a path that leaves the root is kept.
// With no base (a Result not from Run) the root is "" and paths are kept.
func checkout(base string) (string, func(string) string) {
	if base == "" {
		return "", func(p string) string { return p }
	}
	root, ok := skill.WorkTree(base)
	rel, err := filepath.Rel(root, base)
	if !ok || err != nil || rel == "." {
		return base, func(p string) string { return p }
	}
	prefix := filepath.ToSlash(rel)
	return root, func(p string) string {
		q := path.Join(prefix, p)
		if path.IsAbs(p) { // Rel's, from far off
			q, _ = filepath.Rel(root, filepath.FromSlash(p))
			q = filepath.ToSlash(q)
		}
		if q != "" && q != ".." && !strings.HasPrefix(q, "../") {
			return q
		}
		return p
	}
}

// Format writes findings in the named format.
func Format(w io.Writer, name string, res *Result, tool Tool) error {
	f, ok := formats[name]
	if !ok {
		return fmt.Errorf("unknown format %q (want %s)", name, strings.Join(Formats(), ", "))
	}
	return f(w, res, tool)
}

// TextOptions style the text format for a person at a terminal. The zero
// value is plain text, as files, pipes and editors want it.
type TextOptions struct {
	// Color sets each severity in its colour (error red, warning yellow,
	// info cyan) and the rule ID dim, with ANSI escapes around the words
	// only, so that the line reads the same without them.
	Color bool
}

// ANSI escapes of TextOptions.Color.
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
)

var severityColor = map[Severity]string{Error: "\x1b[1;31m", Warning: "\x1b[1;33m", Info: "\x1b[1;36m"}

// sameAtMost is how many findings of one rule with one message and fix the
// text format prints one by one; more are one entry, the first in full and
// the rest by position, so that a key every skill of a collection carries
// reads as one line, not eight hundred. The other formats list each.
// Rules that fold many findings of one cause into one (reference-depth,
// skill-dangling) fold more than this many.
const sameAtMost = 3

// FormatText writes one line a finding, as compilers do, so editors and
// terminals can jump to it: path:line:col: severity: message [rule].
// A fix hint follows on an indented line. Path, message and fix are
// Printable: a line break or an escape sequence in a file name would
// start a line of its own or act on the terminal. opts style it;
// Format(w, "text", ...) is FormatText with the zero options.
func FormatText(w io.Writer, res *Result, opts TextOptions) error {
	paint := func(s, code string) string {
		if !opts.Color || code == "" {
			return s
		}
		return code + s + ansiReset
	}
	at := func(f Finding) string {
		pos := Printable(f.Path)
		if f.Line > 0 {
			pos += fmt.Sprintf(":%d", f.Line)
			if f.Column > 0 {
				pos += fmt.Sprintf(":%d", f.Column)
			}
		}
		return pos
	}
	type same struct{ rule, message, fix string }
	groups := map[same][]int{}
	for i, f := range res.Findings {
		k := same{f.Rule, f.Message, f.Fix}
		groups[k] = append(groups[k], i)
	}
	bw := bufio.NewWriter(w) // it keeps the first write error, which Flush returns
	for i, f := range res.Findings {
		group := groups[same{f.Rule, f.Message, f.Fix}]
		if len(group) > sameAtMost && group[0] != i {
			continue
		}
		fmt.Fprintf(bw, "%s: %s: %s %s\n", paint(at(f), ansiBold), paint(f.Severity.String(), severityColor[f.Severity]),
			Printable(f.Message), paint("["+f.Rule+"]", ansiDim))
		if f.Fix != "" {
			fmt.Fprintf(bw, "    fix: %s\n", Printable(f.Fix))
		}
		if len(group) > sameAtMost {
			more := human.UpTo(len(group)-1, sameAtMost, func(i int) string { return at(res.Findings[group[1+i]]) }, "and %d more")
			fmt.Fprintf(bw, "    also at %d more places: %s (--format json lists each)\n", len(group)-1, strings.Join(more, ", "))
		}
	}
	return bw.Flush()
}

// Report is the --format json document: stable field names for scripts,
// described by schema/lint.schema.json. The command layer adds its status
// (exit code, error) after these fields.
type Report struct {
	Tool     string    `json:"tool"`
	Version  string    `json:"version"`
	Skills   int       `json:"skills"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Infos    int       `json:"infos"`
	Findings []Finding `json:"findings"` // [] when there are none, never null
}

// NewReport counts a run's findings into a Report.
func NewReport(res *Result, tool Tool) *Report {
	rep := &Report{Tool: tool.Name, Version: tool.Version, Skills: len(res.Skills), Findings: res.Findings}
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	rep.Errors, rep.Warnings, rep.Infos = Count(res.Findings)
	return rep
}

// IgnoreFlag is the --ignore flag that leaves out the folder dir (a disk
// path, below one of roots: the folders given) and no other. Its pattern
// is relative to the deepest root holding dir, as --ignore's are, not to
// the working folder (Geralt1983/Thanos linted from its parent: the flag
// offered named the folder from there, and left nothing out). A one-part
// path is anchored (/skills/), since as a gitignore pattern skills/ names
// every folder of that name (2C2P/agent-skills: it left out a plugin's
// skills/ too). It is "" for a root, which no pattern leaves out.
func IgnoreFlag(roots []string, dir string) string {
	rel, found := dir, false
	for _, r := range roots {
		if below, ok := skill.RelBelow(r, dir); ok && (!found || len(below) < len(rel)) {
			rel, found = below, true
		}
	}
	rel = strings.TrimPrefix(filepath.ToSlash(rel), "./")
	switch {
	case rel == "." || rel == "":
		return ""
	case !strings.Contains(rel, "/"):
		rel = "/" + rel
	}
	return "--ignore " + rel + "/"
}

// pluginAt names the plugin in the folder rel (as Pass.Rel spells it) for
// a message: "the plugin plugins/x", or "the plugin of the top folder" for
// ".", not "the plugin .".
func pluginAt(rel string) string {
	if rel == "." {
		return "the plugin of the top folder"
	}
	return "the plugin " + rel
}
