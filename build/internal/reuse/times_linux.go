package reuse

import (
	"os"
	"syscall"
	"time"
)

// Times returns a file's modification and change times.
// Timespec's fields are int32 on 32-bit Linux (386, arm) and int64 elsewhere;
// its Unix method widens them on every architecture.
func Times(info os.FileInfo) (mtime, ctime time.Time, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, time.Time{}, false
	}
	return time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix()), true
}
