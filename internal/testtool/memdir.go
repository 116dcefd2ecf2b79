package testtool

import (
	"os"
	"sync"
	"testing"
)

// MemDir is a new empty folder for the test, removed when it ends, in
// memory (tmpfs, /dev/shm) where the machine has one that keeps user
// extended attributes, and t.TempDir() elsewhere. It is for the servers
// the tests start, which store what they are sent as files: on a disk,
// docker-registry syncs every blob it commits and versitygw makes a file,
// its attributes and a rename of every object, and the tests waited on
// the disk's journal (TestVersitygw's "foreign objects" and "killed
// prunes" took 59 s on /tmp's disk and 44 s on /dev/shm, on two cores).
// What a server stores is the same on either: the tests read it back
// through the server.
func MemDir(t testing.TB) string {
	t.Helper()
	if root := memRoot(); root != "" {
		if dir, err := os.MkdirTemp(root, "skillpack-test-"); err == nil {
			t.Cleanup(func() {
				if err := os.RemoveAll(dir); err != nil {
					t.Errorf("removing %s: %v", dir, err)
				}
			})
			return dir
		}
	}
	return t.TempDir()
}

// memRoot is the tmpfs folder MemDir makes its folders in, or "".
var memRoot = sync.OnceValue(func() string {
	const root = "/dev/shm"
	if !keepsXattrs(root) {
		return ""
	}
	return root
})
