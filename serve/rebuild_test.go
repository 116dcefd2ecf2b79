package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// TestServeDuringRebuilds serves a bundle while it is rebuilt again and
// again, by a build of its own (as a user runs `skillpack build` beside a
// running server) and by --watch, with readers fetching every path the
// indexes name, and every archive any index served before named (all
// within the grace period of retire). No response may be a 5xx, none for
// an archive anything but 200, and every 200 must carry bytes that one of
// the builds recorded for that path, whole: its body's digest is its ETag
// and a digest some build gave that path.
func TestServeDuringRebuilds(t *testing.T) {
	for _, how := range []string{"build beside", "watch"} {
		t.Run(how, func(t *testing.T) {
			skills, dist := newSkills(t)
			base, s := start(t, dist, Options{})
			c, cancel := context.WithCancel(context.Background())
			defer cancel()
			go s.Follow(c, 5*time.Millisecond)

			var mu sync.Mutex
			recorded := map[string]map[string]bool{} // path → every digest a build gave it
			record := func() {
				mu.Lock()
				defer mu.Unlock()
				for p, d := range expected(t, dist) {
					if recorded[p] == nil {
						recorded[p] = map[string]bool{}
					}
					recorded[p][d] = true
				}
			}
			record()
			// --watch stages each build into the bundle the one before
			// replaced, as serve --watch does: the folder a reader was
			// served from a moment ago is rewritten.
			o := build.Options{Out: dist}
			if how == "watch" {
				o.Spare = new(build.Spare)
				defer o.Spare.Close()
			}
			rebuild := func(ctx context.Context) error {
				_, err := build.RunContext(ctx, []string{skills}, o)
				if err == nil {
					record()
				}
				return err
			}
			watching := make(chan error, 1)
			if how == "watch" {
				w := NewWatcher([]string{skills}, 10*time.Millisecond)
				defer w.Close()
				go func() { watching <- s.Watch(c, w, rebuild) }()
			} else {
				watching <- nil
			}

			type seen struct{ path, digest, etag string }
			var (
				got      []seen
				statuses sync.Map // status → count
				stop     atomic.Bool
				readers  sync.WaitGroup
				named    sync.Map // every archive an index named, → true
				archives atomic.Int64
			)
			count := func(code int) {
				n, _ := statuses.LoadOrStore(code, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
			}
			for range 4 {
				readers.Go(func() {
					for !stop.Load() {
						paths := pathsOf(t, base)
						for _, p := range paths {
							if isArchive(p) {
								named.Store(p, true)
							}
						}
						named.Range(func(p, _ any) bool {
							if !slices.Contains(paths, p.(string)) {
								paths = append(paths, p.(string))
							}
							return true
						})
						for _, p := range paths {
							resp, err := http.Get(base + "/" + p)
							if err != nil {
								t.Error(err)
								return
							}
							body, err := io.ReadAll(resp.Body)
							resp.Body.Close()
							if err != nil {
								t.Errorf("GET %s: reading the body: %v", p, err)
								return
							}
							count(resp.StatusCode)
							if isArchive(p) {
								archives.Add(1)
								if resp.StatusCode != http.StatusOK {
									t.Errorf("GET %s, an archive an index named: %d", p, resp.StatusCode)
								}
							}
							if resp.StatusCode == http.StatusOK {
								mu.Lock()
								got = append(got, seen{p, digest(body), strings.Trim(resp.Header.Get("Etag"), `"`)})
								mu.Unlock()
							}
						}
					}
				})
			}

			// Twelve edits, each a new bundle: a SKILL.md changes, and
			// a file comes and goes.
			md := filepath.Join(skills, "csv-profiler", "SKILL.md")
			orig, _ := os.ReadFile(md)
			served := func(n int) bool {
				resp, err := http.Get(base + "/" + skillMD)
				if err != nil {
					return false
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return strings.HasSuffix(string(b), fmt.Sprintf("Edit %d.\n", n))
			}
			for i := range 12 {
				os.WriteFile(md, fmt.Appendf(orig, "\nEdit %d.\n", i), 0o644)
				extra := filepath.Join(skills, "csv-profiler", "notes.md")
				if i%2 == 0 {
					os.WriteFile(extra, []byte("a note\n"), 0o644)
				} else {
					os.Remove(extra)
				}
				if how == "build beside" {
					if err := rebuild(c); err != nil {
						t.Fatal(err)
					}
				}
				deadline := time.Now().Add(20 * time.Second)
				for !served(i) {
					if time.Now().After(deadline) {
						t.Fatalf("edit %d was not served within 20 s", i)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			stop.Store(true)
			readers.Wait()
			cancel()
			<-watching // a rebuild still running records its bundle first

			total := 0
			statuses.Range(func(k, v any) bool {
				n := v.(*atomic.Int64).Load()
				total += int(n)
				if k.(int) >= 500 {
					t.Errorf("%d responses were %d", n, k)
				}
				return true
			})
			mixed := 0
			for _, g := range got {
				if g.digest != g.etag || !recorded[g.path][g.digest] {
					mixed++
					if mixed <= 3 {
						t.Errorf("GET %s: bytes %s, ETag %s; no build recorded them for this path", g.path, g.digest, g.etag)
					}
				}
			}
			if len(got) < 100 {
				t.Errorf("only %d good responses of %d; the readers hardly ran", len(got), total)
			}
			retired, last := 0, expected(t, dist)
			named.Range(func(p, _ any) bool {
				if last[p.(string)] == "" {
					retired++
				}
				return true
			})
			if retired == 0 {
				t.Error("no archive of an earlier build was asked for")
			}
			t.Logf("%d requests, %d with 200, %d mixed; %d for archives, %d of them no longer built", total, len(got), mixed, archives.Load(), retired)
		})
	}
}

// pathsOf lists what a client would fetch: the indexes, and every file
// and archive the v0.2 index and mcp/resources.json name, as served now.
func pathsOf(t *testing.T, base string) []string {
	paths := map[string]bool{layout.V2Index: true, layout.MCPResources: true, layout.Checksums: true}
	var res []layout.Resource
	resp, err := http.Get(base + "/" + layout.MCPResources)
	if err == nil {
		json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
	}
	for _, r := range res {
		paths[r.Path] = true
	}
	return slices.Sorted(maps.Keys(paths))
}
