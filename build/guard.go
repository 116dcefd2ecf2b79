package build

import (
	"context"
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
// published last, through layout's one definition of the rule (Guard,
// GuardRelease): a skill whose content changed under a version already
// published, or whose version went down, refuses the build, naming the
// skill, the version, both digests and the SKILL.md to bump; a skill that
// is gone is a warning. With Versioned and no Previous the bundle in the
// output folder is the one compared with (its versions are the ones the
// build carries forward, so they must hold). What it read is kept for
// index and versions.
func (b *builder) guard() (string, error) {
	src := b.opts.Previous
	if src == nil && b.opts.Versioned && b.prev != nil {
		f, err := bundle.OpenFolder(b.opts.Out)
		if err != nil {
			return "", err
		}
		src, b.prevOut = f, f
	}
	if src == nil {
		if b.opts.Versioned {
			return "no previous bundle: the output folder holds none, and --previous was not given", nil
		}
		return "no --previous bundle to compare with", nil
	}
	pub, err := bundle.Open(b.context(), src, pack.MaxFile)
	if err != nil {
		return "", &PreviousError{From: src.String(), Err: err}
	}
	var pins []layout.Pin
	for _, w := range b.named {
		sum, err := b.summary(w)
		if err != nil {
			return "", err
		}
		pins = append(pins, layout.Pin{Name: w.name, Version: sum.out.Version, ContentDigest: sum.out.ContentDigest,
			Source: filepath.Join(w.src.Dir, layout.EntryFile)})
	}
	changes := pub.Guard(pins)
	if pub.Versions != nil && !b.opts.Versioned {
		// Built without --versioned, the bundle would stop serving the
		// versions the previous one published, which clients pin.
		changes = append(changes, layout.Change{Error: true, Message: fmt.Sprintf(
			"the previous bundle %s is versioned (it has %s): a build without --versioned would stop publishing its versions, which clients pin; build with --versioned",
			src, layout.VersionsIndex)})
	}
	if r := b.opts.Release; r != "" {
		var snap *layout.IndexV2
		if rel := pub.Versions.FindRelease(r); rel != nil {
			// Open checked that checksums.txt gives it rel.Digest.
			data, err := pub.Doc(b.context(), layout.Snapshot(r))
			if err == nil {
				snap, err = layout.DecodeIndexV2(data)
			}
			if err != nil {
				return "", &PreviousError{From: src.String(), Err: err}
			}
		}
		changes = append(changes, pub.GuardRelease(r, snap, pins)...)
	}
	b.res.Changes = changes
	for _, c := range changes {
		if !c.Error {
			b.logf("  warning: %s", c.Message)
		}
	}
	if layout.Errors(changes) > 0 {
		return "", &VersionError{Changes: changes}
	}
	b.published = pub
	b.logf("• guard: %s compared with %s", human.Plural(len(pins), "skill", "skills"), src)
	return "", nil
}

func tamperedErr(c *bundle.ChangedError) error {
	c.By = layout.VersionsIndex
	return fmt.Errorf("%w: it was changed after it was published (tampered with, or only half published); publish the whole bundle again", c)
}

// context is the build's context, for reads that take one.
func (b *builder) context() context.Context {
	if b.ctx == nil {
		return context.Background()
	}
	return b.ctx
}
