// Package smallfile opens the files of a tree skillpack did not write, and
// reads whole those it must understand: plugin manifests, marketplaces,
// mcp.json, skills-lock.json, .skillignore, skillpack.yaml. A tree may hold
// anything at those names: a named pipe or a link to /dev/zero never ends,
// and a huge file costs its size in memory, so Open never blocks and Read
// refuses both. It imports nothing of the module.
package smallfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Max bounds such a file. The largest real marketplace is well under 1 MiB.
const Max = 16 << 20

// The reasons Read refuses a file, inside its *fs.PathError.
var (
	ErrNotRegular = errors.New("not a regular file (a named pipe, a device or a socket)")
	ErrTooLarge   = fmt.Errorf("more than the %d MiB such a file may be", Max>>20)
)

// Open opens a file of a tree for reading without blocking: opening a
// named pipe found (or put) at a file's name would wait for a writer
// forever. It is the one way skillpack opens a file it did not write.
func Open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// Copy writes the file at path to w, opened as Open opens it; its size is
// the caller's to check (the bytes are checked against a digest as they go).
func Copy(w io.Writer, path string) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// Read reads a file as os.ReadFile does, but refuses one that is not a
// regular file or is larger than Max, with an *fs.PathError.
func Read(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !info.Mode().IsRegular():
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	case info.Size() > Max:
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrTooLarge}
	}
	data, err := io.ReadAll(io.LimitReader(f, Max+1))
	if err == nil && len(data) > Max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrTooLarge}
	}
	return data, err
}
