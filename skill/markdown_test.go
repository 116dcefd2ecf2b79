package skill

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestInlineCostly holds the budget between the inputs on which goldmark's
// inline pass takes minutes and a megabyte of real Markdown, which must
// still be parsed whole.
func TestInlineCostly(t *testing.T) {
	const size = 256 << 10
	for _, c := range []struct {
		unit   string
		costly bool
	}{
		{"[a](x\n(", true},
		{"[a](", true},
		{"[a]: b\n", true},
		{"[", true},
		{"*a _b", true},
		{"~~a", true},
		{">", false},
		{"> - ", false},
		{"a b c\n\n", false},
	} {
		src := bytes.Repeat([]byte(c.unit), size/len(c.unit))
		if got := InlineCostly(src); got != c.costly {
			t.Errorf("%q × %d: InlineCostly = %v, want %v", c.unit, size/len(c.unit), got, c.costly)
		}
	}
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nRun `make_all` with *care*, see [a link](references/a%d.md), __bold__ and [a ref][r%d]:\n"+
			"set my_var_%d and other_var, ~~old~~ new.\n\n| a | b |\n|---|---|\n| [x](x.md) | *y* |\n\n[r%d]: references/r.md\n\n", i, i, i, i, i)
	}
	if InlineCostly([]byte(b.String())) {
		t.Error("a 1 MiB document of short paragraphs is too costly to parse")
	}
}
