package build

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/pack"
)

// writeSkill writes a skill folder: SKILL.md with the name and a
// description, plus files (path -> content).
func writeSkill(t testing.TB, dir, name string, files map[string]string) {
	t.Helper()
	all := map[string]string{"SKILL.md": "---\nname: " + name + "\ndescription: Test skill " + name + " that does one small thing for the tests.\n---\n# " + name + "\n\nDo the thing.\n"}
	for p, c := range files {
		all[p] = c
	}
	testtool.WriteTree(t, dir, all)
}

// withPrevious builds one good skill into root/dist and returns the dist
// path: the bundle a failing build must leave exactly as it was.
func withPrevious(t testing.TB, root string) string {
	t.Helper()
	good := filepath.Join(root, "good")
	writeSkill(t, filepath.Join(good, "hello"), "hello", map[string]string{"notes/a.md": "A\n"})
	dist := filepath.Join(root, "dist")
	mustBuild(t, []string{good}, Options{Out: dist})
	return dist
}

// mustFail runs a build that must fail with an error (or a finding)
// mentioning every one of want, leave the previous bundle in dist exactly
// as it was, and leave no staging folder beside it.
func mustFail(t *testing.T, dist string, run func() (*Result, error), want ...string) error {
	t.Helper()
	before := snapshot(t, dist)
	res, err := run()
	if err == nil {
		t.Fatalf("the build succeeded; want an error mentioning %q", want)
	}
	t.Logf("refused: %v", err)
	msg := err.Error()
	if res != nil {
		for _, f := range res.Findings {
			// Findings are relative to the working folder; wants are
			// absolute, wherever the test runs from.
			p, _ := filepath.Abs(f.Path)
			msg += "\n" + p + ": " + f.Message
		}
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
	sameTree(t, "the previous bundle after a failed build", before, snapshot(t, dist), true)
	noStaging(t, filepath.Dir(dist))
	return err
}

func TestDuplicateNames(t *testing.T) {
	root := t.TempDir()
	dist := withPrevious(t, root)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeSkill(t, filepath.Join(a, "dup"), "dup", nil)
	writeSkill(t, filepath.Join(b, "dup"), "dup", map[string]string{"notes.md": "not a copy of a/dup\n"}) // identical copies are one skill
	mustFail(t, dist, func() (*Result, error) { return Run([]string{a, b}, Options{Out: dist}) },
		"dup", filepath.Join("a", "dup"), filepath.Join("b", "dup"))
}

func TestPathTooLongForUSTAR(t *testing.T) {
	root := t.TempDir()
	dist := withPrevious(t, root)
	long := strings.Repeat("x", 120) + ".md" // no '/' to split at: it cannot fit
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "long"), "long", map[string]string{long: "x\n"})
	err := mustFail(t, dist, func() (*Result, error) { return Run([]string{src}, Options{Out: dist}) }, long, "USTAR")
	if got := err.Error(); got != "1 lint error; nothing was written" {
		t.Errorf("error %q", got)
	}
}

func TestFIFO(t *testing.T) {
	root := t.TempDir()
	dist := withPrevious(t, root)
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "piped"), "piped", nil)
	if err := mkfifo(filepath.Join(src, "piped", "pipe.md")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Opening a FIFO with no writer must not hang the build.
	mustFail(t, dist, func() (*Result, error) { return Run([]string{src}, Options{Out: dist}) }, "pipe.md")
}

// runChanging runs the pipeline as Run does, with change applied to the
// skill named when its files have been collected and before they are read:
// the window in which a file can change or vanish under a real build (a
// skill the record may reuse is read by hashing, a new one by packing).
func runChanging(roots []string, o Options, skill string, change func()) (*Result, error) {
	if o.Jobs == 0 {
		o.Jobs = 2
	}
	old := onCollected
	onCollected = func(name string) {
		if name == skill {
			change()
		}
	}
	defer func() { onCollected = old }()
	return Run(roots, o)
}

func TestFileChangesDuringBuild(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, path string)
		want   string
	}{
		{"grows", func(t *testing.T, p string) { appendTo(t, p, "more\n") }, "changed while it was being packed"},
		{"shrinks", func(t *testing.T, p string) { os.Truncate(p, 1) }, "changed while it was being packed"},
		{"disappears", func(t *testing.T, p string) { os.Remove(p) }, "no such file"},
		{"becomes a folder", func(t *testing.T, p string) { os.Remove(p); os.Mkdir(p, 0o755) }, "is a directory"},
		{"becomes a FIFO", func(t *testing.T, p string) { os.Remove(p); mkfifo(p) }, "changed while it was being packed"},
	} {
		for _, reuse := range []bool{false, true} {
			name := c.name
			if reuse {
				name += " (reusing)"
			}
			t.Run(name, func(t *testing.T) {
				root := t.TempDir()
				src := filepath.Join(root, "src")
				writeSkill(t, filepath.Join(src, "hello"), "hello", map[string]string{"notes/a.md": "A\n"})
				writeSkill(t, filepath.Join(src, "other"), "other", map[string]string{"b.md": "B\n"})
				dist := filepath.Join(root, "dist")
				mustBuild(t, []string{src}, Options{Out: dist})
				if !reuse {
					// Change the skill first, so that it is packed afresh.
					appendTo(t, filepath.Join(src, "hello", "SKILL.md"), "More.\n")
				}
				target := filepath.Join(src, "hello", "notes", "a.md")
				err := mustFail(t, dist, func() (*Result, error) {
					return runChanging([]string{src}, Options{Out: dist}, "hello", func() { c.change(t, target) })
				}, target, c.want)
				// Not skillpack's fault: exit 1, as a failed check.
				if ce := (*InputChangedError)(nil); strings.Contains(c.want, "changed while") && (!errors.As(err, &ce) || ce.ExitClass() != 1) {
					t.Errorf("%v: not an InputChangedError", err)
				}
			})
		}
	}
}

// A file lint read whole is packed from those bytes, not read again; one
// rewritten since (the same size, a new time) is refused, so that what is
// packed is what lint checked.
func TestFileChangesAfterLint(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "hello"), "hello", map[string]string{"notes/a.md": "A\n"})
	target := filepath.Join(src, "hello", "notes", "a.md")
	dist := filepath.Join(root, "dist")
	mustBuild(t, []string{src}, Options{Out: dist})
	appendTo(t, filepath.Join(src, "hello", "SKILL.md"), "More.\n") // packed afresh
	changed := false
	// SKILL.md, read again to be packed, is packed first: its served copy
	// is wrapped after lint, before notes/a.md is packed.
	withSeam(t, &wrapServed, func(w io.Writer) io.Writer {
		if !changed {
			changed = true
			os.WriteFile(target, []byte("B\n"), 0o644)
			later := time.Now().Add(time.Hour)
			os.Chtimes(target, later, later)
		}
		return w
	})
	mustFail(t, dist, func() (*Result, error) { return Run([]string{src}, Options{Out: dist}) }, target, "changed while it was being packed")
}

// SKILL.md, read whole to be parsed, is packed from those bytes too; one
// rewritten since (the same size, a new time) is refused.
func TestSkillMDChangesAfterRead(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "hello"), "hello", nil)
	target := filepath.Join(src, "hello", "SKILL.md")
	dist := filepath.Join(root, "dist")
	mustBuild(t, []string{src}, Options{Out: dist})
	appendTo(t, target, "More.\n") // packed afresh
	mustFail(t, dist, func() (*Result, error) {
		return runChanging([]string{src}, Options{Out: dist}, "hello", func() {
			data, _ := os.ReadFile(target)
			os.WriteFile(target, bytes.Replace(data, []byte("More."), []byte("Less."), 1), 0o644)
			later := time.Now().Add(time.Hour)
			os.Chtimes(target, later, later)
		})
	}, target, "changed while it was being packed")
}

func appendTo(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(text)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHugeAsset packs the largest file a bundle may hold (a sparse file of
// pack.MaxFile bytes; one byte more is a finding, TestRefusalsAreFindings):
// the build must stream it (read once, never held in memory) and write
// archives that read back. It is built in a tmpfs where one can be
// mounted, else as a dry run that writes nothing.
func TestHugeAsset(t *testing.T) {
	if testing.Short() {
		t.Skip("packs 64 MiB")
	}
	root := tmpfs(t, "512m")
	dry := root == ""
	if dry {
		root = t.TempDir()
	}
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "big"), "big", nil)
	big := filepath.Join(src, "big", "assets", "blob.bin")
	os.MkdirAll(filepath.Dir(big), 0o755)
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	const size = pack.MaxFile
	if err := f.Truncate(size); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	f.WriteAt([]byte("end\n"), size-4)
	f.Close()

	// Garbage collected often, what the heap holds is what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := watchHeap()
	dist := filepath.Join(root, "dist")
	res, err := Run([]string{src}, Options{Out: dist, NoLegacy: true, DryRun: dry, Inventory: true})
	maxHeap := peak()
	if err != nil {
		t.Fatalf("a file of the largest size failed the build: %v", err)
	}
	// Other tests run at once and share the heap: only holding the file
	// whole is sure to cross this.
	if maxHeap > before.HeapAlloc+size {
		t.Errorf("heap peaked at %d MiB packing a %d MiB file: the build does not stream", maxHeap>>20, size>>20)
	}
	s := res.Skills[0]
	if s.Size < size || s.TarGz.Size <= 0 || s.Zip.Size <= 0 {
		t.Errorf("skill size %d, archives %d and %d bytes", s.Size, s.TarGz.Size, s.Zip.Size)
	}
	if dry {
		t.Log("dry run: the archives were not written, so they are not read back")
		return
	}
	// Read the archives back: the big member's length and last bytes.
	for _, p := range []string{s.TarGz.Path, s.Zip.Path} {
		if n, tail := bigMember(t, filepath.Join(dist, p), "assets/blob.bin"); n != size || tail != "end\n" {
			t.Errorf("%s: assets/blob.bin is %d bytes ending %q, want %d ending \"end\\n\"", p, n, tail, int64(size))
		}
	}
	if info, err := os.Stat(filepath.Join(dist, ".well-known/agent-skills/big/assets/blob.bin")); err != nil || info.Size() != size {
		t.Errorf("served copy: %v %v", info, err)
	}
}

// watchHeap samples the heap until the returned function is called, which
// returns the largest HeapAlloc seen.
func watchHeap() func() uint64 {
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var peak uint64
		var m runtime.MemStats
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}

// bigMember streams one member of a .tar.gz or .zip and returns its length
// and last four bytes.
func bigMember(t *testing.T, path, name string) (int64, string) {
	t.Helper()
	var r io.Reader
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			if f.Name == name {
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				defer rc.Close()
				r = rc
			}
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err != nil {
				t.Fatalf("%s: no %s: %v", path, name, err)
			}
			if h.Name == name {
				r = tr
				break
			}
		}
	}
	if r == nil {
		t.Fatalf("%s: no %s", path, name)
	}
	var tail tailWriter
	n, err := io.Copy(&tail, r)
	if err != nil {
		t.Fatalf("%s: %s: %v", path, name, err)
	}
	return n, string(tail.last[:])
}

// tailWriter keeps the last four bytes written to it.
type tailWriter struct{ last [4]byte }

func (w *tailWriter) Write(p []byte) (int, error) {
	if len(p) >= 4 {
		copy(w.last[:], p[len(p)-4:])
	} else {
		n := copy(w.last[:], w.last[len(p):])
		copy(w.last[n:], p)
	}
	return len(p), nil
}

// TestUnreadableFile: a file the build cannot read stops it with an error
// naming the file, and the previous bundle stays. Root reads past any
// permission bits, so as root the file is /proc/self/mem bind-mounted in
// place: a regular file whose first read fails with EIO.
func TestUnreadableFile(t *testing.T) {
	root := t.TempDir()
	dist := withPrevious(t, root)
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "hello"), "hello", map[string]string{"notes/a.md": "A\n"})
	target := filepath.Join(src, "hello", "notes", "a.md")
	if os.Geteuid() == 0 {
		if err := bindMount(t, "/proc/self/mem", target); err != nil {
			t.Skipf("cannot bind-mount over %s: %v", target, err)
		}
		if _, err := os.ReadFile(target); err == nil {
			t.Skip("/proc/self/mem reads here")
		}
	} else {
		os.Chmod(target, 0)
		t.Cleanup(func() { os.Chmod(target, 0o644) })
	}
	mustFail(t, dist, func() (*Result, error) { return Run([]string{src}, Options{Out: dist}) }, target)
}

// A link to a file or folder elsewhere in the repository (a shared
// LICENSE, a folder of references) is published as a copy of its target,
// as the Vercel skills CLI and Claude Code install it, and a rebuild sees
// the target change; a link out of the repository is refused.
func TestRepositoryLinks(t *testing.T) {
	testtool.Need(t, "git")
	root := t.TempDir()
	repo, dist := filepath.Join(root, "repo"), filepath.Join(root, "dist")
	writeSkill(t, filepath.Join(repo, "skills", "pdf"), "pdf", nil)
	testtool.WriteTree(t, root, map[string]string{"repo/LICENSE": "v1\n", "repo/shared/a.md": "# a\n", "outside.txt": "secret\n"})
	for name, target := range map[string]string{"LICENSE": "../../LICENSE", "shared": "../../shared"} {
		if err := os.Symlink(target, filepath.Join(repo, "skills", "pdf", name)); err != nil {
			t.Fatal(err)
		}
	}
	testtool.Git(t, repo, "init", "-q")
	archived := func(want string) {
		t.Helper()
		res := mustBuild(t, []string{repo}, Options{Out: dist})
		got := map[string]string{}
		for _, e := range readTarGz(t, filepath.Join(dist, res.Skills[0].TarGz.Path), epoch1980) {
			got[e.Name] = e.Data
		}
		if got["LICENSE"] != want || got["shared/a.md"] != "# a\n" {
			t.Errorf("archive holds LICENSE %q and shared/a.md %q; want %q and the shared file", got["LICENSE"], got["shared/a.md"], want)
		}
	}
	archived("v1\n")
	if err := os.WriteFile(filepath.Join(repo, "LICENSE"), []byte("v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	archived("v2\n")

	if err := os.Symlink("../../../outside.txt", filepath.Join(repo, "skills", "pdf", "notes.txt")); err != nil {
		t.Fatal(err)
	}
	res, err := Run([]string{repo}, Options{Out: dist})
	var le *LintError
	if !errors.As(err, &le) {
		t.Fatalf("build with a link out of the repository: %v, want lint errors", err)
	}
	wantFinding(t, res.Findings, "symlink-escape", "skills/pdf/notes.txt", "points outside the repository")
}
