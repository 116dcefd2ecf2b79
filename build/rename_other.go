//go:build !windows

package build

import "os"

// rename is os.Rename: here a folder open elsewhere can be renamed (see
// exchange_windows.go).
func rename(from, to string) error { return os.Rename(from, to) }

// held is never so here.
func held(error) bool { return false }
