// Package s3 publishes a built bundle to S3-compatible object storage:
// `skillpack publish DIST s3://bucket/prefix`, to AWS S3 or, with an
// endpoint, to Cloudflare R2, Google Cloud Storage's S3 API, Ceph,
// MinIO or versitygw.
//
// It speaks S3 with github.com/minio/minio-go/v7 rather than the AWS SDK
// for Go v2: minio-go is one module with a small dependency tree (the SDK
// is dozens of modules), and it is written for S3-compatible servers
// (path-style addressing for custom endpoints, signature v4 everywhere,
// no assumptions about AWS regions), which is where most of skillpack's
// users point it. Credentials come from the usual places, in order:
// --username and --password-stdin (the access key and secret key), the
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY variables (with
// AWS_SESSION_TOKEN), the shared credentials file (AWS_SHARED_CREDENTIALS_FILE,
// AWS_PROFILE) and an instance's IAM role.
//
// # What is stored
//
// Every file of the bundle is stored at its path in the bundle under the
// prefix, with the Content-Type and Cache-Control that _headers gives it
// (archives are content-addressed and cached as immutable), so that a
// CDN or a bucket website in front of it serves what a static host
// would. Each object is sent with its sha256 as its S3 checksum
// (x-amz-checksum-sha256), so that a server that checks checksums
// refuses bytes that are not the build's, and with the same digest in
// the metadata (x-amz-meta-skillpack-digest) for servers that keep no
// checksum. A later publish lists the prefix once: an object whose key
// has the right size is present, and not sent again, when the inventory
// of the last complete run vouches for it (the same ETag, digest and
// headers; see inventoryPath) or else when a HEAD shows its stored
// checksum (or metadata digest) and headers match. So publishing a
// bundle in which one skill changed sends that skill's files and the
// documents only, after one listing and a handful of requests.
//
// # The order, and releases
//
// The objects go out in publish's safe order (archives, files, MCP
// documents, indexes, the build record), each stage after the one before
// it is complete. Then two objects of this package's own: a copy of the
// build record at .skillpack/releases/<hex>.json (named by the record's
// sha256, so it never changes), and the release list
// .skillpack/releases.json, which names the published releases newest
// first:
//
//	{
//	  "releases": [
//	    {"record": "sha256:…", "bundle": "sha256:…", "published": "2026-11-24T14:50:00Z"}
//	  ]
//	}
//
// record is the digest of the build record (and so the name of its
// copy), bundle is its bundle key. A run that stops before the list is
// written has published nothing the list names; the next run completes
// it. Publishing the bundle that is already the newest release writes
// nothing. The inventory (.skillpack/inventory.json.gz) comes last: a
// shortcut for the next run, never what a reader relies on.
//
// # Pruning
//
// Objects are never deleted, except with Prune, and never in a way that
// breaks a reader: Prune deletes, after the release is complete, the
// objects under the prefix that are skillpack's (bundle paths,
// signatures, release records) and that none of the Keep newest releases
// names (the one just published counts) and that the indexes published
// before this run did not name either (a reader, or a CDN, may still hold
// those). The release list is rewritten to the kept releases before
// anything is deleted, so it never names a record that is gone. Objects
// that are not skillpack's are never touched. Prune assumes one publisher
// at a time for a prefix: another run's archives, uploaded but not yet
// named by a release, would be deleted.
//
// # Reading it back
//
// Bucket reads a published bundle by its paths for `skillpack verify
// s3://bucket/prefix`, which checks it as it checks DIST (see
// verify.ObjectStore), and checks that the release list's newest release
// is the build record the prefix holds.
package s3
