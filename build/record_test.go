package build

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpack/skillpack/layout"
)

// TestRecordStreamed checks that the record, written one skill at a time,
// is byte for byte what json.MarshalIndent makes of the same record: the
// form AddToRecord rewrites it in, and the one older builds wrote.
func TestRecordStreamed(t *testing.T) {
	src := copyExamples(t)
	// A skill with a path MarshalIndent escapes, and one the legacy index
	// leaves out.
	writeSkillFile(t, src, "odd-one", "SKILL.md", "---\nname: odd-one\ndescription: A skill whose file names test the record's escaping.\n---\n# Odd\n")
	writeSkillFile(t, src, "odd-one", "a<b>&c.md", "a file name with HTML characters\n")
	writeSkillFile(t, src, "odd-one", "v1..2.md", "legacy readers refuse this name\n")
	dist := filepath.Join(t.TempDir(), "dist")
	res := mustBuild(t, []string{src}, Options{Out: dist})
	if len(res.Excluded) != 1 {
		t.Fatalf("expected one skill left out of the legacy index, got %v", res.Excluded)
	}
	data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(layout.BuildRecord)))
	if err != nil {
		t.Fatal(err)
	}
	var rec layout.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Skills) != 6 || len(rec.Docs) == 0 || len(rec.Excluded) != 1 || rec.Bundle == "" {
		t.Fatalf("record misses parts: %d skills, %d docs, %d excluded, bundle %q", len(rec.Skills), len(rec.Docs), len(rec.Excluded), rec.Bundle)
	}
	want, err := json.MarshalIndent(&rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if !bytes.Equal(data, want) {
		t.Errorf("streamed record differs from MarshalIndent:\n%s\nwant:\n%s", data, want)
	}
	if !bytes.Contains(data, []byte(`a\u003cb\u003e\u0026c.md`)) {
		t.Errorf("the path's <, > and & are not escaped as MarshalIndent escapes them")
	}
}

func writeSkillFile(t testing.TB, root, skill, name, data string) {
	t.Helper()
	p := filepath.Join(root, skill, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
