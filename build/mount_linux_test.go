package build

import (
	"syscall"
	"testing"
)

// tmpfs mounts a tmpfs of the given size (mount's syntax: "1m", "3g") in
// a new temporary folder, or returns "" where mounting is not allowed.
func tmpfs(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Logf("cannot mount a tmpfs (%v)", err)
		return ""
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// bindMount mounts src over target until the test ends.
func bindMount(t testing.TB, src, target string) error {
	if err := syscall.Mount(src, target, "", syscall.MS_BIND, ""); err != nil {
		return err
	}
	t.Cleanup(func() { syscall.Unmount(target, 0) })
	return nil
}

// readOnly remounts the tmpfs at mnt read-only.
func readOnly(mnt string) error {
	return syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY, "")
}
