package lint

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
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

// RuleTable writes the Markdown table of rules that docs/rules.md carries,
// with each rule's level under every profile and the principle behind
// them; a test keeps the two equal.
func RuleTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString("An error is what breaks something: the build cannot publish the skill, an index cannot carry it, " +
		"or the clients that load skills (Claude Code, Codex, Cursor, OpenClaw, the Vercel skills CLI) refuse or " +
		"misread it. A deviation from the specification that those clients accept is a warning under the default " +
		"profile, `" + profiles[0].Name + "`, even where a validator of the letter (skills-ref, the official MCP SDK's " +
		"entry checks and YAML subset: the build leaves a skill MCP hosts refuse out of the MCP documents) refuses it. `--profile spec` holds skills to the letter with the levels skillpack had before " +
		"(a name unlike its folder is an error there, as in skills-ref). `--strict` makes every warning fail, " +
		"under any profile.\n\n")
	b.WriteString("| ID |")
	for _, p := range profiles {
		fmt.Fprintf(&b, " `%s` |", p.Name)
	}
	fmt.Fprintf(&b, " category | what it checks | `--fix` |\n|---|%s---|---|---|\n", strings.Repeat("---|", len(profiles)))
	for _, r := range registry {
		fix := ""
		if Fixable(r.ID) {
			fix = "yes"
		}
		fmt.Fprintf(&b, "| `%s` |", r.ID)
		for _, p := range profiles {
			fmt.Fprintf(&b, " %s |", p.level(r))
		}
		fmt.Fprintf(&b, " %s | %s | %s |\n", r.Category, strings.ReplaceAll(r.Title, "|", `\|`), fix)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
