package scratch

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// unnamed opens a file in dir that never has a name (O_TMPFILE), so that
// no moment of the build, killed, leaves it behind. It fails on file
// systems without it, and New falls back.
func unnamed(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "skillpack.scratch")), nil
}
