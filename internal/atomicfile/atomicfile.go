// Package atomicfile replaces files whole: a reader, or a later run after
// a crash, sees either the old bytes or the new ones, never a mix, and no
// temporary file is left behind.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data and mode through a temporary file in the
// same folder (a rename is atomic only within one file system), synced
// before the rename so that a crash cannot leave the new name on empty
// bytes. The temporary file is removed if anything fails.
func Write(path string, data []byte, mode fs.FileMode) error {
	return write(path, data, mode, true)
}

// Replace is Write without the syncs, as gofmt -w and editors' formatters
// write: a reader still sees the old bytes or the new ones, but a crash
// may lose the change. For edits to a checkout that git holds (lint
// --fix), where a sync of each file and its folder made 3,000 fixes take
// a minute on a busy disk.
func Replace(path string, data []byte, mode fs.FileMode) error {
	return write(path, data, mode, false)
}

func write(path string, data []byte, mode fs.FileMode, sync bool) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if sync {
		if err = tmp.Sync(); err != nil {
			return err
		}
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if !sync {
		return os.Rename(tmp.Name(), path)
	}
	return Rename(tmp.Name(), path)
}

// Rename renames a file within its folder and makes the rename durable
// where the system allows it (a sync of the folder).
func Rename(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(to)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
