package lint

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the rule table of docs/rules.md from the registry")

// TestREADMERules keeps the rule table of docs/rules.md equal to the registry, which
// is the table's only source. Run with -update after changing a rule.
func TestREADMERules(t *testing.T) {
	const path = "../docs/rules.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := []byte("<!-- rules:begin -->\n"), []byte("<!-- rules:end -->")
	i, j := bytes.Index(readme, begin), bytes.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q section", path, begin, end)
	}
	var table bytes.Buffer
	if err := RuleTable(&table); err != nil {
		t.Fatal(err)
	}
	got := readme[i+len(begin) : j]
	if bytes.Equal(got, table.Bytes()) {
		return
	}
	if *update {
		out := append(append(append([]byte{}, readme[:i+len(begin)]...), table.Bytes()...), readme[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/rules.md's rule table differs from the registry; run: go test ./lint -run TestREADMERules -update")
}
