//go:build !unix

package build

import (
	"errors"
	"os"
)

// lock cannot lock here. Making a folder goes on without the lock, and a
// sweep takes every owner for a running build's: folders are left rather
// than taken from a build that may still need them.
func lock(_ *os.File, try bool) error {
	if try {
		return errors.New("no file locks here")
	}
	return nil
}

// busy is never so: there are no locks to hold.
func busy(error) bool { return false }
