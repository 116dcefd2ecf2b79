package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// TestWatch edits a skill under a running server and checks that the
// rebuilt bundle is served over HTTP and MCP, and that an edit that
// breaks the build leaves the last good bundle served.
func TestWatch(t *testing.T) {
	skills, dist := newSkills(t)
	base, s, log := startLogged(t, dist)
	c, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	w := NewWatcher([]string{skills}, 20*time.Millisecond)
	go func() {
		done <- s.Watch(c, w, func(ctx context.Context) error {
			_, err := build.RunContext(ctx, []string{skills}, build.Options{Out: dist})
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

// TestFollow rebuilds the served folder from outside, as a user running
// `skillpack build` beside the server does: the new build is served once
// complete; a new build that fails its checks is logged once and the
// previous bundle stays; Reload (SIGHUP) takes the folder as it is.
func TestFollow(t *testing.T) {
	skills, dist := newSkills(t)
	base, s, log := startLogged(t, dist)
	c, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Follow(c, 10*time.Millisecond)
	body := func() string {
		resp, err := http.Get(base + "/" + skillMD)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	waitFor := func(what string, ok func() bool) { t.Helper(); eventually(t, what, ok, log) }
	src := filepath.Join(skills, "csv-profiler", "SKILL.md")
	orig, _ := os.ReadFile(src)
	edited := append(bytes.Clone(orig), "\nFollowed.\n"...)
	os.WriteFile(src, edited, 0o644)
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	waitFor("the new build served", func() bool { return body() == string(edited) })

	// A new build tampered with before it is swapped in: not served,
	// logged once. (The file tampered with is one the served bundle does
	// not hold: bytes it holds by digest are served from memory, so their
	// copy on disk does not matter.)
	os.WriteFile(src, orig, 0o644)
	next := filepath.Join(t.TempDir(), "next")
	if _, err := build.Run([]string{skills}, build.Options{Out: next}); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(filepath.Join(next, filepath.FromSlash(skillMD)))
	rewrite(t, next, skillMD, flip)
	if err := os.Rename(dist, dist+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, dist); err != nil {
		t.Fatal(err)
	}
	waitFor("the bad build logged", func() bool { return strings.Contains(log.String(), "is not served") })
	time.Sleep(100 * time.Millisecond) // ten more polls
	if n := strings.Count(log.String(), "a new build in"); n != 1 || body() != string(edited) {
		t.Errorf("a bad new build: logged %d times, served %.30q; want once, and the previous bundle", n, body())
	}
	if err := s.Reload(); err == nil || !strings.Contains(err.Error(), "changed since the build") {
		t.Errorf("Reload of the bad build: %v, want the reason", err)
	}
	rewrite(t, dist, skillMD, func([]byte) []byte { return good }) // the bytes the build recorded
	if err := s.Reload(); err != nil || body() != string(orig) {
		t.Errorf("Reload after the repair: %v, serving %.30q", err, body())
	}
}

// TestWatcherNotices checks what a Watcher reports: an edit, a file in a
// folder made after it started, and nothing for a build into a bundle
// inside the tree; and that polling reports the same.
func TestWatcherNotices(t *testing.T) {
	for _, mode := range []string{"notify", "poll"} {
		t.Run(mode, func(t *testing.T) {
			skills, _ := newSkills(t)
			w := watcher(t, mode, skills)
			md := filepath.Join(skills, "csv-profiler", "SKILL.md")
			orig, _ := os.ReadFile(md)
			os.WriteFile(md, append(orig, "\nEdited.\n"...), 0o644)
			if !changedWithin(w, 5*time.Second) {
				t.Fatal("an edit went unseen")
			}
			dir := filepath.Join(skills, "csv-profiler", "new", "deeper")
			os.MkdirAll(dir, 0o755)
			if !changedWithin(w, 5*time.Second) {
				t.Fatal("a new folder went unseen")
			}
			time.Sleep(50 * time.Millisecond)
			os.WriteFile(filepath.Join(dir, "a.md"), []byte("x\n"), 0o644)
			if !changedWithin(w, 5*time.Second) {
				t.Fatal("a file in a new folder went unseen")
			}
			// The folder replaced whole (rm -rf and a copy, a checkout):
			// its new tree is watched.
			time.Sleep(50 * time.Millisecond)
			moved := skills + ".old"
			if err := os.Rename(skills, moved); err != nil {
				t.Fatal(err)
			}
			changedWithin(w, 5*time.Second) // the folder gone: a failed rebuild
			if err := os.CopyFS(skills, os.DirFS(moved)); err != nil {
				t.Fatal(err)
			}
			if !changedWithin(w, 5*time.Second) {
				t.Fatal("the folder made again went unseen")
			}
			time.Sleep(50 * time.Millisecond)
			os.WriteFile(md, append(orig, "\nEdited again.\n"...), 0o644)
			if !changedWithin(w, 5*time.Second) {
				t.Fatal("an edit in the folder made again went unseen")
			}
			os.RemoveAll(moved)
			// A bundle built inside the tree, twice, and a staging folder.
			dist := filepath.Join(skills, "dist")
			for range 2 {
				if _, err := build.Run([]string{filepath.Join(skills, "csv-profiler")}, build.Options{Out: dist}); err != nil {
					t.Fatal(err)
				}
			}
			os.Mkdir(filepath.Join(skills, ".dist.skillpack-9"), 0o755)
			if changedWithin(w, 300*time.Millisecond) {
				t.Error("a build into a bundle inside the tree was taken for an edit")
			}
			// The file the process logs to, in the tree (serve dist
			// --watch . > serve.log): its lines are no edit.
			log, err := os.Create(filepath.Join(skills, "serve.log"))
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			old := stdFiles
			stdFiles = []*os.File{log}
			defer func() { stdFiles = old }()
			changedWithin(w, 300*time.Millisecond) // the file made
			for range 3 {
				fmt.Fprintln(log, "• write: dist is up to date")
				if changedWithin(w, 200*time.Millisecond) {
					t.Fatal("a line written to the process's own log was taken for an edit")
				}
			}
		})
	}
}

// TestWatcherWaitsForGit changes a skill while git holds its index's
// lock, as it does through a checkout: no change is reported until the
// lock is gone, for .git a folder and a file naming the git dir (a linked
// work tree, a submodule), notified and polling.
func TestWatcherWaitsForGit(t *testing.T) {
	for _, mode := range []string{"notify", "poll"} {
		for _, dotgit := range []string{"folder", "file"} {
			t.Run(mode+"/"+dotgit, func(t *testing.T) {
				repo := t.TempDir()
				skills := filepath.Join(repo, "skills")
				if err := os.CopyFS(skills, os.DirFS("../examples")); err != nil {
					t.Fatal(err)
				}
				gitdir := filepath.Join(repo, ".git")
				if dotgit == "file" {
					gitdir = filepath.Join(repo, "main", ".git", "worktrees", "w")
					os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: main/.git/worktrees/w\n"), 0o644)
				}
				if err := os.MkdirAll(gitdir, 0o755); err != nil {
					t.Fatal(err)
				}
				lock := filepath.Join(gitdir, "index.lock")
				os.WriteFile(lock, nil, 0o644)
				w := watcher(t, mode, skills)
				var said []string
				w.logf = func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }
				md := filepath.Join(skills, "csv-profiler", "SKILL.md")
				orig, _ := os.ReadFile(md)
				os.WriteFile(md, append(orig, "\nChecked out.\n"...), 0o644)
				if changedWithin(w, 300*time.Millisecond) {
					t.Fatal("a change was reported while git held index.lock")
				}
				// Said once, naming the lock: a killed git's stays until removed.
				if len(said) != 1 || !strings.Contains(said[0], lock) {
					t.Errorf("while waiting, the watcher said %q; want one line naming %s", said, lock)
				}
				os.Remove(lock)
				if !changedWithin(w, 5*time.Second) {
					t.Fatal("the change went unreported once git let go of index.lock")
				}
			})
		}
	}
}

// watch runs s.Watch over skills with rebuild until the test ends.
func watch(t *testing.T, s *Server, skills string, rebuild func(context.Context) error) {
	t.Helper()
	w := watcher(t, "notify", skills)
	c, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Watch(c, w, rebuild) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// eventually fails the test unless ok holds within 10 s.
func eventually(t *testing.T, what string, ok func() bool, log fmt.Stringer) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s; log:\n%s", what, log)
		}
	}
}

// TestWatchDropsChanged changes a skill while a rebuild runs, as a
// checkout does: the watcher stops that build before it is swapped in
// (it may have read half the checkout), the previous bundle stays served,
// and the drop is logged as what it is, not as a failed rebuild; the next
// build, once the tree is quiet, is served.
func TestWatchDropsChanged(t *testing.T) {
	skills, dist := newSkills(t)
	base, s, log := startLogged(t, dist)
	md := filepath.Join(skills, "csv-profiler", "SKILL.md")
	orig, _ := os.ReadFile(md)
	during := append(bytes.Clone(orig), "\nEdited during a build.\n"...)
	record := filepath.Join(dist, filepath.FromSlash(layout.BuildRecord))
	before, _ := os.Stat(record)
	first := make(chan error, 1)
	n := 0
	watch(t, s, skills, func(ctx context.Context) error {
		if n++; n == 1 {
			os.WriteFile(md, during, 0o644)
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
				t.Error("a change during the rebuild did not stop it")
			}
		}
		_, err := build.RunContext(ctx, []string{skills}, build.Options{Out: dist})
		if n == 1 {
			first <- err
		}
		return err
	})
	os.WriteFile(md, append(bytes.Clone(orig), "\nEdited.\n"...), 0o644) // the first rebuild
	select {
	case err := <-first:
		if err == nil {
			t.Error("the build the skills changed under ran to its end")
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no rebuild; log:\n%s", log)
	}
	if after, err := os.Stat(record); err != nil || !os.SameFile(before, after) {
		t.Error("the build the skills changed under was swapped in")
	}
	if _, body := get(t, base+"/"+skillMD); !bytes.Equal(body, orig) {
		t.Errorf("after the dropped build: serving %.40q, want the previous bundle", body)
	}
	eventually(t, "the quiet tree's build served", func() bool {
		_, body := get(t, base+"/"+skillMD)
		return bytes.Equal(body, during)
	}, log)
	if got := log.String(); strings.Count(got, errChanged.Error()) != 1 || strings.Contains(got, "rebuild failed") {
		t.Errorf("want the drop logged once, and no failure; log:\n%s", got)
	}
}

// TestWatchChangingTree changes the skills under every rebuild, as a
// program writing into the tree does: after maxDropped drops, the next
// rebuild is served as it is, and that is said once, so that such a tree
// is served rather than rebuilt for ever.
func TestWatchChangingTree(t *testing.T) {
	skills, dist := newSkills(t)
	base, s, log := startLogged(t, dist)
	md := filepath.Join(skills, "csv-profiler", "SKILL.md")
	orig, _ := os.ReadFile(md)
	edit := func(k int) []byte { return fmt.Appendf(bytes.Clone(orig), "\nEdit %d.\n", k) }
	const served = "keep changing"
	n := 0
	watch(t, s, skills, func(ctx context.Context) error {
		switch n++; {
		case n <= maxDropped:
			os.WriteFile(md, edit(n), 0o644)
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
				t.Errorf("rebuild %d: a change during it did not stop it", n)
			}
		case n == maxDropped+1:
			// Once the watcher has seen this change (it says so), the
			// build goes on.
			os.WriteFile(md, edit(n), 0o644)
			for deadline := time.Now().Add(5 * time.Second); !strings.Contains(log.String(), served); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Errorf("rebuild %d: no %q logged", n, served)
					break
				}
			}
		}
		_, err := build.RunContext(ctx, []string{skills}, build.Options{Out: dist})
		return err
	})
	os.WriteFile(md, edit(0), 0o644)
	eventually(t, "the rebuild after the drops served", func() bool {
		_, body := get(t, base+"/"+skillMD)
		return bytes.Equal(body, edit(maxDropped+1))
	}, log)
	got := log.String()
	if strings.Count(got, errChanged.Error()) != 1 || strings.Count(got, served) != 1 || strings.Contains(got, "rebuild failed") {
		t.Errorf("want the drops and the rebuild served anyway logged once each, and no failure; log:\n%s", got)
	}
}

// Watching a repository's root, git's own files are no edit: a `git
// status` (an editor runs one every few seconds) rewrites the index.
func TestWatcherIgnoresGit(t *testing.T) {
	repo := t.TempDir()
	if err := os.CopyFS(filepath.Join(repo, "skills"), os.DirFS("../examples")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(repo, ".git", "refs"), 0o755)
	w := watcher(t, "notify", repo)
	os.WriteFile(filepath.Join(repo, ".git", "index"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(repo, ".git", "refs", "HEAD"), []byte("x"), 0o644)
	if changedWithin(w, 300*time.Millisecond) {
		t.Fatal("a write in .git was taken for an edit")
	}
	os.WriteFile(filepath.Join(repo, "skills", "csv-profiler", "notes.md"), []byte("x"), 0o644)
	if !changedWithin(w, 5*time.Second) {
		t.Fatal("an edit went unreported")
	}
}

// watcher is a Watcher of roots, closed when the test ends, that polls
// (mode "poll") or is notified ("notify": the test skips where the system
// cannot notify).
func watcher(t *testing.T, mode string, roots ...string) *Watcher {
	t.Helper()
	w := NewWatcher(roots, 10*time.Millisecond)
	t.Cleanup(func() { w.Close() })
	if mode == "poll" {
		w.poll(errors.New("as asked"))
	} else if w.Polling != "" {
		t.Skip(w.Polling)
	}
	return w
}

// changedWithin reports whether w reports a change within d.
func changedWithin(w *Watcher, d time.Duration) bool {
	c, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return w.wait(c)
}
