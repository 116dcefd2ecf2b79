package serve

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillpack/skillpack/build"
)

// syncBuffer is a log that the watcher writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWatch edits a skill under a running server and checks that the
// rebuilt bundle is served over HTTP and MCP, and that an edit that
// breaks the build leaves the last good bundle served.
func TestWatch(t *testing.T) {
	skills, dist := newSkills(t)
	log := &syncBuffer{}
	base, s := start(t, dist, Options{Log: slog.New(slog.NewTextHandler(log, nil))})
	c, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	w := NewWatcher([]string{skills}, 20*time.Millisecond)
	go func() {
		done <- s.Watch(c, w, func() error {
			_, err := build.Run([]string{skills}, build.Options{Out: dist})
			return err
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()

	src := filepath.Join(skills, "csv-profiler", "SKILL.md")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	edited := append(orig, "\nOne more line.\n"...)
	if err := os.WriteFile(src, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	get := func() (int, string) {
		resp, err := http.Get(base + "/" + skillMD)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		if code, body := get(); code == 200 && body == string(edited) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the edit was not served within 15 s; log:\n%s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cs := connectHTTP(t, base, "")
	res, err := mcp.CallCustomMethod[*GetSkillParams, *GetSkillResult](ctx(t), cs, MethodGetSkill, &GetSkillParams{URI: "skill://csv-profiler/SKILL.md"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Skill), digest(edited)) {
		t.Errorf("skills/get after the rebuild does not carry the new digest %s: %s", digest(edited), res.Skill)
	}

	// A SKILL.md without frontmatter fails lint: nothing is rebuilt.
	if err := os.WriteFile(src, []byte("no frontmatter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(log.String(), "rebuild failed") {
		if time.Now().After(deadline) {
			t.Fatalf("no failed rebuild logged; log:\n%s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := get(); code != 200 || body != string(edited) {
		t.Errorf("after a failed rebuild: %d %.40q, want the last good bundle", code, body)
	}
}

func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a")
	os.WriteFile(p, []byte("1"), 0o644)
	s1 := snapshot([]string{dir})
	if len(s1) != 2 {
		t.Fatalf("snapshot of a folder with one file: %d entries", len(s1))
	}
	os.WriteFile(p, []byte("12"), 0o644)
	s2 := snapshot([]string{dir})
	os.Chmod(p, 0o755)
	s3 := snapshot([]string{dir})
	os.WriteFile(filepath.Join(dir, "b"), nil, 0o644)
	s4 := snapshot([]string{dir})
	for i, pair := range [][2]map[string]stamp{{s1, s2}, {s2, s3}, {s3, s4}} {
		if equalStamps(pair[0], pair[1]) {
			t.Errorf("change %d went unseen", i+1)
		}
	}
	if !equalStamps(s4, snapshot([]string{dir})) {
		t.Error("two snapshots of an unchanged folder differ")
	}
	if m := snapshot([]string{filepath.Join(dir, "missing")}); len(m) != 1 {
		t.Errorf("a missing root: %v, want one error entry", m)
	}
}

// TestSnapshotSkipsBundles builds into a folder inside the watched skills
// folder, as `skillpack build` then `skillpack serve dist --watch .` do: a
// build that changes nothing a build reads must not look like a change,
// or each rebuild would trigger the next.
func TestSnapshotSkipsBundles(t *testing.T) {
	skills, _ := newSkills(t)
	dist := filepath.Join(skills, "dist")
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	before := snapshot([]string{skills})
	for k := range before {
		if strings.HasPrefix(k, dist) {
			t.Fatalf("the snapshot holds %s, in the bundle", k)
		}
	}
	// A no-op rebuild (which still makes and removes its staging folder
	// beside dist), and a rebuild after an edit that is undone.
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	if !equalStamps(before, snapshot([]string{skills})) {
		t.Error("a no-op rebuild into the skills folder changed the snapshot")
	}
	os.Mkdir(filepath.Join(skills, ".dist.skillpack-123"), 0o755)
	if !equalStamps(before, snapshot([]string{skills})) {
		t.Error("a staging folder changed the snapshot")
	}
	os.WriteFile(filepath.Join(skills, "csv-profiler", "notes.md"), []byte("new\n"), 0o644)
	if equalStamps(before, snapshot([]string{skills})) {
		t.Error("a new file in a skill went unseen")
	}
}

func equalStamps(a, b map[string]stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
