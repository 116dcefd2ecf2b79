package serve

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/verify"
)

// versionedDist builds examples/ with --versioned twice: release 1.0.0,
// then 1.1.0 with release-notes at a new version, so that the bundle has
// a version carried forward as well as new ones.
func versionedDist(t *testing.T) string {
	t.Helper()
	skills, dist := newSkills(t)
	for _, r := range []string{"1.0.0", "1.1.0"} {
		if r == "1.1.0" {
			md := filepath.Join(skills, "release-notes", "SKILL.md")
			data, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.Replace(string(data), `version: "1.2.0"`, `version: "1.3.0"`, 1) + "\nOne more line.\n")
			if err := os.WriteFile(md, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := build.Run([]string{skills}, build.Options{Out: dist, Versioned: true, Release: r}); err != nil {
			t.Fatal(err)
		}
	}
	return dist
}

// Build, serve, verify: a versioned bundle is served whole, every file
// its build record lists (but the record and the settings for other
// hosts) with its bytes on disk, and verify, fetching it as a client
// does, finds nothing wrong with it.
func TestServeVersioned(t *testing.T) {
	dist := versionedDist(t)
	base, _ := start(t, dist, Options{})
	rec, err := layout.DecodeRecord(mustReadFile(t, filepath.Join(dist, filepath.FromSlash(layout.BuildRecord))))
	if err != nil {
		t.Fatal(err)
	}
	versions := 0
	for _, p := range rec.Files {
		if p == layout.BuildRecord || p == layout.NoJekyll || p == layout.Headers {
			continue // the build's, and other hosts' settings: served by none
		}
		if pp, ok := layout.ParsePath(p); ok && (pp.Kind == layout.KindVersion || pp.Release != "" || pp.Doc == layout.VersionsIndex) {
			versions++
		}
		resp, body := get(t, base+"/"+p)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", p, resp.Status)
			continue
		}
		if want := digest(mustReadFile(t, filepath.Join(dist, filepath.FromSlash(p)))); digest(body) != want {
			t.Errorf("GET %s: not the bytes on disk", p)
		}
		if got, want := resp.Header.Get("Cache-Control"), layout.DefaultCache.Control(p); got != want {
			t.Errorf("GET %s: Cache-Control %q, want %q", p, got, want)
		}
	}
	// release-notes 1.2.0 and 1.3.0 (SKILL.md and two archives each),
	// two snapshots, versions.json.
	if versions != 9 {
		t.Errorf("%d files of versions served, want 9", versions)
	}
	rep, err := verify.URL(context.Background(), base, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range rep.Problems {
		t.Errorf("verify %s: %v", base, pr)
	}
	if rep.Checked.Archives != 14 || rep.Checked.Indexes < 7 {
		t.Errorf("verify checked %+v; want the versions' 4 archives and both snapshots among them", rep.Checked)
	}
}

// A version's file changed on disk, or a snapshot, is refused as any other
// file is: versions.json and checksums.txt give their digests.
func TestServeVersionedTampered(t *testing.T) {
	for _, p := range []string{layout.VersionFile("release-notes", "1.2.0", layout.EntryFile), layout.Snapshot("1.0.0")} {
		dist := versionedDist(t)
		rewrite(t, dist, p, flip)
		if b, err := Open(dist); err == nil {
			b.Close()
			t.Errorf("%s changed, and the bundle opened", p)
		} else if !strings.Contains(err.Error(), filepath.Base(p)) {
			t.Errorf("%s changed: %v", p, err)
		}
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
