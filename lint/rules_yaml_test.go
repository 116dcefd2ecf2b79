package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/skill"
)

// runYAMLRules runs every portable-YAML rule on one SKILL.md and returns
// the findings by rule ID.
func runYAMLRules(t *testing.T, src string) (*skill.SkillMD, map[string][]Finding) {
	t.Helper()
	doc := skill.Parse([]byte(src))
	got := map[string][]Finding{}
	p := &Pass{Skill: &skill.Skill{Dir: "s", File: skill.FileName}, Doc: doc}
	p.report = func(r *Rule, f Finding) {
		f.Rule = r.ID
		got[r.ID] = append(got[r.ID], f)
	}
	for _, r := range yamlRules {
		p.rule = r
		r.Check(p)
	}
	return doc, got
}

const bombHead = "---\nname: bomb\ndescription: Extract text and tables from PDF files.\n"

// TestYAMLBomb feeds the rules frontmatter built to exhaust a naive walker:
// nesting as deep as yaml.v3 accepts, and aliases whose expansion would be
// billions of nodes. The rules must finish, without panics, and still report.
func TestYAMLBomb(t *testing.T) {
	t.Run("laughs", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(bombHead)
		b.WriteString(`l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
		for i := 1; i < 9; i++ {
			fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), 9), ","))
		}
		b.WriteString("---\nbody\n")
		doc, got := runYAMLRules(t, b.String())
		if doc.Front == nil {
			t.Fatalf("the bomb did not parse, so no rule saw it: %+v", doc.Problem)
		}
		// 9 anchors and 8×9 aliases, each once: expanding them would be 9^9 nodes.
		if n := len(got["yaml-anchor"]); n != 9+8*9 {
			t.Errorf("yaml-anchor reported %d times, want %d", n, 9+8*9)
		}
	})
	t.Run("fan-out", func(t *testing.T) {
		src := bombHead + "a: &a x\nb: [" + strings.TrimSuffix(strings.Repeat("*a, ", 50000), ", ") + "]\n" +
			"c: \"" + strings.Repeat("|> ", 50000) + "\"\n---\n"
		doc, got := runYAMLRules(t, src)
		if doc.Front == nil {
			t.Fatalf("did not parse: %+v", doc.Problem)
		}
		if n := len(got["yaml-anchor"]); n != 1+50000 {
			t.Errorf("yaml-anchor reported %d times, want %d", n, 1+50000)
		}
	})
	t.Run("deep", func(t *testing.T) {
		const depth = 9998 // yaml.v3 refuses more than 10,000 levels, counting the root mapping
		src := bombHead +
			"a: &deep " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n" +
			// Closed on the next line, where the MCP SDK's reader fails.
			"b: " + strings.Repeat("{k: ", depth) + "v\n  " + strings.Repeat("}", depth) + "\n" +
			"c: *deep\n---\n"
		doc, got := runYAMLRules(t, src)
		if doc.Front == nil {
			t.Fatalf("did not parse: %+v", doc.Problem)
		}
		if n := len(got["yaml-anchor"]); n != 2 {
			t.Errorf("yaml-anchor reported %d times, want 2", n)
		}
		// Only the outermost of the nested collections is reported.
		if n := len(got["yaml-flow-sequence"]); n != 1 {
			t.Errorf("yaml-flow-sequence reported %d times, want 1", n)
		}
		if n := len(got["yaml-flow-lines"]); n != 1 {
			t.Errorf("yaml-flow-lines reported %d times, want 1", n)
		}
	})
	t.Run("deep-block", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(bombHead + "a: &a\n")
		for i := 1; i < 1000; i++ {
			fmt.Fprintf(&b, "%sk: \n", strings.Repeat(" ", i))
		}
		b.WriteString("z: *a\n---\n")
		doc, got := runYAMLRules(t, b.String())
		if doc.Front == nil {
			t.Fatalf("did not parse: %+v", doc.Problem)
		}
		if n := len(got["yaml-anchor"]); n != 2 {
			t.Errorf("yaml-anchor reported %d times, want 2", n)
		}
	})
}

// TestTabBroke checks the condition under which frontmatter-yaml leaves a
// YAML error to yaml-tab-indent.
func TestTabBroke(t *testing.T) {
	for _, c := range []struct {
		name, front string
		want        bool
	}{
		{"tab names its own line", "name: x\nmetadata:\n\tauthor: ana\n", true},
		{"error named on the line above", "name: x\nlist:\n  - a\n\t- b\n", true},
		{"tab-only line", "name: x\n\t\nmetadata: y\n", true},
		{"tab after an unrelated error", "name: x\ndescription: Use when: x\nmetadata: [a,\n\tb]\n", false},
		{"no tab", "name: x\ndescription: Use when: x\n", false},
		{"valid YAML with a tab", "name: x\nlist: [a,\n\tb]\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := skill.Parse([]byte("---\n" + c.front + "---\nbody\n"))
			if got := tabBroke(doc); got != c.want {
				t.Errorf("tabBroke = %v, want %v (problem: %+v)", got, c.want, doc.Problem)
			}
		})
	}
	if !leadingTab(" \tc") || leadingTab("  b") {
		t.Error("leadingTab misses a tab in the indentation, or sees one where there is none")
	}
	if leadingTab("a:\t1") {
		t.Error("leadingTab counts a tab after the indentation")
	}
}

func TestAmbiguous(t *testing.T) {
	for _, c := range []struct{ v, tag, want string }{
		{"-010", "!!int", "octal number -8, YAML 1.2 readers the decimal -10"},
		{"07", "!!int", ""}, // 7 to everyone
		{"00", "!!int", ""},
		{"0x1F", "!!int", ""}, // hex in both
		{"1.5", "!!float", ""},
		{"+1.5", "!!float", ""},
		{"-1.50", "!!float", "both see the number -1.5"},
		{"1.", "!!float", "both see the number 1,"},
		{"3.0e2", "!!float", "YAML 1.2 readers see the number 300"},
		{"1.5e+3", "!!float", "both see the number 1500"},
		{"123456789012345678901234", "!!float", ""}, // an integer to everyone
		{"yEs", "!!str", ""},
		{"Off", "!!str", "boolean false"},
		{"190:20:30", "!!str", "base-60 number 685230"},
		{"1:20.5", "!!str", "base-60 number 80.5"},
		{"0:30", "!!str", ""}, // not YAML 1.1 base 60: it needs a leading 1-9
		{"2024-1-2", "!!timestamp", "see the timestamp 2024-01-02T00:00:00Z"},
		{"v1.0", "!!str", ""},
	} {
		got := ambiguous(c.v, c.tag)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("ambiguous(%q) = %q, want %q", c.v, got, c.want)
		}
	}
}

// The claude and relaxed profiles know Claude Code's documented frontmatter
// keys and weigh what it accepts below an error; clients knows them too,
// spec none of them.
func TestClaudeProfiles(t *testing.T) {
	documented := []string{"when_to_use", "argument-hint", "arguments", "disable-model-invocation",
		"user-invocable", "allowed-tools", "disallowed-tools", "model", "effort", "context", "agent",
		"hooks", "paths", "shell"}
	for _, name := range []string{"claude", "relaxed", "clients"} {
		p, err := LookupProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range documented {
			if !p.KnownKey(k) {
				t.Errorf("profile %s does not know %q", name, k)
			}
		}
		if name == "clients" {
			continue
		}
		set := Settings{Profile: p}
		for id, want := range map[string]Severity{"allowed-tools-list": Info, "name-mismatch": Warning} {
			if got := set.effective(Lookup(id)); got != want {
				t.Errorf("profile %s: %s is %s, want %s", name, id, got, want)
			}
		}
	}
	if p, _ := LookupProfile("spec"); p.KnownKey("argument-hint") {
		t.Errorf("profile spec knows Claude Code's keys")
	}
}

// argument-hint: [optional: a scope] is one finding, whose quotes end
// both its list and its pair, and which says that MCP hosts refuse it;
// it was two with opposite fixes (quote it; make it a list of mappings)
// and --fix repaired "1 of the 2" (AndreHahm/andres-cc-marketplace).
func TestArgumentHintPair(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"retro/SKILL.md": "---\nname: retro\ndescription: Runs a retrospective over one scope. Use when asked for one.\n" +
		"argument-hint: [optional: which analyses to run]\n---\nDo it.\n"})
	var got []Finding
	for _, f := range lintDir(t, dir, Options{}).Findings {
		if strings.HasPrefix(f.Rule, "yaml-") {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Rule != "yaml-flow-sequence" || !strings.Contains(got[0].Message, "MCP hosts refuse") ||
		!strings.HasPrefix(got[0].Fix, "quote the whole value") {
		t.Errorf("findings %v; want yaml-flow-sequence alone, saying MCP hosts refuse it, fixed by quotes", got)
	}
}
