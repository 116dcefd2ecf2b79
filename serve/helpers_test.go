package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

var (
	distOnce sync.Once
	distDir  string // a pristine bundle of examples/, shared read-only
	distErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if distDir != "" {
		os.RemoveAll(filepath.Dir(distDir))
	}
	os.Exit(code)
}

// pristine returns a bundle built from a copy of examples/, built once
// per test binary. Tests must not change it; use newDist for that.
func pristine(t testing.TB) string {
	t.Helper()
	distOnce.Do(func() {
		tmp, err := os.MkdirTemp("", "serve-test-")
		if err != nil {
			distErr = err
			return
		}
		skills, dist := filepath.Join(tmp, "skills"), filepath.Join(tmp, "dist")
		if distErr = os.CopyFS(skills, os.DirFS("../examples")); distErr == nil {
			_, distErr = build.Run([]string{skills}, build.Options{Out: dist})
		}
		distDir = dist // TestMain removes its folder, built or not
	})
	if distErr != nil {
		t.Fatalf("building the test bundle: %v", distErr)
	}
	return distDir
}

// newDist returns a private copy of the pristine bundle that a test may
// change.
func newDist(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "dist")
	if err := os.CopyFS(dst, os.DirFS(pristine(t))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// newSkills returns a private copy of examples/ and a bundle built from it.
func newSkills(t *testing.T) (skills, dist string) {
	t.Helper()
	tmp := t.TempDir()
	skills = filepath.Join(tmp, "skills")
	if err := os.CopyFS(skills, os.DirFS("../examples")); err != nil {
		t.Fatal(err)
	}
	dist = filepath.Join(tmp, "dist")
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	return skills, dist
}

func open(t testing.TB, dist string) *Held {
	t.Helper()
	b, err := Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// start serves dist over HTTP on a free port of 127.0.0.1 and returns the
// base URL. The server is shut down, and must have returned, when the test
// ends.
func start(t *testing.T, dist string, o Options) (string, *Server) {
	t.Helper()
	return serveBundle(t, open(t, dist), o)
}

// startLogged is start with the server's log kept, to read.
func startLogged(t *testing.T, dist string) (string, *Server, *testtool.Buffer) {
	t.Helper()
	log := &testtool.Buffer{}
	base, s := start(t, dist, Options{Log: slog.New(slog.NewTextHandler(log, nil))})
	return base, s, log
}

// openWith opens a bundle with the snapshot's limits set.
func openWith(t *testing.T, dist string, lim limits) *Held {
	t.Helper()
	b, err := openHeld(dist, nil, lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// serveBundle is start for a bundle already open.
func serveBundle(t *testing.T, b *Held, o Options) (string, *Server) {
	t.Helper()
	s := New(b, o)
	return serveWith(t, s), s
}

// serveWith serves s on a new loopback port until the test ends, and
// returns its base URL.
func serveWith(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, s, ln)
}

// serveOn serves s on ln until the test ends, and returns its base URL.
func serveOn(t *testing.T, s *Server, ln net.Listener) string {
	t.Helper()
	stop := run(s, ln)
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String()
}

// run serves s on ln. stop cancels it and returns what Serve returned, or
// an error if it has not returned within ten seconds.
func run(s *Server, ln net.Listener) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	return func() error {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("Serve: %w", err)
			}
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("Serve did not return after cancel")
		}
	}
}

func readJSON(t *testing.T, dist, p string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// expected lists every path the bundle's documents name with the digest
// they give it, read straight from the documents rather than from serve.
func expected(t *testing.T, dist string) map[string]string {
	t.Helper()
	want := map[string]string{}
	var rs []layout.Resource
	readJSON(t, dist, layout.MCPResources, &rs)
	byPath := map[string]string{}
	for _, r := range rs {
		want[r.Path] = string(r.Digest)
		byPath[r.Path] = string(r.Digest)
	}
	var v2 struct {
		Skills []struct{ Name, Type, URL, Digest string }
	}
	readJSON(t, dist, layout.V2Index, &v2)
	for _, s := range v2.Skills {
		p := layout.SkillsDir + "/" + s.URL
		if byPath[p] != s.Digest {
			t.Fatalf("v0.2 index: %s has %s, resources.json %s", p, s.Digest, byPath[p])
		}
	}
	var v1 struct {
		Skills []struct {
			Name  string
			Files []string
		}
	}
	readJSON(t, dist, layout.V1Index, &v1)
	for _, s := range v1.Skills {
		for _, f := range s.Files {
			want[layout.LegacyFile(s.Name, f)] = byPath[layout.SkillFile(s.Name, f)]
		}
	}
	sums, err := os.ReadFile(filepath.Join(dist, layout.Checksums))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		hex, p, _ := strings.Cut(line, "  ")
		want[p] = "sha256:" + hex
	}
	want[layout.Checksums] = digest(sums)
	if len(v1.Skills) == 0 || len(v2.Skills) == 0 || len(rs) == 0 {
		t.Fatal("the test bundle is empty")
	}
	return want
}

// rewrite replaces bytes in a file of dist, keeping its size when old and
// new have the same length.
func rewrite(t *testing.T, dist, p string, edit func([]byte) []byte) {
	t.Helper()
	full := filepath.Join(dist, filepath.FromSlash(p))
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	out := edit(bytes.Clone(data))
	if bytes.Equal(out, data) {
		t.Fatalf("edit of %s changed nothing", p)
	}
	// Replace, not truncate in place: a bundle's files may be hard links
	// shared with the pristine copy's source.
	tmp := full + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, full); err != nil {
		t.Fatal(err)
	}
}

// flip changes one byte near the end, keeping the size.
func flip(b []byte) []byte {
	i := len(b) - 2
	if b[i] == 'x' {
		b[i] = 'y'
	} else {
		b[i] = 'x'
	}
	return b
}

// isArchive reports whether a dist path is a content-addressed archive.
func isArchive(p string) bool {
	u, ok := layout.ParsePath(p)
	return ok && u.Kind == layout.KindArchive
}
