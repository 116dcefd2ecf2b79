package build

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
)

// bundleKeyOf is what every document of the bundle is a function of: the
// generator, the addressing options and each skill's archive key, which
// covers every byte and exec bit of its files. When it equals the
// previous build's and every skill was reused, the documents need not be
// rendered again to know they are the same.
func (b *builder) bundleKeyOf() layout.Digest {
	h := sha256.New()
	fmt.Fprintf(h, "skillpack-bundle/1\n%s\n%s\n%t\n", Generator(), b.opts.BaseURL, b.opts.NoLegacy)
	keys := make([]string, 0, len(b.work))
	for _, w := range b.work {
		keys = append(keys, w.name+" "+string(digest(w.key[:])))
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintln(h, k)
	}
	return digest(h.Sum(nil))
}

// upToDate decides a no-op rebuild without laying out or rendering
// anything: the bundle key is the recorded one, every skill was reused
// (pack has checked their archives and served copies), and the rest of the
// folder is intact: each document hashes to its recorded digest and each
// legacy copy is the served copy's own inode or hashes to its digest. It
// then fills the result from the record.
func (b *builder) upToDate() bool {
	p := b.prev
	if p == nil || p.Bundle == "" || p.Bundle != b.bundleKey || b.opts.Sign != nil || b.opts.NoReuse {
		return false
	}
	for _, w := range b.work {
		// The record must not change either: a lint verdict it holds that
		// no longer applies (the config changed) is rewritten by a full write.
		if !w.reused || !w.sameLint {
			return false
		}
	}
	// The record itself, which the file list names too, is what was read:
	// the same size on disk still.
	if info, err := os.Lstat(filepath.Join(b.out, filepath.FromSlash(layout.BuildRecord))); err != nil || info.Size() != p.self.Size {
		return false
	}
	// Each file is checked on its own, so a batch at a time is checked in
	// parallel; batches keep memory flat however many files there are.
	type check struct {
		a      Artifact
		doc    bool
		served string
	}
	var batch []check
	var last *layout.RecordSkill
	n := 0
	intact := true
	flush := func() bool {
		err := parallel.Each(len(batch), b.opts.Jobs, func(i int) error {
			if !b.intactFile(batch[i].a, batch[i].doc, batch[i].served) {
				return errChanged
			}
			return nil
		})
		if b.opts.Inventory {
			for _, c := range batch {
				b.res.Artifacts = append(b.res.Artifacts, c.a)
			}
		}
		batch = batch[:0]
		return err == nil
	}
	err := p.eachFile(func(path string) bool {
		n++
		a, doc, served, ok := p.self, false, "", true
		if path != layout.BuildRecord {
			a, doc, served, ok = p.recorded(path, &last)
		}
		if !ok {
			intact = false // a file this fast path cannot vouch for, such as a signature
			return false
		}
		batch = append(batch, check{a, doc, served})
		if len(batch) == 4096 {
			intact = flush()
		}
		return intact
	})
	if err != nil || !intact || !flush() {
		b.res.Artifacts = nil
		return false
	}
	b.res.Files = n
	b.res.Excluded = p.Excluded
	b.res.UpToDate = true
	return true
}

var errChanged = errors.New("changed since the record")

// intactFile reports whether a file of the previous bundle still holds
// what the record says: a document hashes to its digest, and a legacy copy
// is the served copy's own inode or hashes to its digest. When no folder
// changed since the record, pack has checked the archives and served
// copies, and a document or legacy copy untouched since needs no reading.
func (b *builder) intactFile(a Artifact, doc bool, served string) bool {
	disk := filepath.Join(b.out, filepath.FromSlash(a.Path))
	switch {
	case doc:
		return b.holds(disk, a.Digest, a.Size)
	case served != "":
		if b.fileUntouched(disk, a.Size) {
			return true
		}
		info, err := os.Stat(disk)
		if err != nil || info.Size() != a.Size {
			return false
		}
		if v2, err := os.Stat(filepath.Join(b.out, filepath.FromSlash(served))); err == nil && os.SameFile(info, v2) {
			return true
		}
		return hashesTo(disk, a.Digest)
	case b.intact:
		return true // pack checked it
	}
	info, err := os.Stat(disk)
	return err == nil && info.Size() == a.Size
}
