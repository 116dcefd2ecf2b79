package outlock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Flock takes an exclusive LockFileEx lock on f: at once or not at all
// when try is set. Windows, like flock, lets go of it when the process
// ends, however it ends. The lock covers one byte far past the end, not
// the file: Windows' locks are mandatory, and a build turned away reads
// the holder's lines from the start of the file.
func Flock(f *os.File, try bool) error {
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if try {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &windows.Overlapped{OffsetHigh: 1 << 30})
}

// Busy reports whether Flock failed because another process holds the lock.
func Busy(err error) bool { return errors.Is(err, windows.ERROR_LOCK_VIOLATION) }
