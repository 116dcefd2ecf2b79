package s3

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// Bucket is a bundle published under a prefix, read back by its bundle
// paths: what `skillpack verify s3://bucket/prefix` checks, a bundle.Store
// which the command hands to verify: the prefix holds every file of the bundle at
// its path, and the build record, so verify checks it as it checks a
// dist folder, except that files the record does not list are allowed
// (the archives of earlier releases stay until --prune).
type Bucket struct {
	p *publisher // its target, options, client and error messages
}

// OpenBucket is the bundle at target (s3://bucket/prefix), reached with
// o's endpoint and credentials (its publishing fields are ignored).
// Nothing is asked of the server until Check.
func OpenBucket(target string, o Options) (*Bucket, error) {
	t, err := ParseTarget(target)
	if err != nil {
		return nil, err
	}
	c, err := o.client()
	if err != nil {
		return nil, err
	}
	return &Bucket{p: &publisher{t: t, o: o, c: c}}, nil
}

func (b *Bucket) String() string { return b.p.t.String() }

// Holds is true: a bucket holds every file of a bundle.
func (b *Bucket) Holds(string) bool { return true }

// Files is not known: the prefix may hold other releases' files too.
func (b *Bucket) Files() ([]string, bool) { return nil, false }

// Check finds the bucket, and when the release list is there (a bundle
// that skillpack publish put there), checks that its newest release is the
// build record the prefix holds: one that is not was changed since, or
// its publish did not finish. problem gets the path of the object a
// problem is about.
func (b *Bucket) Check(ctx context.Context, problem func(path, message string)) error {
	p := b.p
	ok, err := p.c.BucketExists(ctx, p.t.Bucket)
	switch {
	case err != nil:
		return p.explain("", err)
	case !ok:
		return p.noBucket()
	}
	data, err := p.getOnce(ctx, releasesList, maxList)
	if notFound(err) {
		return nil
	}
	if err != nil {
		problem(releasesList, fmt.Sprintf("cannot be read: %v", p.explain("", err)))
		return nil
	}
	list, err := decodeReleases(data)
	switch {
	case err != nil:
		problem(releasesList, fmt.Sprintf("is not a release list skillpack wrote: %v", err))
		return nil
	case len(list) == 0:
		problem(releasesList, "names no release; publish again")
		return nil
	}
	newest := list[0]
	got, err := b.digest(ctx, layout.BuildRecord)
	switch {
	case notFound(err):
		return nil // verify says that the record is missing
	case err != nil:
		problem(layout.BuildRecord, fmt.Sprintf("cannot be read: %v", p.explain("", err)))
	case got != newest.Record:
		problem(releasesList, fmt.Sprintf("its newest release is the build record %s, but %s has the digest %s: the record was changed since, or its publish did not finish; publish again", newest.Record, layout.BuildRecord, got))
	}
	copyPath := recordCopy(newest.Record)
	if _, err := p.c.StatObject(ctx, p.t.Bucket, p.t.Key(copyPath), minio.StatObjectOptions{}); notFound(err) {
		problem(copyPath, fmt.Sprintf("is missing: %s names it as the newest release's build record; publish again", releasesList))
	}
	return nil
}

// digest hashes an object as it streams, up to maxDoc bytes.
func (b *Bucket) digest(ctx context.Context, path string) (layout.Digest, error) {
	rc, _, err := b.Open(ctx, path)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	d, n, err := bundle.Hash(io.LimitReader(rc, maxDoc+1))
	switch {
	case err != nil:
		return "", err
	case n > maxDoc:
		return "", fmt.Errorf("larger than %d bytes: not what skillpack wrote", maxDoc)
	}
	return d, nil
}

// Open is the object at a bundle path and its size; an object that is not
// there is an error wrapping fs.ErrNotExist.
func (b *Bucket) Open(ctx context.Context, path string) (io.ReadCloser, int64, error) {
	p := b.p
	// One GET, whose headers give the size (the Client's Object would
	// ask with a HEAD first).
	body, info, _, err := minio.Core{Client: p.c}.GetObject(ctx, p.t.Bucket, p.t.Key(path), minio.GetObjectOptions{})
	switch {
	case notFound(err):
		return nil, 0, fmt.Errorf("%s: %w", p.url(path), fs.ErrNotExist)
	case err != nil:
		return nil, 0, p.explain("", err)
	}
	return body, info.Size, nil
}

// notFound reports whether err is S3's "no such key".
func notFound(err error) bool {
	e := errorResponse(err)
	return e.StatusCode == http.StatusNotFound || e.Code == "NoSuchKey"
}

var _ bundle.Store = (*Bucket)(nil)
