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

// lstat is os.Lstat's answer as the checks by times read it, without the
// FileInfo os.Lstat makes: that cost a fifth of each check, and a no-op
// rebuild checks every file and folder of the bundle.
func lstat(path string) (stamp, bool) {
	var st syscall.Stat_t
	err := syscall.Lstat(path, &st)
	for err == syscall.EINTR {
		err = syscall.Lstat(path, &st)
	}
	typ := st.Mode & syscall.S_IFMT
	return stamp{typ == syscall.S_IFREG, typ == syscall.S_IFDIR, st.Size, time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix())}, err == nil
}
