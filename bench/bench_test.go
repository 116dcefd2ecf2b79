package bench

import (
	"flag"
	"os"
	"path/filepath"
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

// TestGenerate checks that the tree is what the benchmark claims: lint
// finds nothing in it, and it is a pure function of its size.
func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small"), filepath.Join(dir, "big")
	if err := Generate(small, 5); err != nil {
		t.Fatal(err)
	}
	if err := Generate(big, 20); err != nil {
		t.Fatal(err)
	}
	res, err := lint.Run([]string{big}, lint.Options{Base: big})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != 20 {
		t.Errorf("lint found %d skills, want 20", len(res.Skills))
	}
	for _, f := range res.Findings {
		t.Errorf("lint: %s:%d: %s [%s]", f.Path, f.Line, f.Message, f.Rule)
	}
	// The first skills of a bigger tree are the same bytes as a smaller one.
	for _, rel := range []string{"skill-00001/SKILL.md", "skill-00005/SKILL.md"} {
		a, err := os.ReadFile(filepath.Join(small, rel))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(big, rel))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
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
