// Package human writes what messages say to people the one way every
// command says it: a count with its noun, a size in bytes, the
// did-you-mean of a mistyped name, a word of a shell command, and text
// wrapped to a width. It imports nothing of the module, so
// every package can use it.
package human

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// Plural is "1 skill" or "3 skills": forms is the singular, and the plural
// when adding "s" is wrong ("1 body", "2 bodies").
func Plural(n int, forms ...string) string {
	switch {
	case n == 1:
		return "1 " + forms[0]
	case len(forms) > 1:
		return strconv.Itoa(n) + " " + forms[1]
	}
	return strconv.Itoa(n) + " " + forms[0] + "s"
}

// Word is the form of a word for n things, without the count: one for
// 1, else many ("it" or "them", "is" or "are").
func Word(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Bytes is a size in binary (IEC) units, one decimal: "512 B", "3.4 KiB",
// "11.4 MiB". The catalog prints it, so a change moves bundle bytes.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Closest is the candidate s was probably meant to be, or "": the closest
// within one edit, or a quarter of s's length for longer words (at most
// three), or else the one that s is a prefix of (of several, s means
// none in particular: "command" is no typo of command-tool rather than
// command-dispatch). Case does not count, and "_"
// or a space is taken for "-" (allowed_tools for allowed-tools). Closer
// would miss typos; looser would offer "github" for "gitlab", another
// thing.
func Closest(s string, candidates []string) string {
	fold := strings.NewReplacer("_", "-", " ", "-")
	norm := func(s string) string { return fold.Replace(strings.ToLower(s)) }
	best, bestD := "", min(3, max(1, len(s)/4))+1
	for _, c := range candidates {
		if d := distance(norm(s), norm(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" && len(s) >= 2 {
		for _, c := range candidates {
			if strings.HasPrefix(c, s) {
				if best != "" {
					return ""
				}
				best = c
			}
		}
	}
	return best
}

// DidYouMean is ` (did you mean "x"?)` for x, the one of candidates s was
// probably meant to be (Closest), or "": every message offering a
// correction says it so.
func DidYouMean(s string, candidates []string) string {
	if c := Closest(s, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// distance counts the insertions, deletions, substitutions and swaps of
// two neighbours that turn a into b (optimal string alignment): "jsno" is
// one typo away from "json", not two.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Wrap breaks text at spaces into lines of at most width columns (a
// longer word has a line to itself), each starting with indent, joined by
// "\n" with none after the last.
func Wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if line != indent && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	return b.String() + line
}

// ShellQuote quotes s for the shell a user of this system pastes a
// command shown into, when it holds anything but characters plain there:
// a POSIX shell's single quotes, and on Windows double quotes, which cmd
// and PowerShell both read (and a Windows name cannot hold), with the
// backslash plain.
func ShellQuote(s string) string { return shellQuote(s, runtime.GOOS == "windows") }

func shellQuote(s string, windows bool) string {
	plain := "-_./:=@%+,"
	if windows {
		plain += `\`
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(plain, r))
	}) < 0 {
		return s
	}
	if windows {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Few names the first n of names and the rest by their count: "a, b, c,
// and 2 more".
func Few(names []string, n int) string {
	return strings.Join(UpTo(len(names), n, func(i int) string { return names[i] }, "and %d more"), ", ")
}

// UpTo names the first n of total things (name(i) the i-th) and the rest
// by their count: more holds a %d for it.
func UpTo(total, n int, name func(i int) string, more string) []string {
	var out []string
	for i := range min(total, n) {
		out = append(out, name(i))
	}
	if total > n {
		out = append(out, fmt.Sprintf(more, total-n))
	}
	return out
}
