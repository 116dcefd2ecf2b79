package lint

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillpack/skillpack/pack"
)

// Printable returns s with every character that a terminal, a CI log or an
// annotation would act on, rather than show, written as a Go string literal
// writes it: the C0 and C1 controls and DEL ("\x1b", "\n", "\u009b"), the
// bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), U+2028 and U+2029, and bytes that are not UTF-8 ("\xff").
// An ordinary name, accents and all, reads as it is, as git and go vet
// quote names.
//
// Findings carry file names and frontmatter text that anyone who can add a
// file to a repository chooses, so every printer for people (the text and
// GitHub formats, SARIF's messages, the command's lines about skills)
// passes them through here: an escape sequence cannot colour the terminal
// or move the cursor, and a line break cannot start a line that looks like
// a finding. A backslash is left alone: the escapes it resembles do no
// harm, and doubling it would garble every message that quotes one.
func Printable(s string) string {
	var b strings.Builder
	from := 0 // s[from:i] is to be copied as it is
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if acts(r, n) {
			b.WriteString(s[from:i])
			if r == utf8.RuneError && n == 1 {
				fmt.Fprintf(&b, `\x%02x`, s[i])
			} else {
				q := strconv.QuoteRune(r) // '\x1b', '\n', '\u202e'
				b.WriteString(q[1 : len(q)-1])
			}
			from = i + n
		}
		i += n
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

// acts reports whether the rune r, n bytes long, is one Printable escapes:
// a byte that is not UTF-8, or a character pack refuses in a file name
// (one table of what acts rather than shows, pack.RuneProblem's).
func acts(r rune, n int) bool {
	return r == utf8.RuneError && n == 1 || pack.RuneProblem(r) != ""
}
