package cli

import "testing"

func TestOrList(t *testing.T) {
	for want, words := range map[string][]string{
		"": nil, "a": {"a"}, "a or b": {"a", "b"}, "a, b or c": {"a", "b", "c"},
	} {
		if got := orList(words); got != want {
			t.Errorf("orList(%q) = %q, want %q", words, got, want)
		}
	}
}
