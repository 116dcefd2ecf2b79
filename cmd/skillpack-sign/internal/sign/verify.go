package sign

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// GitHubIssuer is the OIDC issuer of GitHub Actions' tokens.
const GitHubIssuer = "https://token.actions.githubusercontent.com"

// VerifyOptions say whose signature to accept; the fields carry cosign's
// flag names. Keyless verification needs CertificateOIDCIssuer and one of
// CertificateIdentity or CertificateIdentityRegexp (docs/signing.md says
// how to pin a GitHub Actions workflow); key verification needs Key alone.
type VerifyOptions struct {
	// CertificateIdentity is the exact certificate identity (SAN) to accept.
	CertificateIdentity string
	// CertificateIdentityRegexp is a regular expression the identity must match.
	CertificateIdentityRegexp string
	// CertificateOIDCIssuer is the exact OIDC issuer to accept.
	CertificateOIDCIssuer string
	// Key is an ECDSA public key PEM file, for bundles signed with --key.
	Key string
	// TrustedRoot is a trusted_root.json; empty means the public-good
	// Sigstore root, fetched (and cached) through TUF.
	TrustedRoot string
	// CertificateChain is a PEM file of CA certificates, for bundles
	// signed with a long-lived certificate and its chain (the OMS
	// "certificate" method, model_signing's --certificate-chain, which
	// NVIDIA's verified skills use): the bundle's leaf must chain to a
	// self-signed certificate of the file, now. No identity, log or
	// timestamp is checked: the CA is the trust.
	CertificateChain string
}

// Verifier checks bundles against one identity policy.
type Verifier struct {
	opts     VerifyOptions
	tm       root.TrustedMaterial
	v        *verify.Verifier
	byCurve  *verify.Verifier // a key's, by its curve's hash (see dsseKey); nil keyless
	identity verify.PolicyOption
	key      bool
	chain    *caChain // the certificate method's CAs; nil otherwise
}

// NewVerifier checks o and loads the trust it needs: the public key, or the
// trusted root. Without TrustedRoot, keyless verification fetches the
// public-good root through TUF, which needs the network once.
func NewVerifier(o VerifyOptions) (*Verifier, error) {
	v := &Verifier{opts: o, key: o.Key != ""}
	if o.CertificateChain != "" {
		if o.Key != "" || o.CertificateIdentity != "" || o.CertificateIdentityRegexp != "" || o.CertificateOIDCIssuer != "" || o.TrustedRoot != "" {
			return nil, errors.New("--certificate-chain checks a signature by a certificate of that CA: it cannot be combined with --key, --certificate-identity, --certificate-identity-regexp, --certificate-oidc-issuer or --trusted-root")
		}
		var err error
		if v.chain, err = loadChain(o.CertificateChain); err != nil {
			return nil, err
		}
		return v, nil
	}
	if v.key {
		if o.CertificateIdentity != "" || o.CertificateIdentityRegexp != "" || o.CertificateOIDCIssuer != "" {
			return nil, errors.New("--key checks a key signature: it cannot be combined with --certificate-identity, --certificate-identity-regexp or --certificate-oidc-issuer")
		}
		pub, err := loadPublicKey(o.Key)
		if err != nil {
			return nil, err
		}
		// Blob signatures are over the sha256 digest the indexes record,
		// on either curve (see keyPair); folder signatures (DSSE) by the
		// curve's own hash, as OMS signers make them (see dsseKey).
		if v.v, err = keyVerifier(pub, crypto.SHA256); err != nil {
			return nil, err
		}
		if v.byCurve, err = keyVerifier(pub, curveHash(pub.Curve)); err != nil {
			return nil, err
		}
		v.identity = verify.WithKey()
		return v, nil
	}

	switch {
	case o.CertificateIdentity == "" && o.CertificateIdentityRegexp == "":
		return nil, errors.New("keyless verification needs --certificate-identity or --certificate-identity-regexp (or --key for key signatures)")
	case o.CertificateIdentity != "" && o.CertificateIdentityRegexp != "":
		return nil, errors.New("give --certificate-identity or --certificate-identity-regexp, not both")
	case o.CertificateOIDCIssuer == "":
		return nil, fmt.Errorf("keyless verification needs --certificate-oidc-issuer (%s for GitHub Actions)", GitHubIssuer)
	}
	if o.CertificateIdentityRegexp != "" {
		if _, err := regexp.Compile(o.CertificateIdentityRegexp); err != nil {
			return nil, fmt.Errorf("--certificate-identity-regexp: %w", err)
		}
	}
	id, err := verify.NewShortCertificateIdentity(o.CertificateOIDCIssuer, "", o.CertificateIdentity, o.CertificateIdentityRegexp)
	if err != nil {
		return nil, err
	}
	v.identity = verify.WithCertificateIdentity(id)
	if o.TrustedRoot != "" {
		if v.tm, err = root.NewTrustedRootFromPath(o.TrustedRoot); err != nil {
			return nil, fmt.Errorf("--trusted-root %s: %w", o.TrustedRoot, err)
		}
	} else if v.tm, err = root.FetchTrustedRoot(); err != nil {
		return nil, fmt.Errorf("fetching the public-good Sigstore trusted root through TUF: %w (pass --trusted-root to verify offline)", err)
	}
	// A keyless signature counts only with the certificate logged by CT
	// (the SCT), the signature logged by Rekor, and a trusted time (an
	// RFC 3161 timestamp or Rekor's integrated time) inside the
	// certificate's ten minutes.
	v.v, err = verify.NewVerifier(v.tm,
		verify.WithSignedCertificateTimestamps(1),
		verify.WithTransparencyLog(1),
		verify.WithObserverTimestamps(1))
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Verify checks that bundleJSON is a valid signature, by the identity or
// key v was made for, over the artifact whose raw sha256 digest is
// artifactDigest. The error says what did not verify.
func (v *Verifier) Verify(bundleJSON []byte, artifactDigest []byte) error {
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	md := b.GetMessageSignature().GetMessageDigest()
	if md == nil {
		return errors.New("the bundle holds no message signature over a blob (an attestation?)")
	}
	if md.GetAlgorithm() != protocommon.HashAlgorithm_SHA2_256 {
		return fmt.Errorf("the bundle signs a %s digest, want SHA2_256", md.GetAlgorithm())
	}
	if !bytes.Equal(md.GetDigest(), artifactDigest) {
		return fmt.Errorf("digest mismatch: the bundle signs sha256:%x, the artifact is sha256:%x "+
			"(a bundle for another artifact, or an artifact changed after signing)", md.GetDigest(), artifactDigest)
	}
	if v.chain != nil {
		return errors.New("--certificate-chain checks folder signatures (skill.oms.sig); an artifact's .sigstore.json is checked with --certificate-identity and --certificate-oidc-issuer, or --key")
	}
	cert, err := v.material(&b)
	if err != nil {
		return err
	}
	_, err = v.v.Verify(&b, verify.NewPolicy(verify.WithArtifactDigest("sha256", artifactDigest), v.identity))
	if err != nil {
		return v.explain(err, cert)
	}
	return nil
}

// material checks that the bundle is signed the way v verifies (keyless
// or with a key) and, keyless, that its certificate chains to the trusted
// root, and returns the certificate (nil for a key).
func (v *Verifier) material(b *bundle.Bundle) (*x509.Certificate, error) {
	vc, err := b.VerificationContent()
	if err != nil {
		return nil, fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	cert := vc.Certificate()
	chained := b.GetVerificationMaterial().GetX509CertificateChain() != nil
	switch {
	case v.chain != nil && !chained:
		return nil, errors.New("the bundle is not signed with a certificate chain: verify it with --certificate-identity and --certificate-oidc-issuer, or --key")
	case v.chain != nil:
		return cert, nil // verifier checks the chain
	case chained:
		return nil, errors.New("the bundle is signed with a certificate and its CA chain (the OMS certificate method, as NVIDIA's verified skills are): verify it with --certificate-chain CA.pem")
	case v.key && cert != nil:
		return nil, errors.New("the bundle is signed keyless (with a certificate), not with a key: verify it with --certificate-identity and --certificate-oidc-issuer")
	case !v.key && cert == nil:
		return nil, errors.New("the bundle is signed with a key, not keyless: verify it with --key")
	case cert != nil:
		if err := v.chains(cert); err != nil {
			return nil, err
		}
	}
	return cert, nil
}

// chains checks, before anything else, that cert comes from a certificate
// authority of the trusted root: against a wrong root, sigstore-go would
// first report the transparency log entry it cannot check, which hides
// the cause.
func (v *Verifier) chains(cert *x509.Certificate) error {
	// At NotBefore the certificate is inside its own validity, so only
	// the chain is judged here; expiry is judged against the timestamps.
	for _, ca := range v.tm.FulcioCertificateAuthorities() {
		if _, err := ca.Verify(cert, cert.NotBefore); err == nil {
			return nil
		}
	}
	// CheckSignatureFrom would refuse a parent that is not a CA; a
	// self-signed leaf is exactly that.
	if bytes.Equal(cert.RawIssuer, cert.RawSubject) &&
		cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature) == nil {
		return errors.New("untrusted root: the certificate is self-signed, not issued by a certificate authority of the trusted root")
	}
	return fmt.Errorf("untrusted root: the certificate (issued by %q) does not chain to a certificate authority of the trusted root", cert.Issuer.String())
}

// explain turns sigstore-go's error into one that names what failed.
func (v *Verifier) explain(err error, cert *x509.Certificate) error {
	var idErr *verify.ErrNoMatchingCertificateIdentity
	var certErr x509.CertificateInvalidError
	msg := err.Error()
	switch {
	case errors.As(err, &idErr) && cert != nil:
		s, serr := certificate.SummarizeCertificate(cert)
		if serr != nil {
			return fmt.Errorf("wrong identity: %w", err)
		}
		if s.Issuer != v.opts.CertificateOIDCIssuer {
			return fmt.Errorf("wrong issuer: the certificate's OIDC issuer is %q, want %q", s.Issuer, v.opts.CertificateOIDCIssuer)
		}
		want := fmt.Sprintf("%q", v.opts.CertificateIdentity)
		if v.opts.CertificateIdentityRegexp != "" {
			want = fmt.Sprintf("a match of %q", v.opts.CertificateIdentityRegexp)
		}
		return fmt.Errorf("wrong identity: the certificate's identity is %q, want %s", s.SubjectAlternativeName, want)
	case errors.As(err, &certErr) && certErr.Reason == x509.Expired,
		strings.Contains(msg, "certificate has expired or is not yet valid"),
		strings.Contains(msg, "outside certificate validity"):
		return fmt.Errorf("certificate expired: it was valid from %s to %s, and no trusted timestamp falls inside: %w",
			cert.NotBefore.UTC().Format(time.RFC3339), cert.NotAfter.UTC().Format(time.RFC3339), err)
	case strings.Contains(msg, "unknown authority"):
		return fmt.Errorf("untrusted root: %w", err)
	case strings.Contains(msg, "signed certificate timestamp"):
		return fmt.Errorf("no verified SCT: the certificate carries no CT log proof the trusted root accepts: %w", err)
	case strings.Contains(msg, "log inclusion") || strings.Contains(msg, "log entr"):
		return fmt.Errorf("no verified transparency log entry: %w", err)
	case strings.Contains(msg, "timestamp"):
		return fmt.Errorf("no verified timestamp: %w", err)
	case strings.Contains(msg, "failed to verify signature"), strings.Contains(msg, "could not verify envelope"):
		if v.key {
			return fmt.Errorf("the signature does not verify with the public key in %s: %w", v.opts.Key, err)
		}
		return fmt.Errorf("the signature does not verify: %w", err)
	}
	return fmt.Errorf("verification failed: %w", err)
}
