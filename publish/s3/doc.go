// Package s3 is the S3 publish target: `skillpack publish DIST
// s3://bucket/prefix` to AWS S3 or, with an endpoint, an S3-compatible
// store (Cloudflare R2, Google Cloud Storage's S3 API, Ceph, MinIO,
// versitygw), through minio-go.
//
// It owns what a bucket holds of a bundle: every file at its bundle path
// with the headers _headers gives it and its sha256 as its S3 checksum; a
// copy of each build record under .skillpack/releases/ and the release
// list .skillpack/releases.json, written after the objects; the inventory
// that lets a rerun skip what is there; Prune; and Bucket, the bundle.Store
// that `skillpack verify s3://...` reads a prefix through.
//
// It must not delete what it did not write, what a kept release names or
// what an index published before the run names, nor read DIST except
// through package publish. The why of each: ARCHITECTURE.md, "publish/s3".
package s3
