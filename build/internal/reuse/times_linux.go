package reuse

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// stampOf is what the checks by times read of a FileInfo from os.Lstat.
func stampOf(info os.FileInfo) (stamp, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}, false
	}
	return newStamp(st.Mode, st.Size, time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix())), true
}

// lstat is stampOf(os.Lstat) of a file or folder of the bundle, without
// the FileInfo os.Lstat makes, and looked up from the output folder held
// open rather than from the root: a no-op rebuild checks every file and
// folder of the bundle, and the FileInfo cost a fifth of each check, the
// walk down to the output folder again for each about a third.
func (p *Last) lstat(distPath string) (stamp, bool) {
	if p.root == nil {
		return stamp{}, false
	}
	var st unix.Stat_t
	err := unix.Fstatat(int(p.root.Fd()), distPath, &st, unix.AT_SYMLINK_NOFOLLOW)
	for err == unix.EINTR {
		err = unix.Fstatat(int(p.root.Fd()), distPath, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	return newStamp(st.Mode, st.Size, time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix())), err == nil
}

// openOut opens the output folder for lstat, or returns nil.
func openOut(out string) *os.File {
	f, _ := os.Open(out)
	return f
}

// Timespec's fields are int32 on 32-bit Linux (386, arm) and int64
// elsewhere; its Unix method widens them on every architecture.
func newStamp(mode uint32, size int64, mtime, ctime time.Time) stamp {
	typ := mode & syscall.S_IFMT
	return stamp{typ == syscall.S_IFREG, typ == syscall.S_IFDIR, size, mtime, ctime}
}
