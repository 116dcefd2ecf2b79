package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// MaxDepth bounds how deep discovery walks below a root. Real trees are a few
// levels deep; the bound keeps a pathological tree from costing unbounded time.
const MaxDepth = 32

// MaxRead is how much of a SKILL.md is read. The strictest reader accepts
// 256 KiB; reading four times that lets lint report the real size class
// without letting a 100 MB file cost 100 MB of memory.
const MaxRead = 1 << 20

// Skill is one skill folder: a folder that holds a SKILL.md.
type Skill struct {
	Dir  string // the folder as found on disk (joined onto the root given)
	File string // the entry file's name: "SKILL.md", or a case variant such as "skill.md"
	Size int64  // the entry file's size on disk

	Doc *Document // nil when the entry file could not be read
	Err error     // why the entry file could not be read
}

// Name is the folder's base name, which the spec requires to equal the
// frontmatter name.
// A Dir of "." or ".." (lint run inside the skill) is resolved through the
// working folder, since its base name is not a name.
func (s *Skill) Name() string {
	dir := filepath.Clean(s.Dir)
	if b := filepath.Base(dir); b != "." && b != ".." {
		return b
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return filepath.Base(abs)
	}
	return filepath.Base(dir)
}

// EntryPath is the path of the skill's entry file on disk.
func (s *Skill) EntryPath() string { return filepath.Join(s.Dir, s.File) }

// skipDirs are folders that never hold skills of their own.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true}

// Discover finds every skill at or below root, sorted by folder. root may
// also be a skill folder itself, or a file or a folder inside a skill, in
// which case the enclosing skill is returned (so a pre-commit hook can pass
// changed files).
// Symbolic links to folders below root are not followed, so link loops
// cannot trap the walk. Folders holding a built bundle are skipped: their
// copies of SKILL.md are output, not source.
//
// root itself is looked at with Lstat. A symlink named as root is a file of
// the folder it sits in (that is how git, and so a pre-commit hook, sees
// it): the skill holding the link is returned, even when the link dangles.
// A symlink to a folder outside any skill is the user naming a linked
// folder, and is walked.
func Discover(root string) ([]*Skill, error) {
	info, err := os.Lstat(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, pathError(err))
	}
	walk := root
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		if dir := Enclosing(root); dir != "" {
			return []*Skill{Load(dir)}, nil
		}
		target, err := filepath.EvalSymlinks(root)
		if err != nil {
			return nil, nil // a dangling link outside any skill names no skill
		}
		if info, err = os.Stat(target); err != nil || !info.IsDir() {
			return nil, nil
		}
		walk = target
	case !info.IsDir():
		if dir := Enclosing(root); dir != "" {
			return []*Skill{Load(dir)}, nil
		}
		return nil, nil
	}
	var out []*Skill
	base := depth(walk)
	err = filepath.WalkDir(walk, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == walk {
				return err
			}
			// An unreadable folder below root is skipped, not fatal: it
			// cannot hold a skill anyone could publish.
			return fs.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		if p != walk && (skipDirs[d.Name()] || isBundle(p)) {
			return fs.SkipDir
		}
		if depth(p)-base > MaxDepth {
			return fs.SkipDir
		}
		if name := entryName(p); name != "" {
			dir := p
			if walk != root {
				// Report paths under the name the user gave, not the
				// link's target, so that findings read as they typed.
				rel, _ := filepath.Rel(walk, p)
				dir = filepath.Join(root, rel)
			}
			out = append(out, load(dir, name))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, pathError(err))
	}
	if len(out) == 0 {
		// A folder inside a skill ("lint pdf/scripts") means that skill;
		// answering "no skills" would pass it unchecked.
		if dir := Enclosing(root); dir != "" {
			return []*Skill{Load(dir)}, nil
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

// Enclosing returns the nearest folder at or above path that holds a skill
// entry file, or "" when there is none. A symlink in path's last element is
// not followed: a link belongs to the folder it sits in. The answer is
// relative when path is, even when the skill is above the working folder.
func Enclosing(path string) string {
	dir := filepath.Clean(path)
	if info, err := os.Lstat(dir); err != nil || !info.IsDir() {
		dir = filepath.Dir(dir)
	}
	for range MaxDepth * 4 {
		if entryName(dir) != "" {
			return dir
		}
		parent := filepath.Dir(dir)
		if b := filepath.Base(dir); b == "." || b == ".." {
			// A relative path runs out of names at "." or "..": climb on
			// lexically until the file-system root.
			parent = filepath.Join(dir, "..")
			a, err1 := filepath.Abs(dir)
			p, err2 := filepath.Abs(parent)
			if err1 != nil || err2 != nil || a == p {
				break
			}
		} else if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

// Load reads the skill in dir. It never fails: an unreadable entry file is
// recorded in Err for lint to report.
func Load(dir string) *Skill {
	name := entryName(dir)
	if name == "" {
		name = FileName
	}
	return load(dir, name)
}

func load(dir, name string) *Skill {
	s := &Skill{Dir: dir, File: name}
	if info, err := os.Stat(s.EntryPath()); err == nil && !info.Mode().IsRegular() {
		s.Err = fmt.Errorf("%s is not a regular file", name)
		return s
	}
	f, err := OpenFile(s.EntryPath())
	if err != nil {
		s.Err = pathError(err)
		return s
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		s.Err = err
		return s
	}
	if !info.Mode().IsRegular() {
		s.Err = fmt.Errorf("%s is not a regular file", name)
		return s
	}
	s.Size = info.Size()
	data, err := io.ReadAll(io.LimitReader(f, MaxRead))
	if err != nil {
		s.Err = err
		return s
	}
	s.Doc = Parse(data)
	return s
}

// OpenFile opens a file for reading without blocking: opening a named pipe
// that replaced a file after it was listed would otherwise hang forever.
func OpenFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// entryName returns the name of the entry file in dir: "SKILL.md" when
// present, else a case variant (which lint asks the author to rename), else "".
func entryName(dir string) string {
	if fileExists(filepath.Join(dir, FileName)) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return FileName
		}
		// On a case-insensitive file system the stat above matches any
		// case; the listing tells the real name.
		for _, e := range ents {
			if e.Name() == FileName {
				return FileName
			}
		}
		for _, e := range ents {
			if strings.EqualFold(e.Name(), FileName) {
				return e.Name()
			}
		}
		return FileName
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if strings.EqualFold(e.Name(), FileName) && !e.IsDir() {
			return e.Name()
		}
	}
	return ""
}

// BundleMarker is the file, relative to a bundle's root, whose presence marks
// a folder as built output. It is the v0.2.0 discovery index every bundle
// has (layout.V2Index; package skill stays below layout, so it is spelled
// here too and a layout test keeps the two equal).
const BundleMarker = ".well-known/agent-skills/index.json"

func isBundle(dir string) bool {
	return fileExists(filepath.Join(dir, filepath.FromSlash(BundleMarker)))
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}

func depth(p string) int { return strings.Count(filepath.ToSlash(filepath.Clean(p)), "/") }

// pathError drops the operation and path from an *fs.PathError, since
// callers name the path themselves, and turns the commonest causes into
// plain words.
func pathError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file or folder")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
