// Package s3 is the S3 publish target: `skillpack publish DIST
// s3://bucket/prefix` to AWS S3 or, with an endpoint, an S3-compatible
// store (Cloudflare R2, Google Cloud Storage's S3 API, Ceph, MinIO,
// versitygw), through minio-go.
//
// It is an adapter: Bucket is a prefix as a publish.Bucket (list, stat,
// get, put with the headers, the sha256 checksum and the digest in the
// metadata, delete) and as the bundle.Store that `skillpack verify
// s3://...` reads; the releases, the inventory and Prune are publish's
// (PublishBucket). It owns the target's syntax, the endpoint and
// credentials, which S3 errors are worth a retry, and what its messages
// say to do about the commonest ones. It must not read DIST except
// through package publish.
package s3
