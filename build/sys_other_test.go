//go:build !unix

package build

import (
	"errors"
	"io/fs"
)

// umask does nothing where there is no file mode mask (Windows).
func umask(m int) int { return 0 }

// ino is 0 where a file has no inode number.
func ino(fs.FileInfo) uint64 { return 0 }

func mkfifo(string) error { return errors.ErrUnsupported }
