package publish

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
)

// ForeignError is a publish refused, before anything was written,
// because the target holds something skillpack did not publish at some
// of the bundle's paths: a site's own index.html, a file where the
// bundle needs a folder.
type ForeignError struct {
	Target string   // the folder or the bucket's URL
	Paths  []string // relative to Target, sorted
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s holds what skillpack did not publish at %s of the bundle (%s); "+
		"move it away, or publish to a folder or prefix of its own; nothing was published",
		e.Target, human.Plural(len(e.Paths), "path", "paths"), human.Few(e.Paths, 5))
}

// ExitClass is the command's exit code: 1, a failed check.
func (*ForeignError) ExitClass() int { return 1 }

// Refused is an error the user must mend, not skillpack's failure (an
// object at the target the run cannot trust, credentials a server
// refuses, another's object in the way), with the command's exit code:
// running the same command again cannot help.
type Refused struct {
	Err   error
	Class int
}

func (e Refused) Error() string { return e.Err.Error() }
func (e Refused) Unwrap() error { return e.Err }

// ExitClass is the command's exit code.
func (e Refused) ExitClass() int { return e.Class }

// checkForeign refuses the run when an object at one of the bundle's
// paths is not skillpack's to replace: one the last run's inventory does
// not vouch for, the published build record does not name, that is not
// skillpack's write at a path a release's record copy names (its digest
// in the metadata; in a folder, bytes a record gives the path), and that
// does not hold the bundle's bytes already; or one the inventory says is
// theirs that does not. A copy's name alone proves nothing: a run stopped
// after its record's copy, which goes first, names paths it never wrote,
// where a site may then put its own files; the published record goes
// last. Records are read only while some path is still in doubt.
func (p *bucketRun) checkForeign(ctx context.Context) error {
	var doubt []Object
	for _, o := range p.b.Objects {
		l, ok := p.existing[o.Path]
		if e, vouched := p.inv[o.Path]; ok && (p.theirs[o.Path] || !vouched || !e.vouches(o, l.ETag)) {
			doubt = append(doubt, o)
		}
	}
	// What the store keeps of each, and whether it is the bundle's bytes.
	var mu sync.Mutex
	stored, bundles := p.stored, map[string]bool{}
	_, err := p.sift(ctx, doubt, func(ctx context.Context, o Object) (bool, error) {
		st, err := p.bk.Stat(ctx, o.Path)
		if errors.Is(err, fs.ErrNotExist) {
			mu.Lock()
			delete(p.theirs, o.Path) // gone since the listing: the path is free
			mu.Unlock()
			return false, nil
		}
		if err != nil {
			return false, err
		}
		ok := st.Size == o.Size && cmp.Or(st.Checksum, st.Digest) == o.Digest
		if st.Size == o.Size && st.Checksum == "" && st.Digest == "" {
			// Another tool's write, of which the store keeps no digest:
			// its bytes say whether it is the bundle's.
			rc, _, err := p.bk.Open(ctx, o.Path)
			if err != nil {
				return false, err
			}
			err = bundle.Check(rc, layout.Artifact{Path: o.Path, Digest: o.Digest, Size: o.Size}, "the build record")
			rc.Close()
			if ok = err == nil; err != nil && !errors.As(err, new(*bundle.ChangedError)) {
				return false, err
			}
		}
		mu.Lock()
		stored[o.Path], bundles[o.Path] = st, ok
		mu.Unlock()
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", p.bk, err)
	}

	// The published record first, then the releases' copies; a record
	// that cannot be read names what was read before its fault.
	var records []layout.Digest // "": the published one
	if _, ok := p.existing[layout.BuildRecord]; ok {
		records = append(records, "")
	}
	for _, path := range slices.Sorted(maps.Keys(p.existing)) {
		if d, ok := RecordOf(path); ok {
			records = append(records, d)
		}
	}
	pending := map[string]bool{} // whose writer is not known yet
	for path := range stored {
		if !p.theirs[path] {
			pending[path] = true
		}
	}
	for _, d := range records {
		if len(pending) == 0 {
			break
		}
		named := names{}
		p.recordNames(ctx, d, named)
		maps.DeleteFunc(pending, func(path string, _ bool) bool {
			st := stored[path]
			switch {
			case !named[path]:
				return false
			case d == "": // the published record, sent after every file it names
				return true
			case st.Plain:
				return p.sums[path][st.Checksum]
			}
			return st.Digest.Valid()
		})
	}
	var foreign []string
	for path, st := range stored {
		switch {
		case !p.theirs[path] && !pending[path]: // skillpack's write
		case bundles[path] && st.Digest == "": // no digest of skillpack's: another's, with the bundle's bytes
			p.theirs[path] = true
		case !bundles[path]:
			foreign = append(foreign, path)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	slices.Sort(foreign)
	return &ForeignError{Target: p.bk.String(), Paths: foreign}
}

// sift runs keep on each object, on the target's workers without a
// report (they are reads), and returns the paths it kept.
func (p *bucketRun) sift(ctx context.Context, objects []Object, keep func(context.Context, Object) (bool, error)) (map[string]bool, error) {
	var mu sync.Mutex
	kept := map[string]bool{}
	r := p.o.Runner()
	r.Report, r.Progress = nil, nil
	err := r.Run(ctx, objects, func(ctx context.Context, o Object) (State, error) {
		ok, err := keep(ctx, o)
		if ok {
			mu.Lock()
			kept[o.Path] = true
			mu.Unlock()
		}
		return Present, err
	})
	return kept, err
}
