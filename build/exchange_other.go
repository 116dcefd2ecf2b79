//go:build !linux

package build

import "errors"

// exchange is unsupported here; swap falls back to two renames.
func exchange(a, b string) error { return errors.New("atomic exchange not supported") }
