package catalog

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// FuzzHeadingIDs checks headingIDs against the plain definition it was
// made fast from (slugOf and generate below, the code before it built ids
// in place): the same ids for every line of the input, taken as one body's
// headings in turn, so that repeats and their "-N" suffixes are covered.
func FuzzHeadingIDs(f *testing.F) {
	f.Add([]byte("Usage\nUsage\nUsage-1\nUsage\n\n  \n"))
	f.Add([]byte("Größe Ünïcode ß\n日本語 の 見出し\nǅemo\n\xff\xfe bad\nȺ İ\n - \n**bold** [link](x.md)\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		ids := &headingIDs{prefix: "demo--", used: map[string]bool{}, next: map[string]int{}}
		used, next := map[string]bool{}, map[string]int{}
		for line := range bytes.Lines(in) {
			got := string(ids.Generate(line, 0))
			want := "demo--" + generate(used, next, string(line))
			if got != want {
				t.Fatalf("heading %q: id %q, want %q", line, got, want)
			}
		}
	})
}

func generate(used map[string]bool, next map[string]int, value string) string {
	base := cmp.Or(slugOf(value), "section")
	id := base
	for used[id] {
		next[base]++
		id = fmt.Sprintf("%s-%d", base, next[base])
	}
	used[id] = true
	return id
}

func slugOf(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "",
		"skills/demo/SKILL.md": "skills/demo/SKILL.md",
		"a-b_c.d~e/f":          "a-b_c.d~e/f",
		"references/a b.md":    "references/a%20b.md",
		"é#?%":                 "%C3%A9%23%3F%25",
		"x/<script>":           "x/%3Cscript%3E",
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
}
