package skill

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// On Windows a file has no execute bit, and git checks a symbolic link
// out as a file holding its target, so a skill would be packed otherwise
// than from the same commit elsewhere. There, in a git work tree, Collect
// takes the modes from git's index: 100755 is executable, and 120000 a
// link. A variable so that tests can turn it on anywhere.
var fromIndex = runtime.GOOS == "windows"

// index is git's record of the files of one work tree: their modes by
// path from its root.
type index struct {
	root  string
	modes map[string]uint32
}

// The modes git records that Collect reads, and the one that tells a
// submodule (discovery's hint for an empty folder).
const (
	indexExec      = 0o100755
	indexLink      = 0o120000
	indexSubmodule = 0o160000 // a gitlink: the commit of a submodule
)

// indexes keeps git's index of each work tree, read once while the index
// file keeps its time (serve --watch sees a commit).
var indexes treeCache[*index]

// indexOf returns git's index of the work tree holding dir, or nil
// outside a work tree or without git.
func indexOf(dir string) *index {
	root, ok := WorkTree(dir)
	if !ok {
		return nil
	}
	return indexes.get(root, func() *index { return readIndex(root) }, filepath.Join(GitDir(root), "index"))
}

// treeCache keeps one reading of git's state a work tree root, read once
// while the files stamping it keep their times: one a root, so that serve
// --watch, through commit after commit, does not keep every reading.
type treeCache[T any] struct{ m sync.Map } // root → stamped[T]

type stamped[T any] struct {
	stamp string
	read  func() T
}

func (c *treeCache[T]) get(root string, read func() T, stampedBy ...string) T {
	stamp := ""
	for _, p := range stampedBy {
		if fi, err := os.Stat(p); err == nil {
			stamp += fi.ModTime().String()
		}
		stamp += "\x00"
	}
	if v, ok := c.m.Load(root); ok && v.(stamped[T]).stamp == stamp {
		return v.(stamped[T]).read()
	}
	r := stamped[T]{stamp, sync.OnceValue(read)}
	if v, loaded := c.m.LoadOrStore(root, r); loaded && v.(stamped[T]).stamp == stamp {
		r = v.(stamped[T]) // another reader's, of the same state
	} else if loaded {
		c.m.Store(root, r)
	}
	return r.read()
}

// git runs git in the work tree root and returns what it printed. An
// fsmonitor a repository's config names is a command git would run: off.
func git(root string, args ...string) ([]byte, error) {
	return exec.Command("git", append([]string{"-C", root, "-c", "core.fsmonitor=false"}, args...)...).Output()
}

// readIndex runs git ls-files: each entry is "MODE OBJECT STAGE\tPATH\0".
func readIndex(root string) *index {
	out, err := git(root, "ls-files", "--stage", "-z")
	if err != nil {
		return nil
	}
	ix := &index{root: root, modes: map[string]uint32{}}
	for _, e := range bytes.Split(out, []byte{0}) {
		meta, name, ok := bytes.Cut(e, []byte{'\t'})
		if mode, err := strconv.ParseUint(string(meta[:min(6, len(meta))]), 8, 32); ok && err == nil {
			ix.modes[string(name)] = uint32(mode)
		}
	}
	return ix
}

// mode returns the mode git records for the file at disk, 0 for none.
func (ix *index) mode(disk string) uint32 {
	if ix == nil {
		return 0
	}
	rel, err := filepath.Rel(ix.root, disk)
	if err != nil {
		return 0
	}
	return ix.modes[filepath.ToSlash(rel)]
}

// readLink returns the target of the link at disk as written: what the
// file holds where git checked the link out as one (asFile), else what
// the link says.
func readLink(disk string, asFile bool) (string, error) {
	if !asFile {
		return os.Readlink(disk)
	}
	f, err := os.Open(disk)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	return string(b), err
}

// ignored keeps the files git ignores in each work tree, read again when
// its index or top .gitignore changes.
var ignored treeCache[map[string]bool]

// gitIgnored returns the work tree holding dir and the files git ignores
// there, by path from its root (git ls-files --others --ignored); nil
// outside a work tree or without git.
func gitIgnored(dir string) (string, map[string]bool) {
	root, ok := WorkTree(dir)
	if !ok {
		return "", nil
	}
	return root, ignored.get(root, func() map[string]bool {
		// Files, not --directory: with it git also names a folder that
		// holds ignored files beside untracked ones.
		out, err := git(root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
		if err != nil {
			return nil
		}
		set := map[string]bool{}
		for p := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			set[p] = true
		}
		return set
	}, filepath.Join(GitDir(root), "index"), filepath.Join(root, ".gitignore"))
}

// GitIgnores reports whether git ignores the file at path: a clone of the
// repository holding it has none.
func GitIgnores(path string) bool {
	path, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	root, ignored := gitIgnored(filepath.Dir(path))
	rel, err := filepath.Rel(root, path)
	return len(ignored) > 0 && err == nil && ignored[filepath.ToSlash(rel)]
}

// GitIgnored returns the paths of f.Files that git ignores in the work
// tree holding the folder, a folder all of whose files git ignores as one
// path ending in "/" (node_modules/): a clone of the repository lacks
// them, though the build publishes them. Nil outside a work tree or
// without git.
func (f *Files) GitIgnored() []string {
	if f.gitIgnored == nil {
		out := f.gitIgnoredNow()
		f.gitIgnored = &out
	}
	return *f.gitIgnored
}

func (f *Files) gitIgnoredNow() []string {
	if f.Root == "" || len(f.Files) == 0 {
		return nil
	}
	root, ignored := gitIgnored(f.Root)
	rel, err := filepath.Rel(root, f.Root)
	if len(ignored) == 0 || err != nil {
		return nil
	}
	prefix := filepath.ToSlash(rel) + "/"
	if rel == "." {
		prefix = ""
	}
	// A file reached through a link out of the folder is asked by its
	// target's path: the link is tracked, but a clone lacks what it points
	// at if git ignores that.
	top, _ := filepath.EvalSymlinks(root)
	below := f.Root + string(filepath.Separator)
	// A folder is named for its files when git ignores every one of them.
	all := map[string]bool{} // folder → every published file below it is ignored
	var files []string
	for _, x := range f.Files {
		in := ignored[prefix+x.Path]
		if !in && top != "" && !strings.HasPrefix(x.Disk, below) {
			if t, err := filepath.Rel(top, x.Disk); err == nil && filepath.IsLocal(t) {
				in = ignored[filepath.ToSlash(t)]
			}
		}
		if in {
			files = append(files, x.Path)
		}
		for d := path.Dir(x.Path); d != "."; d = path.Dir(d) {
			if v, seen := all[d]; !seen || v {
				all[d] = in
			}
		}
	}
	var out []string
	for _, p := range files {
		top := p
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if all[d] {
				top = d + "/"
			}
		}
		if len(out) == 0 || out[len(out)-1] != top {
			out = append(out, top)
		}
	}
	return out
}
