package lint

import (
	"cmp"
	"slices"
)

// Finding is one problem at one place. Path is relative to the folder lint
// was run from, with "/" separators; Line and Column are 1-based, 0 when the
// finding concerns a whole file or folder, and Column counts characters
// (Unicode code points), not bytes.
type Finding struct {
	Path     string   `json:"path"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`
}

// Sort orders findings by path, position and rule, and drops exact
// duplicates and findings that another rule's finding supersedes, so output
// is stable and each problem is reported once.
func Sort(fs []Finding) []Finding {
	fs = supersede(fs)
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return slices.Compact(fs)
}

// Count tallies findings by severity.
func Count(fs []Finding) (errors, warnings, infos int) {
	for _, f := range fs {
		switch f.Severity {
		case Error:
			errors++
		case Warning:
			warnings++
		case Info:
			infos++
		}
	}
	return
}

// Worst returns the highest severity among the findings (Off when none).
func Worst(fs []Finding) Severity {
	w := Off
	for _, f := range fs {
		w = max(w, f.Severity)
	}
	return w
}

// supersede drops each finding that a finding of a rule superseding its own
// makes redundant: same file, and same line or either about the whole file.
func supersede(fs []Finding) []Finding {
	if !slices.ContainsFunc(fs, func(f Finding) bool { return len(supersededBy[f.Rule]) > 0 }) {
		return fs // nothing to build the index for
	}
	type at struct{ path, rule string }
	lines := map[at][]int{}
	for _, f := range fs {
		lines[at{f.Path, f.Rule}] = append(lines[at{f.Path, f.Rule}], f.Line)
	}
	return slices.DeleteFunc(fs, func(f Finding) bool {
		for _, by := range supersededBy[f.Rule] {
			for _, l := range lines[at{f.Path, by}] {
				if l == f.Line || l == 0 || f.Line == 0 {
					return true
				}
			}
		}
		return false
	})
}
