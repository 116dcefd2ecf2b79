package sign

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	sigstore "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"
)

// Folder signatures are OpenSSF Model Signing (OMS) signatures: a Sigstore
// bundle whose content is a DSSE envelope over an in-toto statement that
// lists a folder's files (skillpack's layout package writes and reads the
// statement). The helper signs and checks the envelope; what the
// statement says is skillpack's to check.

// The DSSE payload type of an in-toto statement, and the statement type
// the helper insists on before signing.
const (
	inTotoPayloadType   = "application/vnd.in-toto+json"
	inTotoStatementType = "https://in-toto.io/Statement/v1"
)

// SignStatement signs an in-toto statement: a DSSE envelope over it, in
// a Sigstore bundle (v0.3) as JSON, with the run's key or certificate and,
// keyless, a log entry and a timestamp, as for a blob. The envelope holds
// the statement's bytes exactly as given.
func (s *Signer) SignStatement(ctx context.Context, statement []byte) ([]byte, error) {
	var head struct {
		Type string `json:"_type"`
	}
	if err := json.Unmarshal(statement, &head); err != nil || head.Type != inTotoStatementType {
		return nil, fmt.Errorf("signing: the payload is not an in-toto statement (_type %q, want %s)", head.Type, inTotoStatementType)
	}
	return s.bundle(ctx, &sigstore.DSSEData{Data: statement, PayloadType: inTotoPayloadType}, dsseKey{s.key}, verify.WithoutArtifactUnsafe())
}

// VerifyStatement checks that bundleJSON is a folder signature (a DSSE
// envelope over an in-toto statement) by the identity or key v was made
// for, and returns the statement it signs. It does not read the statement:
// that, and the folder, are skillpack's to compare.
func (v *Verifier) VerifyStatement(bundleJSON []byte) ([]byte, error) {
	b, err := parseFolderBundle(bundleJSON)
	if err != nil {
		return nil, err
	}
	env := b.GetDsseEnvelope()
	switch {
	case env == nil:
		return nil, errors.New("the bundle signs a blob (a message signature), not a folder's statement: it is an artifact's .sigstore.json, not an OMS signature")
	case env.GetPayloadType() != inTotoPayloadType:
		return nil, fmt.Errorf("the bundle's envelope holds %q, not an in-toto statement (%s)", env.GetPayloadType(), inTotoPayloadType)
	}
	cert, err := v.material(b)
	if err != nil {
		return nil, err
	}
	if v.chain != nil {
		if err := v.chain.check(b); err != nil {
			return nil, err
		}
		return env.GetPayload(), nil
	}
	// No artifact: the statement names files, not one artifact, and
	// skillpack compares every one of them with the folder.
	policy := verify.NewPolicy(verify.WithoutArtifactUnsafe(), v.identity)
	if v.byCurve != nil {
		if _, err := v.byCurve.Verify(b, policy); err == nil {
			return env.GetPayload(), nil
		}
	}
	// SHA-256 is accepted on P-384 too, as sigstore-go signs.
	if _, err := v.v.Verify(b, policy); err != nil {
		return nil, v.explain(err, cert)
	}
	return env.GetPayload(), nil
}

// parseFolderBundle reads a folder signature. OMS bundles of the
// certificate method (the reference tool's, NVIDIA's) say they are v0.3
// yet carry a certificate chain, which the Sigstore bundle format allows
// only up to v0.2, so sigstore-go refuses them as v0.3: such a bundle is
// read as the v0.2 bundle it is in substance. Nothing else is changed;
// the chain is then checked like any (caChain).
func parseFolderBundle(data []byte) (*bundle.Bundle, error) {
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(data, &pb); err != nil {
		return nil, fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	if pb.GetVerificationMaterial().GetX509CertificateChain() != nil && pb.GetMediaType() == MediaType {
		pb.MediaType = "application/vnd.dev.sigstore.bundle+json;version=0.2"
	}
	b, err := bundle.NewBundle(&pb)
	if err != nil {
		return nil, fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	return b, nil
}

// dsseKey signs DSSE envelopes as OMS signers do: with the hash of the
// key's curve (SHA-384 on P-384, where keyPair uses SHA-256 for blobs),
// and a key bundle's hint is the hex sha256 of the public key's PEM, which
// the reference verifier (model_signing verify key) compares with the key
// it is given. No sha256 message digest has to match an index here.
type dsseKey struct{ *keyPair }

func curveHash(c elliptic.Curve) crypto.Hash {
	if c == elliptic.P384() {
		return crypto.SHA384
	}
	return crypto.SHA256
}

func (k dsseKey) GetHashAlgorithm() protocommon.HashAlgorithm {
	if curveHash(k.priv.Curve) == crypto.SHA384 {
		return protocommon.HashAlgorithm_SHA2_384
	}
	return protocommon.HashAlgorithm_SHA2_256
}

func (k dsseKey) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	if curveHash(k.priv.Curve) == crypto.SHA384 {
		return protocommon.PublicKeyDetails_PKIX_ECDSA_P384_SHA_384
	}
	return protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
}

func (k dsseKey) GetHint() []byte {
	pem, err := cryptoutils.MarshalPublicKeyToPEM(k.priv.Public())
	if err != nil {
		return nil
	}
	sum := sha256.Sum256(pem)
	return []byte(hex.EncodeToString(sum[:]))
}

func (k dsseKey) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	h := curveHash(k.priv.Curve).New()
	h.Write(data)
	sum := h.Sum(nil)
	sig, err := ecdsa.SignASN1(rand.Reader, k.priv, sum)
	return sig, sum, err
}

// keyVerifier verifies signatures by pub over data hashed with h. Key
// signatures carry no certificate whose validity a timestamp would have
// to prove.
func keyVerifier(pub *ecdsa.PublicKey, h crypto.Hash) (*verify.Verifier, error) {
	sv, err := signature.LoadECDSAVerifier(pub, h)
	if err != nil {
		return nil, err
	}
	tm := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		return root.NewExpiringKey(sv, time.Time{}, time.Time{}), nil
	})
	return verify.NewVerifier(tm, verify.WithNoObserverTimestamps())
}

// caChain is the CA certificates of a --certificate-chain file: its
// self-signed ones are the roots, the others intermediates.
type caChain struct {
	roots, intermediates *x509.CertPool
}

func loadChain(path string) (*caChain, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--certificate-chain: %w", err)
	}
	certs, err := cryptoutils.UnmarshalCertificatesFromPEM(data)
	if err != nil || len(certs) == 0 {
		return nil, fmt.Errorf("%s: no PEM certificate in it; give the CA certificates the signer's chain ends at", path)
	}
	c := &caChain{roots: x509.NewCertPool(), intermediates: x509.NewCertPool()}
	for _, cert := range certs {
		if bytes.Equal(cert.RawIssuer, cert.RawSubject) && cert.CheckSignatureFrom(cert) == nil {
			c.roots.AddCert(cert)
		} else {
			c.intermediates.AddCert(cert)
		}
	}
	if c.roots.Equal(x509.NewCertPool()) { // no self-signed certificate
		return nil, fmt.Errorf("%s holds no self-signed (root) certificate: give the chain up to its root CA", path)
	}
	return c, nil
}

// check verifies a bundle of the certificate method: its leaf chains to a
// root of the file, through the intermediates of the file and of the
// bundle's own chain (which prove nothing alone), now (no timestamp
// vouches for an earlier time), and may sign (key usage); and the DSSE
// signature verifies with the leaf's key. sigstore-go's policy checks are
// for Fulcio certificates (it insists on a SAN identity), so this is done
// with the two checks it is made of.
func (c *caChain) check(b *bundle.Bundle) error {
	vc, err := b.VerificationContent()
	if err != nil {
		return fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	leaf := vc.Certificate()
	inter := c.intermediates.Clone()
	certs := b.GetVerificationMaterial().GetX509CertificateChain().GetCertificates()
	for _, raw := range certs[min(1, len(certs)):] {
		cert, err := x509.ParseCertificate(raw.GetRawBytes())
		if err != nil {
			return fmt.Errorf("the bundle's certificate chain: %w", err)
		}
		inter.AddCert(cert)
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: c.roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	var expired x509.CertificateInvalidError
	switch {
	case errors.As(err, &expired) && expired.Reason == x509.Expired:
		return fmt.Errorf("certificate expired: the signing certificate %q is valid from %s to %s", leaf.Subject.CommonName,
			leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339))
	case err != nil:
		return fmt.Errorf("untrusted root: the signing certificate %q (issued by %q) does not chain to a certificate of --certificate-chain: %w",
			leaf.Subject.CommonName, leaf.Issuer.CommonName, err)
	case leaf.KeyUsage != 0 && leaf.KeyUsage&x509.KeyUsageDigitalSignature == 0:
		return fmt.Errorf("the signing certificate %q may not sign (no digitalSignature key usage)", leaf.Subject.CommonName)
	}
	sc, err := b.SignatureContent()
	if err != nil {
		return fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	if err := verify.VerifySignature(sc, vc, nil); err != nil {
		return fmt.Errorf("the signature does not verify with the certificate %q: %w", leaf.Subject.CommonName, err)
	}
	return nil
}
