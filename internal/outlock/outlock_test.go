package outlock

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTake takes a folder's lock twice, as two builds would: the second
// is turned away naming the first, and once the first lets go the lock
// file is gone and the lock can be taken again. It runs on Windows too
// (LockFileEx), where a file cannot be removed while it is open.
func TestTake(t *testing.T) {
	// Not t.TempDir: Wine's RemoveAll cannot remove a folder's files
	// (ERROR_INVALID_FUNCTION), and this test runs under it in CI.
	dir, err := os.MkdirTemp("", "outlock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	out := filepath.Join(dir, "dist")
	lock := filepath.Join(filepath.Dir(out), ".dist"+Suffix)
	unlock, err := Take(out, "build")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Take(out, "sign")
	var busy *BusyError
	if !errors.As(err, &busy) || !strings.Contains(busy.Holder, "a build, pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second Take: %v; want a BusyError naming this build", err)
	}
	unlock()
	if _, err := os.Lstat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file after unlock: %v; want it removed", err)
	}
	unlock, err = Take(out, "build")
	if err != nil {
		t.Fatalf("Take after unlock: %v", err)
	}
	unlock()
}
