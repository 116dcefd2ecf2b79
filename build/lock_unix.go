//go:build unix

package build

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an exclusive flock on f: at once or not at all when try is
// set. The kernel releases it when the process ends, however it ends.
func lock(f *os.File, try bool) error {
	how := syscall.LOCK_EX
	if try {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// busy reports whether lock failed because another process holds the lock.
func busy(err error) bool { return errors.Is(err, syscall.EWOULDBLOCK) }
