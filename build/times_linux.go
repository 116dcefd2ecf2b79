package build

import (
	"os"
	"syscall"
	"time"
)

// times returns a file's modification and change times.
func times(info os.FileInfo) (mtime, ctime time.Time, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, time.Time{}, false
	}
	return time.Unix(st.Mtim.Sec, st.Mtim.Nsec), time.Unix(st.Ctim.Sec, st.Ctim.Nsec), true
}
