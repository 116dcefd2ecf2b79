package build

import (
	"os"
	"path"
	"path/filepath"

	"github.com/skillpack/skillpack/layout"
)

// A no-op rebuild must know that the previous bundle is intact without
// reading all of it again: on a large tree the served copies alone are as
// many bytes as the input. The build record is the last file a build
// writes. The kernel stamps an inode's change time whenever its bytes,
// mode, links or times change (so no user can set it back; only the clock
// can step back), and a folder's change time whenever an entry is added,
// removed or renamed in it. So a copy or folder whose times are both before
// the record was written has not been touched since: the copy holds the
// recorded bytes, and a bundle whose folders are all untouched has exactly
// the files the record lists. Anything stamped at or after the record, or
// on a system without these times, is checked by reading.
//
// Archives are always hashed before reuse, whatever their times.

// since records when the previous build's record was written: the earlier
// of its modification and change times, so that touching the record can
// only make more files look changed, never fewer.
func (b *builder) since(rec os.FileInfo) {
	m, c, ok := times(rec)
	if !ok {
		return
	}
	if c.Before(m) {
		m = c
	}
	b.recorded = m
}

// untouched reports whether a file or folder of the previous bundle has
// not changed since its record was written.
func (b *builder) untouched(info os.FileInfo) bool {
	if b.recorded.IsZero() {
		return false
	}
	m, c, ok := times(info)
	return ok && m.Before(b.recorded) && c.Before(b.recorded)
}

// foldersUntouched reports whether every folder of the previous bundle
// (the output folder and every folder above a recorded file) is unchanged
// since the record: then no file was added, removed or replaced anywhere.
// The output folder and the record's own folder change in the moment the
// record is written, so their few entries are listed instead.
func (b *builder) foldersUntouched() bool {
	if b.prev == nil || b.recorded.IsZero() {
		return false
	}
	known := map[string]bool{}
	dirs := map[string]bool{".": true}
	for _, f := range b.prev.Files {
		known[f] = true
		for d := path.Dir(f); !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	listed := map[string]bool{".": true, path.Dir(layout.BuildRecord): true}
	for d := range dirs {
		p := filepath.Join(b.out, filepath.FromSlash(d))
		if listed[d] {
			ents, err := os.ReadDir(p)
			if err != nil {
				return false
			}
			for _, e := range ents {
				rel := path.Join(d, e.Name())
				if e.IsDir() && !dirs[rel] || !e.IsDir() && !known[rel] {
					return false
				}
			}
			continue
		}
		info, err := os.Lstat(p)
		if err != nil || !info.IsDir() || !b.untouched(info) {
			return false
		}
	}
	return true
}

// copyIntact reports whether a served copy of the previous bundle still
// holds the recorded bytes: untouched since the record, or hashing to its
// digest.
func (b *builder) copyIntact(c *cachedSkill, f layout.File) bool {
	p := filepath.Join(b.out, filepath.FromSlash(layout.SkillFile(c.Name, f.Path)))
	if b.intact {
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && info.Size() == f.Size && b.untouched(info) {
			return true
		}
	}
	d, n, err := hashFile(p)
	return err == nil && d == f.Digest && n == f.Size
}
