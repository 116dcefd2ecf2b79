// Package publish is what every publish target shares: a built bundle
// read through its record as the objects to upload (Open, Bundle, Object,
// Skill), the safe order they go out in (Stage), and Runner, which
// uploads them: bounded concurrency, retries with backoff for up to a
// minute, a barrier between stages, a progress line, one Result per
// object. Transient is the shared half of "worth another try".
//
// A target (publish/s3, publish/oci, publish/file) decides what an object
// becomes at the other end and whether it is already there; this package
// decides what is published and in which order. It must not parse a
// format (layout does), read a bundle except through package bundle, talk
// to a server, or prove a bundle: it trusts the record's digests, which a
// target sends with the bytes for the server to check, and verify proves.
// The safe order, and the one window it cannot close: ARCHITECTURE.md.
package publish
