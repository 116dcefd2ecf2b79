//go:build unix

package outlock

import (
	"errors"
	"os"
	"syscall"
)

// Flock takes an exclusive flock on f: at once or not at all when try is
// set. The kernel releases it when the process ends, however it ends.
func Flock(f *os.File, try bool) error {
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

// Busy reports whether Flock failed because another process holds the lock.
func Busy(err error) bool { return errors.Is(err, syscall.EWOULDBLOCK) }
