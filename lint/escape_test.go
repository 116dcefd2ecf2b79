package lint

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"pdf/SKILL.md", "pdf/SKILL.md"},
		// Names that are only unusual stay as they are.
		{"café/refs/ünï.md", "café/refs/ünï.md"},
		{`a\x1b.md`, `a\x1b.md`},
		{"日本語 with spaces, 100% & <tags>", "日本語 with spaces, 100% & <tags>"},
		{"family 👨\u200d👩\u200d👧 and \uFFFD", "family 👨\u200d👩\u200d👧 and \uFFFD"},
		// What a terminal or a log would act on is escaped, as Go quotes it.
		{"red\x1b[31m.md", `red\x1b[31m.md`},
		{"a\nb.md:1:1: error: fake [x]", `a\nb.md:1:1: error: fake [x]`},
		{"cr\rlf\r\n", `cr\rlf\r\n`},
		{"tab\there", `tab\there`},
		{"nul\x00", `nul\x00`},
		{"bell\a del\x7f", `bell\a del\x7f`},
		{"c1 \u009b31m next\u0085", `c1 \u009b31m next\u0085`},
		{"txt.exe\u202Emd.", `txt.exe\u202emd.`},
		{"isolate\u2066x\u2069", `isolate\u2066x\u2069`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"bad \xff\xfe utf-8 \xe2\x82", `bad \xff\xfe utf-8 \xe2\x82`},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzPrintable checks that nothing Printable returns can act on a
// terminal: valid UTF-8, no control character, no bidirectional override.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "a\x1b[31mb", "\xff\n\u202e", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Printable(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Printable(%q) = %q, not UTF-8", s, got)
		}
		for _, r := range got {
			if unicode.IsControl(r) || isOverride(r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("Printable(%q) = %q holds %U", s, got, r)
			}
		}
		if Printable(got) != got {
			t.Fatalf("Printable(%q) = %q changes again", s, got)
		}
	})
}

// hostileResult holds findings whose file names and messages carry what a
// crafted file name can: an escape sequence that colours the terminal, a
// line break that fakes a finding line, a carriage return that overwrites
// one, a tab, a NUL, a C1 CSI, a right-to-left override and a byte that
// is not UTF-8.
func hostileResult() *Result {
	fake := "x.md:1:1: error: all clear [fake]"
	return &Result{Findings: []Finding{
		{Path: "s/red\x1b[31m.md", Line: 1, Column: 2, Rule: "path-unpackable", Severity: Error,
			Message: "s/red\x1b[31m.md cannot be packed", Fix: "rename \x1b[0m it"},
		{Path: "s/a\n" + fake, Rule: "path-windows", Severity: Warning,
			Message: "a\n" + fake + " is odd", Fix: "rename it\n" + fake},
		{Path: "s/b\rc\td\x00e", Rule: "path-windows", Severity: Info, Message: "b\rc\td\x00e"},
		{Path: "s/f\u009b31mg\u202Eh\xff", Line: 3, Rule: "path-unpackable", Severity: Error, Message: "f\u009b31mg\u202Eh\xff"},
	}}
}

// actsOn reports whether a line of s holds a character Printable escapes.
func actsOn(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if Printable(line) != line {
			return true
		}
	}
	return false
}

// TestFormatHostileNames checks every format for people against file names
// that try to act on a terminal or fake a finding: each finding stays on
// its line (its fix on the next), and nothing that acts reaches the output.
func TestFormatHostileNames(t *testing.T) {
	res := hostileResult()

	text := formatString(t, "text", res)
	want := `s/red\x1b[31m.md:1:2: error: s/red\x1b[31m.md cannot be packed [path-unpackable]
    fix: rename \x1b[0m it
s/a\nx.md:1:1: error: all clear [fake]: warning: a\nx.md:1:1: error: all clear [fake] is odd [path-windows]
    fix: rename it\nx.md:1:1: error: all clear [fake]
s/b\rc\td\x00e: info: b\rc\td\x00e [path-windows]
s/f\u009b31mg\u202eh\xff:3: error: f\u009b31mg\u202eh\xff [path-unpackable]
`
	if text != want || actsOn(text) {
		t.Errorf("text output:\n%s\nwant:\n%s", text, want)
	}

	// In colour, the only escapes are the format's own.
	var colored bytes.Buffer
	if err := FormatText(&colored, res, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	plain := colored.String()
	for _, esc := range []string{ansiReset, ansiBold, ansiDim, severityColor[Error], severityColor[Warning], severityColor[Info]} {
		plain = strings.ReplaceAll(plain, esc, "")
	}
	if plain != text {
		t.Errorf("coloured text without its own escapes:\n%q\nwant:\n%q", plain, text)
	}

	gh := formatString(t, "github", res)
	if lines := strings.Count(gh, "\n"); lines != len(res.Findings) {
		t.Errorf("github: %d lines for %d findings:\n%s", lines, len(res.Findings), gh)
	}
	if actsOn(gh) {
		t.Errorf("github output acts on a terminal:\n%q", gh)
	}
	for i, line := range strings.Split(strings.TrimSuffix(gh, "\n"), "\n") {
		c, err := parseGHCommand(line)
		if err != nil {
			t.Fatalf("github line %d %q: %v", i+1, line, err)
		}
		// What the runner decodes: no control character but the line
		// break before "Fix:".
		data, _, _ := strings.Cut(c.data, "\nFix: ")
		for _, v := range []string{c.props["file"], data} {
			if Printable(v) != v {
				t.Errorf("github line %d decodes to %q, which acts on a terminal", i+1, v)
			}
		}
	}

	sarif := formatString(t, "sarif", res)
	var log sarifOut
	if err := json.Unmarshal([]byte(sarif), &log); err != nil {
		t.Fatal(err)
	}
	for i, r := range log.Runs[0].Results {
		if Printable(r.Message.Text) != r.Message.Text {
			t.Errorf("sarif result %d: message %q acts on a terminal", i, r.Message.Text)
		}
		// The URI names the file exactly, every byte that could act
		// percent-encoded.
		uri := r.Locations[0].PhysicalLocation.ArtifactLocation.URI
		u, err := url.Parse(uri)
		if err != nil || u.Path != res.Findings[i].Path || strings.ContainsFunc(uri, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
			t.Errorf("sarif result %d: uri %q (%v) is not the percent-encoded %q", i, uri, err, res.Findings[i].Path)
		}
	}
	if got := log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; got != "s/red%1B%5B31m.md" {
		t.Errorf("sarif uri %q, want s/red%%1B%%5B31m.md", got)
	}
}
