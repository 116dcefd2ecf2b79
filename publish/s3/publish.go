package s3

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// leaseTTL is publish.LeaseTTL, which tests shorten.
var leaseTTL = publish.LeaseTTL

// metaDigest is the user metadata that holds an object's digest, for
// servers that keep no checksum (x-amz-meta-skillpack-digest).
const metaDigest = "Skillpack-Digest"

// Publish publishes the bundle b to target (s3://bucket/prefix) with
// publish.PublishBucket, and calls report with each object's fate. A
// bucket the server does not have is publish.ErrNoBucket.
func Publish(ctx context.Context, b *publish.Upload, target string, o Options, report func(publish.Result)) error {
	bk, err := OpenBucket(target, o)
	if err != nil {
		return err
	}
	runner := func() *publish.Runner {
		r := o.Runner(bk.String(), DefaultJobs, Retryable)
		r.Report = report
		return r
	}
	if err := runner().Call(ctx, bk.found); err != nil {
		return bk.explain(Scheme+bk.t.Bucket, err)
	}
	if !o.DryRun {
		lease, lctx, err := publish.Lock(ctx, bk, runner(), leaseTTL, cmp.Or(o.Log, io.Discard))
		switch {
		case errors.Is(err, errors.ErrUnsupported):
			fmt.Fprintf(cmp.Or(o.Log, io.Discard), "publish: %s keeps no conditional writes, so nothing keeps a second publish out while this one runs\n", bk.endpointName())
		case errors.As(err, new(*publish.BusyError)):
			return err
		case err != nil:
			return bk.explain(bk.String()+": taking the publish lease ("+publish.LeasePath+")", err)
		default:
			defer lease.Release()
			ctx = lctx
		}
	}
	err = publish.PublishBucket(ctx, b, bk, publish.BucketOptions{DryRun: o.DryRun, Prune: o.Prune, Keep: o.Keep, Runner: runner})
	if lost := publish.Lost(ctx); lost != nil {
		return lost
	}
	return bk.explain("", err)
}

// List is every key under the prefix, as a bundle path.
func (b *Bucket) List(ctx context.Context) (map[string]publish.Stored, error) {
	prefix := b.t.Key("")
	out := map[string]publish.Stored{}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a listing left early stops
	// Which request failed: a listing's later page may fail alone.
	failed := func(err error) error {
		if len(out) > 0 {
			return fmt.Errorf("listing the prefix, after %s: %w", human.Plural(len(out), "key"), err)
		}
		return fmt.Errorf("listing the prefix: %w", err)
	}
	for obj := range b.c.ListObjects(ctx, b.t.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return nil, failed(obj.Err)
		}
		if path, ok := strings.CutPrefix(obj.Key, prefix); ok {
			out[path] = publish.Stored{Size: obj.Size, ETag: strings.Trim(obj.ETag, `"`)}
		}
	}
	// minio-go ends a listing whose context ended without an error: a
	// listing cut short is not the whole prefix.
	if err := ctx.Err(); err != nil {
		return nil, failed(err)
	}
	return out, nil
}

// Stat is what the server keeps of an object: its sha256 checksum, where
// the server keeps one, and the digest in its metadata, which only
// publish puts there.
func (b *Bucket) Stat(ctx context.Context, path string) (publish.Stored, error) {
	info, err := b.c.StatObject(ctx, b.t.Bucket, b.t.Key(path), minio.StatObjectOptions{Checksum: true})
	if notFound(err) {
		return publish.Stored{}, fmt.Errorf("%s: %w", b.url(path), fs.ErrNotExist)
	} else if err != nil {
		return publish.Stored{}, err
	}
	st := publish.Stored{Size: info.Size, ETag: strings.Trim(info.ETag, `"`), ContentType: info.ContentType, CacheControl: info.Metadata.Get("Cache-Control")}
	if sum, err := base64.StdEncoding.DecodeString(info.ChecksumSHA256); err == nil && len(sum) == sha256.Size {
		st.Checksum = layout.SumDigest(sum)
	}
	for k, v := range info.UserMetadata {
		if strings.EqualFold(k, metaDigest) {
			st.Digest = layout.Digest(v)
		}
	}
	return st, nil
}

// Put sends an object in one PUT with its headers, its digest in its
// metadata and, but to GCS, which refuses S3 checksums, as its sha256
// checksum.
func (b *Bucket) Put(ctx context.Context, o publish.Object, body io.Reader) (string, error) {
	meta := map[string]string{metaDigest: string(o.Digest)}
	if !s3utils.IsGoogleEndpoint(*b.c.EndpointURL()) {
		sum, _ := hex.DecodeString(o.Digest.Hex())
		meta["x-amz-checksum-sha256"] = base64.StdEncoding.EncodeToString(sum)
	}
	info, err := b.c.PutObject(ctx, b.t.Bucket, b.t.Key(o.Path), body, o.Size, minio.PutObjectOptions{
		ContentType:  o.ContentType,
		CacheControl: o.CacheControl,
		UserMetadata: meta,
		// Bundle files are small (an archive is at most tens of
		// megabytes): one PUT each, which the checksum covers whole.
		DisableMultipart: true,
		// No streaming signature (aws-chunked) over plain http: the
		// checksum proves the bytes already, and minio-go sends an empty
		// object with it without a Content-Length, which S3 refuses.
		DisableContentSha256: true,
	})
	if err == nil && info.ETag == "" {
		// Every S3 server answers a PUT with the object's ETag; a web
		// server that answers 200 to everything stored nothing.
		return "", b.notS3("answered a PUT without an ETag")
	}
	return info.ETag, err
}

// Swap puts data at path only if the object's ETag is etag, or, with
// etag "", if there is none: S3's conditional writes (If-Match,
// If-None-Match), which AWS, R2, MinIO and versitygw keep. A server that
// says it has none is errors.ErrUnsupported.
func (b *Bucket) Swap(ctx context.Context, path string, data []byte, etag string) (string, error) {
	o := minio.PutObjectOptions{ContentType: "application/json", CacheControl: "no-store", DisableMultipart: true, DisableContentSha256: true}
	if etag == "" {
		o.SetMatchETagExcept("*")
	} else {
		o.SetMatchETag(etag)
	}
	info, err := b.c.PutObject(ctx, b.t.Bucket, b.t.Key(path), bytes.NewReader(data), int64(len(data)), o)
	switch e := errorResponse(err); {
	case e.StatusCode == http.StatusPreconditionFailed || e.StatusCode == http.StatusConflict:
		return "", fmt.Errorf("%s: %w", b.url(path), publish.ErrChanged)
	case e.StatusCode == http.StatusNotImplemented:
		return "", fmt.Errorf("%s: %w: %w", b.url(path), errors.ErrUnsupported, err)
	}
	return strings.Trim(info.ETag, `"`), err
}

// Delete removes an object. A delete refused where the publish before it
// was let in (an Object Lock, a policy that denies deletes) comes after
// work was done: a failed step (exit 1), not a refused login (2).
func (b *Bucket) Delete(ctx context.Context, path string) error {
	err := b.c.RemoveObject(ctx, b.t.Bucket, b.t.Key(path), minio.RemoveObjectOptions{})
	if errorResponse(err).Code == "AccessDenied" {
		return publish.Refused{Err: fmt.Errorf("%s: %w; the bucket refuses to delete it (an Object Lock, a retention rule or a policy): publish without --prune, or let these credentials delete", b.url(path), err), Class: 1}
	}
	return err
}

// url names an object for messages.
func (b *Bucket) url(path string) string { return b.String() + "/" + path }

func (b *Bucket) endpointName() string { return cmp.Or(b.o.Endpoint, "AWS S3") }

// found is nil when the bucket is there, else why not. A web server that
// answers 200 to everything has every bucket, and minio-go reads its page
// as an empty listing: an object no one writes, found, tells it from S3
// before a dry run reports what it would upload. Any other answer is
// S3's: a 404, or a 403 where the credentials may not list.
func (b *Bucket) found(ctx context.Context) error {
	ok, err := b.c.BucketExists(ctx, b.t.Bucket)
	if err == nil && !ok {
		return b.noBucket()
	}
	if err == nil {
		// minio-go fails a 200 without S3's headers (Last-Modified) with
		// an S3 error of no status.
		var e minio.ErrorResponse
		if _, err := b.c.StatObject(ctx, b.t.Bucket, b.t.Key(".skillpack/none"), minio.StatObjectOptions{}); err == nil || errors.As(err, &e) && e.StatusCode == 0 {
			return b.notS3("answered 200 for an object that is not there")
		}
	}
	// An endpoint that does not speak what its URL says, or whose
	// certificate is not trusted, is the user's to give again.
	var cert *tls.CertificateVerificationError
	switch {
	case errors.Is(err, http.ErrSchemeMismatch):
		return publish.Refused{Err: fmt.Errorf("%s%s at %s: %w; the server speaks plain HTTP: give --endpoint http://…", Scheme, b.t.Bucket, b.endpointName(), err), Class: 2}
	case errors.As(err, &cert):
		return publish.Refused{Err: fmt.Errorf("%s%s at %s: %w; if the server's certificate is from a private CA, name it in AWS_CA_BUNDLE", Scheme, b.t.Bucket, b.endpointName(), err), Class: 2}
	}
	// A 400 to the first request is the target's: another HTTP server
	// (SeaweedFS's volume port), a bucket name or region S3 refuses.
	if e := errorResponse(err); e.StatusCode == http.StatusBadRequest {
		return publish.Refused{Err: fmt.Errorf("%s%s at %s: %w; give the URL of the S3 API with --endpoint, and check the bucket's name and --region", Scheme, b.t.Bucket, b.endpointName(), err), Class: 2}
	}
	return err
}

// noBucket is the error of a target whose bucket does not exist, naming
// it and the fix.
func (b *Bucket) noBucket() error {
	return publish.Refused{Err: fmt.Errorf("%s%s: %w at %s; check the bucket's name, --endpoint and the access key (some servers answer so to a key they do not know), or create the bucket (publish does not make one)", Scheme, b.t.Bucket, publish.ErrNoBucket, b.endpointName()), Class: 2}
}

// notS3 is the error of an endpoint whose answers are not S3's (what
// says so), naming it.
func (b *Bucket) notS3(what string) error {
	return publish.Refused{Err: fmt.Errorf("%s is not an S3 server: it %s, as a web site does; give the URL of the S3 API with --endpoint (such as https://ACCOUNT.r2.cloudflarestorage.com)", b.endpointName(), what), Class: 2}
}

// explain adds to err what the user can do about the commonest S3 errors,
// once: an error already publish.Refused is the user's to mend as it says.
func (b *Bucket) explain(what string, err error) error {
	if err == nil || errors.As(err, new(publish.Refused)) {
		return err
	}
	if what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	switch errorResponse(err).Code {
	case "NoSuchBucket": // removed since the run found it, or found by another request first
		return fmt.Errorf("%w (%w)", b.noBucket(), err)
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch":
		return publish.Refused{Err: fmt.Errorf("%w; check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or --username and --password-stdin) and that they may list, read and write %s at %s", err, b.t, b.endpointName()), Class: 2}
	case "ObjectParentIsFile", "ExistingObjectIsDirectory":
		// A server that keeps objects as files and folders (versitygw's
		// posix backend).
		return publish.Refused{Err: fmt.Errorf("%w; %s keeps objects as files and folders, and another's object there is a file where the bundle needs a folder, or a folder where it puts a file: move it away, or publish under a prefix of its own", err, b.endpointName()), Class: 1}
	}
	return err
}

// notFound reports whether err is S3's "no such key".
func notFound(err error) bool {
	e := errorResponse(err)
	return e.StatusCode == http.StatusNotFound || e.Code == "NoSuchKey"
}

// errorResponse is the S3 error in err's chain, or the zero one.
func errorResponse(err error) minio.ErrorResponse {
	var e minio.ErrorResponse
	errors.As(err, &e) // left zero when there is none
	return e
}

// retryCodes are the S3 error codes that say "try again later", whatever
// the status they come with.
var retryCodes = map[string]bool{
	"InternalError": true, "ServiceUnavailable": true, "SlowDown": true, "Throttling": true,
	"ThrottlingException": true, "RequestLimitExceeded": true, "RequestThrottled": true,
	"RequestTimeout": true, "OperationAborted": true, "TooManyRequests": true,
	"XMinioServerNotInitialized": true,
}

// Retryable reports whether an S3 request that failed with err is worth
// another try: a 5xx, throttling (429, SlowDown), a request timeout, or a
// connection that failed, was reset or ended early (publish.Transient:
// minio-go rewrites an early EOF into a *url.Error of its own).
func Retryable(err error) bool {
	if errors.As(err, new(*bundle.ChangedError)) {
		return false
	}
	if e := errorResponse(err); e.StatusCode != 0 || e.Code != "" {
		return e.StatusCode >= 500 || e.StatusCode == http.StatusTooManyRequests ||
			e.StatusCode == http.StatusRequestTimeout || retryCodes[e.Code]
	}
	return publish.Transient(err)
}
