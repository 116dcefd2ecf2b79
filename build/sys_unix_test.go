//go:build unix

package build

import (
	"io/fs"
	"syscall"
)

// umask sets the process's file mode mask, returning the one before.
func umask(m int) int { return syscall.Umask(m) }

// ino is a file's inode number.
func ino(info fs.FileInfo) uint64 { return info.Sys().(*syscall.Stat_t).Ino }

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
