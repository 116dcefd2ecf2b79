package cli

import "testing"

func TestSuggest(t *testing.T) {
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
	} {
		if got := suggest(c.got, []string{"text", "json", "sarif", "github", "format"}); got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.got, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"json", "json", 0},
		{"jsno", "json", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}, {"café", "cafe", 1},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestOrList(t *testing.T) {
	for want, words := range map[string][]string{
		"": nil, "a": {"a"}, "a or b": {"a", "b"}, "a, b or c": {"a", "b", "c"},
	} {
		if got := orList(words); got != want {
			t.Errorf("orList(%q) = %q, want %q", words, got, want)
		}
	}
}
