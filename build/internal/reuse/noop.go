package reuse

import (
	"errors"
	"os"
	"slices"

	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
)

// UpToDate is the one no-op decision. The output folder already holds the
// bundle a build would write when:
//
//   - bundle, the build's bundle key, is the recorded one, so every
//     document would be the same bytes;
//   - allReused: every skill was reusable by key (Reusable has proven its
//     archives and served copies intact) with the verdict the record holds,
//     so the record would be the same bytes too;
//   - and every other file the record lists still holds its recorded
//     bytes: each document trusted by times or verified by hash, and each
//     legacy copy trusted by times, the served copy's own inode, or
//     verified by hash. A file the record lists that no check can vouch for
//     (a signature: a signed build always signs afresh) means no.
//
// It decides from the record alone, laying out and rendering nothing, and
// checks jobs files at once. list, when not nil, is given every file of
// the bundle with its digest and size, in the record's order.
func (p *Last) UpToDate(bundle layout.Digest, allReused bool, jobs int, list func(layout.Artifact)) bool {
	if p == nil || p.Head.Bundle == "" || p.Head.Bundle != bundle || !allReused {
		return false
	}
	// The record itself, which the file list names too, is what was read:
	// the same size on disk still.
	if info, err := os.Lstat(p.disk(layout.BuildRecord)); err != nil || info.Size() != p.Head.Self.Size {
		return false
	}
	// Each file is looked up and checked on its own, so a batch at a time
	// is, in parallel: a run of consecutive paths each, which mostly share
	// a skill's record. Batches keep memory flat however many files there
	// are.
	const run = 256
	var batch []string
	var got []layout.Artifact
	flush := func() bool {
		got = slices.Grow(got[:0], len(batch))[:len(batch)]
		err := parallel.Each((len(batch)+run-1)/run, jobs, func(k int) error {
			var last *layout.RecordSkill
			for i := k * run; i < min(len(batch), (k+1)*run); i++ {
				a, doc, served, ok := p.Head.Self, false, "", true
				if batch[i] != layout.BuildRecord {
					a, doc, served, ok = p.listed(batch[i], &last)
				}
				// !ok: a file no check can vouch for, such as a signature.
				if !ok || !p.holdsListed(a, doc, served) {
					return errChanged
				}
				got[i] = a
			}
			return nil
		})
		if list != nil && err == nil {
			for _, a := range got {
				list(a)
			}
		}
		batch = batch[:0]
		return err == nil
	}
	intact := true
	err := p.EachFile(func(path string) bool {
		if batch = append(batch, path); len(batch) == 4096 {
			intact = flush()
		}
		return intact
	})
	return err == nil && intact && flush()
}

var errChanged = errors.New("changed since the record")

// holdsListed reports whether a file the record lists still holds what
// the record says. Reusable has checked the archives and served copies of
// every skill, so those need only still be there.
func (p *Last) holdsListed(a layout.Artifact, doc bool, served string) bool {
	disk := p.disk(a.Path)
	switch {
	case doc:
		return p.Holds(a.Path, a.Digest, a.Size)
	case served != "":
		if p.trusted(disk, a.Size) {
			return true
		}
		info, err := os.Stat(disk)
		if err != nil || info.Size() != a.Size {
			return false
		}
		if v2, err := os.Stat(p.disk(served)); err == nil && os.SameFile(info, v2) {
			return true
		}
		return Verified(disk, a.Digest, a.Size)
	case p.intact:
		return true
	}
	info, err := os.Stat(disk)
	return err == nil && info.Size() == a.Size
}

// listed says what the previous build wrote at a dist path: the
// artifact, whether it is a document, and for a legacy copy the served
// copy it repeats. It reads the path with layout.ParsePath and looks up the
// skill it names (in *last, which consecutive paths of a skill share); ok
// is false for a path that is none of the bundle's.
func (p *Last) listed(path string, last **layout.RecordSkill) (a layout.Artifact, doc bool, served string, ok bool) {
	at, ok := layout.ParsePath(path)
	if !ok {
		return a, false, "", false
	}
	if at.Kind == layout.KindDoc {
		for _, d := range p.Head.Docs {
			if d.Path == path {
				return d, true, "", true
			}
		}
		return a, false, "", false
	}
	if *last == nil || (*last).Name != at.Skill {
		*last = p.Skill(at.Skill)
	}
	c := *last
	if c == nil {
		return a, false, "", false
	}
	switch at.Kind {
	case layout.KindPage:
		if c.Page != nil {
			// A document, rendered from the skill and the build's options.
			return layout.Artifact{Path: path, Digest: c.Page.Digest, Size: c.Page.Size}, true, "", true
		}
	case layout.KindFile:
		for _, x := range c.Files {
			if x.Path == at.File {
				if at.Legacy {
					served = layout.SkillFile(at.Skill, at.File)
				}
				return layout.Artifact{Path: path, Digest: x.Digest, Size: x.Size}, false, served, true
			}
		}
	case layout.KindArchive:
		for _, x := range c.Archives() {
			if x.Path == path {
				return x, false, "", true
			}
		}
	}
	return a, false, "", false
}
