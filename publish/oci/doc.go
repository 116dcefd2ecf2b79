// Package oci publishes a built bundle to an OCI registry (skillpack
// publish DIST oci://host[:port]/repo[:tag]) with oras-go, in the safe
// order of package publish, through its Runner.
//
// # What is pushed
//
// Every skill is one artifact, as the Agent Skills OCI Artifacts
// specification (Thomas Vitale's draft, the proposal that skills-oci, the
// Arconia CLI, DocsClaw, Epos and agentkit implement) lays it out:
// artifactType application/vnd.agentskills.skill.v1, a config blob of the
// frontmatter's fields, and the skill's .tar.gz as the content layer. A
// second layer holds SKILL.md alone. Both layers carry
// org.opencontainers.image.title, so that a stock `oras pull` writes the
// archive under its DIST name and SKILL.md beside it. The manifest's
// annotations give the name, description, version, license, the content
// digest and the digests of both archives and of SKILL.md.
//
// The bundle is one image index, the specification's collection
// (application/vnd.agentskills.collection.v1), listing the skills with
// their names and references and naming the bundle key. The Sigstore
// bundles of `build --sign` are attached to their skill's manifest as
// cosign attaches them (artifactType
// application/vnd.dev.sigstore.bundle.v0.3+json, the skill as subject):
// by the referrers API, or on a registry without it (distribution 2.8) by
// the sha256-<digest> tag that `oras discover` and cosign read. A skill
// folder's signature (skill.oms.sig) is attached to its manifest as well,
// as an artifact of skillpack's own type
// (application/vnd.skillpack.skill.folder-signature.v1) whose one layer is
// the Sigstore bundle: it signs the folder's files, not the manifest, so
// cosign must not take it for the manifest's signature. Pull writes it
// into the skill's folder. The
// bundle's documents (the discovery indexes, the MCP documents,
// checksums.txt, the catalog, the build record) are one more referrer of
// the collection (application/vnd.skillpack.bundle.documents.v1), each a
// layer titled with its DIST path, with their own signatures attached, so
// that the registry holds the whole bundle. With Options.Sign, each
// skill's manifest and the collection get a signature of their own, as
// `cosign sign` makes one (cosign.go), which `cosign verify` checks, and
// a Store with Options.VerifyStatement checks the same way.
//
// # One repository
//
// Everything goes to the target's one repository, although the
// specification suggests a repository per skill: a registry accepts an
// image index only when it holds the manifests it lists in the same
// repository (distribution refuses it with MANIFEST_BLOB_UNKNOWN), so a
// collection of skills kept elsewhere would need every manifest and blob
// copied to it. One repository is also one blob namespace for the
// existence checks, one grant of write access, and on ghcr.io one
// package to make public rather than one per skill. A skill with a
// version is tagged <skill>-<version>; the release tag (the target's, or
// latest) goes on the collection.
//
// # Order and reruns
//
// Each skill's blobs, then its manifest, skill after skill (a manifest
// waits for its own blobs, not for every blob of the bundle); then the
// signatures and the collection index, then the documents and the
// version tags, then the release tag: a reader that resolves a tag finds
// everything under it. Manifests are built from the bundle and the
// target alone (no time), so a rerun computes the same digests; what the
// registry already has is reported present and not sent (a blob that a
// present manifest names is not even asked about), and a run interrupted
// at any point is finished by the next, which finds the skills the first
// one completed. A fresh publish stops asking: once the first checks
// have all said absent, blobs and manifests are sent without a check
// each, which saves a quarter of the requests of a registry that has
// nothing yet (see remoteRepo.unasked).
//
// # Reading it back
//
// Pull fetches skills back into folders. Store reads what the registry
// holds of a bundle by DIST path for `skillpack verify oci://...`, and
// checks what only a registry has: its comment says what verifying a
// registry means. Neither trusts the registry: every manifest, by tag or
// digest, is read up to maxManifestSize and against its digest, a listing
// up to maxReferrers, each request within Options.Timeout; Pull holds
// each archive to pack's limits, as verify does, refuses two skills
// sharing one, and stops at Options.MaxTotal for all of them.
//
// # Tags
//
// Publish moves a tag only from what it pushes under that tag (a
// collection for the release tag, the skill's artifact for a version
// tag), never from someone else's image, and deletes nothing.
package oci
