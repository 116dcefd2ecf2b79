package sign

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

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
	s.mu.Lock()
	defer s.mu.Unlock()
	opts := sigstore.BundleOptions{Context: ctx, TimestampAuthorities: s.tsas, TransparencyLogs: s.tlogs}
	if s.keyless {
		if err := s.certificate(ctx); err != nil {
			return nil, err
		}
		opts.CertificateProvider = fixedCert(s.cert)
		opts.CertificateProviderOptions = &sigstore.CertificateProviderOptions{}
	}
	b, err := sigstore.Bundle(&sigstore.DSSEData{Data: statement, PayloadType: inTotoPayloadType}, dsseKey{s.key}, opts)
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	if env := b.GetDsseEnvelope(); env == nil || !bytes.Equal(env.GetPayload(), statement) || env.GetPayloadType() != inTotoPayloadType {
		return nil, errors.New("signing: the bundle's envelope does not hold the statement given")
	}
	if s.root != nil {
		pb, err := bundle.NewBundle(b)
		if err == nil {
			err = s.checkWith(pb, verify.WithoutArtifactUnsafe())
		}
		if err != nil {
			return nil, fmt.Errorf("signing: the new bundle does not verify against --trusted-root: %w", err)
		}
	}
	return protojson.Marshal(b)
}

// VerifyStatement checks that bundleJSON is a folder signature (a DSSE
// envelope over an in-toto statement) by the identity or key v was made
// for, and returns the statement it signs. It does not read the statement:
// that, and the folder, are skillpack's to compare.
func (v *Verifier) VerifyStatement(bundleJSON []byte) ([]byte, error) {
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return nil, fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	env := b.GetDsseEnvelope()
	switch {
	case env == nil:
		return nil, errors.New("the bundle signs a blob (a message signature), not a folder's statement: it is an artifact's .sigstore.json, not an OMS signature")
	case env.GetPayloadType() != inTotoPayloadType:
		return nil, fmt.Errorf("the bundle's envelope holds %q, not an in-toto statement (%s)", env.GetPayloadType(), inTotoPayloadType)
	}
	cert, err := v.material(&b)
	if err != nil {
		return nil, err
	}
	verifier := v.v
	if v.dsse != nil {
		verifier = v.dsse
	}
	// No artifact: the statement names files, not one artifact, and
	// skillpack compares every one of them with the folder.
	if _, err := verifier.Verify(&b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), v.identity)); err != nil {
		return nil, v.explain(err, cert)
	}
	return env.GetPayload(), nil
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
	if err != nil {
		return nil, nil, err
	}
	return sig, sum, nil
}

// keyVerifier is trusted material holding one public key, and a
// verifier of it: key signatures carry no certificate whose validity a
// timestamp would have to prove.
func keyVerifier(sv signature.Verifier) (root.TrustedMaterial, *verify.Verifier, error) {
	tm := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		return root.NewExpiringKey(sv, time.Time{}, time.Time{}), nil
	})
	v, err := verify.NewVerifier(tm, verify.WithNoObserverTimestamps())
	return tm, v, err
}

// anyHash accepts a signature any of its verifiers accepts: one public
// key, tried with each hash in turn.
type anyHash []signature.Verifier

func (a anyHash) PublicKey(opts ...signature.PublicKeyOption) (crypto.PublicKey, error) {
	return a[0].PublicKey(opts...)
}

func (a anyHash) VerifySignature(sig, message io.Reader, opts ...signature.VerifyOption) error {
	s, err := io.ReadAll(sig)
	if err != nil {
		return err
	}
	m, err := io.ReadAll(message)
	if err != nil {
		return err
	}
	for _, v := range a {
		if err = v.VerifySignature(bytes.NewReader(s), bytes.NewReader(m), opts...); err == nil {
			return nil
		}
	}
	return err
}
