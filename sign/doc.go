// Package sign signs a built bundle's artifacts with Sigstore and verifies
// the signatures, using sigstore-go.
//
// Each signed artifact (every archive, every index.json, mcp/skills.json)
// gets a Sigstore bundle beside it, "<artifact>.sigstore.json", in the
// v0.3 bundle format that cosign verify-blob and sigstore-js read. The
// bundle signs the artifact's sha256 digest, the same digest the indexes
// record, so a reader that trusts a signed index can trust every digest in
// it.
//
// Sigstore bundles are never deterministic (nonces, certificates,
// timestamps), so they live beside the artifacts and never inside an
// archive or a digest: an unsigned build is byte-identical with or without
// this package.
//
// This package is heavy (sigstore-go links about 80 modules); only the
// command layer and verify import it, never lint or skill.
package sign
