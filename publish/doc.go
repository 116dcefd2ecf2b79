// Package publish is what every publish target shares: a built bundle
// read as a list of objects to upload (Open, Bundle, Object, Skill), the
// safe order they go out in (Stage), and the runner that uploads them
// (Runner): bounded concurrency, retries with backoff for up to a minute
// after a request first fails (so that a short outage of the server is
// waited out, and said), a barrier between stages, a progress line and
// one Result per object. Transient is the half of "worth another try"
// that every target shares: the transport's errors.
//
// A target (publish/s3, publish/oci) decides what an object becomes at
// the other end and whether it is already there; this package decides
// what is published and in which order. It reads a bundle only through
// package layout (the build record and the documents' decoders) and
// trusts what the record says of each file's digest: verify is the
// command that proves a bundle, and a target that sends the digest with
// the bytes (an S3 checksum, an OCI blob digest) has the server refuse
// bytes that do not match it.
//
// # The safe order
//
// Readers enter a bundle through its indexes and follow them to archives
// and files. So an index must not be published before what it names:
// content-addressed archives go first (their names are new, so
// uploading them changes nothing a reader sees), then each skill's files,
// then the MCP documents, then the discovery indexes and the rest of the
// documents, and the build record last, which marks the release as
// complete. A stage starts only when every object of the one before it
// is in place, so a run stopped at any point leaves the indexes of the
// previous release (or of this one, complete) naming archives that are
// present with the right bytes, and the next run finishes the job.
//
// One window remains that no order closes: a skill's own files live at
// fixed paths (.well-known/agent-skills/<name>/SKILL.md), so between the
// Files stage and the Indexes stage the previous index names a file
// whose bytes have already changed. Readers that check digests see a
// mismatch and fetch again; the archives, which carry the skill whole,
// are never in that window.
package publish
