package publish

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// signed builds the examples with a stand-in signer (publish treats
// signatures as opaque bytes), and with llms.txt and the AI Catalog, and
// returns the folder.
func signed(t *testing.T) string {
	t.Helper()
	dist := filepath.Join(t.TempDir(), "dist")
	sign := func(data []byte) ([]byte, error) { return []byte(`{"signed":"` + layout.DigestOf(data) + `"}`), nil }
	signFolder := func(st []byte) ([]byte, error) { return []byte(`{"folder":` + string(st) + `}`), nil }
	o := build.Options{Out: dist, Sign: sign, SignFolder: signFolder, LLMsTxt: true, AICatalog: true, BaseURL: "https://skills.example.com"}
	if _, err := build.Run([]string{"../examples"}, o); err != nil {
		t.Fatal(err)
	}
	return dist
}

func TestOpenListsEveryFileInTheSafeOrder(t *testing.T) {
	dist := signed(t)
	b, err := Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := layout.DecodeRecord(readFile(t, dist, layout.BuildRecord))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i, o := range b.Objects {
		paths = append(paths, o.Path)
		if i > 0 && o.Stage < b.Objects[i-1].Stage {
			t.Errorf("%s (%s) comes after %s (%s)", o.Path, o.Stage, b.Objects[i-1].Path, b.Objects[i-1].Stage)
		}
		data := readFile(t, dist, o.Path)
		if layout.DigestOf(data) != o.Digest || int64(len(data)) != o.Size {
			t.Errorf("%s: object says %s, %d bytes; the file is %s, %d", o.Path, o.Digest, o.Size, layout.DigestOf(data), len(data))
		}
		if o.ContentType != layout.ContentType(o.Path) || o.CacheControl != layout.DefaultCache.Control(o.Path) {
			t.Errorf("%s: %q, %q", o.Path, o.ContentType, o.CacheControl)
		}
	}
	slices.Sort(paths)
	if !slices.Equal(paths, rec.Files) {
		t.Errorf("objects %v\nwant the record's files %v", paths, rec.Files)
	}
	if r := b.Record(); r.Path != layout.BuildRecord || r.Stage != Record {
		t.Errorf("last object %+v, want the record", r)
	}
	if b.Key != rec.Bundle || b.Key == "" {
		t.Errorf("key %q, want %q", b.Key, rec.Bundle)
	}

	want := map[string]Stage{
		".well-known/agent-skills/index.json.sigstore.json": Indexes,
		"mcp/skills.json.sigstore.json":                     MCP,
		layout.Checksums:                                    Indexes,
		layout.Headers:                                      Indexes,
		layout.MCPResources:                                 MCP,
		layout.LegacyFile("csv-profiler", "SKILL.md"):       Files,
		layout.FolderSignature("csv-profiler"):              Files,
		layout.LLMsTxt:                                      Indexes,
		layout.AICatalog:                                    Indexes,
		layout.Signature(layout.AICatalog):                  Indexes,
	}
	for _, s := range b.Skills {
		want[layout.Signature(s.TarGz.Path)] = Archives
		want[s.Zip.Path] = Archives
	}
	for _, o := range b.Objects {
		st, ok := want[o.Path]
		if ok && st != o.Stage {
			t.Errorf("%s in stage %s, want %s", o.Path, o.Stage, st)
		}
		delete(want, o.Path)
		if strings.HasSuffix(o.Path, ".tar.gz") && !strings.Contains(o.CacheControl, "immutable") {
			t.Errorf("%s: Cache-Control %q, want immutable", o.Path, o.CacheControl)
		}
	}

	for p := range want {
		t.Errorf("no object %s", p)
	}

	if len(b.Skills) != len(rec.Skills) || len(b.Skills) < 3 {
		t.Fatalf("%d skills", len(b.Skills))
	}
	for _, s := range b.Skills {
		if s.Description == "" || s.SkillMD.Path != layout.SkillFile(s.Name, "SKILL.md") || len(s.Signatures) != 2 ||
			!strings.HasSuffix(s.TarGz.Path, ".tar.gz") || !strings.HasSuffix(s.Zip.Path, ".zip") || !s.ContentDigest.Valid() {
			t.Errorf("skill %+v", s)
		}
	}
	f, err := b.Open(b.Skills[0].SkillMD)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// A skill the MCP documents leave out (MCP hosts refuse its nested
// metadata) is published with its description all the same, from the
// v0.2 index.
func TestOpenSkillOffMCP(t *testing.T) {
	skills := filepath.Join(t.TempDir(), "skills")
	md := "---\nname: weather\ndescription: Get the weather of a city. Use when the user asks about weather.\n" +
		"license: MIT\nmetadata:\n  openclaw:\n    emoji: x\n---\n# Weather\n\nRun curl wttr.in.\n"
	if err := os.MkdirAll(filepath.Join(skills, "weather"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, "weather", "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	if res, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil || len(res.MCPExcluded) != 1 {
		t.Fatalf("build: %v, %v", res, err)
	}
	b, err := Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Skills) != 1 || b.Skills[0].Description != "Get the weather of a city. Use when the user asks about weather." {
		t.Errorf("skills %+v", b.Skills)
	}
}

func TestFrontmatterLicense(t *testing.T) {
	for fm, want := range map[string]string{
		`{"name":"a","license":"MIT","metadata":{"version":"1.2"}}`: "MIT",
		`{"License":"MIT","metadata":{"Version":"1"}}`:              "",
		`{"license":3,"metadata":{"version":1}}`:                    "",
		`[1]`:                                                       "",
		``:                                                          "",
	} {
		if got := layout.FrontmatterLicense([]byte(fm)); got != want {
			t.Errorf("%s: %q; want %q", fm, got, want)
		}
	}
}

// A folder that is not as its record says is refused, naming the file
// and the fix.
func TestOpenRefuses(t *testing.T) {
	dist := signed(t)
	archive := ""
	if b, err := Open(dist); err == nil {
		archive = b.Skills[1].TarGz.Path
	}
	for _, c := range []struct {
		name   string
		change func(dir string)
		want   []string
	}{
		{"no record", func(dir string) { os.Remove(filepath.Join(dir, layout.BuildRecord)) },
			[]string{"has no build record", "skillpack build SKILLS -o DIST, then skillpack publish DIST TARGET"}},
		{"missing", func(dir string) { os.Remove(filepath.Join(dir, archive)) },
			[]string{archive, "missing", "rebuild"}},
		{"other size", func(dir string) { os.WriteFile(filepath.Join(dir, layout.V2Index), []byte("{}"), 0o644) },
			[]string{layout.V2Index, "2 bytes, but the build record says", "rebuild"}},
		// Same size, other bytes: publish takes versions and descriptions
		// from these two, so they are checked against the record's digests.
		{"other bytes", func(dir string) { flipByte(t, filepath.Join(dir, layout.V2Index)) },
			[]string{layout.V2Index, "but the build record says", "rebuild"}},
		{"other bytes, MCP", func(dir string) { flipByte(t, filepath.Join(dir, layout.MCPSkills)) },
			[]string{layout.MCPSkills, "but the build record says", "rebuild"}},
		{"a folder", func(dir string) {
			p := filepath.Join(dir, layout.Checksums)
			os.Remove(p)
			os.Mkdir(p, 0o755)
		}, []string{layout.Checksums, "is a folder"}},
		{"broken record", func(dir string) { os.WriteFile(filepath.Join(dir, layout.BuildRecord), []byte(`{"skills":[`), 0o644) },
			[]string{layout.BuildRecord, "rebuild"}},
		{"escaping path", func(dir string) {
			os.WriteFile(filepath.Join(dir, layout.BuildRecord), []byte(`{"generator":"x","skills":[],"files":["../../etc/passwd",".skillpack/build.json"]}`), 0o644)
		}, []string{`"../../etc/passwd"`, "not a path inside the bundle"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "dist")
			if err := os.CopyFS(dir, os.DirFS(dist)); err != nil {
				t.Fatal(err)
			}
			c.change(dir)
			_, err := Open(dir)
			if err == nil {
				t.Fatal("opened")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nwant %q in it", err, w)
				}
			}
		})
	}
}

// flipByte changes a file's bytes and not its size: a space in it becomes
// a tab, which JSON reads the same.
func flipByte(t testing.TB, name string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.IndexByte(data, ' ')
	if i < 0 {
		t.Fatalf("%s has no space to change", name)
	}
	data[i] = '\t'
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, dir, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A bundle without the v0.1 tree has no objects there, and a base URL
// changes no path: objects are files, whatever the indexes' URLs.
func TestOpenNoLegacyBaseURL(t *testing.T) {
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{"../examples"}, build.Options{Out: dist, NoLegacy: true, BaseURL: "https://example.com/skills"}); err != nil {
		t.Fatal(err)
	}
	b, err := Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range b.Objects {
		if strings.HasPrefix(o.Path, layout.LegacyDir+"/") {
			t.Errorf("%s in a bundle built without the legacy tree", o.Path)
		}
		if _, err := os.Stat(filepath.Join(dist, filepath.FromSlash(o.Path))); err != nil {
			t.Errorf("%s: %v", o.Path, err)
		}
	}
	if len(b.Skills) == 0 || b.Skills[0].SkillMD.Path != layout.SkillFile(b.Skills[0].Name, "SKILL.md") {
		t.Errorf("skills %+v", b.Skills)
	}
}

// A versioned bundle's own files (each version's folder, the snapshots,
// versions.json) are objects like any other, with the digests
// versions.json and the record give them, a version's files before the
// documents that name them.
func TestOpenVersioned(t *testing.T) {
	skills := filepath.Join(t.TempDir(), "skills")
	if err := os.CopyFS(skills, os.DirFS("../examples")); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	for _, r := range []string{"1.0.0", "1.1.0"} {
		if r == "1.1.0" {
			md := filepath.Join(skills, "release-notes", "SKILL.md")
			data := strings.Replace(string(readFile(t, skills, "release-notes/SKILL.md")), `version: "1.2.0"`, `version: "1.3.0"`, 1)
			if err := os.WriteFile(md, []byte(data+"\nMore.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := build.Run([]string{skills}, build.Options{Out: dist, Versioned: true, Release: r}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	stage := map[string]Stage{}
	for _, o := range b.Objects {
		stage[o.Path] = o.Stage
		if data := readFile(t, dist, o.Path); layout.DigestOf(data) != o.Digest {
			t.Errorf("%s: digest %s, the file's %s", o.Path, o.Digest, layout.DigestOf(data))
		}
	}
	for p, want := range map[string]Stage{
		layout.VersionFile("release-notes", "1.2.0", layout.EntryFile): Files,
		layout.VersionFile("release-notes", "1.3.0", layout.EntryFile): Files,
		layout.Snapshot("1.0.0"): Indexes,
		layout.VersionsIndex:     Indexes,
	} {
		if got, ok := stage[p]; !ok || got != want {
			t.Errorf("%s: stage %v (listed %v), want %v", p, got, ok, want)
		}
	}
	n := 0
	for p, s := range stage {
		if pp, _ := layout.ParsePath(p); pp.Kind == layout.KindVersion && pp.Format != "" {
			n++
			if s != Archives {
				t.Errorf("%s: stage %v, want Archives", p, s)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d versions' archives, want 4", n)
	}
}

// A skill's version is the one the build put in the v0.2 index: SemVer
// only, so a registry's version tag and label never carry "1.0" (which no
// index offers as a version either).
func TestSkillVersion(t *testing.T) {
	skills := t.TempDir()
	for name, v := range map[string]string{"semver": "1.2.0", "loose": "1.0"} {
		dir := filepath.Join(skills, name)
		md := "---\nname: " + name + "\ndescription: The " + name + " skill.\nmetadata:\n  version: \"" + v + "\"\n---\n# " + name + "\n"
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	b, err := Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range b.Skills {
		got[s.Name] = s.Version
	}
	if want := map[string]string{"semver": "1.2.0", "loose": ""}; !maps.Equal(got, want) {
		t.Errorf("versions %v, want %v", got, want)
	}
}
