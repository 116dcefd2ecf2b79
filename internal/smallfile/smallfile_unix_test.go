//go:build unix

package smallfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A named pipe and a link to /dev/zero: neither ends, so read, each would
// hang or fill memory.
func TestReadNeverEnds(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero} {
		if _, err := Read(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Read(%s) = %v, want ErrNotRegular", filepath.Base(p), err)
		}
	}
}
