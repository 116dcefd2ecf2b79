package reuse

import (
	"os"
	"syscall"
	"time"
)

// stampOf is what the checks by times read of a FileInfo from os.Lstat.
func stampOf(info os.FileInfo) (stamp, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}, false
	}
	return newStamp(st), true
}

// lstat is stampOf(os.Lstat(path)) without the FileInfo os.Lstat makes:
// that cost a fifth of each check, and a no-op rebuild checks every file
// and folder of the bundle.
func lstat(path string) (stamp, bool) {
	var st syscall.Stat_t
	err := syscall.Lstat(path, &st)
	for err == syscall.EINTR {
		err = syscall.Lstat(path, &st)
	}
	return newStamp(&st), err == nil
}

// Timespec's fields are int32 on 32-bit Linux (386, arm) and int64
// elsewhere; its Unix method widens them on every architecture.
func newStamp(st *syscall.Stat_t) stamp {
	typ := st.Mode & syscall.S_IFMT
	return stamp{typ == syscall.S_IFREG, typ == syscall.S_IFDIR, st.Size, time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix())}
}
