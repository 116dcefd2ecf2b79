package s3

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/publish"
)

// Bucket is a prefix of a bucket: the publish.Bucket that Publish
// writes a bundle to, and the bundle.Store that `skillpack verify
// s3://bucket/prefix` reads, as it checks a dist folder but for files
// the record does not list (earlier releases' stay until --prune).
type Bucket struct {
	t Target
	o Options
	c *minio.Client
}

// OpenBucket is the bundle at target (s3://bucket/prefix), reached with
// o's endpoint and credentials. Nothing is asked of the server until
// Check or Publish.
func OpenBucket(target string, o Options) (*Bucket, error) {
	t, err := ParseTarget(target)
	if err != nil {
		return nil, err
	}
	c, err := o.client()
	if err != nil {
		return nil, err
	}
	return &Bucket{t: t, o: o, c: c}, nil
}

func (b *Bucket) String() string { return b.t.String() }

// Holds is true: a bucket holds every file of a bundle.
func (b *Bucket) Holds(string) bool { return true }

// Files is not known: the prefix may hold other releases' files too.
func (b *Bucket) Files() ([]string, bool) { return nil, false }

// Check finds the bucket and checks its release list
// (publish.CheckBucket).
func (b *Bucket) Check(ctx context.Context, problem func(path, message string)) error {
	if err := b.found(ctx); err != nil {
		return b.explain("", err)
	}
	publish.CheckBucket(ctx, b, problem)
	return nil
}

// Open is the object at a bundle path and its size; an object that is not
// there is an error wrapping fs.ErrNotExist.
func (b *Bucket) Open(ctx context.Context, path string) (io.ReadCloser, int64, error) {
	// One GET, whose headers give the size (the Client's Object would
	// ask with a HEAD first).
	body, info, _, err := minio.Core{Client: b.c}.GetObject(ctx, b.t.Bucket, b.t.Key(path), minio.GetObjectOptions{})
	switch {
	case notFound(err):
		return nil, 0, fmt.Errorf("%s: %w", b.url(path), fs.ErrNotExist)
	case err != nil:
		return nil, 0, b.explain("", err)
	}
	return body, info.Size, nil
}

var (
	_ bundle.Store   = (*Bucket)(nil)
	_ publish.Bucket = (*Bucket)(nil)
)
