// Package oci is the OCI registry publish target: `skillpack publish DIST
// oci://host[:port]/repo[:tag]` through oras-go, in publish's safe order.
//
// It owns how a bundle becomes registry content, all in the target's one
// repository: each skill one artifact as the Agent Skills OCI Artifacts
// draft lays it out, the bundle one collection index, the documents and
// the Sigstore bundles as referrers, <skill>-<version> tags and the
// release tag last; cosign-style signatures of the manifests (cosign.go);
// Pull, skills fetched back into folders; and Store, the bundle.Store that
// `skillpack verify oci://...` reads, with the checks only a registry needs.
//
// It must not put a time or a host in a manifest (a rerun computes the
// same digests), move a tag from an image it did not push, delete
// anything, trust a registry beyond a digest and a limit, or read DIST
// except through package publish. The why: ARCHITECTURE.md, "publish/oci".
package oci
