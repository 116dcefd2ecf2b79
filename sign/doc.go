// Package sign is the client of the skillpack-sign helper: it signs a
// built bundle's artifacts with Sigstore and checks their signatures
// (Signer, Verifier and their options), and signs and checks a skill
// folder's statement for its skill.oms.sig (SignStatement,
// VerifyStatement).
//
// It owns running the helper (cmd/skillpack-sign, a module of its own) and
// talking to it in JSON lines. What is signed and where a signature goes
// are layout's (SignedPath, Signature, FolderSignature); the Sigstore
// formats are the helper's.
//
// It must not link sigstore-go, import build, or put a signature inside
// an archive or a digest: Sigstore bundles are not deterministic, and an
// unsigned build is byte-identical with or without this package. Why the
// helper is a separate program: ARCHITECTURE.md, "sign".
package sign
