//go:build !linux

package build

import (
	"os"
	"time"
)

// times is unknown here: every copy is checked by reading it.
func times(os.FileInfo) (mtime, ctime time.Time, ok bool) { return time.Time{}, time.Time{}, false }
