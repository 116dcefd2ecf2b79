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
func (b *builder) bundleKeyOf() string {
	h := sha256.New()
	fmt.Fprintf(h, "skillpack-bundle/1\n%s\n%s\n%t\n", Generator(), b.opts.BaseURL, b.opts.NoLegacy)
	keys := make([]string, 0, len(b.work))
	for _, w := range b.work {
		keys = append(keys, w.name+" "+digest(w.key[:]))
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintln(h, k)
	}
	return digest(h.Sum(nil))
}

// recordedLint is the lint key the record keeps for the skill: its key
// when lint found nothing in it, else none.
func (w *task) recordedLint() string {
	if w.clean {
		return w.lintKey
	}
	return ""
}

// fastUpToDate decides a no-op rebuild without laying out or rendering
// anything: the bundle key is the recorded one, every skill was reused
// (pack has checked their archives and served copies), and the rest of the
// folder is intact: each document hashes to its recorded digest and each
// legacy copy is the served copy's own inode or hashes to its digest. It
// then fills the result from the record.
func (b *builder) fastUpToDate() bool {
	p := b.prev
	if p == nil || p.Bundle == "" || p.Bundle != b.bundleKey || b.opts.Sign != nil {
		return false
	}
	for _, w := range b.work {
		// The record must not change either: a lint verdict it holds that
		// no longer applies (the config changed) is rewritten by a full write.
		if !w.reused || !w.sameLint {
			return false
		}
	}
	recData, err := os.ReadFile(filepath.Join(b.out, filepath.FromSlash(layout.BuildRecord)))
	if err != nil {
		return false
	}
	n := len(p.Files)
	arts := make(map[string]Artifact, n)
	served := make(map[string]string, n/2) // legacy copy → the served copy it repeats
	for _, c := range p.Skills {
		for _, f := range c.Files {
			v2 := layout.SkillFile(c.Name, f.Path)
			arts[v2] = Artifact{Path: v2, Digest: f.Digest, Size: f.Size}
			v1 := layout.LegacyFile(c.Name, f.Path)
			arts[v1] = Artifact{Path: v1, Digest: f.Digest, Size: f.Size}
			served[v1] = v2
		}
		for _, a := range []struct {
			ar  layout.Archive
			ext string
		}{{c.TarGz, layout.TarGz}, {c.Zip, layout.Zip}} {
			path := layout.ArchivePath(c.Name, a.ar.Digest, a.ext)
			arts[path] = Artifact{Path: path, Digest: a.ar.Digest, Size: a.ar.Size}
		}
	}
	docs := map[string]bool{}
	for _, d := range p.Docs {
		arts[d.Path] = d
		docs[d.Path] = true
	}
	arts[layout.BuildRecord] = Artifact{Path: layout.BuildRecord, Digest: layout.Digest(recData), Size: int64(len(recData))}

	out := make([]Artifact, n)
	for i, path := range p.Files {
		a, ok := arts[path]
		if !ok {
			return false // a file this fast path cannot vouch for, such as a signature
		}
		out[i] = a
	}
	// Each file is checked on its own, so they are checked in parallel.
	err = parallel.Each(n, b.opts.Jobs, func(i int) error {
		if !b.intactFile(out[i], docs[out[i].Path], served[out[i].Path]) {
			return errChanged
		}
		return nil
	})
	if err != nil {
		return false
	}
	if b.opts.Inventory {
		b.res.Artifacts = out
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
	if b.intact {
		if !doc && served == "" {
			return true
		}
		if info, err := os.Lstat(disk); err == nil && info.Mode().IsRegular() && info.Size() == a.Size && b.untouched(info) {
			return true
		}
	}
	info, err := os.Stat(disk)
	if err != nil || info.Size() != a.Size {
		return false
	}
	switch {
	case doc:
		d, _, err := hashFile(disk)
		return err == nil && d == a.Digest
	case served != "":
		v2, err := os.Stat(filepath.Join(b.out, filepath.FromSlash(served)))
		if err == nil && os.SameFile(info, v2) {
			return true
		}
		d, _, err := hashFile(disk)
		return err == nil && d == a.Digest
	}
	return true
}
