package build

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/skill"
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
	// Inside the input, folders discovery would read: someone's files, a
	// folder of skills.
	os.MkdirAll(filepath.Join(src, "docs"), 0o755)
	os.WriteFile(filepath.Join(src, "docs", "guide.md"), []byte("# Guide\n"), 0o644)
	writeSkill(t, filepath.Join(src, "more", "other"), "other", nil)
	// A second spelling of root, through a link outside it.
	alias := filepath.Join(elsewhere, "alias")
	os.Symlink(root, alias)

	for _, c := range []struct {
		name, cwd, out string
		roots          []string // default: src
		force          bool
		want           []string
	}{
		{name: "dot", cwd: root, out: ".", want: []string{"working directory"}},
		{name: "the working directory's parent", cwd: src, out: root, want: []string{"working directory"}},
		{name: "root", cwd: elsewhere, out: "/", want: []string{"root folder"}},
		{name: "home", cwd: elsewhere, out: home, want: []string{"home folder"}},
		{name: "unexpanded tilde", cwd: root, out: "~", want: []string{"~", "$HOME"}},
		{name: "unexpanded tilde path", cwd: root, out: "~/dist", want: []string{"~", "$HOME"}},
		{name: "the input", cwd: elsewhere, out: src, want: []string{"is the input"}},
		{name: "the input as .", cwd: src, out: ".", roots: []string{"."}, want: []string{"working directory"}},
		{name: "containing the input", cwd: elsewhere, out: root, want: []string{"contains the input"}},
		{name: "containing the input through a link", cwd: elsewhere, out: root, roots: []string{filepath.Join(alias, "src")}, want: []string{"contains the input"}},
		{name: "containing one of the inputs", cwd: elsewhere, out: filepath.Join(src, "more"), roots: []string{src, filepath.Join(src, "more", "other")}, want: []string{"contains the input"}},
		{name: "a file", cwd: elsewhere, out: file, want: []string{"not a folder"}},
		{name: "below a file", cwd: elsewhere, out: filepath.Join(file, "dist"), want: []string{file}},
		{name: "a symlink", cwd: elsewhere, out: filepath.Join(root, "link"), want: []string{"symbolic link"}},
		{name: "inside a skill of the input", cwd: src, out: filepath.Join("hello", "dist"), roots: []string{"."}, want: []string{"inside the skill hello", "archives"}},
		{name: "inside the skill given", cwd: elsewhere, out: filepath.Join(src, "hello", "dist"), roots: []string{filepath.Join(src, "hello")}, want: []string{"inside the skill"}},
		{name: "inside the skill of a file given", cwd: elsewhere, out: filepath.Join(src, "hello", "dist"), roots: []string{filepath.Join(src, "hello", "SKILL.md")}, want: []string{"inside the skill"}},
		{name: "deep inside a skill", cwd: elsewhere, out: filepath.Join(src, "hello", "a", "b", "dist"), want: []string{"inside the skill"}},
		{name: "inside the input, someone's files", cwd: src, out: "docs", roots: []string{"."}, want: []string{"docs is inside the input", "guide.md", "not a bundle"}},
		{name: "inside the input, someone's files, forced", cwd: src, out: "docs", roots: []string{"."}, force: true, want: []string{"not a bundle"}},
		{name: "inside the input, a folder of skills", cwd: elsewhere, out: filepath.Join(src, "more"), force: true, want: []string{"inside the input", "not a bundle"}},
		{name: "inside the input through a link", cwd: elsewhere, out: filepath.Join(alias, "src", "docs"), want: []string{"inside the input", "not a bundle"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(c.cwd)
			roots := c.roots
			if roots == nil {
				roots = []string{src}
			}
			before := snapshot(t, root)
			err := mustFail(t, dist, func() (*Result, error) { return Run(roots, Options{Out: c.out, Force: c.force}) }, c.want...)
			var oe *OutputError
			if !errors.As(err, &oe) {
				t.Errorf("%v is not an OutputError (exit 2)", err)
			}
			sameTree(t, "the folder around the output", before, snapshot(t, root), true)
			noStaging(t, root)
			noStaging(t, src)
			noStaging(t, c.cwd)
		})
	}
}

// TestOutputInsideInput covers the default, `skillpack build` in a
// repository of skills: the input is ".", the output "dist" inside it.
// That is allowed where discovery skips the output (absent, empty, or a
// bundle), and a rebuild finds the same skills and reuses them all.
func TestOutputInsideInput(t *testing.T) {
	repo := t.TempDir()
	writeSkill(t, filepath.Join(repo, "skills", "hello"), "hello", nil)
	writeSkill(t, filepath.Join(repo, "skills", "tool"), "tool", map[string]string{"scripts/run.sh": "echo hi\n"})
	os.MkdirAll(filepath.Join(repo, "empty"), 0o755)
	t.Chdir(repo)

	for _, c := range []struct{ name, out string }{
		{"absent", "dist"},
		{"absent, below an absent folder", filepath.Join("site", "v1")},
		{"empty", "empty"},
		{"hidden", ".site"},
		{"absolute", filepath.Join(repo, "abs")},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := mustBuild(t, []string{"."}, Options{Out: c.out})
			if len(res.Skills) != 2 || res.Packed+res.Reused != 2 {
				t.Fatalf("built %d skills (%d packed, %d reused), want the 2 of the repository", len(res.Skills), res.Packed, res.Reused)
			}
			if !skill.IsBundle(c.out) {
				t.Fatalf("%s is not a bundle", c.out)
			}
			// Built again: the bundle is skipped, not read as more skills.
			res = mustBuild(t, []string{"."}, Options{Out: c.out})
			if len(res.Skills) != 2 || res.Reused != 2 || !res.UpToDate {
				t.Errorf("rebuild: %d skills, %d reused, up to date %v; want 2, 2, true", len(res.Skills), res.Reused, res.UpToDate)
			}
			// A changed skill: packed again, into the same folder.
			appendTo(t, filepath.Join(repo, "skills", "hello", "SKILL.md"), "More.\n")
			res = mustBuild(t, []string{"."}, Options{Out: c.out})
			if len(res.Skills) != 2 || res.Packed != 1 || res.Reused != 1 {
				t.Errorf("after a change: %d skills, %d packed, %d reused; want 2, 1, 1", len(res.Skills), res.Packed, res.Reused)
			}
			abs, _ := filepath.Abs(c.out)
			noStaging(t, repo)
			noStaging(t, filepath.Dir(abs))
		})
	}

	t.Run("every other bundle in the input", func(t *testing.T) {
		// Other bundles in the repository (all of the above) do not count
		// as skills either: discovery skips each.
		res := mustBuild(t, []string{"skills", "."}, Options{Out: "dist"})
		if len(res.Skills) != 2 {
			t.Errorf("built %d skills, want 2", len(res.Skills))
		}
	})

	t.Run("a bundle holding someone's files", func(t *testing.T) {
		// Skipped by discovery, but a file skillpack did not write still
		// needs --force, as anywhere.
		os.WriteFile(filepath.Join("dist", "notes.txt"), []byte("mine"), 0o644)
		before := snapshot(t, "dist")
		if _, err := Run([]string{"."}, Options{Out: "dist"}); err == nil || !strings.Contains(err.Error(), "--force") {
			t.Errorf("error %v, want one that asks for --force", err)
		}
		sameTree(t, "the bundle", before, snapshot(t, "dist"), true)
		mustBuild(t, []string{"."}, Options{Out: "dist", Force: true})
		if _, err := os.Stat(filepath.Join("dist", "notes.txt")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("--force kept notes.txt (%v)", err)
		}
	})

	t.Run("a finished staging folder", func(t *testing.T) {
		// A bundle left beside the output (a crash after the swap, before
		// the old bundle was removed) is skipped by discovery: no reason
		// to refuse.
		copyTree(t, "dist", ".dist.skillpack-123.old", copyOpts{})
		mustBuild(t, []string{"."}, Options{Out: "dist"})
		os.RemoveAll(".dist.skillpack-123.old")
	})

	t.Run("an interrupted build's staging folder", func(t *testing.T) {
		// Half a bundle, without the marker: its copies of the skills
		// would be found again, so the build stops and says what to do.
		stale := ".dist.skillpack-456"
		copyTree(t, filepath.Join("skills", "hello"), filepath.Join(stale, ".well-known", "skills", "hello"), copyOpts{})
		before := snapshot(t, "dist")
		_, err := Run([]string{"."}, Options{Out: "dist"})
		var oe *OutputError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), "rm -rf "+stale) {
			t.Errorf("error %v, want an OutputError that says to delete %s", err, stale)
		}
		sameTree(t, "the bundle", before, snapshot(t, "dist"), true)
		os.RemoveAll(stale)
		mustBuild(t, []string{"."}, Options{Out: "dist"})
	})
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

// A bundle built inside another's output folder (as the clash's fix once
// suggested, -o dist/discord) is named as another build's bundle, not as
// files skillpack did not write, and the fix is a folder beside it.
func TestNestedBundle(t *testing.T) {
	root := t.TempDir()
	dist := withPrevious(t, root)
	src := filepath.Join(root, "good")
	mustBuild(t, []string{src}, Options{Out: filepath.Join(dist, "plugin")})
	mustFail(t, dist, func() (*Result, error) { return Run([]string{src}, Options{Out: dist}) },
		"holds another build's bundle, in "+filepath.Join(dist, "plugin")+",", "beside this one")
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
		if err := readOnly(mnt); err != nil {
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
