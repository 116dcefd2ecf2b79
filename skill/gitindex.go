package skill

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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

var indexes sync.Map // work tree root and its index file's time → func() *index

// indexOf returns git's index of the work tree holding dir, read once
// while the index file is unchanged (serve --watch sees a commit), or nil
// outside a work tree or without git.
func indexOf(dir string) *index {
	root, ok := WorkTree(dir)
	if !ok {
		return nil
	}
	key := root
	if fi, err := os.Stat(filepath.Join(GitDir(root), "index")); err == nil {
		key += "\x00" + fi.ModTime().String()
	}
	f, _ := indexes.LoadOrStore(key, sync.OnceValue(func() *index { return readIndex(root) }))
	return f.(func() *index)()
}

// readIndex runs git ls-files: each entry is "MODE OBJECT STAGE\tPATH\0".
func readIndex(root string) *index {
	out, err := exec.Command("git", "-C", root, "ls-files", "--stage", "-z").Output()
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
