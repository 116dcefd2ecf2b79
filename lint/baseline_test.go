package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
)

func TestBaseline(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"a/SKILL.md": skillMD("a"), "b/SKILL.md": skillMD("b")})
	res, err := Run([]string{dir}, Options{Base: dir})
	must(t, err)
	if len(res.Findings) != 2 {
		t.Fatalf("want 2 findings to record, got %v", describe(res.Findings))
	}

	// The baseline lives in a subfolder: its paths are relative to it.
	file := filepath.Join(dir, "ci", "baseline.json")
	must(t, os.MkdirAll(filepath.Dir(file), 0o755))
	var buf bytes.Buffer
	must(t, WriteBaseline(&buf, file, dir, res.Findings))
	must(t, os.WriteFile(file, buf.Bytes(), 0o644))
	if !strings.Contains(buf.String(), `"../a/SKILL.md"`) {
		t.Errorf("paths are not relative to the baseline's folder:\n%s", buf.String())
	}

	b, err := LoadBaseline(file)
	must(t, err)
	set := Settings{Baseline: b}
	res, err = Run([]string{dir}, Options{Settings: set, Base: dir})
	must(t, err)
	if len(res.Findings) != 0 || len(res.Stale) != 0 {
		t.Errorf("known findings were reported (%v), or stale entries (%v)", describe(res.Findings), res.Stale)
	}

	// A new finding in a known file and rule brings back that file's
	// findings of the rule; a fixed skill leaves a stale entry.
	testtool.WriteTree(t, dir, map[string]string{
		"a/SKILL.md": skillMD("a") + "And [also](gone2.md).\n",
		"b/SKILL.md": "---\nname: b\ndescription: A skill that no longer links a missing file.\n---\nbody\n",
	})
	res, err = Run([]string{dir}, Options{Settings: set, Base: dir})
	must(t, err)
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Path+" "+f.Rule)
	}
	if strings.Join(got, ",") != "a/SKILL.md link-broken,a/SKILL.md link-broken" {
		t.Errorf("got %v, want both of a's link-broken findings", got)
	}
	if strings.Join(res.Stale, ",") != "../b/SKILL.md: link-broken (1)" {
		t.Errorf("stale = %v", res.Stale)
	}
	// A run over a alone cannot tell that b's entry is stale.
	res, err = Run([]string{filepath.Join(dir, "a")}, Options{Settings: set, Base: dir})
	must(t, err)
	if len(res.Stale) != 0 {
		t.Errorf("linting a/ alone called %v stale", res.Stale)
	}
}

// TestBaselineSupersedes checks that the baseline applies to what lint
// reports, after one finding per cause: a recorded finding that hides
// another (link-broken hides link-outside) keeps hiding it.
// recordBaseline writes the findings' baseline to dir/baseline.json, as
// --write-baseline does, and loads it back.
func recordBaseline(t *testing.T, dir string, fs []Finding) *Baseline {
	t.Helper()
	file := filepath.Join(dir, "baseline.json")
	var buf bytes.Buffer
	must(t, WriteBaseline(&buf, file, dir, fs))
	must(t, os.WriteFile(file, buf.Bytes(), 0o644))
	b, err := LoadBaseline(file)
	must(t, err)
	return b
}

func TestBaselineSupersedes(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"a/SKILL.md": "---\nname: a\ndescription: A skill that links a file outside it that does not exist.\n---\nSee [gone](../gone.md) and [gone](../gone.md) again.\n"})
	res, err := Run([]string{dir}, Options{Base: dir})
	must(t, err)
	if len(res.Findings) == 0 {
		t.Fatal("no finding to record")
	}
	set := Settings{Baseline: recordBaseline(t, dir, res.Findings)}
	res, err = Run([]string{dir}, Options{Settings: set, Base: dir})
	must(t, err)
	if len(res.Findings) != 0 {
		t.Errorf("the baseline let through %v", describe(res.Findings))
	}
}

func TestBaselineBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ data, want string }{
		"corrupt": {`{"tool": "skillpack", "version": 1, "findings": {`, "not a skillpack baseline"},
		"other":   {`{"tool": "eslint", "version": 1, "findings": {}}`, `no "tool": "skillpack"`},
		"newer":   {`{"tool": "skillpack", "version": 9, "findings": {}}`, "baseline version 9, but this skillpack reads version 1"},
		"unknown": {`{"tool": "skillpack", "version": 1, "findings": {}, "extra": 1}`, "unknown field"},
		"count":   {`{"tool": "skillpack", "version": 1, "findings": {"a": {"secret": 0}}}`, "count 0"},
	} {
		p := filepath.Join(dir, name+".json")
		must(t, os.WriteFile(p, []byte(tc.data), 0o644))
		_, err := LoadBaseline(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: got %v, want an error naming the file and saying %q", name, err, tc.want)
		}
	}
	if _, err := LoadBaseline(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "--write-baseline") {
		t.Errorf("missing file: got %v, want a hint to write one", err)
	}
}

// TestBaselineChangesKey checks that a build, which remembers clean
// verdicts by the config's key, sees a changed baseline as a changed config.
func TestBaselineChangesKey(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "b.json")
	set := Settings{Profile: profiles[0]}
	k0 := set.key(false)
	must(t, os.WriteFile(p, []byte(`{"tool": "skillpack", "version": 1, "findings": {}}`), 0o644))
	b, err := LoadBaseline(p)
	must(t, err)
	set.Baseline = b
	if set.key(false) == k0 {
		t.Error("a baseline does not change the config's key")
	}
}

// FuzzBaseline checks that no file makes LoadBaseline panic, and that what
// it accepts has only positive counts.
func FuzzBaseline(f *testing.F) {
	f.Add([]byte(`{"tool": "skillpack", "version": 1, "findings": {"a/SKILL.md": {"secret": 2}}}`))
	f.Add([]byte(`{"tool": "skillpack", "version": 1, "findings": null}`))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "b.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := LoadBaseline(p)
		if err != nil {
			return
		}
		for _, rules := range b.Counts {
			for _, n := range rules {
				if n < 1 {
					t.Fatalf("accepted count %d", n)
				}
			}
		}
		in := []Finding{{Path: "a/SKILL.md", Rule: "secret"}, {Path: "a/SKILL.md", Rule: "secret"}, {Path: "b", Rule: "x"}}
		out := b.filter(slices.Clone(in), dir, map[[2]string]bool{})
		if len(out) > len(in) {
			t.Fatalf("filter made %d findings of %d", len(out), len(in))
		}
		for _, f := range out {
			if !slices.Contains(in, f) {
				t.Fatalf("filter made up %+v", f)
			}
		}
	})
}

// A baseline given by a relative path in a subfolder (--write-baseline
// ci/baseline.json) records paths relative to its folder, and reading it
// the same way knows every finding: they were kept relative to the working
// folder, and a second run reported them all again.
func TestBaselineRelativePath(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"a/SKILL.md": skillMD("a"), "ci/.keep": ""})
	t.Chdir(dir)
	res, err := Run([]string{"."}, Options{})
	must(t, err)
	var buf bytes.Buffer
	must(t, WriteBaseline(&buf, "ci/baseline.json", res.Base, res.Findings))
	must(t, os.WriteFile("ci/baseline.json", buf.Bytes(), 0o644))
	if len(res.Findings) == 0 || !strings.Contains(buf.String(), `"../a/SKILL.md"`) {
		t.Fatalf("%d findings; paths not relative to the baseline's folder:\n%s", len(res.Findings), buf.String())
	}
	b, err := LoadBaseline("ci/baseline.json")
	must(t, err)
	res, err = Run([]string{"."}, Options{Settings: Settings{Baseline: b}})
	must(t, err)
	if len(res.Findings) != 0 || len(res.Stale) != 0 {
		t.Errorf("known findings were reported (%v), or stale entries (%v)", describe(res.Findings), res.Stale)
	}
}

// A run over a part of the tree calls no entry stale, its own neither: a
// recorded name-duplicate needs the other copy, outside the part, and the
// rewrite it suggested dropped every entry outside the part.
func TestBaselinePartRun(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"x/dup/SKILL.md": skillMD("dup"), "y/dup/SKILL.md": skillMD("dup") + "Another copy.\n"})
	res, err := Run([]string{dir}, Options{Base: dir})
	must(t, err)
	if !slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Rule == "name-duplicate" }) {
		t.Fatalf("no name-duplicate to record: %v", describe(res.Findings))
	}
	set := Settings{Baseline: recordBaseline(t, dir, res.Findings)}
	res, err = Run([]string{filepath.Join(dir, "x")}, Options{Settings: set, Base: dir})
	must(t, err)
	if len(res.Stale) != 0 {
		t.Errorf("linting x/ alone called %v stale", res.Stale)
	}
	res, err = Run([]string{dir}, Options{Settings: set, Base: dir})
	must(t, err)
	if len(res.Findings) != 0 || len(res.Stale) != 0 {
		t.Errorf("the whole tree: findings %v, stale %v; want none", describe(res.Findings), res.Stale)
	}
}
