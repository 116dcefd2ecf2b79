package verify

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// versionedSkills is a copy of examples/ in a new folder, for versioned
// builds.
func versionedSkills(t *testing.T) string {
	t.Helper()
	skills := filepath.Join(t.TempDir(), "skills")
	if err := os.CopyFS(skills, os.DirFS("../examples")); err != nil {
		t.Fatal(err)
	}
	return skills
}

// bumpNotes gives release-notes other content, and the version v unless
// v is "" (the mistake the guard is for).
func bumpNotes(t *testing.T, skills, v string) {
	t.Helper()
	md := filepath.Join(skills, "release-notes", "SKILL.md")
	data := string(readFile(t, skills, "release-notes/SKILL.md"))
	if v != "" {
		data = strings.Replace(data, `version: "1.2.0"`, `version: "`+v+`"`, 1)
	}
	if err := os.WriteFile(md, []byte(data+"\nOne more line.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func buildTo(t *testing.T, skills, out string, o build.Options) {
	t.Helper()
	o.Out = out
	if _, err := build.Run([]string{skills}, o); err != nil {
		t.Fatal(err)
	}
}

// versioned builds release 1.0.0 of the examples, then 1.1.0 with
// release-notes at 1.3.0: a bundle with a version of its own and one
// carried forward.
func versioned(t *testing.T) (skills, dir string) {
	t.Helper()
	skills = versionedSkills(t)
	dir = filepath.Join(t.TempDir(), "dist")
	buildTo(t, skills, dir, build.Options{Versioned: true, Release: "1.0.0"})
	bumpNotes(t, skills, "1.3.0")
	buildTo(t, skills, dir, build.Options{Versioned: true, Release: "1.1.0"})
	return skills, dir
}

func TestVersionedOK(t *testing.T) {
	_, dir := versioned(t)
	rep := check(t, dir, Options{})
	wantOK(t, rep)
	if rep.Checked.Archives != 14 {
		t.Errorf("%d archives checked; want the 10 of the skills and the 4 of release-notes 1.2.0 and 1.3.0", rep.Checked.Archives)
	}
}

// Every way a versioned bundle can be wrong is a problem naming the file.
func TestVersionedProblems(t *testing.T) {
	old := layout.VersionFile("release-notes", "1.2.0", layout.EntryFile)
	for _, c := range []struct {
		name   string
		change func(t *testing.T, dir string)
		path   string
		want   []string
	}{
		{"a version's file changed", func(t *testing.T, dir string) {
			writeFile(t, dir, old, []byte("---\nname: release-notes\n---\nother\n"))
		}, old, []string{"digest is sha256:", "but .well-known/agent-skills/versions.json says"}},
		{"a version's file gone", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, filepath.FromSlash(old)))
		}, old, []string{"missing", "versions.json lists it"}},
		{"a version's archive changed", func(t *testing.T, dir string) {
			a := versionArchiveOf(t, dir, "1.2.0", layout.TarGz)
			writeFile(t, dir, a, tarGz(t, file{name: "SKILL.md", body: []byte("x")}))
		}, "", []string{"versions.json says"}},
		{"a snapshot changed", func(t *testing.T, dir string) {
			edit(t, dir, layout.Snapshot("1.0.0"), `"version": "1.2.0"`, `"version": "1.3.0"`)
		}, layout.Snapshot("1.0.0"), []string{"a release's snapshot never changes"}},
		{"a file no version has", func(t *testing.T, dir string) {
			writeFile(t, dir, layout.VersionFile("release-notes", "1.2.0", "extra.md"), []byte("x"))
			// Listed in the record, as a forger would.
			rec, _ := layout.DecodeRecord(readFile(t, dir, layout.BuildRecord))
			rec.Files = append(rec.Files, layout.VersionFile("release-notes", "1.2.0", "extra.md"))
			slices.Sort(rec.Files)
			var b strings.Builder
			rec.Encode(&b)
			writeFile(t, dir, layout.BuildRecord, []byte(b.String()))
		}, layout.VersionFile("release-notes", "1.2.0", "extra.md"), []string{"is not in .well-known/agent-skills/versions.json"}},
		{"the index at a version versions.json lacks", func(t *testing.T, dir string) {
			edit(t, dir, layout.V2Index, `"version": "1.3.0"`, `"version": "1.4.0"`)
			reseal(t, dir)
		}, layout.VersionsIndex, []string{`skill "release-notes"`, "lists it at version 1.4.0, which is not here"}},
		{"versions.json lists a version twice", func(t *testing.T, dir string) {
			edit(t, dir, layout.VersionsIndex, `"version": "1.2.0"`, `"version": "1.3.0"`)
		}, layout.VersionsIndex, []string{"listed twice with different content"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, dir := versioned(t)
			c.change(t, dir)
			wantProblem(t, check(t, dir, Options{}), c.path, c.want...)
		})
	}
}

// versionArchiveOf is the dist path of an archive of release-notes at v.
func versionArchiveOf(t *testing.T, dir, v, ext string) string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(layout.VersionDir("release-notes", v))))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), "."+ext) {
			return layout.VersionDir("release-notes", v) + "/" + e.Name()
		}
	}
	t.Fatalf("no .%s in release-notes %s", ext, v)
	return ""
}

// verify --previous, from a folder and over HTTP: a bundle built without
// the guard that republished a version with other content, and dropped a
// version and a release, is caught; the next release made right is not.
func TestVerifyPrevious(t *testing.T) {
	skills := versionedSkills(t)
	prev := filepath.Join(t.TempDir(), "prev")
	buildTo(t, skills, prev, build.Options{Versioned: true, Release: "1.0.0"})
	srv := httptest.NewServer(http.FileServer(http.Dir(prev)))
	defer srv.Close()

	good := filepath.Join(t.TempDir(), "good")
	bumpNotes(t, skills, "1.3.0")
	buildTo(t, skills, good, build.Options{Versioned: true, Release: "1.1.0", Previous: mustSource(t, prev)})

	// Built afresh, without --previous: release-notes changed under 1.2.0.
	bad := filepath.Join(t.TempDir(), "bad")
	skills2 := versionedSkills(t)
	bumpNotes(t, skills2, "")
	os.RemoveAll(filepath.Join(skills2, "commit-messages"))
	buildTo(t, skills2, bad, build.Options{Versioned: true, Release: "0.9.0"})

	for _, from := range []string{prev, srv.URL} {
		ok := check(t, good, Options{Previous: from})
		wantOK(t, ok)
		// The previous bundle: the five examples, of which release-notes
		// alone has a version (1.2.0).
		if want := (&Compared{Source: from, Skills: 5, Versions: 1}); ok.Previous == nil || *ok.Previous != *want {
			t.Errorf("compared with %+v, want %+v", ok.Previous, want)
		}
		if s := ok.Summary(); !strings.HasSuffix(s, "; everything verified; compared with "+from+" (5 skills, 1 version)") {
			t.Errorf("summary %q does not say what it compared with", s)
		}
		rep := check(t, bad, Options{Previous: from})
		wantProblem(t, rep, layout.SkillDir("release-notes"), "version 1.2.0 was published with content", "bump metadata.version in the skill's SKILL.md")
		wantProblem(t, rep, layout.Snapshot("0.9.0"), `the latest release is "0.9.0", lower than 1.0.0`)
		wantProblem(t, rep, layout.Snapshot("1.0.0"), "release 1.0.0 was published")
		if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Message, `skill "commit-messages" was published and is not in this one`) {
			t.Errorf("warnings: %v", rep.Warnings)
		}
		if !strings.Contains(problems(rep), "warning: "+layout.SkillDir("commit-messages")+": ") {
			t.Errorf("the text report does not show the warning:\n%s", problems(rep))
		}
	}
	// A previous bundle that cannot be read is a problem that says why.
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusBadGateway)
	}))
	defer down.Close()
	rep := check(t, good, Options{Previous: down.URL})
	wantProblem(t, rep, down.URL, "HTTP 502 Bad Gateway")
	if rep.Previous != nil {
		t.Errorf("a previous bundle that could not be read is reported as compared with: %+v", rep.Previous)
	}
	wantProblem(t, check(t, good, Options{Previous: filepath.Join(t.TempDir(), "none")}), "", "no such folder")
}

func mustSource(t *testing.T, loc string) bundle.Source {
	t.Helper()
	src, err := bundle.OpenSource(loc, bundle.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// An archive's entries that versions.json does not list are reported in
// path order, the same on every run: with more problems than the limit,
// another order would report other ones.
func TestVersionedExtraEntriesInOrder(t *testing.T) {
	skills := versionedSkills(t)
	for _, n := range []string{"c.md", "a.md", "d.md", "b.md"} {
		writeFile(t, skills, "release-notes/"+n, []byte(n))
	}
	dir := filepath.Join(t.TempDir(), "dist")
	buildTo(t, skills, dir, build.Options{Versioned: true, Release: "1.0.0"})
	var doc map[string]any // versions.json with SKILL.md and a.md left of each version's files
	if err := json.Unmarshal(readFile(t, dir, layout.VersionsIndex), &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range doc["skills"].([]any) {
		for _, v := range s.(map[string]any)["versions"].([]any) {
			v := v.(map[string]any)
			v["files"] = slices.DeleteFunc(v["files"].([]any), func(f any) bool {
				p := f.(map[string]any)["path"]
				return p != "SKILL.md" && p != "a.md"
			})
		}
	}
	data, _ := json.Marshal(doc)
	writeFile(t, dir, layout.VersionsIndex, data)
	var first []string
	for run := range 4 {
		var got []string
		for _, p := range check(t, dir, Options{}).Problems {
			if strings.Contains(p.Message, "which is no file of the version") {
				got = append(got, p.Path+": "+p.Message)
			}
		}
		if len(got) != 6 || !slices.IsSorted(got) {
			t.Fatalf("run %d: want the 3 extra entries of both archives, in path order; got\n%s", run, strings.Join(got, "\n"))
		}
		if run == 0 {
			first = got
		} else if !slices.Equal(got, first) {
			t.Fatalf("run %d reported\n%s\nafter\n%s", run, strings.Join(got, "\n"), strings.Join(first, "\n"))
		}
	}
}
