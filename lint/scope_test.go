package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/skill"
)

// defaultNamed tests names, not patterns: every default pattern must be a
// plain folder name for it to be right.
func TestDefaultIgnoreNames(t *testing.T) {
	for _, p := range skill.DefaultIgnore {
		name, ok := strings.CutSuffix(p, "/")
		if !ok || name == "" || strings.ContainsAny(name, `*?[\!/`) {
			t.Errorf("default pattern %q is no plain folder name: defaultNamed cannot stand in for it", p)
		}
	}
	if !defaultNamed("r", filepath.Join("r", "a", "tests", "b")) || defaultNamed("r", filepath.Join("r", "a", "testing")) {
		t.Error("defaultNamed")
	}
}

// TestRunCopies checks that lint judges identical copies once, as the
// build publishes them, and says which copy it kept; copies that differ
// are two skills.
func TestRunCopies(t *testing.T) {
	dir := t.TempDir()
	md := "---\nname: pdf-join\ndescription: Join PDF documents into one for the user.\n---\n# Join\n"
	for p, data := range map[string]string{
		"a/.claude-plugin/plugin.json": `{"name": "a"}`,
		"a/skills/pdf-join/SKILL.md":   md,
		"b/.claude-plugin/plugin.json": `{"name": "b"}`,
		"b/skills/pdf-join/SKILL.md":   md,
		"c/.claude-plugin/plugin.json": `{"name": "c"}`,
		"c/skills/pdf-join/SKILL.md":   md + "\nMore.\n",
	} {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run([]string{dir}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, s := range res.Skills {
		dirs = append(dirs, filepath.ToSlash(strings.TrimPrefix(s.Dir, dir+string(filepath.Separator))))
	}
	if want := []string{"a/skills/pdf-join", "c/skills/pdf-join"}; !slices.Equal(dirs, want) {
		t.Errorf("checked %v, want %v", dirs, want)
	}
	if want := "pdf-join: 2 identical copies, published once, from a/skills/pdf-join (the first in path order); not from b/skills/pdf-join"; !slices.Contains(res.Notes, want) {
		t.Errorf("notes %q lack %q", res.Notes, want)
	}
}
