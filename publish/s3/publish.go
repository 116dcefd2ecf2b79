package s3

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// metaDigest is the user metadata that holds an object's digest, for
// servers that keep no checksum (x-amz-meta-skillpack-digest).
const metaDigest = "Skillpack-Digest"

// publisher is one run.
type publisher struct {
	b *publish.Bundle
	t Target
	o Options
	c *minio.Client

	// existing is every key under the prefix when the run began, as a
	// bundle path, with its size and ETag.
	existing map[string]listed
	// inv is the inventory of the last complete run (nil: none, or one
	// that could not be read), and etags this run's, to write at its end.
	inv   map[string]entry
	etags etags
	// inMemory holds the bytes of this package's own objects (the
	// release list) by path; a record copy is read from the bundle's
	// record.
	inMemory map[string][]byte
	report   func(publish.Result)
}

// listed is a key as the listing gives it.
type listed struct {
	size int64
	etag string
}

// Publish publishes the bundle b to target (s3://bucket/prefix), as the
// package comment describes, and calls report with each object's fate.
// It returns the first error that retries did not overcome, or the
// context's; what was published before it stays, and a rerun completes
// the release.
func Publish(ctx context.Context, b *publish.Bundle, target string, o Options, report func(publish.Result)) error {
	t, err := ParseTarget(target)
	if err != nil {
		return err
	}
	c, err := o.client()
	if err != nil {
		return err
	}
	if report == nil {
		report = func(publish.Result) {}
	}
	p := &publisher{b: b, t: t, o: o, c: c, report: report, inMemory: map[string][]byte{}}
	return p.run(ctx)
}

func (p *publisher) run(ctx context.Context) error {
	var ok bool
	err := p.runner().Call(ctx, func(ctx context.Context) (err error) {
		ok, err = p.c.BucketExists(ctx, p.t.Bucket)
		return err
	})
	if err != nil {
		return p.explain(Scheme+p.t.Bucket, err)
	}
	if !ok {
		return p.noBucket()
	}
	if err := p.list(ctx); err != nil {
		return err
	}
	list, err := p.releases(ctx)
	if err != nil {
		return err
	}
	p.inv = p.inventory(ctx)
	var keep names
	if p.o.Prune {
		// Read before anything changes: these are the indexes readers
		// hold now.
		if keep, err = p.published(ctx); err != nil {
			return err
		}
	}

	rec := p.b.Record()
	copyObj := rec
	copyObj.Path = recordCopy(rec.Digest)
	copyObj.CacheControl = layout.Immutable // named by its digest
	// The record's copy first, on its own: whatever a run stopped part
	// way leaves is then named by a release record, which a later
	// --prune deletes by (see prune).
	if err := p.runner().Run(ctx, []publish.Object{copyObj}, p.upload); err != nil {
		for _, o := range p.b.Objects {
			p.report(publish.Result{Object: o, State: publish.Skipped, Err: ctx.Err()})
		}
		return p.explain("", err)
	}
	if err := p.runner().Run(ctx, p.b.Objects, p.upload); err != nil {
		return p.explain("", err)
	}

	// The release is complete: list it.
	now := time.Now
	if p.o.Now != nil {
		now = p.o.Now
	}
	max := maxReleases
	if p.o.Prune {
		max = cmp.Or(p.o.Keep, DefaultKeep)
	}
	this := release{Record: rec.Digest, Bundle: p.b.Key, Published: now().UTC().Truncate(time.Second)}
	if len(list) > 0 && list[0].Record == rec.Digest {
		this = list[0] // the newest release again: not even its time changes
	}
	newList := withRelease(list, this, max)
	data := encodeReleases(newList)
	p.inMemory[releasesList] = data
	listObj := publish.Object{Path: releasesList, Digest: layout.DigestOf(data), Size: int64(len(data)),
		ContentType: layout.ContentType(releasesList), CacheControl: "no-cache", Stage: publish.Record}
	if err := p.runner().Run(ctx, []publish.Object{listObj}, p.upload); err != nil {
		return p.explain("", err)
	}
	if !p.o.DryRun {
		if err := p.writeInventory(ctx, slices.Concat(p.b.Objects, []publish.Object{copyObj})); err != nil {
			return p.explain("", err)
		}
	}
	if p.o.Prune {
		return p.prune(ctx, newList, keep)
	}
	return nil
}

func (p *publisher) runner() *publish.Runner {
	return &publish.Runner{
		Jobs:      cmp.Or(p.o.Jobs, DefaultJobs),
		Attempts:  p.o.Attempts,
		Timeout:   p.o.Timeout,
		Backoff:   p.o.Backoff,
		Budget:    p.o.Budget,
		Retryable: Retryable,
		Report:    p.report,
		Progress:  p.o.Progress,
		Log:       p.o.Log,
		Server:    p.t.String(),
		Now:       p.o.Now,
		Sleep:     p.o.Sleep,
	}
}

// list lists every key under the prefix, once: which objects exist, and
// at what size, decides which are asked for (HEAD) and which are sent at
// once.
func (p *publisher) list(ctx context.Context) error {
	prefix := p.t.Key("")
	err := p.runner().Call(ctx, func(ctx context.Context) error {
		p.existing = map[string]listed{} // afresh on each try
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // a listing left early stops
		for obj := range p.c.ListObjects(ctx, p.t.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
			if obj.Err != nil {
				return obj.Err
			}
			if path, ok := strings.CutPrefix(obj.Key, prefix); ok {
				p.existing[path] = listed{size: obj.Size, etag: strings.Trim(obj.ETag, `"`)}
			}
		}
		// minio-go ends a listing whose context ended without an error:
		// a listing cut short is not the whole prefix.
		return ctx.Err()
	})
	return p.explain(p.t.String(), err)
}

// releases reads the release list, or nothing when there is none yet.
func (p *publisher) releases(ctx context.Context) ([]release, error) {
	if _, ok := p.existing[releasesList]; !ok {
		return nil, nil
	}
	data, err := p.get(ctx, releasesList, maxList)
	if err != nil {
		return nil, p.explain(p.url(releasesList), err)
	}
	list, err := decodeReleases(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a release list skillpack wrote (%v); remove it, and the next publish starts a new one", p.url(releasesList), err)
	}
	return list, nil
}

// inventory reads the last complete run's inventory; nil when there is
// none or it cannot be read, which costs a HEAD per object and nothing
// else.
func (p *publisher) inventory(ctx context.Context) map[string]entry {
	if _, ok := p.existing[inventoryPath]; !ok {
		return nil
	}
	data, err := p.get(ctx, inventoryPath, maxInventory)
	if err != nil {
		return nil
	}
	inv, err := decodeInventory(data)
	if err != nil {
		return nil
	}
	return inv
}

// writeInventory writes this run's inventory of objects, last: the
// shortcut of the next run, never what it relies on.
func (p *publisher) writeInventory(ctx context.Context, objects []publish.Object) error {
	data := p.etags.encode(objects)
	p.inMemory[inventoryPath] = data
	o := publish.Object{Path: inventoryPath, Digest: layout.DigestOf(data), Size: int64(len(data)),
		ContentType: layout.ContentType(inventoryPath), CacheControl: "no-cache", Stage: publish.Record}
	// Not reported: it is the run's bookkeeping, rewritten by every run
	// that changed anything, and says nothing about the bundle.
	r := p.runner()
	r.Report, r.Progress = nil, nil
	return r.Run(ctx, []publish.Object{o}, p.upload)
}

// upload makes one object present: as it is when its stored digest, size
// and headers match, else sent.
func (p *publisher) upload(ctx context.Context, o publish.Object) (publish.State, error) {
	key := p.t.Key(o.Path)
	if l, ok := p.existing[o.Path]; ok && l.size == o.Size {
		if e, ok := p.inv[o.Path]; ok && e.vouches(o, l.etag) {
			p.etags.set(o.Path, l.etag)
			return publish.Present, nil
		}
		info, err := p.c.StatObject(ctx, p.t.Bucket, key, minio.StatObjectOptions{Checksum: true})
		if err != nil && errorResponse(err).StatusCode != http.StatusNotFound {
			return publish.Failed, err
		}
		if err == nil && p.same(info, o) {
			p.etags.set(o.Path, info.ETag)
			return publish.Present, nil
		}
	}
	if p.o.DryRun {
		return publish.WouldUpload, nil
	}
	body, err := p.open(o)
	if err != nil {
		return publish.Failed, err
	}
	defer body.Close()
	meta := map[string]string{metaDigest: string(o.Digest)}
	if !s3utils.IsGoogleEndpoint(*p.c.EndpointURL()) { // GCS refuses S3 checksums
		sum, _ := hex.DecodeString(o.Digest.Hex())
		meta["x-amz-checksum-sha256"] = base64.StdEncoding.EncodeToString(sum)
	}
	info, err := p.c.PutObject(ctx, p.t.Bucket, key, bundle.Checked(body, layout.Artifact{Path: o.Path, Digest: o.Digest, Size: o.Size}, "the build record"), o.Size, minio.PutObjectOptions{
		ContentType:  o.ContentType,
		CacheControl: o.CacheControl,
		UserMetadata: meta,
		// Bundle files are small (an archive is at most tens of
		// megabytes): one PUT each, which the checksum covers whole.
		DisableMultipart: true,
		// No streaming signature (aws-chunked) over plain http: it signs
		// every chunk for nothing the checksum does not already prove,
		// and minio-go sends an empty object with it without a
		// Content-Length, which S3 refuses. Every PUT is then what it is
		// over https: the payload unsigned, its sha256 in the checksum.
		DisableContentSha256: true,
	})
	if errors.As(err, new(*bundle.ChangedError)) {
		return publish.Failed, fmt.Errorf("%w: the file changed since the build; rebuild the bundle", err)
	}
	if err != nil {
		return publish.Failed, err
	}
	p.etags.set(o.Path, info.ETag)
	return publish.Uploaded, nil
}

// same reports whether a stored object is o: the same digest (by its
// sha256 checksum, or the metadata digest where the server keeps no
// checksum), size and headers. An object sent by another tool, or by an
// older skillpack with other headers, is sent again.
func (p *publisher) same(info minio.ObjectInfo, o publish.Object) bool {
	sum, meta := digests(info)
	got := cmp.Or(sum, meta)
	// A server that keeps no Cache-Control (gofakes3) cannot be told
	// one: sending the object again would not change that.
	cache := info.Metadata.Get("Cache-Control")
	return got == o.Digest && info.Size == o.Size &&
		sameType(info.ContentType, o.ContentType) && (cache == o.CacheControl || cache == "")
}

// digests are the digests a stored object carries: its sha256 checksum,
// where the server keeps one, and the digest in its metadata, which
// only publish puts there.
func digests(info minio.ObjectInfo) (sum, meta layout.Digest) {
	if b, err := base64.StdEncoding.DecodeString(info.ChecksumSHA256); err == nil && len(b) == sha256.Size {
		sum = layout.SumDigest(b)
	}
	for k, v := range info.UserMetadata {
		if strings.EqualFold(k, metaDigest) {
			meta = layout.Digest(v)
		}
	}
	return sum, meta
}

// sameType reports whether a stored Content-Type is the one sent, as a
// server may spell it back: another case, other spaces around the
// parameters. Otherwise every republish to such a server would send
// every object again.
func sameType(stored, sent string) bool {
	if stored == sent {
		return true
	}
	t1, p1, err1 := mime.ParseMediaType(stored)
	t2, p2, err2 := mime.ParseMediaType(sent)
	return err1 == nil && err2 == nil && t1 == t2 && maps.EqualFunc(p1, p2, strings.EqualFold)
}

// open is an object's bytes: the bundle's file, or this package's own.
func (p *publisher) open(o publish.Object) (io.ReadCloser, error) {
	if data, ok := p.inMemory[o.Path]; ok {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	if strings.HasPrefix(o.Path, releasesDir) {
		o.Path = layout.BuildRecord
	}
	return p.b.Open(o)
}

// url names an object for messages.
func (p *publisher) url(path string) string { return Scheme + p.t.Bucket + "/" + p.t.Key(path) }

func (p *publisher) endpointName() string { return cmp.Or(p.o.Endpoint, "AWS S3") }

// ErrNoBucket is in the chain of the error of a target whose bucket the
// server does not have: the user's to fix, not the server's failure.
var ErrNoBucket = errors.New("no such bucket")

// noBucket is the error of a target whose bucket does not exist, naming
// it and the fix.
func (p *publisher) noBucket() error {
	return fmt.Errorf("%s%s: %w at %s; check the bucket's name and --endpoint, or create the bucket (publish does not make one)", Scheme, p.t.Bucket, ErrNoBucket, p.endpointName())
}

// explain adds to err what the user can do about the commonest S3 errors.
func (p *publisher) explain(what string, err error) error {
	if err == nil {
		return nil
	}
	if what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	switch errorResponse(err).Code {
	case "NoSuchBucket": // removed since the run found it, or found by another request first
		return fmt.Errorf("%w (%w)", p.noBucket(), err)
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch":
		return fmt.Errorf("%w; check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or --username and --password-stdin) and that they may list, read and write %s at %s", err, p.t, p.endpointName())
	}
	return err
}
