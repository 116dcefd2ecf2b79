package build

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// VersionError refuses a build that would change what the previous
// bundle published: a version's content, a version or release going
// down, a release made again with other skills. Like a LintError it is
// the user's to fix, and nothing was written.
type VersionError struct {
	Changes []layout.Change // the errors among them refused the build
}

func (e *VersionError) Error() string {
	var b strings.Builder
	for _, c := range e.Changes {
		if c.Error {
			b.WriteString(c.Message + "\n")
		}
	}
	n := layout.Errors(e.Changes)
	fmt.Fprintf(&b, "%s against the previous bundle; nothing was written", human.Plural(n, "version error", "version errors"))
	return b.String()
}

// ExitClass is the command's exit code: 1, a failed check.
func (*VersionError) ExitClass() int { return 1 }

// PreviousError is a previous bundle that cannot be compared with: not
// there, not one skillpack built, or not as it was published (a digest
// that does not match). Nothing was written.
type PreviousError struct {
	From string // the folder or URL
	Err  error
}

func (e *PreviousError) Error() string {
	return fmt.Sprintf("the previous bundle %s: %v", e.From, e.Err)
}

// ExitClass is the command's exit code: 1, a failed check.
func (*PreviousError) ExitClass() int { return 1 }

func (e *PreviousError) Unwrap() error { return e.Err }

// guard compares the skills about to be published with the bundle
// published last (layout's Guard, GuardRelease): a skill whose content
// changed under a published version, or whose version went down, refuses
// the build; a skill that is gone is a warning. With Versioned and no
// Previous the bundle in the output folder is compared with, as its
// versions are carried forward. What it read is kept for index and
// versions.
func (b *builder) guard(p *packed) (*previous, string, error) {
	prev := &previous{}
	src := b.opts.Previous
	if src == nil && b.opts.Versioned && p.out.last != nil {
		f, err := bundle.OpenFolder(b.opts.Out)
		if err != nil {
			return nil, "", err
		}
		src, prev.folder = f, f
	}
	if src == nil {
		if b.opts.Versioned {
			return nil, "no previous bundle: the output folder holds none, and --previous was not given", nil
		}
		return nil, "no --previous bundle to compare with", nil
	}
	bun, err := bundle.Open(b.ctx, src, pack.MaxFile)
	if none := (*bundle.NoBundleError)(nil); errors.As(err, &none) {
		err = fmt.Errorf("%w; if nothing is published there yet (a first release), build it with --previous \"\" (the GitHub Action's previous: none), which skillpack.yaml's previous: yields to", err)
	}
	if err != nil {
		return prev, "", &PreviousError{From: src.String(), Err: err}
	}
	var pins []layout.Pin
	for _, w := range p.named {
		sum, err := p.summary(w)
		if err != nil {
			return prev, "", err
		}
		sk := sum.skill()
		pin := layout.Pin{Name: w.name, Version: sum.version, ContentDigest: sum.rec.ContentDigest, Digest: sk.IndexDigest(),
			Source: filepath.Join(w.src.Dir, layout.EntryFile)}
		if sum.version != "" && layout.VersionOf(sum.frontmatter, false) == "" {
			pin.Key = "version" // the top-level key, where the profile reads it
		}
		pins = append(pins, pin)
	}
	changes := bun.Guard(pins)
	if bun.Versions != nil && !b.opts.Versioned {
		// Built without --versioned, the bundle would stop serving the
		// versions the previous one published, which clients pin.
		changes = append(changes, layout.Change{Error: true, Message: fmt.Sprintf(
			"the previous bundle %s is versioned (it has %s): a build without --versioned would stop publishing its versions, which clients pin; build with --versioned",
			src, layout.VersionsIndex)})
	}
	if r := b.opts.Release; r != "" {
		var snap *layout.IndexV2
		if rel := bun.Versions.FindRelease(r); rel != nil {
			// Open checked that checksums.txt gives it rel.Digest.
			data, err := bun.Doc(b.ctx, layout.Snapshot(r))
			if err == nil {
				snap, err = layout.DecodeIndexV2(data)
			}
			if err != nil {
				return prev, "", &PreviousError{From: src.String(), Err: err}
			}
		}
		changes = append(changes, bun.GuardRelease(r, snap, pins)...)
	}
	b.res.Changes = changes
	for _, c := range changes {
		if !c.Error {
			b.logf("  warning: %s", c.Message)
		}
	}
	if layout.Errors(changes) > 0 {
		return prev, "", &VersionError{Changes: changes}
	}
	prev.Opened = bun
	b.logf("• guard: %s compared with %s", human.Plural(len(pins), "skill", "skills"), src)
	return prev, "", nil
}

// previous is the bundle published last, as guard read it and index and
// versions carry from it.
type previous struct {
	*bundle.Opened
	// folder is the output folder's bundle when it is the previous one
	// (Versioned without Previous): its files are linked, not copied.
	folder *bundle.Folder
}

func (p *previous) close() {
	if p != nil && p.folder != nil {
		p.folder.Close()
	}
}

func tamperedErr(c *bundle.ChangedError) error {
	c.By = layout.VersionsIndex
	return fmt.Errorf("%w: it was changed after it was published (tampered with, or only half published); publish the whole bundle again", c)
}
