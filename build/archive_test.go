package build

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
)

// builtExamples builds a copy of examples/ and returns the source and
// output folders and the result.
func builtExamples(t *testing.T, o Options) (src, dist string, res *Result) {
	t.Helper()
	src = copyExamples(t)
	o.Out = filepath.Join(filepath.Dir(src), "dist")
	return src, o.Out, mustBuild(t, []string{src}, o)
}

// TestArchivesExtract unpacks every archive of the examples with Go's
// readers and with real GNU tar, bsdtar and unzip, and compares what comes
// out with the skill folder byte for byte and mode for mode. Each tool is
// a subtest, skipped alone when the tool is not installed.
func TestArchivesExtract(t *testing.T) {
	src, dist, res := builtExamples(t, Options{})
	if len(res.Skills) != 5 {
		t.Fatalf("built %d skills, want the 5 examples", len(res.Skills))
	}
	want := map[string][]entry{}
	for _, s := range res.Skills {
		want[s.Name] = sourceEntries(t, filepath.Join(src, s.Name), "")
		tgz, zip := filepath.Join(dist, s.TarGz.Path), filepath.Join(dist, s.Zip.Path)
		if !slices.Contains(names(want[s.Name]), "SKILL.md") {
			t.Fatalf("%s: no SKILL.md at the root of the skill", s.Name)
		}
		sameEntries(t, s.Name+": Go tar reader", readTarGz(t, tgz, epoch1980), want[s.Name])
		sameEntries(t, s.Name+": Go zip reader", readZip(t, zip, epoch1980), want[s.Name])
	}

	// The archives list files only, in sorted order: no folder entries.
	for _, l := range []struct{ tool, flag, archive string }{
		{testtool.GNUTar, "-tzf", "tgz"},
		{"unzip", "-Z1", "zip"},
	} {
		t.Run(l.tool+" "+l.flag, func(t *testing.T) {
			bin := tool(t, l.tool)
			for _, s := range res.Skills {
				a := s.TarGz.Path
				if l.archive == "zip" {
					a = s.Zip.Path
				}
				if got, w := strings.Fields(run(t, ".", bin, l.flag, filepath.Join(dist, a))), names(want[s.Name]); strings.Join(got, " ") != strings.Join(w, " ") {
					t.Errorf("%s: %s %s lists %v, want %v", s.Name, l.tool, l.flag, got, w)
				}
			}
		})
	}

	for _, x := range []struct {
		name, tool, flag, archive string
	}{
		{"GNU tar", testtool.GNUTar, "-xzf", "tgz"},
		{"bsdtar (tar.gz)", "bsdtar", "-xf", "tgz"},
		{"bsdtar (zip)", "bsdtar", "-xf", "zip"},
		{"unzip", "unzip", "-q", "zip"},
	} {
		t.Run(x.name, func(t *testing.T) {
			bin := tool(t, x.tool)
			for _, s := range res.Skills {
				a := s.TarGz.Path
				if x.archive == "zip" {
					a = s.Zip.Path
				}
				dir := t.TempDir()
				run(t, dir, bin, x.flag, filepath.Join(dist, a))
				sameEntries(t, s.Name+": "+x.name, extracted(t, dir), want[s.Name])
			}
		})
	}
}

// TestSourceDateEpoch checks that the fixed time reaches the archives'
// headers, changes their bytes, and is clamped to 1980 for zip only.
func TestSourceDateEpoch(t *testing.T) {
	src := copyExamples(t)
	def := mustBuild(t, []string{src}, Options{Out: filepath.Join(t.TempDir(), "dist"), DryRun: true})

	epoch, err := SourceDateEpoch(" 1614834367\n") // 2021-03-04T05:06:07Z
	if err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	res := mustBuild(t, []string{src}, Options{Out: dist, Time: epoch})
	for i, s := range res.Skills {
		if s.TarGz.Digest == def.Skills[i].TarGz.Digest || s.Zip.Digest == def.Skills[i].Zip.Digest {
			t.Errorf("%s: SOURCE_DATE_EPOCH did not change the archive bytes", s.Name)
		}
		if s.ContentDigest != def.Skills[i].ContentDigest {
			t.Errorf("%s: the content digest depends on the time", s.Name)
		}
		readTarGz(t, filepath.Join(dist, s.TarGz.Path), epoch)
		// DOS time counts in two-second steps.
		readZip(t, filepath.Join(dist, s.Zip.Path), epoch.Add(-time.Second))
	}

	// Before 1980 a zip cannot say the time: it is clamped, so the zip is
	// the default one, while the tar keeps the real time.
	old := time.Date(1975, 6, 1, 0, 0, 0, 0, time.UTC)
	dist = filepath.Join(t.TempDir(), "dist")
	res = mustBuild(t, []string{src}, Options{Out: dist, Time: old})
	for i, s := range res.Skills {
		if s.Zip.Digest != def.Skills[i].Zip.Digest {
			t.Errorf("%s: a pre-1980 time was not clamped to 1980 in the zip", s.Name)
		}
		if s.TarGz.Digest == def.Skills[i].TarGz.Digest {
			t.Errorf("%s: a pre-1980 time was not kept in the tar", s.Name)
		}
		readTarGz(t, filepath.Join(dist, s.TarGz.Path), old)
		readZip(t, filepath.Join(dist, s.Zip.Path), epoch1980)
	}
}

func TestSourceDateEpochParse(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "315532800": 315532800, " 42\n": 42} {
		got, err := SourceDateEpoch(in)
		if err != nil || got.Unix() != want || got.Location() != time.UTC {
			t.Errorf("SourceDateEpoch(%q) = %v, %v; want %d UTC", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5", "1e9", "yesterday", "99999999999999999999"} {
		_, err := SourceDateEpoch(in)
		if err == nil || !strings.Contains(err.Error(), "SOURCE_DATE_EPOCH") {
			t.Errorf("SourceDateEpoch(%q): error %v, want one naming SOURCE_DATE_EPOCH", in, err)
		}
	}
}

// TestServedFilesMatchSource checks both discovery trees against the
// skill folders, byte for byte: the build never rewrites a file.
func TestServedFilesMatchSource(t *testing.T) {
	src, dist, res := builtExamples(t, Options{})
	for _, s := range res.Skills {
		want := sourceEntries(t, filepath.Join(src, s.Name), "")
		for _, tree := range []string{".well-known/agent-skills/", ".well-known/skills/"} {
			got := extracted(t, filepath.Join(dist, tree+s.Name))
			for i := range got {
				got[i].Mode = 0 // served files carry no exec bits; archives do
			}
			w := append([]entry(nil), want...)
			for i := range w {
				w[i].Mode = 0
			}
			sameEntries(t, tree+s.Name, got, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dist, ".nojekyll")); err != nil {
		t.Error(err)
	}
}
