package build

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/lint"
)

// TestPackSkill packs one example flat and wrapped, and unpacks both with
// Go's readers and the real tools: flat puts SKILL.md at the root and
// gives the very archives the build serves; wrapped puts every file under
// NAME/.
func TestPackSkill(t *testing.T) {
	src := copyExamples(t)
	dir := filepath.Join(src, "csv-profiler")
	built := mustBuild(t, []string{src}, Options{Out: filepath.Join(t.TempDir(), "dist"), DryRun: true})

	for _, wrapped := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "out")
		p, err := PackSkill(dir, PackOptions{Out: out, Wrapped: wrapped})
		if err != nil {
			t.Fatal(err)
		}
		prefix, layoutName := "", "flat"
		if wrapped {
			prefix, layoutName = "csv-profiler/", "wrapped"
		}
		if p.Name != "csv-profiler" || p.Layout != layoutName || len(p.Artifacts) != 2 {
			t.Fatalf("packed %+v", p)
		}
		want := sourceEntries(t, dir, prefix)
		tgz, zip := filepath.Join(out, "csv-profiler.tar.gz"), filepath.Join(out, "csv-profiler.zip")
		for i, a := range p.Artifacts {
			got, n := fileAtPath(t, a.Path)
			if got != string(a.Digest) || n != a.Size || filepath.Clean(a.Path) != []string{tgz, zip}[i] {
				t.Errorf("artifact %+v: file is %s, %d bytes", a, got, n)
			}
		}
		sameEntries(t, layoutName+": Go tar reader", readTarGz(t, tgz, epoch1980), want)
		sameEntries(t, layoutName+": Go zip reader", readZip(t, zip, epoch1980), want)
		for _, cmd := range [][]string{{testtool.GNUTar, "-xzf", tgz}, {"bsdtar", "-xf", tgz}, {"bsdtar", "-xf", zip}, {"unzip", "-q", zip}} {
			t.Run(layoutName+" "+cmd[0]+" "+filepath.Ext(cmd[2]), func(t *testing.T) {
				x := t.TempDir()
				run(t, x, tool(t, cmd[0]), cmd[1:]...)
				sameEntries(t, layoutName+": "+cmd[0]+" "+filepath.Base(cmd[2]), extracted(t, x), want)
			})
		}
		if !wrapped {
			s := built.Skills[1]
			if p.Artifacts[0].Digest != s.TarGz.Digest || p.Artifacts[1].Digest != s.Zip.Digest || p.ContentDigest != s.ContentDigest {
				t.Error("pack and build give different archives for one skill")
			}
		} else if p.ContentDigest != built.Skills[1].ContentDigest {
			t.Error("the content digest depends on the layout")
		}
		ents, _ := os.ReadDir(out)
		if len(ents) != 2 {
			t.Errorf("pack left %d files in %s, want the two archives", len(ents), out)
		}
	}
}

func TestPackSkillRefuses(t *testing.T) {
	root := t.TempDir()
	// A lint error: nothing is written.
	bad := filepath.Join(root, "Bad_Name")
	writeSkill(t, bad, "Bad_Name", nil)
	out := filepath.Join(root, "out")
	p, err := PackSkill(bad, PackOptions{Out: out})
	var le *LintError
	if !errors.As(err, &le) || p == nil || len(p.Findings) == 0 {
		t.Errorf("PackSkill of a bad name: %v, %+v", err, p)
	}
	// Nor with name-format off in skillpack.yaml: an archive named after a
	// name no index can carry is none to upload (Rule.Publish).
	cfg, err := config.Parse(filepath.Join(root, "skillpack.yaml"), []byte("rules:\n  name-format: off\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PackSkill(bad, PackOptions{Out: out, Lint: lint.Options{Settings: cfg.Lint}}); !errors.As(err, &le) {
		t.Errorf("PackSkill of a bad name with name-format off: %v", err)
	}
	// A file that cannot be packed: no half-written archive is left.
	piped := filepath.Join(root, "piped")
	writeSkill(t, piped, "piped", map[string]string{"a.md": "A\n"})
	if err := mkfifo(filepath.Join(piped, "b.md")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(out, 0o755)
	if _, err := PackSkill(piped, PackOptions{Out: out}); err == nil {
		t.Error("PackSkill packed a named pipe")
	}
	if _, err := PackSkill(filepath.Join(root, "nowhere"), PackOptions{Out: out}); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("PackSkill of a missing folder: %v", err)
	}
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		t.Errorf("left behind: %s", e.Name())
	}
}

func fileAtPath(t *testing.T, p string) (string, int64) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return digestOf(string(data)), int64(len(data))
}
