// Package sign signs a built bundle's artifacts with Sigstore and checks
// their signatures, through the skillpack-sign helper.
//
// Each signed artifact (every archive, every index.json, mcp/skills.json)
// gets a Sigstore bundle beside it, "<artifact>.sigstore.json", in the
// v0.3 bundle format that cosign verify-blob and sigstore-js read. The
// bundle signs the artifact's sha256 digest, the same digest the indexes
// record, so a reader that trusts a signed index can trust every digest in
// it.
//
// Each skill folder also gets a folder signature, skill.oms.sig, among its
// served files: an OpenSSF Model Signing bundle whose DSSE envelope holds
// the folder's statement (layout.StatementDoc, every file with its
// digest), so that a skill can be checked after an installer unpacked it
// (SignStatement, VerifyStatement).
//
// Sigstore bundles are never deterministic (nonces, certificates,
// timestamps), so they live beside the artifacts and never inside an
// archive or a digest: an unsigned build is byte-identical with or without
// this package.
//
// The Sigstore code itself (sigstore-go, about 370 packages more than the
// rest of skillpack) is in the separate module and program
// cmd/skillpack-sign, which this package runs and talks to in JSON lines
// (see that command's documentation for the protocol). So skillpack's own
// module does not depend on sigstore-go at all: `go install` of skillpack,
// `go run ./cmd/skillpack lint` and the pre-commit hook never download or
// compile it. This package decides what is signed and where signatures go;
// the helper owns the Sigstore formats: it makes and checks the bundles.
package sign
