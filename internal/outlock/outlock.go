// Package outlock keeps one skillpack at a time writing an output
// folder: a build's or sign's DIST, a publish's folder target. It owns the
// lock file beside the folder and the flock on it; it must not decide
// what the folder holds.
package outlock

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// One build (or sign, or publish) at a time writes an output folder. Two at once each
// stage a bundle and swap it in, and the loser read the winner's half-made
// folder ("catalog … reading SKILL.md … no such file", exit 3). Beside the
// output lies .<out>.skillpack.lock; a build holds an exclusive flock on it
// from before it reads the bundle there to after its swap, and the kernel lets go of the
// lock when the process ends, however it ends, so a kill -9 leaves nothing
// to judge stale: the next build takes the lock. It is taken once the
// output check has found the folder one the build may write (a refused
// output gets no lock file beside it) and before the bundle there is read. The file says who holds
// it, for the message of the build it turns away:
//
//	skillpack build
//	pid 4242
//	host build-7
//	since 2026-11-28T02:16:53Z
//
// The holder removes the file before it lets go of the lock; a build that
// locked a file just removed sees that it is no longer the file at the
// path, and starts again. Where there is no flock, builds go unlocked, as
// staging folders do (owner.go).

// Suffix ends the lock file's name: .<out>.skillpack.lock.
const Suffix = ".skillpack.lock"

// Take takes the lock of the output folder out (absolute) for what
// ("build", "sign", "publish"), and returns the function that lets go of
// it. A lock held by another process is a *BusyError saying which.
func Take(out, what string) (unlock func(), err error) {
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	p := filepath.Join(parent, "."+filepath.Base(out)+Suffix)
	host, _ := os.Hostname()
	for range 100 {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("locking the output folder: %w", err)
		}
		if err := Flock(f, true); err != nil {
			defer f.Close()
			if !Busy(err) {
				return func() {}, nil // no file locks here
			}
			said, _ := io.ReadAll(io.LimitReader(f, 1024))
			return nil, &BusyError{Out: out, Holder: holder(string(said)), Lock: p}
		}
		if !SamePath(f, p) {
			f.Close() // removed by the build that held it: start again
			continue
		}
		if err := f.Truncate(0); err == nil {
			fmt.Fprintf(f, "skillpack %s\npid %d\nhost %s\nsince %s\n", what, os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
		}
		return func() { RemoveHeld(f, p) }, nil
	}
	return nil, fmt.Errorf("cannot lock the output folder: %s keeps changing", p)
}

// holder says, from what the lock file says, which process holds it.
func holder(said string) string {
	f := map[string]string{}
	for line := range strings.Lines(said) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		f[k] = v
	}
	if f["pid"] == "" {
		return "a process that has not yet said which"
	}
	s := "a " + cmp.Or(f["skillpack"], "build") + ", pid " + f["pid"]
	if h, _ := os.Hostname(); f["host"] != "" && f["host"] != h {
		s += " on " + f["host"]
	}
	if f["since"] != "" {
		s += ", since " + f["since"]
	}
	return s
}

// BusyError is a lock another process holds: the user's to wait for.
type BusyError struct {
	Out, Holder, Lock string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("another skillpack is writing %s (%s, lock %s); wait for it to finish", e.Out, e.Holder, e.Lock)
}

// RemoveHeld removes the file at path if f, which holds it open and
// locked, is still that file, and closes f. Elsewhere the name goes
// first, under the lock; Windows cannot remove a file that is open, so f
// is closed first there, and a process that opened the file in between
// keeps it: Windows refuses the removal while it holds it.
func RemoveHeld(f *os.File, path string) {
	if !SamePath(f, path) {
		f.Close()
		return
	}
	if runtime.GOOS == "windows" {
		f.Close()
		os.Remove(path)
		return
	}
	os.Remove(path)
	f.Close()
}

// SamePath reports whether the open file f is still the file at path.
func SamePath(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
