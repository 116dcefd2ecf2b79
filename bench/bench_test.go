package bench

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/lint"
)

// skills sizes the tree. Raise it to profile a realistic build:
//
//	go test ./bench -run '^$' -bench Build -skills 2000 -cpuprofile cpu.out
var skills = flag.Int("skills", 200, "skills in the generated tree")

// BenchmarkBuild times a fresh build and a no-op rebuild of the same tree
// and reports their ratio: a no-op should cost a small fraction of a fresh
// build, since it only has to prove nothing changed.
func BenchmarkBuild(b *testing.B) {
	if testing.Short() {
		b.Skip("generates and packs a tree of skills")
	}
	tree := filepath.Join(b.TempDir(), "skills")
	if err := Generate(tree, *skills); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "dist")
	opts := build.Options{Out: out, Lint: lint.Options{Base: tree}}
	var fresh, noop float64

	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			if err := os.RemoveAll(out); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			res, err := build.Run([]string{tree}, opts)
			if err != nil {
				b.Fatal(err)
			}
			if res.Packed != *skills {
				b.Fatalf("packed %d skills, want %d", res.Packed, *skills)
			}
		}
		fresh = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("noop", func(b *testing.B) {
		if _, err := os.Stat(out); err != nil {
			if _, err := build.Run([]string{tree}, opts); err != nil {
				b.Fatal(err)
			}
		}
		for b.Loop() {
			res, err := build.Run([]string{tree}, opts)
			if err != nil {
				b.Fatal(err)
			}
			if !res.UpToDate {
				b.Fatalf("no-op rebuild was not up to date: %d packed, %d reused", res.Packed, res.Reused)
			}
		}
		noop = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if fresh > 0 {
			b.ReportMetric(noop/fresh, "noop/fresh")
		}
	})
}

// genTree writes a tree of n skills with gen into dir/name and returns
// its path.
func genTree(t *testing.T, gen func(string, int) error, dir, name string, n int) string {
	t.Helper()
	tree := filepath.Join(dir, name)
	if err := gen(tree, n); err != nil {
		t.Fatal(err)
	}
	return tree
}

// lintTree lints a generated tree of n skills.
func lintTree(t *testing.T, tree string, n int) *lint.Result {
	t.Helper()
	res, err := lint.Run([]string{tree}, lint.Options{Base: tree})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != n {
		t.Errorf("lint found %d skills, want %d", len(res.Skills), n)
	}
	return res
}

// readBoth reads rel in two trees.
func readBoth(t *testing.T, a, b, rel string) ([]byte, []byte) {
	t.Helper()
	da, err := os.ReadFile(filepath.Join(a, rel))
	if err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(filepath.Join(b, rel))
	if err != nil {
		t.Fatal(err)
	}
	return da, db
}

// TestGenerate checks that the tree is what the benchmark claims: lint
// finds nothing in it, and it is a pure function of its size.
func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	small := genTree(t, Generate, dir, "small", 5)
	big := genTree(t, Generate, dir, "big", 20)
	for _, f := range lintTree(t, big, 20).Findings {
		t.Errorf("lint: %s:%d: %s [%s]", f.Path, f.Line, f.Message, f.Rule)
	}
	// The first skills of a bigger tree are the same bytes as a smaller one.
	for _, rel := range []string{"skill-00001/SKILL.md", "skill-00005/SKILL.md"} {
		if a, b := readBoth(t, small, big, rel); !bytes.Equal(a, b) {
			t.Errorf("%s differs between a 5- and a 20-skill tree", rel)
		}
	}
	if err := Generate(big, 1); err == nil {
		t.Error("Generate into a non-empty folder succeeded; want an error")
	}
	script := ""
	filepath.WalkDir(big, func(p string, d os.DirEntry, err error) error {
		if err == nil && script == "" && filepath.Ext(p) == ".py" {
			script = p
		}
		return err
	})
	if script == "" {
		t.Fatal("no script in 20 skills")
	}
	info, err := os.Stat(script)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm()&0o111 == 0 {
		t.Errorf("%s has mode %v; want an exec bit", script, info.Mode())
	}
}

// TestGenerateFindings checks the findings tree: every skill breaks each
// of FindingsRules once, nothing else, no finding is an error (the build
// still succeeds), the files it shares with the clean tree are the same
// bytes, and it too is a pure function of its size.
func TestGenerateFindings(t *testing.T) {
	const n = 20
	dir := t.TempDir()
	clean := genTree(t, Generate, dir, "clean", n)
	tree := genTree(t, GenerateFindings, dir, "findings", n)
	small := genTree(t, GenerateFindings, dir, "small", 5)
	// skill folder → rule → count
	got := map[string]map[string]int{}
	for _, f := range lintTree(t, tree, n).Findings {
		if f.Severity >= lint.Error {
			t.Errorf("lint: %s:%d: an error: %s [%s]", f.Path, f.Line, f.Message, f.Rule)
		}
		name, _, _ := strings.Cut(f.Path, "/")
		if got[name] == nil {
			got[name] = map[string]int{}
		}
		got[name][f.Rule]++
	}
	want := map[string]int{}
	for _, r := range FindingsRules {
		want[r] = 1
	}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("skill-%05d", i)
		if !maps.Equal(got[name], want) {
			t.Errorf("%s: findings by rule %v, want %v", name, got[name], want)
		}
		delete(got, name)
	}
	for name, rules := range got {
		t.Errorf("findings outside the %d skills: %s %v", n, name, rules)
	}

	// Every file of the clean tree but SKILL.md is in the findings tree,
	// the same bytes; SKILL.md only gains lines at its end.
	err := filepath.WalkDir(clean, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(clean, p)
		a, b := readBoth(t, clean, tree, rel)
		if filepath.Base(rel) == "SKILL.md" {
			if !bytes.HasPrefix(b, a) {
				t.Errorf("%s: the findings tree's is not the clean one with lines added", rel)
			}
		} else if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the clean and the findings tree", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"skill-00001/SKILL.md", "skill-00005/scripts/bench_setup.py", "skill-00005/assets/bench-orphan.txt"} {
		if a, b := readBoth(t, small, tree, rel); !bytes.Equal(a, b) {
			t.Errorf("%s differs between a 5- and a %d-skill findings tree", rel, n)
		}
	}

	// The build goes through, with the findings and every skill packed.
	out := filepath.Join(dir, "dist")
	br, err := build.Run([]string{tree}, build.Options{Out: out, Lint: lint.Options{Base: tree}})
	if err != nil {
		t.Fatalf("build of the findings tree: %v", err)
	}
	if br.Packed != n {
		t.Errorf("the build packed %d skills, want %d", br.Packed, n)
	}
	if want := n * len(FindingsRules); len(br.Findings) != want {
		t.Errorf("the build reported %d findings, want %d", len(br.Findings), want)
	}
}

// TestGenerateMarketplace checks the marketplace tree: lint finds every
// skill and plugin and nothing wrong, and each skill is Generate's bytes.
func TestGenerateMarketplace(t *testing.T) {
	const n = 6
	dir := t.TempDir()
	plain := genTree(t, Generate, dir, "plain", n)
	market := genTree(t, GenerateMarketplace, dir, "market", n)
	res := lintTree(t, market, n)
	for _, f := range res.Findings {
		t.Errorf("lint: %s:%d: %s [%s]", f.Path, f.Line, f.Message, f.Rule)
	}
	if len(res.Plugins) != n {
		t.Errorf("lint found %d plugins, want %d", len(res.Plugins), n)
	}
	for i := 1; i <= n; i++ {
		rel := fmt.Sprintf("skill-%05d/SKILL.md", i)
		if a, b := readBoth(t, plain, filepath.Join(market, "plugins", fmt.Sprintf("plugin-%05d", i), "skills"), rel); !bytes.Equal(a, b) {
			t.Errorf("%s differs from Generate's", rel)
		}
	}
}
