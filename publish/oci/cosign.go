package oci

import (
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// The signatures of the manifests themselves (Options.Sign) are what
// `cosign sign` makes in the new bundle format (the default of cosign 3):
// a Sigstore bundle (v0.3) whose DSSE envelope holds an in-toto statement
// naming the manifest by its digest, with cosign's predicate type,
// attached to the manifest as a referrer. `cosign verify` of a skill's
// reference or of the collection accepts it when one such bundle among
// the referrers verifies over its digest (cosign's GetBundles and
// verifyImageAttestationsSigstoreBundle); it passes over the archives'
// message signatures, which cosign verify-blob checks.

const (
	// inTotoStatementType is the in-toto Statement v1.
	inTotoStatementType = "https://in-toto.io/Statement/v1"
	// CosignSignPredicate is the predicate type of the statement cosign
	// signs for an image (its types.CosignSignPredicateType), whose
	// predicate is empty: the statement says only "this digest is signed".
	CosignSignPredicate = "https://sigstore.dev/cosign/sign/v1"
	// annBundlePredicateType is cosign's annotation of a referrer holding
	// a DSSE bundle: the statement's predicate type.
	annBundlePredicateType = "dev.sigstore.bundle.predicateType"
	// manifestSignatureTitle tells a manifest's own signature among its
	// referrers, beside its archives' (titled with their DIST names): a
	// manifest keeps the first signature it was published with.
	manifestSignatureTitle = "manifest.sigstore.json"
)

// statementSubject is an in-toto ResourceDescriptor: what a statement is
// about, by digest.
type statementSubject struct {
	Digest map[string]string `json:"digest"`
}

// cosignStatement is the in-toto Statement v1 that `cosign sign` signs
// for an image: the image's digest as the one subject, cosign's predicate
// type and an empty predicate. It is cosign's format, not a document of
// the bundle.
type cosignStatement struct {
	Type          string             `json:"_type"`
	Subject       []statementSubject `json:"subject"`
	PredicateType string             `json:"predicateType"`
	Predicate     struct{}           `json:"predicate"`
}

// signStatement is the statement that signs the manifest of digest d.
func signStatement(d digest.Digest) []byte {
	return mustJSON(cosignStatement{
		Type:          inTotoStatementType,
		Subject:       []statementSubject{{Digest: map[string]string{d.Algorithm().String(): d.Encoded()}}},
		PredicateType: CosignSignPredicate,
	})
}

// manifestSignature is the referrer that attaches a Sigstore bundle
// signing subject, as cosign's WriteAttestationNewBundleFormat lays it
// out (one layer, the bundle; cosign's time annotation left out, so that
// the same bundle gives the same referrer).
func manifestSignature(subject ocispec.Descriptor, bundle []byte) manifest {
	b := blob{desc: descriptorOf(ArtifactTypeSigstoreBundle, bundle), data: bundle}
	b.desc.Annotations = map[string]string{annTitle: manifestSignatureTitle}
	return referrer(ArtifactTypeSigstoreBundle, subject, []blob{b}, map[string]string{
		annSigstoreContent:     "dsse-envelope",
		annBundlePredicateType: CosignSignPredicate,
		annTitle:               manifestSignatureTitle,
	})
}
