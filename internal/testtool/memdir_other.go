//go:build !linux

package testtool

// keepsXattrs is false where /dev/shm is not Linux's tmpfs: MemDir falls
// back to t.TempDir().
func keepsXattrs(string) bool { return false }
