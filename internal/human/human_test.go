package human

import "testing"

func TestClosest(t *testing.T) {
	for _, c := range []struct {
		got  string
		want string
	}{
		{"jsno", "json"},      // two letters swapped: one edit
		{"josn", "json"},      // the same
		{"jso", "json"},       // one short
		{"JSON", "json"},      // case
		{"sarf", "sarif"},     // one missing
		{"git", "github"},     // a prefix
		{"yaml", ""},          // nothing close
		{"x", ""},             // too short to guess
		{"textual", ""},       // three edits from text: too far for a 7-letter word
		{"githib", "github"},  // one substitution
		{"formatt", "format"}, // one extra
		{"fail_on", "fail-on"},
		{"Fail On", "fail-on"},
		{"fail", "fail-on"}, // the one it is a prefix of
		{"command", ""},     // a prefix of two: neither in particular
	} {
		names := []string{"text", "json", "sarif", "github", "format", "fail-on", "command-tool", "command-dispatch"}
		if got := Closest(c.got, names); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.got, got, c.want)
		}
		want := ""
		if c.want != "" {
			want = ` (did you mean "` + c.want + `"?)`
		}
		if got := DidYouMean(c.got, names); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", c.got, got, want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"json", "json", 0},
		{"jsno", "json", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}, {"café", "cafe", 1},
	} {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for want, got := range map[string]string{
		"1 skill":   Plural(1, "skill"),
		"0 skills":  Plural(0, "skill"),
		"2 bodies":  Plural(2, "body", "bodies"),
		"1 body":    Plural(1, "body", "bodies"),
		"12 skills": Plural(12, "skill"),
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	for n, want := range map[int]string{0: "them", 1: "it", 2: "them"} {
		if got := Word(n, "it", "them"); got != want {
			t.Errorf("Word(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		12_000_000: "11.4 MiB", 1 << 30: "1.0 GiB", 3 << 40: "3.0 TiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"dist": "dist", "a/b-c_d.e": "a/b-c_d.e", "my dist": "'my dist'", "it's": `'it'\''s'`, "": "''", "$HOME": "'$HOME'",
		"https://a.example/x": "https://a.example/x", "https://a.example/$x": "'https://a.example/$x'",
	} {
		if got := shellQuote(in, false); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	// On Windows: cmd.exe takes no single quotes, and a backslash is plain.
	for in, want := range map[string]string{
		`Z:\work\sk`: `Z:\work\sk`, `..\out\index.html`: `..\out\index.html`, `C:\My Skills`: `"C:\My Skills"`, "": `""`,
	} {
		if got := shellQuote(in, true); got != want {
			t.Errorf("ShellQuote(%q) on Windows = %s, want %s", in, got, want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct{ text, indent, want string }{
		{"aa bb cc", "", "aa bb\ncc"},           // "aa bb cc" is 8 columns: too wide for 7
		{"aa b cc", "", "aa b cc"},              // exactly 7 fits
		{"aa bb", "   ", "   aa\n   bb"},        // the indent counts
		{"toolongword x", "", "toolongword\nx"}, // a longer word has its line
		{"  a \n\t b  ", "> ", "> a b"},         // any space separates words
	} {
		if got := Wrap(c.text, c.indent, 7); got != c.want {
			t.Errorf("Wrap(%q, %q, 7) = %q, want %q", c.text, c.indent, got, c.want)
		}
	}
}

func TestFew(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"a", "b", "c"}, "a, b, c"},
		{[]string{"a", "b", "c", "d", "e"}, "a, b, c, and 2 more"},
	} {
		if got := Few(c.names, 3); got != c.want {
			t.Errorf("Few(%q, 3) = %q, want %q", c.names, got, c.want)
		}
	}
}
