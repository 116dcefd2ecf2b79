package serve

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// csvArchives returns the archives of csv-profiler that dist holds, with
// their digests.
func csvArchives(t *testing.T, dist string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, d := range expected(t, dist) {
		if isArchive(p) && strings.Contains(p, "/csv-profiler-") {
			out[p] = d
		}
	}
	if len(out) != 2 {
		t.Fatalf("csv-profiler has %d archives, not a .tar.gz and a .zip: %v", len(out), out)
	}
	return out
}

// rebuildEdited edits csv-profiler's SKILL.md, which gives it new
// archives, and builds skills into dist again.
func rebuildEdited(t *testing.T, skills, dist string, n int) {
	t.Helper()
	md := filepath.Join(skills, "csv-profiler", "SKILL.md")
	orig, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, fmt.Appendf(orig, "\nEdit %d.\n", n), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
}

// TestRetiredArchives serves a bundle, rebuilds it with a skill's archives
// changed and reloads: the old archives are still served, with their own
// bytes, for twice the index's max-age (at least a minute) after the
// switch, and 404 after it. An old archive held open and changed in place
// after the switch is refused, not sent; once its grace period has ended,
// the reload the server schedules closes it.
func TestRetiredArchives(t *testing.T) {
	for _, c := range []struct {
		name  string
		index time.Duration
		grace time.Duration
		lim   limits
	}{
		{"kept open, index 5m", 5 * time.Minute, 10 * time.Minute, limits{open: 1000}},
		{"in memory, index 0", 0, time.Minute, defaultLimits()},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Cleanup(func() { skew.Store(0) })
			skills, dist := newSkills(t)
			b, err := openHeld(dist, nil, c.lim)
			if err != nil {
				t.Fatal(err)
			}
			base, s := serveBundle(t, b, Options{Cache: &layout.Cache{Index: c.index, Files: time.Hour}})
			b.Close() // the server's hold is the only one
			old := csvArchives(t, dist)
			var link string // a name for an old archive, to change it by
			for p := range old {
				link = filepath.Join(t.TempDir(), "archive")
				if err := os.Link(filepath.Join(dist, filepath.FromSlash(p)), link); err != nil {
					t.Fatal(err)
				}
				break
			}
			rebuildEdited(t, skills, dist, 1)
			if err := s.Reload(); err != nil {
				t.Fatal(err)
			}
			ask := func(p string) (int, string, string) {
				t.Helper()
				resp, body := get(t, base+"/"+p)
				return resp.StatusCode, digest(body), strings.Trim(resp.Header.Get("Etag"), `"`)
			}
			for p := range csvArchives(t, dist) {
				if old[p] != "" {
					t.Fatalf("the edit left %s as it was", p)
				}
				if code, _, _ := ask(p); code != http.StatusOK {
					t.Errorf("GET %s, a new archive: %d", p, code)
				}
			}
			at := func(d time.Duration) {
				skew.Store(int64(d))
				for p, want := range old {
					code, got, etag := ask(p)
					if code != http.StatusOK || got != want || etag != want {
						t.Errorf("%v after the switch: GET %s, an archive of the bundle before: %d, bytes %s, ETag %s; want 200 with %s",
							d, p, code, got, etag, want)
					}
				}
			}
			at(0)
			at(c.grace - time.Second)

			var held *file
			if c.lim.small == 0 { // every file kept open
				for p := range old {
					if r := s.Held().retired[p]; r.f == nil || r.f.fh == nil {
						t.Fatalf("%s is not kept open after the switch", p)
					}
				}
				// Changed in place after the switch: refused, not sent.
				held = s.Held().retired[linked(t, old, link)].f
				fh, err := os.OpenFile(link, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				fh.WriteAt([]byte("x"), 100)
				fh.Close()
				if code, _, _ := ask(held.path); code != http.StatusInternalServerError {
					t.Errorf("GET %s, changed in place after the switch: %d, want 500", held.path, code)
				}
			}

			skew.Store(int64(c.grace + time.Second))
			for p := range old {
				if code, _, _ := ask(p); code != http.StatusNotFound {
					t.Errorf("%v after the switch, past the grace period: GET %s: %d, want 404", c.grace+time.Second, p, code)
				}
			}
			// What the timer does once the first grace period has ended.
			if err := s.reloadBundle(s.Held()); err != nil {
				t.Fatal(err)
			}
			if n := len(s.Held().retired); n != 0 {
				t.Errorf("the bundle served after the grace period still holds %d retired files", n)
			}
			if held != nil {
				if _, err := held.fh.Stat(); !errors.Is(err, os.ErrClosed) {
					t.Errorf("the retired archive %s is still open after its grace period: %v", held.path, err)
				}
			}
		})
	}
}

// linked returns the path of old whose file link is a name of.
func linked(t *testing.T, old map[string]string, link string) string {
	t.Helper()
	data, err := os.ReadFile(link)
	if err != nil {
		t.Fatal(err)
	}
	for p, d := range old {
		if digest(data) == d {
			return p
		}
	}
	t.Fatalf("%s is none of %v", link, old)
	return ""
}

// TestRetiredBounded checks what a bundle keeps of those it replaced:
// the newest first within its budget, older ones dropped and closed once
// no bundle holds them, and none past its grace period.
func TestRetiredBounded(t *testing.T) {
	skills, dist := newSkills(t)
	lim := limits{open: 1000} // every file kept open
	open := func(prev *Held) *Held {
		t.Helper()
		b, err := openHeld(dist, prev, lim)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	budget := limits{open: 2} // one generation's two archives
	g0 := open(nil)
	a0 := csvArchives(t, dist)
	rebuildEdited(t, skills, dist, 1)
	g1 := open(g0)
	if n := g1.retire(g0, now(), time.Hour, budget); n != 0 || len(g1.retired) != 2 {
		t.Fatalf("first switch: %d dropped, %d retired; want 0 and 2", n, len(g1.retired))
	}
	a1 := csvArchives(t, dist)
	rebuildEdited(t, skills, dist, 2)
	g2 := open(g1)
	if n := g2.retire(g1, now(), time.Hour, budget); n != 2 {
		t.Errorf("second switch: %d dropped, want the 2 of the oldest build", n)
	}
	for p := range a1 {
		if g2.file(p) == nil {
			t.Errorf("%s, of the build just replaced, is not served", p)
		}
	}
	for p := range a0 {
		if g2.file(p) != nil {
			t.Errorf("%s, of the oldest build, is served beyond the budget", p)
		}
	}
	g0.Close()
	g1.Close()
	for p := range a0 {
		if _, err := g0.files[p].fh.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s, dropped, is still open: %v", p, err)
		}
	}
	for p := range a1 {
		if _, err := g1.files[p].fh.Stat(); err != nil {
			t.Errorf("%s, still served, was closed: %v", p, err)
		}
	}
	// Past the grace period, a switch carries nothing forward.
	rebuildEdited(t, skills, dist, 3)
	g3 := open(g2)
	if n := g3.retire(g2, now().Add(2*time.Hour), time.Hour, budget); n != 0 || len(g3.retired) != 2 {
		t.Errorf("a switch after the grace period: %d dropped, %d retired; want 0 and only the 2 of the build it replaces", n, len(g3.retired))
	}
	for p := range a1 {
		if _, ok := g3.retired[p]; ok {
			t.Errorf("%s is carried past its grace period", p)
		}
	}
	g2.Close()
	g3.Close()
	for p := range a1 {
		if _, err := g1.files[p].fh.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s is still open once no bundle holds it: %v", p, err)
		}
	}
}
