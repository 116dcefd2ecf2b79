package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

const (
	skillMD  = ".well-known/agent-skills/csv-profiler/SKILL.md"
	script   = ".well-known/agent-skills/csv-profiler/scripts/profile.py"
	legacyMD = ".well-known/skills/csv-profiler/SKILL.md"
)

func TestOpenPristine(t *testing.T) {
	b := open(t, pristine(t))
	want := expected(t, pristine(t))
	if len(b.files) != len(want) {
		t.Errorf("Open found %d servable files, the documents name %d", len(b.files), len(want))
	}
	for p, d := range want {
		f := b.files[p]
		if f == nil || string(f.digest) != d {
			t.Errorf("%s: got %+v, want digest %s", p, f, d)
		}
	}
	for _, p := range []string{layout.BuildRecord, layout.Headers, layout.NoJekyll} {
		if b.files[p] != nil {
			t.Errorf("%s is servable; only the files the indexes name should be", p)
		}
	}
	if b.Skills() != 5 {
		t.Errorf("Skills() = %d, want the 5 examples", b.Skills())
	}
}

// TestOpenRefuses changes a bundle after its build in every way a
// mistake or an attacker might, and checks that Open refuses it and says
// which file and what to do.
func TestOpenRefuses(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "passwd")
	os.WriteFile(outside, []byte("root:x:0:0\n"), 0o644)
	tests := []struct {
		name   string
		change func(t *testing.T, dist string)
		want   []string // substrings of the error
	}{
		{"missing skill file", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, filepath.FromSlash(script)))
		}, []string{script, "no such file"}},
		{"same size, other bytes", func(t *testing.T, d string) {
			rewrite(t, d, skillMD, flip)
		}, []string{skillMD, "changed since the build", "skillpack build"}},
		{"legacy copy changed", func(t *testing.T, d string) {
			rewrite(t, d, legacyMD, flip)
		}, []string{legacyMD, "changed since the build"}},
		{"archive grew", func(t *testing.T, d string) {
			rewrite(t, d, archivePath(t, d, ".tar.gz"), func(b []byte) []byte { return append(b, 0) })
		}, []string{".tar.gz", "bytes"}},
		{"index edited", func(t *testing.T, d string) {
			rewrite(t, d, layout.V2Index, func(b []byte) []byte {
				return []byte(strings.Replace(string(b), "Profile", "Pwned!!", 1))
			})
		}, []string{layout.V2Index, "changed since the build", layout.Checksums}},
		{"skills.json edited", func(t *testing.T, d string) {
			rewrite(t, d, layout.MCPSkills, func(b []byte) []byte {
				return []byte(strings.Replace(string(b), "Profile", "Pwned!!", 1))
			})
		}, []string{layout.MCPSkills, "changed since the build"}},
		{"checksums edited", func(t *testing.T, d string) {
			rewrite(t, d, layout.Checksums, func(b []byte) []byte { return append(b, "00  x\n"...) })
		}, []string{layout.Checksums}},
		{"no build record", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, filepath.FromSlash(layout.BuildRecord)))
		}, []string{layout.BuildRecord, "not a skillpack bundle"}},
		{"symlink out", func(t *testing.T, d string) {
			p := filepath.Join(d, filepath.FromSlash(script))
			os.Remove(p)
			if err := os.Symlink(outside, p); err != nil {
				t.Skip(err)
			}
		}, []string{script, "symbolic link"}},
		{"folder symlinked out", func(t *testing.T, d string) {
			dir := filepath.Join(d, ".well-known", "skills", "csv-profiler")
			moved := filepath.Join(t.TempDir(), "csv-profiler")
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, dir); err != nil {
				t.Skip(err)
			}
		}, []string{legacyMD, "a symbolic link that leads outside the bundle folder"}},
		{"not a bundle", func(t *testing.T, d string) {
			os.RemoveAll(d)
			os.MkdirAll(d, 0o755)
		}, []string{"not a skillpack bundle"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDist(t)
			tt.change(t, d)
			b, err := Open(d)
			if err == nil {
				b.Close()
				t.Fatal("Open accepted the changed bundle")
			}
			t.Log(err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func archivePath(t *testing.T, dist, ext string) string {
	t.Helper()
	// The record, which lists every skill's: the MCP documents leave out
	// a skill MCP hosts refuse (a large one, as TestSlowReader's).
	data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(layout.BuildRecord)))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := layout.DecodeRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rec.Skills {
		for _, a := range s.Archives() {
			if s.Name == "csv-profiler" && strings.HasSuffix(a.Path, ext) {
				return a.Path
			}
		}
	}
	t.Fatalf("no %s archive for csv-profiler", ext)
	return ""
}

func TestDirectories(t *testing.T) {
	b := open(t, pristine(t))
	names := func(uri string) []string {
		var out []string
		kids, _ := b.directory(uri)
		for _, r := range kids {
			out = append(out, r.Name+":"+r.MIMEType)
		}
		return out
	}
	tests := map[string]string{
		"skill://github-rest-api":                "SKILL.md:text/markdown references:inode/directory",
		"skill://github-rest-api/references":     "README.md:text/markdown api:inode/directory guides:inode/directory",
		"skill://github-rest-api/references/api": "endpoints.md:text/markdown errors.md:text/markdown",
		"skill://commit-messages":                "SKILL.md:text/markdown",
	}
	for uri, want := range tests {
		if got := strings.Join(names(uri), " "); got != want {
			t.Errorf("%s: got %q, want %q", uri, got, want)
		}
	}
	for _, uri := range []string{"skill://github-rest-api/SKILL.md", "skill://", "skill:/", "skill://index.json"} {
		if _, ok := b.directory(uri); ok {
			t.Errorf("%s is a directory resource", uri)
		}
	}
}

// TestDirectoryOrder lists a folder whose file "a.md" sorts before the
// files of its folder "a", and whose child "a" sorts before "a.md".
func TestDirectoryOrder(t *testing.T) {
	tree := []string{"SKILL.md", "a.md", "a/x.md", "a/y/z.md", "b"}
	b := &Held{trees: map[string]string{"skill://s": strings.Join(tree, "\x00") + "\x00"}, files: map[string]*file{}}
	for _, name := range tree {
		b.files[layout.SkillFile("s", name)] = &file{resource: true, mime: "text/markdown", size: 1}
	}
	for uri, want := range map[string]string{
		"skill://s":      "skill://s/SKILL.md skill://s/a skill://s/a.md skill://s/b",
		"skill://s/":     "skill://s/SKILL.md skill://s/a skill://s/a.md skill://s/b",
		"skill://s/a":    "skill://s/a/x.md skill://s/a/y",
		"skill://s/a/":   "skill://s/a/x.md skill://s/a/y",
		"skill://s/a.md": "",
		"skill://s/c":    "",
	} {
		kids, ok := b.directory(uri)
		var got []string
		for _, k := range kids {
			got = append(got, k.URI)
		}
		if strings.Join(got, " ") != want || ok != (want != "") {
			t.Errorf("%s: got %q (%v), want %q", uri, got, ok, want)
		}
	}
}

// TestOpenBuildOptions opens bundles built without the legacy tree and
// with absolute URLs.
func TestOpenBuildOptions(t *testing.T) {
	skills, _ := newSkills(t)
	for _, o := range []build.Options{{NoLegacy: true}, {BaseURL: "https://example.com/skills"}} {
		o.Out = filepath.Join(t.TempDir(), "dist")
		if _, err := build.Run([]string{skills}, o); err != nil {
			t.Fatal(err)
		}
		b := open(t, o.Out)
		if b.Skills() != 5 || b.files[layout.V2Index] == nil {
			t.Errorf("%+v: %d skills", o, b.Skills())
		}
		if legacy := b.files[legacyMD] != nil; legacy == o.NoLegacy {
			t.Errorf("%+v: legacy tree served: %v", o, legacy)
		}
	}
}
