//go:build !linux && !windows

package build

import (
	"errors"
	"os"
)

// exchange is unsupported here; swap falls back to two renames.
func exchange(a, b string) error { return errors.New("atomic exchange not supported") }

func rename(from, to string) error { return os.Rename(from, to) }

func held(error) bool { return false }
