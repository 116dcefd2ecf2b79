package testtool

import (
	"os"
	"syscall"
)

// tmpfsMagic is tmpfs's f_type (linux/magic.h).
const tmpfsMagic = 0x01021994

// keepsXattrs tells that root is a tmpfs the test may write to, where a
// file keeps a user extended attribute (tmpfs has them since Linux 6.6;
// versitygw keeps an object's metadata in them).
func keepsXattrs(root string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(root, &st); err != nil || st.Type != tmpfsMagic {
		return false
	}
	f, err := os.CreateTemp(root, "skillpack-test-xattr-")
	if err != nil {
		return false
	}
	defer os.Remove(f.Name())
	defer f.Close()
	return syscall.Setxattr(f.Name(), "user.skillpack-test", []byte("1"), 0) == nil
}
