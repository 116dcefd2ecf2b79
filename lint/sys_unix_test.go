//go:build unix

package lint

import "syscall"

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
