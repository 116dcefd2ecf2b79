package build

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// TestReproducible builds examples/ from two copies that differ in
// everything a build must ignore (file times, umask at copy and at build,
// creation order, time zone, parallelism) and requires byte- and
// mode-identical bundles.
func TestReproducible(t *testing.T) {
	tmp := t.TempDir()
	srcA, srcB := filepath.Join(tmp, "a", "skills"), filepath.Join(tmp, "b", "skills")
	copyTree(t, examples, srcA, copyOpts{mtime: time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC), umask: 0o022})
	copyTree(t, examples, srcB, copyOpts{mtime: time.Date(2023, 6, 15, 12, 34, 56, 789, time.UTC), umask: 0o077, reverse: true})

	distA, distB := filepath.Join(tmp, "a", "dist"), filepath.Join(tmp, "b", "dist")
	resA := mustBuild(t, []string{srcA}, Options{Out: distA, Jobs: 1})

	// time.Local is read once at start-up, so set it as well as TZ.
	t.Setenv("TZ", "Pacific/Chatham")
	local := time.Local
	time.Local = time.FixedZone("test", 13*3600+45*60)
	defer func() { time.Local = local }()
	old := umask(0o077)
	resB, err := Run([]string{srcB}, Options{Out: distB, Jobs: 4, Inventory: true})
	umask(old)
	if err != nil {
		t.Fatal(err)
	}

	a, b := snapshot(t, distA), snapshot(t, distB)
	sameTree(t, "second build", a, b, false)
	if !reflect.DeepEqual(resA.Artifacts, resB.Artifacts) {
		t.Errorf("artifacts differ:\n%v\n%v", resA.Artifacts, resB.Artifacts)
	}
	// A bundle is served by a web server that is not its owner: files
	// 0644 and folders 0755 whatever the umask, but a served copy of a
	// script with an execute bit (examples/*/scripts/*) 0755.
	for p, n := range b {
		want := os.FileMode(0o644)
		for _, tree := range []string{".well-known/agent-skills/", ".well-known/skills/"} {
			if rel, ok := strings.CutPrefix(p, tree); ok {
				if info, err := os.Stat(filepath.Join(srcB, filepath.FromSlash(rel))); err == nil && info.Mode()&0o111 != 0 {
					want = 0o755
				}
			}
		}
		if n.Mode.IsRegular() && n.Mode != want || n.Mode.IsDir() && n.Mode.Perm() != 0o755 {
			t.Errorf("built under umask 077: %s has mode %v, want %v", p, n.Mode, want)
		}
	}
	// Nothing of the host may reach the bundle.
	for p, n := range a {
		for _, host := range []string{tmp, srcA, "Pacific/Chatham"} {
			if strings.Contains(n.Data, host) {
				t.Errorf("%s holds %q", p, host)
			}
		}
	}
}

// TestGolden pins the digests of the examples' archives and the
// compressor-independent content digests. A change means every published
// archive URL changes: update with -update only when that is intended
// (a new compressor version, a header decision in package pack).
func TestGolden(t *testing.T) {
	src := copyExamples(t)
	res := mustBuild(t, []string{src}, Options{Out: filepath.Join(t.TempDir(), "dist"), DryRun: true})
	var b strings.Builder
	b.WriteString("# The examples' archives at the default time (1980-01-01), as <skill> <what> <digest> <size>.\n")
	b.WriteString("# Regenerate with: go test ./build -run TestGolden -update\n")
	for _, s := range res.Skills {
		fmt.Fprintf(&b, "%s content %s %d\n", s.Name, s.ContentDigest, s.Size)
		fmt.Fprintf(&b, "%s %s %s %d\n", s.Name, layout.TarGz, s.TarGz.Digest, s.TarGz.Size)
		fmt.Fprintf(&b, "%s %s %s %d\n", s.Name, layout.Zip, s.Zip.Digest, s.Zip.Size)
	}
	checkGolden(t, "examples.golden", b.String(), "archive digests", "TestGolden")
	if len(res.Skills) != 5 {
		t.Errorf("%d skills in examples/, the golden file expects 5", len(res.Skills))
	}
}

// checkGolden compares got with testdata/name, or with -update writes it.
func checkGolden(t *testing.T, name, got, what, test string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s drifted from %s; if intended, run go test ./build -run %s -update\ngot:\n%s\nwant:\n%s", what, golden, test, got, want)
	}
}

// TestSpilledArchives makes every archive, the skills' and a plugin's,
// outgrow memory and move to a temporary file, and requires the same
// bundle as archives kept in memory (the common case), with no temporary
// file left behind.
func TestSpilledArchives(t *testing.T) {
	src := copyExamples(t)
	testtool.WriteTree(t, src, map[string]string{".claude-plugin/plugin.json": `{"name": "examples"}`})
	tmp := t.TempDir()
	inMemory, spilled := filepath.Join(tmp, "memory"), filepath.Join(tmp, "spilled")
	mustBuild(t, []string{src}, Options{Out: inMemory})

	old := spillSize
	spillSize = 16
	defer func() { spillSize = old }()
	mustBuild(t, []string{src}, Options{Out: spilled})

	sameTree(t, "spilled build", snapshot(t, inMemory), snapshot(t, spilled), false)
	if archives, _ := filepath.Glob(filepath.Join(spilled, ".well-known", "agent-plugins", "examples-*.zip")); len(archives) != 1 {
		t.Errorf("the plugin's zip: %q, want one", archives)
	}
	noStaging(t, tmp)
}
