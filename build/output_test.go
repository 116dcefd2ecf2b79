package build

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefusedOutput gives output folders that would destroy something;
// each must be refused with an OutputError that says what to do, before
// anything is written.
func TestRefusedOutput(t *testing.T) {
	root := t.TempDir()
	dist := withPrevious(t, root)
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "hello"), "hello", nil)
	home := filepath.Join(root, "home")
	os.Mkdir(home, 0o755)
	t.Setenv("HOME", home)
	file := filepath.Join(root, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	os.Symlink(dist, filepath.Join(root, "link"))
	elsewhere := t.TempDir()

	for _, c := range []struct {
		name, cwd, out string
		want           []string
	}{
		{"dot", root, ".", []string{"working directory"}},
		{"the working directory's parent", src, root, []string{"working directory"}},
		{"root", elsewhere, "/", []string{"root folder"}},
		{"home", elsewhere, home, []string{"home folder"}},
		{"unexpanded tilde", root, "~", []string{"~", "$HOME"}},
		{"unexpanded tilde path", root, "~/dist", []string{"~", "$HOME"}},
		{"the input", elsewhere, src, []string{"is the input"}},
		{"inside the input", elsewhere, filepath.Join(src, "dist"), []string{"inside the input"}},
		{"containing the input", elsewhere, root, []string{"contains the input"}},
		{"a file", elsewhere, file, []string{"not a folder"}},
		{"below a file", elsewhere, filepath.Join(file, "dist"), []string{file}},
		{"a symlink", elsewhere, filepath.Join(root, "link"), []string{"symbolic link"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(c.cwd)
			before := snapshot(t, root)
			err := mustFail(t, dist, func() (*Result, error) { return Run([]string{src}, Options{Out: c.out}) }, c.want...)
			var oe *OutputError
			if !errors.As(err, &oe) {
				t.Errorf("%v is not an OutputError (exit 2)", err)
			}
			sameTree(t, "the folder around the output", before, snapshot(t, root), true)
			noStaging(t, root)
			noStaging(t, c.cwd)
		})
	}
}

// TestForeignFiles refuses to replace a folder holding files skillpack did
// not write, unless forced.
func TestForeignFiles(t *testing.T) {
	root := t.TempDir()
	dist := withPrevious(t, root)
	src := filepath.Join(root, "good")
	os.WriteFile(filepath.Join(dist, "notes.txt"), []byte("mine"), 0o644)
	os.MkdirAll(filepath.Join(dist, "mcp", "extra"), 0o755)
	os.WriteFile(filepath.Join(dist, "mcp", "extra", "keep.json"), []byte("{}"), 0o644)

	err := mustFail(t, dist, func() (*Result, error) { return Run([]string{src}, Options{Out: dist}) },
		"notes.txt", "mcp/extra/keep.json", "--force")
	var oe *OutputError
	if !errors.As(err, &oe) {
		t.Errorf("%v is not an OutputError", err)
	}

	// A plain folder of someone else's files, with no build record.
	other := filepath.Join(root, "other")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "index.html"), []byte("<p>site</p>"), 0o644)
	mustFail(t, other, func() (*Result, error) { return Run([]string{src}, Options{Out: other}) }, "index.html", "--force")

	res := mustBuild(t, []string{src}, Options{Out: dist, Force: true})
	if _, err := os.Stat(filepath.Join(dist, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("--force kept a foreign file (%v)", err)
	}
	if res.Reused != 0 {
		t.Errorf("reused %d skills from a folder of unknown files", res.Reused)
	}
	noStaging(t, root)
}

// TestUnwritableOutput covers outputs the build cannot write: below /proc,
// on a read-only file system, and on a full disk. The previous bundle must
// survive each.
func TestUnwritableOutput(t *testing.T) {
	t.Run("proc", func(t *testing.T) {
		src := filepath.Join(t.TempDir(), "src")
		writeSkill(t, filepath.Join(src, "hello"), "hello", nil)
		_, err := Run([]string{src}, Options{Out: "/proc/skillpack-test/dist"})
		if err == nil || !strings.Contains(err.Error(), "/proc/skillpack-test") {
			t.Errorf("error %v, want one naming /proc/skillpack-test", err)
		}
	})

	t.Run("read-only", func(t *testing.T) {
		mnt := tmpfs(t, "4m")
		if mnt == "" {
			t.Skip("needs a tmpfs")
		}
		src := filepath.Join(t.TempDir(), "src")
		writeSkill(t, filepath.Join(src, "hello"), "hello", nil)
		dist := filepath.Join(mnt, "dist")
		mustBuild(t, []string{src}, Options{Out: dist})
		if err := syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			t.Skipf("remount read-only: %v", err)
		}
		appendTo(t, filepath.Join(src, "hello", "SKILL.md"), "Changed.\n")
		mustFail(t, dist, func() (*Result, error) { return Run([]string{src}, Options{Out: dist}) }, "read-only file system")
	})

	t.Run("full disk", func(t *testing.T) {
		mnt := tmpfs(t, "1m")
		if mnt == "" {
			t.Skip("needs a tmpfs")
		}
		src := filepath.Join(t.TempDir(), "src")
		writeSkill(t, filepath.Join(src, "hello"), "hello", nil)
		dist := filepath.Join(mnt, "dist")
		mustBuild(t, []string{src}, Options{Out: dist})
		// Incompressible, so neither the copy nor the archives fit.
		noise := make([]byte, 1<<20)
		rand.Read(noise)
		os.MkdirAll(filepath.Join(src, "hello", "assets"), 0o755)
		os.WriteFile(filepath.Join(src, "hello", "assets", "noise.bin"), noise, 0o644)
		mustFail(t, dist, func() (*Result, error) { return Run([]string{src}, Options{Out: dist}) }, "no space left on device")
	})
}
