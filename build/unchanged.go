package build

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

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
// Archives are held to the same rule: each was hashed when a build wrote
// or reused it, before the record named its digest, so one untouched
// since holds that digest's bytes. This is git's index check, and it
// halves a no-op's reading, since the archives are nearly as many bytes
// as the input. What it cannot see (the disk itself corrupting a file, a
// clock stepped back) is what `skillpack verify` is for: it hashes
// everything.

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

// stampAfter makes sure the record at p is stamped strictly after t, the
// moment every other file of the bundle was written by. File times come
// from the kernel's coarse clock, a tick (1 to 10 ms) behind the wall
// clock, so a record written just after the last folder can share its
// stamp; then the next build would find that folder changed "since" the
// record and read the whole bundle again. Touching the record once the
// clock has ticked costs a few milliseconds once per build.
func stampAfter(p string, t time.Time) error {
	for range 100 {
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		m, c, ok := times(info)
		if !ok || m.After(t) && c.After(t) {
			return nil
		}
		time.Sleep(time.Millisecond)
		now := time.Now()
		if err := os.Chtimes(p, now, now); err != nil {
			return err
		}
	}
	return nil // a clock this slow only costs the next build a full check
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
//
// It reads the record's sorted file list once, holding only the folders
// above the current file: in sorted order the files under a folder come
// together, so each folder is met in one stretch and checked once.
func (b *builder) foldersUntouched() bool {
	if b.prev == nil || b.recorded.IsZero() {
		return false
	}
	listed := map[string]map[string]bool{".": {}, path.Dir(layout.BuildRecord): {}} // folder → known entry → is a folder
	var open []string                                                               // the folders above the last file, outermost first
	ok := true
	err := b.prev.eachFile(func(f string) bool {
		dirs := ancestors(f)
		i := 0
		for i < len(open) && i < len(dirs) && open[i] == dirs[i] {
			i++
		}
		open = append(open[:i], dirs[i:]...)
		for _, d := range dirs[i:] {
			if _, ok := listed[d]; ok {
				continue
			}
			info, err := os.Lstat(filepath.Join(b.out, filepath.FromSlash(d)))
			if err != nil || !info.IsDir() || !b.untouched(info) {
				ok = false
				return false
			}
		}
		for d, known := range listed {
			if rel, in := strings.CutPrefix(f, d+"/"); in || d == "." {
				if d == "." {
					rel = f
				}
				first, _, deeper := strings.Cut(rel, "/")
				known[first] = deeper
			}
		}
		return true
	})
	if err != nil || !ok {
		return false
	}
	for d, known := range listed {
		ents, err := os.ReadDir(filepath.Join(b.out, filepath.FromSlash(d)))
		if err != nil {
			return false
		}
		for _, e := range ents {
			if isDir, ok := known[e.Name()]; !ok || isDir != e.IsDir() {
				return false
			}
		}
	}
	return true
}

// ancestors returns the folders above a slash path, outermost first,
// without ".".
func ancestors(p string) []string {
	var dirs []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			dirs = append(dirs, p[:i])
		}
	}
	return dirs
}

// copyIntact reports whether a served copy of the previous bundle still
// holds the recorded bytes.
func (b *builder) copyIntact(c *layout.RecordSkill, f layout.File) bool {
	return b.holds(filepath.Join(b.out, filepath.FromSlash(layout.SkillFile(c.Name, f.Path))), f.Digest, f.Size)
}

// holds reports whether the file at p of the previous bundle still holds
// the bytes the record gives the digest and size of: it is untouched since
// the record, in a bundle none of whose folders changed (so p is the very
// file that was hashed), or it hashes to the digest.
func (b *builder) holds(p string, digest layout.Digest, size int64) bool {
	if b.fileUntouched(p, size) {
		return true
	}
	d, n, err := hashFile(p)
	return err == nil && d == digest && n == size
}

// fileUntouched reports whether the file at p is the very file the
// previous build wrote there, unwritten since: no folder of the bundle
// changed, and its own times are before the record's.
func (b *builder) fileUntouched(p string, size int64) bool {
	if !b.intact {
		return false
	}
	info, err := os.Lstat(p)
	return err == nil && info.Mode().IsRegular() && info.Size() == size && b.untouched(info)
}
