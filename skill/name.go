package skill

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// SuggestName turns an invalid skill name into the nearest valid one, for
// hints: lowercase, a hyphen where a word ends (MySkill, PDF_Tools and
// pdfTools give my-skill, pdf-tools and pdf-tools; a name with its own
// separators keeps its words whole: DevOps Engineer, devops-engineer),
// accents dropped (café gives cafe), at most 64 characters, cut where a
// word ends; my-skill when nothing is left.
func SuggestName(s string) string {
	var b strings.Builder
	dash := false
	// A letter with an accent is the letter (café: cafe), as the
	// canonical decomposition has it, its marks dropped.
	rs := []rune(norm.NFKD.String(s))
	rs = slices.DeleteFunc(rs, func(r rune) bool { return unicode.Is(unicode.Mn, r) })
	// Words the name separates already keep their capitals' runs whole:
	// "DevOps Engineer" is devops-engineer, as its author's folder says.
	spaced := strings.ContainsAny(s, " _-.")
	for i, r := range rs {
		lower := unicode.ToLower(r)
		switch {
		case lower >= 'a' && lower <= 'z' || r >= '0' && r <= '9':
			// A capital starts a word after a lowercase letter or digit
			// (mySkill), or before one in a run of capitals (PDFTools).
			if !spaced && unicode.IsUpper(r) && i > 0 && !dash && b.Len() > 0 &&
				(!unicode.IsUpper(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				b.WriteByte('-')
			}
			b.WriteRune(lower)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > 64 {
		// Cut where a word ends: -ion-mobility, not -ion-mobilit.
		if i := strings.LastIndexByte(out[:65], '-'); i > 0 {
			out = out[:i]
		} else {
			out = out[:64]
		}
	}
	return cmp.Or(out, "my-skill")
}
