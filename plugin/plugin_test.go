package plugin

import (
	"os"
	"path/filepath"
	"testing"
)

// Each declared skill path is placed at its own line, also past a value
// of "skills" that is not a string (which the schema reports).
func TestDeclaredLines(t *testing.T) {
	dir := t.TempDir()
	manifest := "{\n  \"name\": \"p\",\n  \"skills\": [\n    \"./a\",\n    1,\n    \"./b\"\n  ]\n}\n"
	if err := os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"./a": 4, "./b": 6}
	if len(p.Declared) != len(want) {
		t.Fatalf("declared %v, want %v", p.Declared, want)
	}
	for _, d := range p.Declared {
		if d.Line != want[d.Path] {
			t.Errorf("%s declared at line %d, want %d", d.Path, d.Line, want[d.Path])
		}
	}
}

// Copilot's .plugin/plugin.json is a manifest of the folder holding it.
func TestCopilotManifest(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".plugin", "plugin.json"), []byte(`{"name": "kit", "skills": "./skills/"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "kit" || len(p.Manifests) != 1 || p.Manifests[0].Client != ".plugin" || len(p.Declared) != 1 {
		t.Errorf("Read = name %q, manifests %+v, declared %+v; want kit from .plugin/plugin.json, declaring ./skills/", p.Name, p.Manifests, p.Declared)
	}
}
