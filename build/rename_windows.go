package build

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// rename is os.Rename, tried again for up to 3 s while another process
// has the folder or a file in it open: Windows renames no folder then,
// and a server's read of a file ends soon.
func rename(from, to string) error {
	deadline := time.Now().Add(3 * time.Second)
	for {
		err := os.Rename(from, to)
		if !held(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// held reports whether a rename failed because another process has the folder open.
func held(err error) bool { return errors.Is(err, windows.ERROR_SHARING_VIOLATION) }
