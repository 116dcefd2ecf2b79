package build

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpack/skillpack/lint"
)

// A rebuild does not lint again a skill the record holds as clean under
// the same files and config; everything else is linted again, so the
// findings are always those of a full lint.
func TestLintReuse(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	dist := filepath.Join(root, "dist")
	const extra = "---\nname: keyed\ndescription: Test skill keyed that does one small thing for the tests.\nauthor: Jane\n---\n# keyed\n\nDo the thing.\n"
	writeSkill(t, filepath.Join(src, "plain"), "plain", nil)
	writeSkill(t, filepath.Join(src, "keyed"), "keyed", map[string]string{"SKILL.md": extra})

	count := func(res *Result) (n int) {
		for _, f := range res.Findings {
			if f.Rule == "unknown-key" {
				n++
			}
		}
		return n
	}
	quiet, err := lint.ParseConfig("skillpack.yaml", []byte("rules:\n  unknown-key: off\n"))
	if err != nil {
		t.Fatal(err)
	}

	// Under a config that turns the rule off, both skills are clean and
	// recorded as such.
	res := mustBuild(t, []string{src}, Options{Out: dist, Lint: lint.Options{Config: quiet}})
	if n := count(res); n != 0 {
		t.Fatalf("unknown-key is off, yet %d findings", n)
	}
	rec := readRecord(t, dist)
	for _, s := range rec.Skills {
		if s.Lint == "" {
			t.Errorf("%s: clean, but the record holds no lint key", s.Name)
		}
	}

	// The default config differs: the clean verdict is not reused and the
	// warning is found, though no file changed.
	res = mustBuild(t, []string{src}, Options{Out: dist})
	if n := count(res); n != 1 {
		t.Fatalf("after the config changed: %d unknown-key findings, want 1", n)
	}
	if res.Reused != 2 {
		t.Errorf("reused %d skills, want 2 (lint config does not change archives)", res.Reused)
	}
	rec = readRecord(t, dist)
	for _, s := range rec.Skills {
		if want := s.Name == "plain"; (s.Lint != "") != want {
			t.Errorf("%s: lint key %q; a key only for the clean skill", s.Name, s.Lint)
		}
	}

	// Unchanged again: the skill with a finding is linted again and still
	// reports it.
	res = mustBuild(t, []string{src}, Options{Out: dist})
	if n := count(res); n != 1 {
		t.Fatalf("no-op rebuild: %d unknown-key findings, want 1", n)
	}

	// A changed file in the clean skill is linted again.
	if err := os.WriteFile(filepath.Join(src, "plain", "SKILL.md"),
		[]byte("---\nname: plain\ndescription: Test skill plain that does one small thing for the tests.\nowner: Bob\n---\n# plain\n\nDo it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = mustBuild(t, []string{src}, Options{Out: dist})
	if n := count(res); n != 2 {
		t.Fatalf("after plain changed: %d unknown-key findings, want 2", n)
	}
}

func readRecord(t *testing.T, dist string) *record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, ".skillpack", "build.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	return &rec
}
