// Package publish is what every publish target shares: a built bundle
// read through its record as the objects to upload (Open, Upload, Object,
// Skill), the safe order they go out in (Stage), and Runner: bounded
// concurrency, retries with backoff for up to a minute, a barrier between
// stages, a progress line, one Result per object; Transient, the shared
// half of "worth another try". For a store of objects (Bucket, which
// publish/s3 adapts) it is the generic half of the target: the release
// list, record copies, the inventory, and a prune of only what a release
// no longer kept names (PublishBucket, CheckBucket).
//
// A target decides what an object becomes at the other end; this package
// decides what is published and in which order. It must not parse a
// format (layout does), read a bundle except through package bundle, talk
// to a server but through a Bucket, or prove a bundle (verify does).
package publish
