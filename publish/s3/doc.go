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
// First a copy of the build record at .skillpack/releases/<hex>.json
// (named by the record's sha256, so it never changes): from then on, what
// the run puts in the bucket is named by a record of skillpack's, even if
// the run stops. Then the objects in publish's safe order (archives,
// files, MCP documents, indexes, the build record), each stage after the
// one before it is complete. Then the release list
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
// Objects are never deleted, except with Prune, and then only what
// skillpack wrote: a file a release's build record lists (the record's
// copy under .skillpack/releases/, which must hold the bytes of its
// name), which none of the Keep newest releases lists (the one just
// published counts), which the indexes published before this run did
// not name either (a reader, or a CDN, may still hold those), and which
// still carries the digest publish stored in its metadata (another
// tool's write over the path carries none). Every record copy under the
// prefix counts, whether or not the list still names it. A path's shape
// proves nothing: a website's own llms.txt or .well-known/ai-catalog.json,
// a hand-made file under .well-known/agent-skills/, another bundle under
// a deeper prefix, are never touched.
//
// The release list is rewritten to the kept releases before anything is
// deleted, so it never names a record that is gone; a release's record
// copy is deleted last, once nothing it lists is left but what a kept
// release lists too, so that a prune stopped at any point leaves the
// next one what it needs to finish. Prune assumes one publisher at a
// time for a prefix: another run's objects, named by its record's copy
// but not yet by the list, would be deleted.
//
// # Reading it back
//
// Bucket reads a published bundle by its paths for `skillpack verify
// s3://bucket/prefix`, which checks it as it checks DIST (see
// dist.Store), and checks that the release list's newest release
// is the build record the prefix holds.
package s3
