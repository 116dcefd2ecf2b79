package bundle

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"time"

	"github.com/skillpack/skillpack/layout"
)

// Store is a published bundle read by dist path: the objects of an S3
// bucket under a prefix, or what an OCI registry holds of a bundle;
// publish/s3 and publish/oci implement it, and the command joins them to
// verify. It is checked like a dist folder, not like a URL: the files its
// build record lists are looked for, and its index's urls are mapped by
// their place in the layout (a --base-url build's URL is not the store's).
// Unlike a folder, it may hold more than one release (a bucket keeps
// earlier releases' archives until --prune) or only part of one (a
// registry keeps a skill's .tar.gz and SKILL.md only): Files and Holds say
// which. What it returns is as untrusted as a server's answer: read
// through Stored, every request has a timeout, and every digest is
// recomputed.
type Store interface {
	// Check is called once, before anything is opened: the store reads what
	// it needs to find the bundle's files (a registry's manifests) and
	// reports what is wrong through problem (callable from several goroutines),
	// with the path or reference concerned. Its error says the bundle cannot
	// be read at all (no such bucket, tag or repository, credentials refused).
	Check(ctx context.Context, problem func(path, message string)) error
	// Open returns the bytes at a dist path and their size, or -1 when it
	// is not known. A file the store does not have is an error wrapping
	// fs.ErrNotExist. The reader is read once and closed.
	Open(ctx context.Context, path string) (io.ReadCloser, int64, error)
	// Holds reports whether the store keeps the file at path at all. What it
	// does not is neither read nor a problem: verify counts it, and checks a
	// skill's files that only its .tar.gz holds against the archive.
	Holds(path string) bool
	// Files lists every file the store holds, when it holds exactly one
	// bundle (ok true): a file the build record does not list is then a
	// problem, as in a folder. A store that may hold other releases' files
	// too returns ok false, and each file the record lists is looked for.
	Files() (files []string, ok bool)
	String() string // names the store in the report: s3://bucket/prefix, oci://host/repo:tag
}

// ErrNotHeld is a file a store does not keep by design (Store's Holds):
// not read, not a problem.
var ErrNotHeld = errors.New("not held by the store")

// errRequestTimeout is the cause of one store request's context when its
// timeout passes.
var errRequestTimeout = errors.New("request timed out")

// Stored is a Source that reads a Store, each request (body included)
// within timeout, as over HTTP.
type Stored struct {
	st       Store
	timeouts timeouts
}

// FromStore reads st, each request within timeout.
func FromStore(st Store, timeout time.Duration) *Stored {
	return &Stored{st: st, timeouts: timeouts{d: timeout}}
}

// Store is the store read.
func (s *Stored) Store() Store { return s.st }

func (s *Stored) String() string { return s.st.String() }
func (s *Stored) Close() error   { return nil }

func (s *Stored) Open(ctx context.Context, loc string) (io.ReadCloser, int64, error) {
	if err := layout.CheckPath(loc); err != nil {
		return nil, 0, err
	}
	if !s.st.Holds(loc) {
		return nil, 0, ErrNotHeld
	}
	if err := s.timeouts.check(s.st.String()); err != nil {
		return nil, 0, err
	}
	// Each request, body included, has --timeout, as over HTTP.
	rctx, cancel := context.WithTimeoutCause(ctx, s.timeouts.d, errRequestTimeout)
	describe := func(err error) error { return s.describe(rctx, err) }
	rc, size, err := s.st.Open(rctx, loc)
	if err != nil {
		err = describe(err)
		cancel()
		return nil, 0, err
	}
	return &body{ReadCloser: rc, describe: describe, done: cancel}, size, nil
}

// describe turns a store's error into a Source's: absent is ErrNotFound,
// a request past its timeout says so.
func (s *Stored) describe(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ErrNotFound
	case errors.Is(context.Cause(ctx), errRequestTimeout):
		return s.timeouts.add()
	}
	return err
}
