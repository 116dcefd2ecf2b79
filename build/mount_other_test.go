//go:build !linux

package build

import (
	"errors"
	"testing"
)

// tmpfs is "" where there is no tmpfs to mount.
func tmpfs(t testing.TB, size string) string { return "" }

func bindMount(testing.TB, string, string) error { return errors.ErrUnsupported }

func readOnly(string) error { return errors.ErrUnsupported }
