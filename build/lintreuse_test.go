package build

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
)

// A rebuild does not lint again a skill whose verdict the record holds
// under the same files and config, clean or not: it reports the kept
// findings. Everything else is linted again, so the findings are always
// those of a full lint.
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
	build := func(o Options) (*Result, int) {
		t.Helper()
		o.Out, o.Jobs = dist, 2
		linted := countLinted(t)
		res, err := Run([]string{src}, o)
		if err != nil {
			t.Fatal(err)
		}
		return res, int(linted.Load())
	}
	quiet, err := config.Parse("skillpack.yaml", []byte("rules:\n  unknown-key: off\n"))
	if err != nil {
		t.Fatal(err)
	}

	// Under a config that turns the rule off, both skills are clean and
	// recorded as such.
	res, linted := build(Options{Lint: lint.Options{Settings: quiet.Lint}})
	if n := count(res); n != 0 || linted != 2 {
		t.Fatalf("unknown-key is off, yet %d findings; %d skills linted, want 2", n, linted)
	}
	rec := readRecord(t, dist)
	for _, s := range rec.Skills {
		if s.Lint == "" || s.Findings != nil {
			t.Errorf("%s: clean, but the record holds lint key %q and findings %s", s.Name, s.Lint, s.Findings)
		}
	}

	// The default config differs: the clean verdicts are not reused and
	// the warning is found, though no file changed.
	res, linted = build(Options{})
	if n := count(res); n != 1 || linted != 2 {
		t.Fatalf("after the config changed: %d unknown-key findings, want 1; %d skills linted, want 2", n, linted)
	}
	if res.Reused != 2 {
		t.Errorf("reused %d skills, want 2 (lint config does not change archives)", res.Reused)
	}
	rec = readRecord(t, dist)
	for _, s := range rec.Skills {
		if want := s.Name == "keyed"; s.Lint == "" || (s.Findings != nil) != want {
			t.Errorf("%s: lint key %q, findings %s; findings only for the skill with one", s.Name, s.Lint, s.Findings)
		}
	}

	// Unchanged again: nothing is linted, and the kept finding is
	// reported as before; the bundle is up to date.
	res2, linted := build(Options{})
	if n := count(res2); n != 1 || linted != 0 || !res2.UpToDate {
		t.Fatalf("no-op rebuild: %d unknown-key findings, want 1; %d skills linted, want 0; up to date %v", n, linted, res2.UpToDate)
	}
	if !reflect.DeepEqual(res2.Findings, res.Findings) {
		t.Errorf("the no-op reported\n%+v\nthe build before\n%+v", res2.Findings, res.Findings)
	}

	// A changed file in the clean skill is linted again, and only it.
	if err := os.WriteFile(filepath.Join(src, "plain", "SKILL.md"),
		[]byte("---\nname: plain\ndescription: Test skill plain that does one small thing for the tests.\nowner: Bob\n---\n# plain\n\nDo it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, linted = build(Options{})
	if n := count(res); n != 2 || linted != 1 {
		t.Fatalf("after plain changed: %d unknown-key findings, want 2; %d skills linted, want 1", n, linted)
	}

	// --no-reuse lints everything again.
	if _, linted = build(Options{NoReuse: true}); linted != 2 {
		t.Errorf("with NoReuse: %d skills linted, want 2", linted)
	}
}

func readRecord(t *testing.T, dist string) *layout.Record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, ".skillpack", "build.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec layout.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	return &rec
}

// A kept verdict is not reused once git ignores other files of the skill:
// file-git-ignored's findings follow .gitignore, which no file of the
// skill holds.
func TestLintReuseGitIgnored(t *testing.T) {
	testtool.Need(t, "git")
	root := t.TempDir()
	src, dist := filepath.Join(root, "src"), filepath.Join(root, "dist")
	writeSkill(t, filepath.Join(src, "pdf"), "pdf", map[string]string{"scripts/fill.py": "print(1)\n"})
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		testtool.Git(t, src, args...)
	}
	ignored := func() (n int) {
		for _, f := range mustBuild(t, []string{src}, Options{Out: dist}).Findings {
			if f.Rule == "file-git-ignored" {
				n++
			}
		}
		return n
	}
	// A file made since, which git neither tracks nor ignores yet.
	if err := os.WriteFile(filepath.Join(src, "pdf", "scripts", "made.py"), []byte("print(2)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := ignored(); n != 0 {
		t.Fatalf("%d file-git-ignored findings before .gitignore names a file", n)
	}
	if err := os.WriteFile(filepath.Join(src, ".gitignore"), []byte("made.py\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := ignored(); n != 1 {
		t.Errorf("%d file-git-ignored findings after .gitignore names scripts/made.py, want 1", n)
	}
}
