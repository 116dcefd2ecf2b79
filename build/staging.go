package build

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/internal/outlock"
	"github.com/skillpack/skillpack/layout"
)

// staging is the folder a bundle is made in before it replaces the output
// folder in one swap: beside the output, so that the swap is a rename on
// one file system. It counts the files made in it, for write to check.
type staging struct {
	out       string   // the output folder, absolute
	dir       string   // the staging folder; "" until made, and once swapped or discarded
	owner     *os.File // its owner file, open and locked while the folder is the build's (owner.go)
	log       func(format string, args ...any)
	swapped   func()       // called once the new bundle is in place; nil = none
	dirs      dirCache     // folders made or seen in the staging folder
	made      atomic.Int64 // files made in the staging folder
	kept      atomic.Int64 // files of the spare kept as they were
	touched   atomic.Bool  // a file or folder was made in the staging folder
	spare     *Spare       // where the folder comes from and goes to (Options.Spare); nil = none
	held      *spareSet    // what the folder held when taken from the spare; nil = it was made empty
	umaskOnce sync.Once
	umask     uint32
}

// make makes the staging folder for the output folder out.
func (s *staging) make(out string, log func(string, ...any)) error {
	s.out, s.log = out, log
	if dir, owner, held := s.spare.take(out); dir != "" {
		s.dir, s.owner, s.held = dir, owner, held
		return nil
	}
	parent := filepath.Dir(s.out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	dir, owner, err := makeOwned(parent, s.out) // see owner.go
	if err != nil {
		return err
	}
	s.dir, s.owner = dir, owner
	// 0755 whatever the umask: a bundle is meant to be served.
	if err := os.Chmod(dir, 0o755); err != nil {
		s.discard()
		return err
	}
	return nil
}

// disown removes the owner file and lets go of its lock.
func (s *staging) disown() {
	if s.owner != nil {
		outlock.RemoveHeld(s.owner, s.owner.Name())
		s.owner = nil
	}
}

// discard removes the staging folder unless it became the output, and
// then its owner file. A folder taken from the spare goes back to it when
// nothing was made in it and every removal succeeded.
func (s *staging) discard() {
	if s.dir != "" && s.held != nil && !s.touched.Load() && !s.held.broken {
		s.held.reset()
		s.spare.give(s.out, s.dir, s.owner, s.held)
		s.dir, s.owner, s.held = "", nil, nil
		return
	}
	if s.dir != "" {
		if os.RemoveAll(s.dir) == nil {
			s.disown()
		}
		s.dir = ""
	}
	if s.owner != nil {
		s.owner.Close() // the lock goes; the file stays for the next run's sweep
		s.owner = nil
	}
}

func (s *staging) path(distPath string) string {
	return filepath.Join(s.dir, filepath.FromSlash(distPath))
}

func (s *staging) writeFile(path string, data []byte) error {
	return s.writeFrom(path, 0o644, bytes.NewReader(data))
}

func (s *staging) writeFrom(path string, perm fs.FileMode, r io.Reader) error {
	f, err := s.create(path, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// A bundle is served by a user that does not own it, and two builds must
// give the same tree whatever the umask, so everything in the staging
// folder is made 0755 (folders) or pack.Perm (files) explicitly: the mode
// given to Mkdir and OpenFile is only an upper bound that the umask cuts.

// mkdirAll makes dir and any missing parents 0755. A folder not made yet
// is most likely missing: it is made first and looked at only when it
// exists, which saves a stat per folder (tens of thousands in a large tree).
func (s *staging) mkdirAll(dir string) error {
	if s.dirs.has(dir) {
		return nil
	}
	err := os.Mkdir(dir, 0o755)
	switch {
	case err == nil:
		s.touched.Store(true)
		if s.umaskCuts(0o755) {
			if err := os.Chmod(dir, 0o755); err != nil {
				return err
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		if parent := filepath.Dir(dir); parent != dir {
			if err := s.mkdirAll(parent); err != nil {
				return err
			}
			return s.mkdirAll(dir)
		}
		return err
	case errors.Is(err, fs.ErrExist):
		// Made by another worker (which sets its mode), or there before.
		info, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return fmt.Errorf("%s is a file, not a folder", dir)
		}
	default:
		return err
	}
	s.dirs.add(dir)
	return nil
}

// dirCache remembers folders made in the staging folder, so that most
// files cost no mkdir. It forgets everything when full, so that memory
// does not grow with the tree: files arrive skill by skill, and a
// forgotten folder costs only a failed mkdir and a stat.
type dirCache struct {
	mu sync.Mutex
	m  map[string]struct{}
}

const dirCacheSize = 4096

func (c *dirCache) has(dir string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[dir]
	return ok
}

// forget empties the cache, for folders that were removed.
func (c *dirCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

func (c *dirCache) add(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= dirCacheSize {
		c.m = make(map[string]struct{}, dirCacheSize)
	}
	c.m[dir] = struct{}{}
}

// create makes a new file with mode perm (pack.Perm), and its folder. In a
// folder taken from the spare, a file already at path is replaced: the plan
// says what the bundle holds.
func (s *staging) create(path string, perm fs.FileMode) (*os.File, error) {
	if err := s.mkdirAll(filepath.Dir(path)); err != nil {
		return nil, err
	}
	// O_NONBLOCK does nothing to a regular file, but without it package os
	// makes four fcntl calls per file, setting and clearing the flag around
	// offering the file to the poller; a bundle is tens of thousands of
	// files.
	const flag = os.O_WRONLY | os.O_CREATE | os.O_EXCL | syscall.O_NONBLOCK
	f, err := os.OpenFile(path, flag, perm)
	if err != nil && s.held != nil && errors.Is(err, fs.ErrExist) {
		os.Remove(path)
		f, err = os.OpenFile(path, flag, perm)
	}
	s.touched.Store(true)
	if err != nil {
		return nil, err
	}
	s.made.Add(1)
	if s.umaskCuts(perm) {
		if err := f.Chmod(perm); err != nil {
			f.Close()
			os.Remove(path)
			return nil, err
		}
	}
	return f, nil
}

// umaskCuts reports whether the process umask would remove bits of mode,
// so that a chmod is needed: on the common umask 022 it is not, which
// saves a system call per file.
func (s *staging) umaskCuts(mode os.FileMode) bool {
	s.umaskOnce.Do(func() { s.umask = readUmask() })
	return s.umask&uint32(mode) != 0
}

// readUmask reads the process umask without changing it (syscall.Umask
// sets it, racing with every goroutine creating files); where it cannot be
// read, it cuts everything.
func readUmask() uint32 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0o777
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return uint32(n)
			}
		}
	}
	return 0o777
}

// link makes dst the same file as src: a hard link where the file system
// allows, else a copy. Bundle files are never modified in place.
func (s *staging) link(src, dst string) error {
	if err := s.mkdirAll(filepath.Dir(dst)); err != nil {
		return err
	}
	err := os.Link(src, dst)
	if err != nil && s.held != nil && errors.Is(err, fs.ErrExist) {
		os.Remove(dst) // as in create
		err = os.Link(src, dst)
	}
	s.touched.Store(true)
	if err == nil {
		s.made.Add(1)
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	return s.writeFrom(dst, info.Mode().Perm(), in)
}

// writeDoc writes a new file in the staging folder with the bytes that
// fn writes, and returns their digest and size.
func (s *staging) writeDoc(path string, perm fs.FileMode, fn func(io.Writer) error) (layout.Rendered, error) {
	f, err := s.create(path, perm)
	if err != nil {
		return layout.Rendered{}, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 64<<10)
	r, err := layout.Render(bw, fn)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	return r, err
}

// swap replaces the output folder with the staging folder. Where the
// kernel can exchange two folders atomically (Linux renameat2), readers
// never see a moment without a bundle; elsewhere the old folder is moved
// aside first and moved back if the second rename fails. The old bundle
// is removed, or, exchanged and with a spare, kept there as describe(old).
func (s *staging) swap(describe func(old string) *spareSet) error {
	if _, err := os.Lstat(s.out); err != nil {
		if err := os.Rename(s.dir, s.out); err != nil {
			return fmt.Errorf("moving the new bundle into place: %w", err)
		}
		s.dir = ""
		s.disown()
		return nil
	}
	old, exchanged := s.dir, true
	if err := exchange(s.dir, s.out); err != nil {
		old, exchanged = s.dir+".old", false
		if err := rename(s.out, old); err != nil {
			if held(err) {
				return &OutputError{fmt.Errorf("cannot move %s aside to put the new bundle in its place: another process has it "+
					"or a file in it open (a skillpack serve of it, an editor, a virus scanner), and Windows moves no folder then; "+
					"stop that process and build again, or build into another folder", s.out)}
			}
			return fmt.Errorf("moving the previous bundle aside: %w", err)
		}
		if err := rename(s.dir, s.out); err != nil {
			os.Rename(old, s.out)
			return fmt.Errorf("moving the new bundle into place: %w", err)
		}
	}
	s.dir = ""
	if s.swapped != nil {
		s.swapped()
	}
	if exchanged && s.spare != nil && describe != nil {
		if held := describe(old); held != nil {
			s.spare.give(s.out, old, s.owner, held)
			s.owner = nil
			return nil // nothing removed: the record's stamp stands
		}
	}
	if err := os.RemoveAll(old); err != nil {
		s.log("  warning: could not remove the previous bundle at %s: %v", old, err)
		return nil // the owner file stays, so that the next run removes it
	}
	s.disown()
	// Removing the old bundle's names changed the times of every file the
	// two shared (a link count is kept in the file): stamp the record
	// after that, or the next build would trust none of them and hash the
	// whole bundle again.
	record := filepath.Join(s.out, filepath.FromSlash(layout.BuildRecord))
	if err := reuse.StampAfter(record, time.Now()); err != nil {
		s.log("  warning: %v", err)
	}
	return nil
}
