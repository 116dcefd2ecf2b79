package skill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
)

// symlink makes a link at root/name pointing at target (as written).
func symlink(t *testing.T, root, name, target string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("cannot make symlinks here: %v", err)
	}
}

const skillMD = "---\nname: s\ndescription: A test skill that does nothing at all.\n---\nbody\n"

func paths(fs []File) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

func TestIsJunk(t *testing.T) {
	tests := []struct {
		name  string
		dir   bool
		want  bool
		label string
	}{
		{".DS_Store", false, true, "macOS folder metadata"},
		{"Thumbs.db", false, true, "Windows thumbnails"},
		{"desktop.ini", false, true, "Windows folder settings"},
		{"mod.pyc", false, true, "Python bytecode"},
		{"mod.pyo", false, true, "Python bytecode"},
		{"__pycache__", true, true, "Python cache folder"},
		{".git", true, true, "a repository"},
		{".git", false, true, "a worktree's .git file"},
		{".hg", true, true, "Mercurial"},
		{".svn", true, true, "Subversion"},
		{".SKILL.md.swp", false, true, "vim swap"},
		{".x.swo", false, true, "vim swap"},
		{".x.swn", false, true, "vim swap"},
		{"notes.md~", false, true, "emacs backup"},
		{".#notes.md", false, true, "emacs lock"},
		{"#notes.md#", false, true, "emacs autosave"},
		{"#", false, false, "a lone #"},
		{"##", false, false, "too short for autosave"},
		{"SKILL.md", false, false, "the entry file"},
		{"script.py", false, false, "source"},
		{"__pycache__", false, false, "a file of that name is no cache"},
		{".DS_Store", true, false, "a folder of that name is odd but not junk"},
		{"node_modules", true, false, "dependencies are for .skillignore to decide"},
		{".github", true, false, "not a repository"},
		{"pyc", false, false, "no dot"},
	}
	for _, tt := range tests {
		if got := IsJunk(tt.name, tt.dir); got != tt.want {
			t.Errorf("IsJunk(%q, dir=%v) = %v, want %v (%s)", tt.name, tt.dir, got, tt.want, tt.label)
		}
	}
}

func TestCollect(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{
		"SKILL.md":          skillMD,
		IgnoreFile:          "# build output\nbuild/\n*.log\n!keep.log\ndocs/**/draft.md\n/top.txt\n!" + IgnoreFile + "\n",
		"a-b.txt":           "ab",
		"a/x.txt":           "x",
		"build/o.b":         "bin",
		"x.log":             "log",
		"keep.log":          "kept",
		"top.txt":           "top",
		"sub/top.txt":       "nested top",
		"docs/draft.md":     "d",
		"docs/sub/draft.md": "d",
		"docs/guide.md":     "guide",
		".DS_Store":         "",
		"__pycache__/m.pyc": "",
		"notes.txt~":        "",
		".git/HEAD":         "ref: x",
		"scripts/run.sh":    "#!/bin/sh\necho hi\n",
		"empty/":            "",
	})
	if err := os.Chmod(filepath.Join(dir, "scripts", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	fs, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SKILL.md", "a-b.txt", "a/x.txt", "docs/guide.md", "keep.log", "scripts/run.sh", "sub/top.txt"}
	if got := paths(fs.Files); !reflect.DeepEqual(got, want) {
		t.Errorf("Files = %q\nwant    %q", got, want)
	}
	if want := []string{".DS_Store", ".git/", "__pycache__/", "notes.txt~"}; !reflect.DeepEqual(fs.Junk, want) {
		t.Errorf("Junk = %q, want %q", fs.Junk, want)
	}
	if want := []string{"build/", "docs/draft.md", "docs/sub/draft.md", "top.txt", "x.log"}; !reflect.DeepEqual(fs.Ignored, want) {
		t.Errorf("Ignored = %q, want %q", fs.Ignored, want)
	}
	if len(fs.Refused) != 0 {
		t.Errorf("Refused = %v", fs.Refused)
	}
	real, _ := filepath.EvalSymlinks(dir)
	for _, f := range fs.Files {
		if f.Link {
			t.Errorf("%s: Link set on a plain file", f.Path)
		}
		if want := filepath.Join(real, filepath.FromSlash(f.Path)); f.Disk != want {
			t.Errorf("%s: Disk = %s, want %s", f.Path, f.Disk, want)
		}
		info, err := os.Stat(f.Disk)
		if err != nil || info.Size() != f.Size {
			t.Errorf("%s: Size = %d, file has %v (%v)", f.Path, f.Size, info, err)
		}
		if runtime.GOOS == "windows" {
			continue
		}
		if exec := f.Path == "scripts/run.sh"; f.Exec() != exec || (exec && f.Mode != 0o755) {
			t.Errorf("%s: Mode = %v, Exec = %v", f.Path, f.Mode, f.Exec())
		}
	}
}

// A skill that is a repository (a .git beside SKILL.md) does not publish
// the repository's .github/, skillpack.yaml and baseline; its .gitignore and .gitattributes, which git
// reads in any folder it is installed in, it does. In a skill that is no
// repository's root, .github/ is a folder like any other.
func TestCollectRepoPlumbing(t *testing.T) {
	for _, repo := range []bool{true, false} {
		dir := t.TempDir()
		files := map[string]string{
			"SKILL.md": skillMD, ".gitignore": "data/\n", ".gitattributes": "*.sh text eol=lf\n",
			".github/workflows/ci.yml": "on: push\n", "docs/.github/x.md": "x", "skillpack.yaml": "profile: claude\n", ".skillpack-baseline.json": "{}",
		}
		if repo {
			files[".git/HEAD"] = "ref: refs/heads/main\n"
		}
		testtool.WriteTree(t, dir, files)
		fs, err := Collect(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, junk := []string{".gitattributes", ".gitignore", "SKILL.md", "docs/.github/x.md"}, []string{".git/", ".github/", ".skillpack-baseline.json", "skillpack.yaml"}
		if !repo {
			want, junk = []string{".gitattributes", ".github/workflows/ci.yml", ".gitignore", ".skillpack-baseline.json", "SKILL.md", "docs/.github/x.md", "skillpack.yaml"}, nil
		}
		if got := paths(fs.Files); !reflect.DeepEqual(got, want) {
			t.Errorf("repository %t: Files = %q, want %q", repo, got, want)
		}
		if !reflect.DeepEqual(fs.Junk, junk) {
			t.Errorf("repository %t: Junk = %q, want %q", repo, fs.Junk, junk)
		}
	}
}

// The output must not depend on how the walk happened to go: lists are
// sorted bytewise, where "a-b" comes before "a/x".
func TestCollectSorted(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{
		"SKILL.md": skillMD, "a/x": "", "a-b": "", "a.c": "", "B": "", "a/.DS_Store": "", "a-.DS_Store/": "",
	})
	symlink(t, dir, "a/z", "missing")
	symlink(t, dir, "a-link", "missing")
	fs, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"B", "SKILL.md", "a-b", "a.c", "a/x"}; !reflect.DeepEqual(paths(fs.Files), want) {
		t.Errorf("Files = %q, want %q", paths(fs.Files), want)
	}
	var refused []string
	for _, r := range fs.Refused {
		refused = append(refused, r.Path)
	}
	if want := []string{"a-link", "a/z"}; !reflect.DeepEqual(refused, want) {
		t.Errorf("Refused = %q, want %q", refused, want)
	}
	if want := []string{"a/.DS_Store"}; !reflect.DeepEqual(fs.Junk, want) {
		t.Errorf("Junk = %q, want %q", fs.Junk, want)
	}
}

// .skillignore governs publication and is never published itself, even
// when it tries to re-include itself; one below the root is ordinary.
func TestCollectIgnoreFile(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{
		"SKILL.md": skillMD, IgnoreFile: "!" + IgnoreFile + "\n*\n!SKILL.md\n",
		"other.md": "",
	})
	fs, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"SKILL.md"}; !reflect.DeepEqual(paths(fs.Files), want) {
		t.Errorf("Files = %q, want %q", paths(fs.Files), want)
	}
	if want := []string{"other.md"}; !reflect.DeepEqual(fs.Ignored, want) {
		t.Errorf("Ignored = %q, want %q", fs.Ignored, want)
	}
}

// The entry file is the skill: a .skillignore that names it (*.md, to
// leave the notes out) keeps it, where the build's index failed on a skill
// without one (exit 3) and pack wrote an archive without it. A SKILL.md
// below the top is an ordinary file.
func TestCollectKeepsEntry(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"SKILL.md": skillMD, IgnoreFile: "*.md\n", "notes.md": "", "a/SKILL.md": skillMD})
	fs, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"SKILL.md"}; !reflect.DeepEqual(paths(fs.Files), want) {
		t.Errorf("Files = %q, want %q", paths(fs.Files), want)
	}
	if want := []string{"a/SKILL.md", "notes.md"}; !reflect.DeepEqual(fs.Ignored, want) {
		t.Errorf("Ignored = %q, want %q", fs.Ignored, want)
	}
}

// A .skillignore beside a SKILL.md, or a plugin's manifest, below the
// folder collected governs its own folder there too, as in that skill's
// own archives: a plugin's archives published a skill's token file that
// the skill's .skillignore left out of its own. Elsewhere it is a file.
func TestCollectNestedIgnore(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{
		".claude-plugin/plugin.json":      `{"name": "p"}`,
		"skills/foo/SKILL.md":             skillMD,
		"skills/foo/" + IgnoreFile:        "/token.txt\n*.md\n",
		"skills/foo/token.txt":            "TOKEN=x\n",
		"skills/foo/notes.md":             "",
		"inner/.codex-plugin/plugin.json": `{"name": "q"}`,
		"inner/" + IgnoreFile:             "draft/\n",
		"inner/draft/x.md":                "",
		"docs/" + IgnoreFile:              "*\n",
		"docs/page.md":                    "",
	})
	fs, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".claude-plugin/plugin.json", "docs/" + IgnoreFile, "docs/page.md", "inner/.codex-plugin/plugin.json", "skills/foo/SKILL.md"}
	if !reflect.DeepEqual(paths(fs.Files), want) {
		t.Errorf("Files = %q, want %q", paths(fs.Files), want)
	}
	if want := []string{"inner/draft/", "skills/foo/notes.md", "skills/foo/token.txt"}; !reflect.DeepEqual(fs.Ignored, want) {
		t.Errorf("Ignored = %q, want %q", fs.Ignored, want)
	}
}

// A skill discovery found is collected from the folders' listings it
// made: the files a later listing would give, but for one added since,
// and a file removed since is left out, not refused.
func TestSkillCollect(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		"s/SKILL.md": skillMD, "s/a/x.txt": "x", "s/a/b/y.txt": "y", "s/gone.txt": "",
		"s/" + IgnoreFile: "a/b/\n", "s/__pycache__/c.pyc": "",
	})
	found, err := Find(root)
	if err != nil || len(found) != 1 {
		t.Fatalf("Find = %v, %v", found, err)
	}
	testtool.WriteTree(t, root, map[string]string{"s/late.txt": "", "s/a/late.txt": ""})
	if err := os.Remove(filepath.Join(root, "s", "gone.txt")); err != nil {
		t.Fatal(err)
	}
	fs, err := found[0].Collect()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"SKILL.md", "a/x.txt"}; !reflect.DeepEqual(paths(fs.Files), want) || len(fs.Refused) > 0 {
		t.Errorf("Files = %q, Refused = %v; want %q and none", paths(fs.Files), fs.Refused, want)
	}
	if !reflect.DeepEqual(fs.Ignored, []string{"a/b/"}) || !reflect.DeepEqual(fs.Junk, []string{"__pycache__/"}) {
		t.Errorf("Ignored = %q, Junk = %q", fs.Ignored, fs.Junk)
	}
	// Once: the listings are not held after.
	if again, err := found[0].Collect(); err != nil || !slices.Contains(paths(again.Files), "a/late.txt") {
		t.Errorf("Collect again = %v, %v; want a fresh listing, with a/late.txt", again, err)
	}
}

func TestCollectSymlinks(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "s")
	testtool.WriteTree(t, parent, map[string]string{
		"outside.txt":     "secret",
		"elsewhere/x.txt": "",
		"s/SKILL.md":      skillMD,
		"s/assets/a.txt":  "asset",
		"s/sub/f.txt":     "",
		"s/" + IgnoreFile: "vendor\n",
	})
	symlink(t, dir, "link.md", "SKILL.md")
	symlink(t, dir, "abs.md", filepath.Join(dir, "assets", "a.txt"))
	symlink(t, dir, "out", "../outside.txt")
	symlink(t, dir, "outdir", "../elsewhere")
	symlink(t, dir, "broken", "nope")
	symlink(t, dir, "self", "self")
	symlink(t, dir, "sub/up", "..")
	symlink(t, dir, "sub/root", dir)
	symlink(t, dir, "shared", "assets")
	symlink(t, dir, "vendor", "../elsewhere") // escapes, but ignored
	symlink(t, dir, "chain", "link.md")       // a link to a link inside

	fs, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	byPath := map[string]File{}
	for _, f := range fs.Files {
		byPath[f.Path] = f
	}
	for p, target := range map[string]string{
		"link.md":      "SKILL.md",
		"abs.md":       "assets/a.txt",
		"chain":        "SKILL.md",
		"shared/a.txt": "assets/a.txt",
	} {
		f, ok := byPath[p]
		if !ok {
			t.Errorf("%s not published", p)
			continue
		}
		if want := filepath.Join(real, filepath.FromSlash(target)); f.Disk != want {
			t.Errorf("%s: Disk = %s, want %s", p, f.Disk, want)
		}
		if f.Path == "link.md" && (!f.Link || f.Size != int64(len(skillMD))) {
			t.Errorf("link.md: Link = %v, Size = %d; want true, %d", f.Link, f.Size, len(skillMD))
		}
	}
	if want := []string{"SKILL.md", "abs.md", "assets/a.txt", "chain", "link.md", "shared/a.txt", "sub/f.txt"}; !reflect.DeepEqual(paths(fs.Files), want) {
		t.Errorf("Files = %q, want %q", paths(fs.Files), want)
	}
	refused := map[string]RefusedKind{}
	for _, r := range fs.Refused {
		refused[r.Path] = r.Kind
		if !strings.HasPrefix(r.Error(), r.Path+": ") || r.Err == nil {
			t.Errorf("Refused.Error() = %q does not name %s", r.Error(), r.Path)
		}
	}
	want := map[string]RefusedKind{
		"out":      LinkEscapes,
		"outdir":   LinkEscapes,
		"broken":   LinkBroken,
		"self":     LinkBroken,
		"sub/up":   LinkBroken,
		"sub/root": LinkBroken,
	}
	if !reflect.DeepEqual(refused, want) {
		t.Errorf("Refused = %v, want %v", refused, want)
	}
	for _, r := range fs.Refused {
		switch r.Path {
		case "sub/up":
			if !strings.Contains(r.Err.Error(), "loop") {
				t.Errorf("sub/up: %v, want a loop", r.Err)
			}
		case "broken":
			if !strings.Contains(r.Err.Error(), "does not exist") {
				t.Errorf("broken: %v", r.Err)
			}
		}
	}
	if want := []string{"vendor"}; !reflect.DeepEqual(fs.Ignored, want) {
		t.Errorf("Ignored = %q, want %q (an ignored link is not judged)", fs.Ignored, want)
	}

	// Collecting through a link to the skill gives the same result.
	symlink(t, parent, "alias", "s")
	again, err := Collect(filepath.Join(parent, "alias"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, fs) {
		t.Errorf("Collect through a link differs:\n%+v\n%+v", again, fs)
	}
}

// Two links per folder to the next folder give 2^n paths without a single
// file; the walk must stop at the bound instead of running for ages.
func TestCollectLinkBomb(t *testing.T) {
	defer func(n int) { maxFiles = n }(maxFiles)
	maxFiles = 2000
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"SKILL.md": skillMD})
	for i := range 40 {
		d := fmt.Sprintf("d%d", i)
		testtool.WriteTree(t, dir, map[string]string{d + "/": ""})
		for _, l := range []string{"a", "b"} {
			symlink(t, dir, d+"/"+l, fmt.Sprintf("../d%d", i+1))
		}
	}
	testtool.WriteTree(t, dir, map[string]string{"d40/": ""})
	_, err := Collect(dir)
	if !errors.Is(err, ErrTooManyFiles) {
		t.Fatalf("err = %v, want ErrTooManyFiles", err)
	}
}

func TestCollectTooManyFiles(t *testing.T) {
	defer func(n int) { maxFiles = n }(maxFiles)
	maxFiles = 50
	dir := t.TempDir()
	files := map[string]string{"SKILL.md": skillMD}
	for i := range 60 {
		files[fmt.Sprintf("f/%02d", i)] = ""
	}
	testtool.WriteTree(t, dir, files)
	if _, err := Collect(dir); !errors.Is(err, ErrTooManyFiles) || !strings.Contains(err.Error(), IgnoreFile) {
		t.Fatalf("err = %v, want ErrTooManyFiles with a hint", err)
	}
	// Ignored folders are not walked, so they do not count.
	testtool.WriteTree(t, dir, map[string]string{IgnoreFile: "f/\n"})
	fs, err := Collect(dir)
	if err != nil {
		t.Fatalf("with f/ ignored: %v", err)
	}
	if want := []string{"f/"}; !reflect.DeepEqual(fs.Ignored, want) {
		t.Errorf("Ignored = %q", fs.Ignored)
	}
}

func TestCollectMissing(t *testing.T) {
	_, err := Collect(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "no such file or folder") {
		t.Fatalf("err = %v, want no such file or folder", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	testtool.WriteTree(t, filepath.Dir(f), map[string]string{"file": "x"})
	if _, err := Collect(f); err == nil {
		t.Fatal("Collect of a file: no error")
	}
}

func TestCollectNotRegular(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"SKILL.md": skillMD})
	mkfifo(t, filepath.Join(dir, "pipe"))
	done := make(chan struct{})
	var fs *Files
	var err error
	go func() { fs, err = Collect(dir); close(done) }()
	<-done // a hang here is the failure: the test times out
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Refused) != 1 || fs.Refused[0].Path != "pipe" || fs.Refused[0].Kind != NotRegular ||
		!strings.Contains(fs.Refused[0].Err.Error(), "named pipe") {
		t.Errorf("Refused = %+v, want pipe NotRegular (named pipe)", fs.Refused)
	}
	if want := []string{"SKILL.md"}; !reflect.DeepEqual(paths(fs.Files), want) {
		t.Errorf("Files = %q", paths(fs.Files))
	}
}

func TestCollectUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits")
	}
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"SKILL.md": skillMD, "locked/x": ""})
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	fs, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Refused) != 1 || fs.Refused[0].Path != "locked/" || fs.Refused[0].Kind != Unreadable {
		t.Errorf("Refused = %+v", fs.Refused)
	}
}
