package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/outlock"
	"github.com/skillpack/skillpack/internal/signtest"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/verify"
)

// publishTo publishes b to the folder dir and returns each path's state.
func publishTo(t *testing.T, b *publish.Upload, dir string, o Options) (map[string]publish.State, error) {
	t.Helper()
	var mu sync.Mutex
	states := map[string]publish.State{}
	err := Publish(context.Background(), b, "file://"+filepath.ToSlash(dir), o, func(r publish.Result) {
		mu.Lock()
		states[r.Object.Path] = r.State
		mu.Unlock()
	})
	return states, err
}

// examplesBundle builds the examples and opens the bundle to publish.
func examplesBundle(t *testing.T) (*publish.Upload, string) {
	t.Helper()
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{"../../examples"}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	b, err := publish.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	return b, dist
}

// count is how many of b's objects are in state s.
func count(b *publish.Upload, states map[string]publish.State, s publish.State) int {
	n := 0
	for _, o := range b.Objects {
		if states[o.Path] == s {
			n++
		}
	}
	return n
}

// verifyFolder verifies the folder dir as `skillpack verify
// file:///dir` does.
func verifyFolder(t *testing.T, dir string) *verify.Report {
	t.Helper()
	f, err := Open("file://" + filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Objects(context.Background(), f, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A folder published to is the bundle, whole: verify finds it so. A
// second run copies nothing; a file changed there is copied again; a dry
// run writes nothing.
func TestPublish(t *testing.T) {
	b, dist := examplesBundle(t)
	www := filepath.Join(t.TempDir(), "www")

	states, err := publishTo(t, b, www, Options{DryRun: true})
	if err != nil || count(b, states, publish.WouldUpload) != len(b.Objects) {
		t.Fatalf("dry run: %v, %d of %d would be copied", err, count(b, states, publish.WouldUpload), len(b.Objects))
	}
	if _, err := os.Stat(www); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote %s", www)
	}

	if states, err = publishTo(t, b, www, Options{}); err != nil || count(b, states, publish.Uploaded) != len(b.Objects) {
		t.Fatalf("first run: %v, %d of %d copied", err, count(b, states, publish.Uploaded), len(b.Objects))
	}
	if rep := verifyFolder(t, www); !rep.OK() {
		t.Fatalf("the folder published to does not verify: %v", rep.Problems)
	}

	// A script keeps its execute bit, which clients installing from the
	// folder need; one an older run copied without it gets it back.
	script := layout.SkillFile("repo-hygiene", "scripts/check.sh")
	modes := func() (fs.FileMode, fs.FileMode) {
		a, err1 := os.Stat(filepath.Join(www, filepath.FromSlash(script)))
		b, err2 := os.Stat(filepath.Join(www, filepath.FromSlash(layout.SkillFile("repo-hygiene", "SKILL.md"))))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		return a.Mode().Perm(), b.Mode().Perm()
	}
	if x, md := modes(); x != 0o755 || md != 0o644 {
		t.Errorf("published modes: script %o, SKILL.md %o; want 755 and 644", x, md)
	}
	must(t, os.Chmod(filepath.Join(www, filepath.FromSlash(script)), 0o644))
	states, err = publishTo(t, b, www, Options{})
	if x, _ := modes(); err != nil || x != 0o755 || states[script] != publish.Uploaded || count(b, states, publish.Present) != len(b.Objects)-1 {
		t.Errorf("again after a chmod -x: %v, script %o and %s, %d present", err, x, states[script], count(b, states, publish.Present))
	}

	victim := b.Skills[0].TarGz.Path
	if err := os.WriteFile(filepath.Join(www, filepath.FromSlash(victim)), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	states, err = publishTo(t, b, www, Options{})
	if err != nil || states[victim] != publish.Uploaded || count(b, states, publish.Present) != len(b.Objects)-1 {
		t.Fatalf("again: %v, %s is %s, %d present", err, victim, states[victim], count(b, states, publish.Present))
	}

	// A file of the bundle changed after it was opened is refused, and
	// the copy there is not replaced by it.
	if err := os.WriteFile(filepath.Join(dist, filepath.FromSlash(victim)), make([]byte, b.Skills[0].TarGz.Size), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(www, filepath.FromSlash(victim)))
	if _, err := publishTo(t, b, www, Options{}); err == nil || !strings.Contains(err.Error(), "but the build record says") {
		t.Errorf("a changed file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(www, filepath.FromSlash(victim))); !os.IsNotExist(err) {
		t.Errorf("the changed file was copied: %v", err)
	}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]string{
		"file:///srv/www":          "/srv/www",
		"file://localhost/srv/www": "/srv/www",
		"file://www/a":             "", // a host: a slip for file:///www/a
		"file://tmp/x":             "",
		"file://":                  "",
		"file://localhost":         "",
		"file:///x?y=1":            "",
	} {
		got, err := ParseTarget(in)
		if got != filepath.FromSlash(want) || (err == nil) != (want != "") {
			t.Errorf("ParseTarget(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// A folder that holds a site's own files at the bundle's paths is not
// written to: not a file is copied, the site's files keep their bytes,
// and the error names them. Files elsewhere in the folder do not matter,
// and once the folder holds a publish of skillpack's, a changed file of it
// is skillpack's to replace.
func TestPublishForeign(t *testing.T) {
	b, _ := examplesBundle(t)
	www := filepath.Join(t.TempDir(), "www")
	site := map[string]string{"index.html": "<h1>My site</h1>\n", "about/x.html": "about\n", "skills": "a file where a folder goes\n"}
	for p, data := range site {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(www, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(www, p), []byte(data), 0o644))
	}
	states, err := publishTo(t, b, www, Options{})
	var fe *publish.ForeignError
	if !errors.As(err, &fe) || !slices.Equal(fe.Paths, []string{"skills"}) || len(states) != 0 {
		t.Fatalf("into a site: %v (%d copied), want a ForeignError naming skills, a file where a folder goes", err, len(states))
	}
	must(t, os.Remove(filepath.Join(www, "skills")))
	states, err = publishTo(t, b, www, Options{})
	if !errors.As(err, &fe) || !slices.Equal(fe.Paths, []string{"index.html"}) || len(states) != 0 {
		t.Fatalf("into a site: %v (%d copied), want a ForeignError naming index.html", err, len(states))
	}
	must(t, os.WriteFile(filepath.Join(www, "skills"), []byte(site["skills"]), 0o644))
	for p, data := range site {
		if got, _ := os.ReadFile(filepath.Join(www, p)); string(got) != data {
			t.Errorf("%s: %q, want the site's %q", p, got, data)
		}
	}
	if _, err := os.Stat(filepath.Join(www, ".well-known")); !os.IsNotExist(err) {
		t.Errorf("something was copied: %v", err)
	}

	// Without them it publishes; then a file of its own that someone
	// changed is replaced, as before. The site's own AI Catalog, at a
	// path a bundle built with --ai-catalog writes, is left alone, by
	// publish and by verify (it is checked only when checksums.txt lists
	// it).
	must(t, os.Remove(filepath.Join(www, "index.html")))
	must(t, os.Remove(filepath.Join(www, "skills")))
	catalog := filepath.Join(www, ".well-known", "ai-catalog.json")
	must(t, os.MkdirAll(filepath.Dir(catalog), 0o755))
	must(t, os.WriteFile(catalog, []byte(`{"mine": true}`), 0o644))
	if _, err := publishTo(t, b, www, Options{}); err != nil {
		t.Fatal(err)
	}
	if rep := verifyFolder(t, www); !rep.OK() {
		t.Errorf("a site whose own AI Catalog is beside the bundle does not verify: %v", rep.Problems)
	}
	must(t, os.WriteFile(filepath.Join(www, "index.html"), []byte("edited"), 0o644))
	if states, err := publishTo(t, b, www, Options{}); err != nil || states["index.html"] != publish.Uploaded {
		t.Errorf("republish over its own changed file: %v, index.html %s", err, states["index.html"])
	}
	if got, _ := os.ReadFile(filepath.Join(www, "about/x.html")); string(got) != "about\n" {
		t.Errorf("a file outside the bundle changed: %q", got)
	}

	// A file given as the folder is the user's to correct.
	file := filepath.Join(t.TempDir(), "afile")
	must(t, os.WriteFile(file, nil, 0o644))
	if _, err := publishTo(t, b, file, Options{}); err == nil || !strings.Contains(err.Error(), "is a file; publish to a folder") {
		t.Errorf("to a file: %v", err)
	}
	// So is a folder that cannot be made, a file on its path: not a run
	// to repeat (it was exit 3, "run the same command again").
	_, err = publishTo(t, b, filepath.Join(file, "site"), Options{})
	var ec interface{ ExitClass() int }
	if !errors.As(err, &ec) || ec.ExitClass() != 2 || !strings.Contains(err.Error(), "cannot make the folder") {
		t.Errorf("under a file: %v, want the user's error", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// What a folder holds is seen however it is reached, and nothing is
// copied past it: a target that is a link to a site's folder, a link
// where the bundle needs a folder (it would carry the copy elsewhere), a
// folder where the bundle puts a file, and a target in DIST itself are
// refused before anything is written, the site's files unchanged.
func TestPublishHostileFolder(t *testing.T) {
	b, dist := examplesBundle(t)
	root := t.TempDir()
	page := "<h1>My site</h1>\n"
	write := func(p, data string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data), 0o644))
	}
	// A link to the site's folder.
	write(filepath.Join(root, "site", "index.html"), page)
	must(t, os.Symlink(filepath.Join(root, "site"), filepath.Join(root, "www")))
	// A link where the bundle needs a folder, to a folder of another's.
	write(filepath.Join(root, "other", "agent-skills", "index.json"), `{"mine":1}`)
	must(t, os.MkdirAll(filepath.Join(root, "site2"), 0o755))
	must(t, os.Symlink(filepath.Join(root, "other"), filepath.Join(root, "site2", ".well-known")))
	// A folder where the bundle puts a file.
	must(t, os.MkdirAll(filepath.Join(root, "site3", "index.html"), 0o755))
	for _, tc := range []struct{ dir, want string }{
		{"www", "index.html"},
		{"site2", ".well-known"},
		{"site3", "index.html"},
	} {
		var fe *publish.ForeignError
		states, err := publishTo(t, b, filepath.Join(root, tc.dir), Options{})
		if !errors.As(err, &fe) || !slices.Contains(fe.Paths, tc.want) || len(states) != 0 {
			t.Errorf("%s: %v (%d copied), want a ForeignError naming %s", tc.dir, err, len(states), tc.want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(root, "site", "index.html")); string(got) != page {
		t.Errorf("the site's page behind the link: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "other", "agent-skills", "index.json")); string(got) != `{"mine":1}` {
		t.Errorf("the file behind the link: %q", got)
	}
	for _, dir := range []string{dist, filepath.Join(dist, "sub")} {
		if _, err := publishTo(t, b, dir, Options{}); err == nil || !strings.Contains(err.Error(), "is in the bundle") {
			t.Errorf("into %s: %v", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dist, ".skillpack", "releases.json")); !os.IsNotExist(err) {
		t.Errorf("DIST was written to: %v", err)
	}
	if _, err := Open("file:///"); err == nil || !strings.Contains(err.Error(), "the file system's root") {
		t.Errorf("file:///: %v", err)
	}
}

// A run killed while it copied leaves its temporary file; the next run
// that completes removes it, and a dry run leaves it. A file of the
// site's named alike, and one in a folder the bundle does not write (a
// publish to a folder below may be writing it), stay.
func TestPublishStaleTemp(t *testing.T) {
	b, _ := examplesBundle(t)
	www := filepath.Join(t.TempDir(), "www")
	if _, err := publishTo(t, b, www, Options{}); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(www, ".well-known", "agent-skills", tmpPrefix+"123")
	must(t, os.WriteFile(stale, []byte("half a file"), 0o644))
	theirs := []string{filepath.Join(www, ".well-known", "agent-skills", tmpPrefix+"draft.md"), filepath.Join(www, "team2", tmpPrefix+"42")}
	must(t, os.MkdirAll(filepath.Join(www, "team2"), 0o755))
	for _, p := range theirs {
		must(t, os.WriteFile(p, []byte("theirs"), 0o644))
	}
	defer func() {
		for _, p := range theirs {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("a file not the run's was removed: %v", err)
			}
		}
	}()
	if _, err := publishTo(t, b, www, Options{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("a dry run removed it: %v", err)
	}
	if _, err := publishTo(t, b, www, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the temporary file stayed: %v", err)
	}
	if rep := verifyFolder(t, www); !rep.OK() {
		t.Errorf("%v", rep.Problems)
	}
}

// One publish at a time writes a folder: another holding its lock turns
// this one away, naming it, before anything is copied (two at once had
// left a mixed site, 2 runs in 15); a dry run takes no lock.
func TestPublishLocked(t *testing.T) {
	b, _ := examplesBundle(t)
	www := filepath.Join(t.TempDir(), "www")
	unlock, err := outlock.Take(www, "publish")
	if err != nil {
		t.Fatal(err)
	}
	states, err := publishTo(t, b, www, Options{})
	if err == nil || !strings.Contains(err.Error(), "another skillpack is writing "+www) || len(states) != 0 {
		t.Errorf("with the lock held: %v (%d copied)", err, len(states))
	}
	if _, err := publishTo(t, b, www, Options{DryRun: true}); err != nil {
		t.Errorf("a dry run: %v", err)
	}
	unlock()
	if _, err := publishTo(t, b, www, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(www), ".www"+outlock.Suffix)); !os.IsNotExist(err) {
		t.Errorf("the lock file stayed: %v", err)
	}
}

// --prune on a folder deletes a withdrawn skill's files, archives and
// page once no kept release names them, and the folders they leave empty;
// not a site's own file, and not a file of the site's at a path a release
// named (its bytes are not the release's).
func TestPrune(t *testing.T) {
	src := t.TempDir()
	skillMD := func(name string) string {
		return "---\nname: " + name + "\ndescription: Does " + name + " things for the tests. Use when asked to.\n---\n# " + name + "\n\nBody.\n"
	}
	for _, n := range []string{"keep", "gone", "moved"} {
		must(t, os.MkdirAll(filepath.Join(src, n, "references"), 0o755))
		must(t, os.WriteFile(filepath.Join(src, n, "SKILL.md"), []byte(skillMD(n)), 0o644))
		must(t, os.WriteFile(filepath.Join(src, n, "references", "notes.md"), []byte(n+"\n"), 0o644))
	}
	www := filepath.Join(t.TempDir(), "www")
	must(t, os.MkdirAll(filepath.Join(www, "img"), 0o755))
	must(t, os.WriteFile(filepath.Join(www, "home.html"), []byte("home"), 0o644))
	must(t, os.WriteFile(filepath.Join(www, "img", "logo.png"), []byte("png"), 0o644))
	publishSrc := func(o Options) map[string]publish.State {
		t.Helper()
		dist := filepath.Join(t.TempDir(), "dist")
		if _, err := build.Run([]string{src}, build.Options{Out: dist, Sign: signtest.Stub, SignFolder: signtest.StubStatement}); err != nil {
			t.Fatal(err)
		}
		b, err := publish.Open(dist)
		if err != nil {
			t.Fatal(err)
		}
		states, err := publishTo(t, b, www, o)
		if err != nil {
			t.Fatal(err)
		}
		return states
	}
	publishSrc(Options{})
	must(t, os.RemoveAll(filepath.Join(src, "gone")))
	must(t, os.RemoveAll(filepath.Join(src, "moved")))
	publishSrc(Options{})
	// The site takes a path the withdrawn "moved" had for a page of its own.
	page := filepath.Join(www, "skills", "moved.html")
	must(t, os.WriteFile(page, []byte("the site's own page"), 0o644))

	if states := publishSrc(Options{Prune: true, Keep: 2}); slices.Contains(slices.Collect(maps.Values(states)), publish.Deleted) {
		t.Errorf("--keep 2 kept both releases, yet deleted: %v", states)
	}
	// A prune stopped after it deleted moved's archive, before its
	// signature: the signature, whose bytes no record gives, goes next
	// time, with the file it signs gone.
	archives, _ := filepath.Glob(filepath.Join(www, ".well-known", "agent-skills", "moved-*.tar.gz"))
	if len(archives) != 1 {
		t.Fatalf("moved's archives: %q", archives)
	}
	must(t, os.Remove(archives[0]))
	orphan, _ := filepath.Rel(www, archives[0]+layout.SignatureSuffix)
	states := publishSrc(Options{Prune: true, Keep: 1})
	for _, p := range []string{"skills/gone.html", ".well-known/agent-skills/gone/SKILL.md", ".well-known/agent-skills/gone/references/notes.md",
		".well-known/agent-skills/gone/" + layout.FolderSignatureFile, filepath.ToSlash(orphan)} {
		if states[p] != publish.Deleted {
			t.Errorf("%s: %s, want deleted", p, states[p])
		}
	}
	if sigs, _ := filepath.Glob(filepath.Join(www, ".well-known", "agent-skills", "gone-*")); len(sigs) != 0 {
		t.Errorf("gone's archives or their signatures are still there: %q", sigs)
	}
	for _, p := range []string{".well-known/agent-skills/gone", ".well-known/skills/gone"} {
		if _, err := os.Stat(filepath.Join(www, filepath.FromSlash(p))); !os.IsNotExist(err) {
			t.Errorf("%s: the folder pruned empty is still there: %v", p, err)
		}
	}
	for p, want := range map[string]string{"home.html": "home", "img/logo.png": "png", "skills/moved.html": "the site's own page",
		".well-known/agent-skills/keep/references/notes.md": "keep\n"} {
		if got, err := os.ReadFile(filepath.Join(www, filepath.FromSlash(p))); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q kept", p, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(www, ".well-known", "agent-skills", "moved", "SKILL.md")); !os.IsNotExist(err) {
		t.Errorf("moved's SKILL.md, the release's bytes, is still there: %v", err)
	}
	if rep := verifyFolder(t, www); !rep.OK() {
		t.Errorf("verify after the prune: %v", rep)
	}
}

// A site's own file at one of the bundle's paths with the bundle's bytes
// (a site that copied the skills in before) stays the site's for good: the
// inventory says so, since a folder keeps nothing beside the bytes. A
// later publish does not replace it once the site edits it, and a prune
// does not delete it once no release names it (both took it for
// skillpack's, as a release's record named its path); nor when the run
// that found it stopped after its record's copy.
func TestPublishTheirs(t *testing.T) {
	for _, stopped := range []bool{false, true} {
		t.Run(fmt.Sprint("stopped=", stopped), func(t *testing.T) { testPublishTheirs(t, stopped) })
	}
}

func testPublishTheirs(t *testing.T, stopped bool) {
	src := t.TempDir()
	skillMD := func(name string) string {
		return "---\nname: " + name + "\ndescription: Does " + name + " things for the tests. Use when asked to.\n---\n# " + name + "\n\nBody.\n"
	}
	www := filepath.Join(t.TempDir(), "www")
	for _, n := range []string{"keep", "gone"} {
		must(t, os.MkdirAll(filepath.Join(src, n), 0o755))
		must(t, os.WriteFile(filepath.Join(src, n, "SKILL.md"), []byte(skillMD(n)), 0o644))
		must(t, os.MkdirAll(filepath.Join(www, ".well-known", "skills", n), 0o755))
		must(t, os.WriteFile(filepath.Join(www, ".well-known", "skills", n, "SKILL.md"), []byte(skillMD(n)), 0o644))
	}
	built := func() *publish.Upload {
		t.Helper()
		dist := filepath.Join(t.TempDir(), "dist")
		if _, err := build.Run([]string{src}, build.Options{Out: dist}); err != nil {
			t.Fatal(err)
		}
		b, err := publish.Open(dist)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	publishSrc := func(o Options) (map[string]publish.State, error) {
		t.Helper()
		return publishTo(t, built(), www, o)
	}
	if stopped { // after the record's copy, the first object it writes
		ctx, cancel := context.WithCancel(context.Background())
		err := Publish(ctx, built(), "file://"+filepath.ToSlash(www), Options{}, func(publish.Result) { cancel() })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the stopped run: %v", err)
		}
	}
	keep, gone := ".well-known/skills/keep/SKILL.md", ".well-known/skills/gone/SKILL.md"
	if states, err := publishSrc(Options{}); err != nil || states[keep] != publish.Present || states[gone] != publish.Present {
		t.Fatalf("over the site's copies: %v, %s %s", err, states[keep], states[gone])
	}

	mine := filepath.Join(www, filepath.FromSlash(keep))
	must(t, os.WriteFile(mine, []byte("the site's edit\n"), 0o644))
	_, err := publishSrc(Options{})
	if fe := new(*publish.ForeignError); !errors.As(err, fe) || !slices.Equal((*fe).Paths, []string{keep}) {
		t.Errorf("over the site's edited copy: %v, want a ForeignError naming %s", err, keep)
	}
	if got, _ := os.ReadFile(mine); string(got) != "the site's edit\n" {
		t.Errorf("the site's edited copy was replaced: %q", got)
	}
	must(t, os.WriteFile(mine, []byte(skillMD("keep")), 0o644))

	must(t, os.RemoveAll(filepath.Join(src, "gone")))
	for range 2 { // the path leaves the bundle, then its release the list
		if _, err := publishSrc(Options{Prune: true, Keep: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(www, filepath.FromSlash(gone))); string(got) != skillMD("gone") {
		t.Errorf("prune deleted the site's %s: %v", gone, err)
	}
	if _, err := os.Stat(filepath.Join(www, ".well-known", "agent-skills", "gone", "SKILL.md")); !os.IsNotExist(err) {
		t.Errorf("prune kept skillpack's copy of gone's SKILL.md: %v", err)
	}
}

// A first publish stopped after its record's copy, which names every
// path of the bundle, wrote none of them: a site's own file put at one
// since is the site's, and the next publish refuses it (it replaced it,
// the copy's name taken for proof that skillpack wrote there).
func TestPublishAfterStopped(t *testing.T) {
	b, _ := examplesBundle(t)
	www := filepath.Join(t.TempDir(), "www")
	ctx, cancel := context.WithCancel(context.Background())
	if err := Publish(ctx, b, "file://"+filepath.ToSlash(www), Options{}, func(publish.Result) { cancel() }); !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped run: %v", err)
	}
	copies, _ := filepath.Glob(filepath.Join(www, ".skillpack", "releases", "*.json"))
	if len(copies) != 1 {
		t.Fatalf("the stopped run left record copies %q, want one", copies)
	}
	must(t, os.WriteFile(filepath.Join(www, "index.html"), []byte("<h1>My site</h1>\n"), 0o644))
	_, err := publishTo(t, b, www, Options{})
	if fe := new(*publish.ForeignError); !errors.As(err, fe) || !slices.Equal((*fe).Paths, []string{"index.html"}) {
		t.Errorf("after the stopped run: %v, want a ForeignError naming index.html", err)
	}
	if got, _ := os.ReadFile(filepath.Join(www, "index.html")); string(got) != "<h1>My site</h1>\n" {
		t.Errorf("the site's page was replaced: %.40q", got)
	}
	// Moved away, the run completes over what the stopped one wrote.
	must(t, os.Remove(filepath.Join(www, "index.html")))
	if _, err := publishTo(t, b, www, Options{}); err != nil {
		t.Fatal(err)
	}
	if rep := verifyFolder(t, www); !rep.OK() {
		t.Errorf("verify: %v", rep.Problems)
	}
}

// Where the lock cannot lie beside the folder (a web root whose parent
// the user cannot write; here a folder where the lock file goes), it lies
// in the folder's .skillpack/: a publish holding it turns another away
// (both ran unlocked, and one release went missing from the list).
func TestPublishLockInside(t *testing.T) {
	b, _ := examplesBundle(t)
	www := filepath.Join(t.TempDir(), "www")
	must(t, os.MkdirAll(filepath.Join(filepath.Dir(www), ".www"+outlock.Suffix), 0o755))
	must(t, os.MkdirAll(www, 0o755))
	unlock, err := outlock.Take(filepath.Join(www, filepath.FromSlash(lockInside)), "publish")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := publishTo(t, b, www, Options{}); err == nil || !strings.Contains(err.Error(), "another skillpack is writing") {
		t.Errorf("while another holds the lock in the folder: %v", err)
	}
	unlock()
	if _, err := publishTo(t, b, www, Options{}); err != nil {
		t.Fatal(err)
	}
	if rep := verifyFolder(t, www); !rep.OK() {
		t.Errorf("verify: %v", rep.Problems)
	}
}

// A link where the run writes its own files (.skillpack/releases, to a
// folder elsewhere) is refused as a link at a bundle path is: the record's
// copy was written through it, outside the target.
func TestPublishOwnPathLink(t *testing.T) {
	b, _ := examplesBundle(t)
	root := t.TempDir()
	www, elsewhere := filepath.Join(root, "www"), filepath.Join(root, "elsewhere")
	must(t, os.MkdirAll(filepath.Join(www, ".skillpack"), 0o755))
	must(t, os.MkdirAll(elsewhere, 0o755))
	must(t, os.Symlink(elsewhere, filepath.Join(www, ".skillpack", "releases")))
	_, err := publishTo(t, b, www, Options{})
	if fe := new(*publish.ForeignError); !errors.As(err, fe) || !slices.Contains((*fe).Paths, ".skillpack/releases") {
		t.Errorf("through a link at .skillpack/releases: %v, want a ForeignError naming it", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("written through the link: %v", ents)
	}
}

// A folder holding DIST is refused as DIST itself is (file://$PWD for
// file://$PWD/public put the catalog's skills/ among the sources), and
// file://~/site is answered with the folder meant.
func TestPublishAroundDist(t *testing.T) {
	b, dist := examplesBundle(t)
	parent := filepath.Dir(dist)
	if _, err := publishTo(t, b, parent, Options{}); err == nil || !strings.Contains(err.Error(), "holds the bundle") {
		t.Errorf("into the folder holding DIST: %v", err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("written beside DIST: %v", ents)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip(err)
	}
	if _, err := ParseTarget("file://~/site"); err == nil || !strings.Contains(err.Error(), "did you mean "+URL(filepath.Join(home, "site"))+"?") {
		t.Errorf("file://~/site: %v", err)
	}
}
