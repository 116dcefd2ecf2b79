package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpack/skillpack/dist"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
)

// Previous is the bundle published last (build --previous DIR|URL), read
// file by file. The command passes package verify's reader, which reads a
// folder through an os.Root and a URL with verify's safe HTTP client
// (timeouts, same-origin redirects, a size limit), so that build does
// not import verify.
type Previous interface {
	// Open opens the file at a dist path. A file that is not there is an
	// error wrapping fs.ErrNotExist; any other error says what went wrong
	// (with a URL, the HTTP status).
	Open(ctx context.Context, path string) (io.ReadCloser, error)
	String() string
}

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
		src = &outputBundle{name: b.opts.Out, dir: b.out}
	}
	if src == nil {
		if b.opts.Versioned {
			return "no previous bundle: the output folder holds none, and --previous was not given", nil
		}
		return "no --previous bundle to compare with", nil
	}
	b.prevSrc = src
	read := func(p string) ([]byte, error) { return readAll(b.context(), src, p) }
	pub, err := layout.ReadPublished(read)
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
			data, err := read(layout.Snapshot(r))
			if err == nil {
				err = checkCarried(layout.Snapshot(r), data, rel.Digest)
			}
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

// readAll reads a whole file of the previous bundle.
func readAll(ctx context.Context, src Previous, p string) ([]byte, error) {
	rc, err := src.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// checkCarried says, when a file of the previous bundle does not have the
// digest its documents give it, that the bundle was changed after it was
// published.
func checkCarried(p string, data []byte, want layout.Digest) error {
	if got := layout.DigestOf(data); got != want {
		n := int64(len(data))
		return tamperedErr(&dist.ChangedError{Artifact: layout.Artifact{Path: p, Digest: want, Size: n}, Got: got, Read: n})
	}
	return nil
}

func tamperedErr(c *dist.ChangedError) error {
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

// outputBundle is the bundle in the output folder as a Previous: read
// inside the folder only (an os.Root follows no link out of it), and
// linked from rather than copied (versions.go).
type outputBundle struct {
	name string // as given
	dir  string // absolute
}

func (o *outputBundle) String() string { return o.name }

func (o *outputBundle) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := layout.CheckPath(p); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(o.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// A pipe would block the open: only regular files are read.
	info, err := root.Lstat(filepath.FromSlash(p))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: not found: %w", p, fs.ErrNotExist)
	case err != nil:
		return nil, err
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file; the build writes only files", p)
	}
	return root.Open(filepath.FromSlash(p))
}
