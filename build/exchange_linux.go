package build

import "golang.org/x/sys/unix"

// exchange swaps two folders atomically (renameat2 RENAME_EXCHANGE). It
// fails on file systems that do not support it; the caller falls back.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
