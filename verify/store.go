package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/skillpack/skillpack/layout"
)

// ObjectStore is a published bundle read by dist path: the objects of an
// S3 bucket under a prefix, or what an OCI registry holds of a bundle.
// verify does not know how a store talks to its server; publish/s3 and
// publish/oci implement it (without importing verify), and the command
// joins the two.
//
// A store is checked like a dist folder, not like a URL: it holds the
// build record beside the bundle, so the files the record lists are
// looked for and the documents it lists are held to their digests. Its
// index's urls are mapped by their place in the layout, as a folder's
// are, since a bundle built with --base-url is published to a store that
// cannot know that URL. Unlike a folder, a store may hold more than one
// release (a bucket keeps the archives of the releases before until
// --prune) or only part of one (a registry keeps a skill's .tar.gz and
// SKILL.md, not its .zip or its other files): Files and Holds say which.
//
// Everything a store returns is as untrusted as a server's answer: every
// read is bounded by the Options' limits and its timeout, and every digest
// is recomputed here.
type ObjectStore interface {
	// Check is called once, before anything is opened, with the check's
	// context: the store reads what it needs to find the bundle's files
	// (a registry's manifests) and reports what is wrong with it through
	// problem, which may be called from several goroutines, with the
	// path (or reference) a problem is about. It returns an error only
	// when the bundle cannot be read at all (no such bucket, tag or
	// repository, credentials refused).
	Check(ctx context.Context, problem func(path, message string)) error
	// Open returns the bytes at a dist path and their size, or -1 when it
	// is not known. A file the store does not have is an error wrapping
	// fs.ErrNotExist. The reader is read once and closed.
	Open(ctx context.Context, path string) (io.ReadCloser, int64, error)
	// Holds reports whether the store keeps the file at path at all. What
	// it does not hold is neither read nor a problem; the report counts
	// it (Counts.NotHeld), and a skill's files that only its .tar.gz holds
	// are checked against the archive's entries.
	Holds(path string) bool
	// Files lists every file the store holds, when it holds exactly one
	// bundle (ok true): a file the build record does not list is then a
	// problem, as in a folder. A store that may hold other releases' files
	// too returns ok false, and each file the record lists is looked for.
	Files() (files []string, ok bool)
	// String names the store in the report: s3://bucket/prefix,
	// oci://host/repo:tag.
	String() string
}

// Objects verifies the bundle that st holds. The error is non-nil when
// the store cannot be read at all (Check's error) or its discovery v0.2.0
// index cannot be read; everything else is a Problem.
func Objects(ctx context.Context, st ObjectStore, o Options) (*Report, error) {
	o = o.withDefaults()
	return run(ctx, &storeSource{st: st, o: o}, o)
}

// errNotHeld is a file the source does not keep by design (ObjectStore's
// Holds): not read, not a problem.
var errNotHeld = errors.New("not held by the store")

// errRequestTimeout is the cause of one store request's context when
// Options.Timeout passes.
var errRequestTimeout = errors.New("request timed out")

// storeSource reads an ObjectStore.
type storeSource struct {
	st       ObjectStore
	o        Options
	timeouts atomic.Int32
}

func (s *storeSource) String() string           { return s.st.String() }
func (s *storeSource) close()                   {}
func (s *storeSource) folder() (*os.Root, bool) { return nil, false }

// locate maps urls as a folder does: a store cannot know the base URL the
// bundle is served at.
func (s *storeSource) locate(ref string) (string, error) { return locateIn(fakeIndex, ref, true) }

func (s *storeSource) open(ctx context.Context, loc string) (io.ReadCloser, int64, error) {
	if err := layout.CheckPath(loc); err != nil {
		return nil, 0, err
	}
	if !s.st.Holds(loc) {
		return nil, 0, errNotHeld
	}
	if s.timeouts.Load() >= maxTimeouts {
		return nil, 0, fmt.Errorf("not fetched: %d or more requests to %s timed out (--timeout)", maxTimeouts, s.st)
	}
	// Each request, body included, has --timeout, as over HTTP.
	rctx, cancel := context.WithTimeoutCause(ctx, s.o.Timeout, errRequestTimeout)
	rc, size, err := s.st.Open(rctx, loc)
	if err != nil {
		err = s.describe(rctx, err)
		cancel()
		return nil, 0, err
	}
	return &storeBody{rc: rc, ctx: rctx, cancel: cancel, s: s}, size, nil
}

// describe turns a store's error into verify's: absent is errNotFound, a
// request past its timeout says so.
func (s *storeSource) describe(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errNotFound
	case errors.Is(context.Cause(ctx), errRequestTimeout):
		s.timeouts.Add(1)
		return fmt.Errorf("timed out after %v (--timeout)", s.o.Timeout)
	}
	return err
}

// storeBody is a store's reader, whose request ends when it is closed.
type storeBody struct {
	rc     io.ReadCloser
	ctx    context.Context
	cancel context.CancelFunc
	s      *storeSource
}

func (b *storeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = b.s.describe(b.ctx, err)
	}
	return n, err
}

func (b *storeBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// prepare lets a store read what it needs and report its own problems,
// before the checks begin. Its error ends the check, unless the check's
// own deadline caused it: then the index cannot be read either, and v2
// says why.
func (c *checker) prepare() error {
	s, ok := c.src.(*storeSource)
	if !ok {
		return nil
	}
	var mu sync.Mutex
	err := s.st.Check(c.ctx, func(path, message string) {
		mu.Lock()
		defer mu.Unlock()
		c.problem(path, "%s", message)
	})
	if err != nil && c.ctx.Err() == nil {
		return fmt.Errorf("%s: %w", s.st, err)
	}
	return nil
}

// heldFiles is what a store that holds one bundle holds (nil for any other
// store), after reporting each file the build record does not list.
func (c *checker) heldFiles(listed map[string]bool) map[string]bool {
	s, ok := c.src.(*storeSource)
	if !ok {
		return nil
	}
	files, ok := s.st.Files()
	if !ok {
		return nil
	}
	present := map[string]bool{}
	for _, f := range files {
		present[f] = true
	}
	for _, f := range slices.Sorted(maps.Keys(present)) {
		if !listed[f] {
			c.problem(f, "is in %s but not in the build record (%s): it is not part of this bundle", s.st, layout.BuildRecord)
		}
	}
	return present
}

// lookFor reads each file the build record lists that no check has read
// (in a store that cannot list the files it holds), and reports those
// missing. A hostile record could list millions: at most Options.MaxEntries
// are looked for.
func (c *checker) lookFor(listed map[string]bool) {
	const p = layout.BuildRecord
	var todo []string
	for _, f := range slices.Sorted(maps.Keys(listed)) {
		if _, ok := c.sums[f]; !ok && layout.CheckPath(f) == nil {
			todo = append(todo, f)
		}
	}
	if len(todo) > c.o.MaxEntries {
		c.problem(p, "lists %d files that no index names; only the first %d were looked for", len(todo), c.o.MaxEntries)
		todo = todo[:c.o.MaxEntries]
	}
	c.prefetch(todo)
	for _, f := range todo {
		c.load(f, false)
	}
	for _, f := range slices.Sorted(maps.Keys(listed)) {
		s := c.sums[f]
		switch {
		case s == nil: // beyond the files looked for
		case errors.Is(s.err, errNotFound) && !s.reported:
			s.reported = true
			c.problem(f, "is listed in the build record (%s) but missing", p)
		default:
			c.failed(f, p)
		}
	}
}

// named is loc as a message names it: under the URL or the store.
func (c *checker) named(loc string) string {
	if _, ok := c.src.(*storeSource); ok {
		return c.src.String() + "/" + loc
	}
	return c.src.String() + loc
}

// holds reports whether the source keeps the file at loc (a folder and a
// URL keep everything).
func (c *checker) holds(loc string) bool {
	s, ok := c.src.(*storeSource)
	return !ok || s.st.Holds(loc)
}

// checkUnheld checks what the documents say of the skills' files a store
// does not hold (a registry keeps a skill's .tar.gz, not the served
// copies of its files) against the entries of the skill's archives that
// were read, which hold the same bytes.
func (c *checker) checkUnheld() {
	byArchive := map[*archiveRef]map[string]*entry{}
	for _, e := range c.unheld {
		p, ok := layout.ParsePath(e.loc)
		if !ok || p.Kind != layout.KindFile || p.Legacy || c.skills[p.Skill] == nil {
			continue
		}
		for _, a := range c.skills[p.Skill].archives {
			if a.unpacked == nil || a.unpacked.stopped {
				continue
			}
			m := byArchive[a]
			if m == nil {
				m = map[string]*entry{}
				for i := range a.unpacked.entries {
					m[a.unpacked.entries[i].path] = &a.unpacked.entries[i]
				}
				byArchive[a] = m
			}
			en := m[p.File]
			if en == nil {
				continue // compareArchive says the archive lacks it
			}
			switch d := layout.SumDigest(en.sum[:]); {
			case d != e.digest:
				c.problem(e.loc, "is not held by %s; entry %q of %s has digest %s, but %s says %s", c.src, p.File, a.loc, d, e.from, e.digest)
			case e.size >= 0 && en.size != e.size:
				c.problem(e.loc, "is not held by %s; entry %q of %s is %d bytes, but %s says %d", c.src, p.File, a.loc, en.size, e.from, e.size)
			}
		}
	}
	c.unheld = nil
}

// notHeld counts the files looked for that the source does not hold.
func (c *checker) notHeld() int {
	n := 0
	for _, s := range c.sums {
		if errors.Is(s.err, errNotHeld) {
			n++
		}
	}
	return n
}
