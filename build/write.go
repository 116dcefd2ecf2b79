package build

import (
	"fmt"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// write stages every file of the bundle that pack and index did not: the
// documents carried forward, the archives and served copies of reused
// skills (linked from the last bundle, or kept in the spare), and the
// legacy tree (linked to the served copies).
func (b *builder) write(pl *planned) (*staged, string, error) {
	switch {
	case b.res.UpToDate:
		b.logf("• write: %s is up to date", b.opts.Out)
		return &staged{pl}, "", nil
	case b.opts.DryRun:
		b.logf("• write: dry run, would write %s to %s", human.Plural(b.res.Files, "file", "files"), b.opts.Out)
		return &staged{pl}, "", nil
	}
	// Files and archives are staged by several workers, a batch at a
	// time: staging a bundle is tens of thousands of links and folders,
	// each a metadata write that waits on the disk, and a worker per core
	// would leave the disk idle. The documents index did not stage come
	// last, each on a worker of its own.
	var (
		total int64
		docs  []layout.Entry
		batch []layout.Entry
	)
	stage := func(es []layout.Entry, workers int) error {
		return parallel.Each(len(es), workers, func(i int) error {
			if err := b.interrupted(); err != nil {
				return err
			}
			return b.writeEntry(pl, es[i])
		})
	}
	flush := func() error {
		err := stage(batch, stagers)
		batch = batch[:0]
		return err
	}
	for e, err := range pl.plan.Entries() {
		if err != nil {
			return nil, "", err
		}
		total += e.Size
		if e.Kind == layout.KindDoc {
			docs = append(docs, e)
			continue
		}
		if batch = append(batch, e); len(batch) == stageBatch {
			if err := flush(); err != nil {
				return nil, "", err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, "", err
	}
	// What the spare folder held that the new bundle does not take goes
	// (its skills were settled by pack, its documents when it was taken).
	if err := b.st.held.clearRest(); err != nil {
		return nil, "", err
	}
	if err := stage(docs, len(docs)); err != nil {
		return nil, "", err
	}
	// Pack, index (the documents and the record) and this loop make every
	// planned file, the record and nothing else; a mismatch is a bug, and a
	// bundle missing a file must not be swapped in.
	if n := b.st.made.Load() + b.st.kept.Load() - 1; n != int64(pl.plan.Len()) {
		return nil, "", fmt.Errorf("the plan has %d files but %d were written", pl.plan.Len(), n)
	}
	b.logf("• write: %s (%s, %s)", b.opts.Out, human.Plural(b.res.Files, "file", "files"), human.Bytes(total))
	return &staged{pl}, "", nil
}

// writeEntry stages one entry of the plan, unless pack staged it or the
// spare folder holds it (Options.Spare).
func (b *builder) writeEntry(pl *planned, e layout.Entry) error {
	if e.Kind != layout.KindDoc && b.st.held.take(e.Skill, e.Path) {
		b.st.kept.Add(1) // the spare folder holds these bytes already
		return nil
	}
	dst := b.st.path(e.Path)
	switch e.Kind {
	case layout.KindPage:
		return nil // index rendered it (see catalog)
	case layout.KindDoc:
		if e.Path == layout.Catalog || pl.docs[e.Path] {
			return nil // index rendered and staged it (see catalog, and Render in index)
		}
		r, err := b.st.writeDoc(dst, pack.Perm(e.Exec), e.Write)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
		if r.Digest != e.Digest {
			return fmt.Errorf("%s: the document changed between two renderings", e.Path)
		}
	case layout.KindArchive, layout.KindFile:
		// Pack staged a packed skill's archives and served copies; the
		// rest (a reused skill's, the legacy tree repeating the served
		// copies) are links to them.
		if src := b.ownCopy(pl, e); src != dst {
			return b.st.link(src, dst)
		}
	}
	return nil
}

// stagers is how many workers stage files, and stageBatch how many are held for them.
const (
	stagers    = 8
	stageBatch = 4096
)
