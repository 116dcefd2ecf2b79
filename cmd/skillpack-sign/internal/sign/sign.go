// Package sign is the helper's Sigstore code, on sigstore-go: a Signer
// makes Sigstore bundles (a message signature over a digest, or a DSSE
// envelope over a folder's in-toto statement) by key, keyless through
// Fulcio with an OIDC token, or with a certificate chain, with a
// transparency log entry or a timestamp as configured; a Verifier checks
// them against a trusted root and an identity, or a key.
// token.go finds an OIDC token where CI leaves one.
//
// It must not read what a statement says (skillpack's layout does) or
// talk to skillpack except through the helper's JSON lines (main.go).
package sign

import (
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	sigstore "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/protobuf/encoding/protojson"
)

// The public-good Sigstore instance, used unless options or a signing
// config name others.
const (
	DefaultFulcioURL = "https://fulcio.sigstore.dev"
	DefaultRekorURL  = "https://rekor.sigstore.dev"
	DefaultTSAURL    = "https://timestamp.sigstore.dev/api/v1/timestamp"
)

// MediaType is the media type of every bundle this package writes.
const MediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Options say how to sign. The zero value signs keyless against the
// public-good Sigstore instance, with the OIDC token taken from the
// environment.
type Options struct {
	// IdentityToken is an OIDC token, or a file holding one, for keyless
	// signing. Empty: SIGSTORE_ID_TOKEN, then GitHub Actions' token endpoint.
	IdentityToken string
	// Key is an ECDSA P-256 or P-384 private key PEM file. Set, it signs
	// with the key instead of a Fulcio certificate, and uploads to a
	// transparency log or asks a timestamp authority only if RekorURL or
	// TSAURL is set (an upload would publish the key and the digests).
	Key string
	// FulcioURL, RekorURL and TSAURL override the signing config and the
	// public-good defaults. TSAURL is the full URL of the timestamp endpoint.
	FulcioURL, RekorURL, TSAURL string
	// TrustedRoot is a trusted_root.json; set, every keyless bundle is
	// verified against it right after signing.
	TrustedRoot string
	// SigningConfig is a Sigstore signing_config.json naming the Fulcio,
	// Rekor and timestamp services of a private instance.
	SigningConfig string
}

// Signer signs artifacts. A keyless Signer asks Fulcio for one certificate,
// at its first signature, and signs every later artifact with the same key
// and certificate. A Signer is safe for concurrent use; signatures are
// made one at a time.
type Signer struct {
	mu      sync.Mutex
	opts    Options
	env     func(string) string
	key     *keyPair
	keyless bool
	fulcio  sigstore.CertificateProvider
	tsas    []*sigstore.TimestampAuthority
	tlogs   []sigstore.Transparency
	root    root.TrustedMaterial
	cert    []byte // the run's Fulcio certificate, DER, once fetched
}

// NewSigner checks o and prepares a Signer: it loads the key or makes the
// run's ephemeral key, reads the trusted root and signing config, and makes
// sure a keyless run has somewhere to get its token from. It contacts no
// service: the token and certificate are fetched at the first Sign, so that
// they are fresh. env is how environment variables are read (nil:
// os.Getenv).
func NewSigner(ctx context.Context, o Options, env func(string) string) (*Signer, error) {
	if env == nil {
		env = os.Getenv
	}
	s := &Signer{opts: o, env: env, keyless: o.Key == ""}
	if !s.keyless && (o.IdentityToken != "" || o.FulcioURL != "") {
		return nil, errors.New("--key signs without a certificate: it cannot be combined with --identity-token or --fulcio-url")
	}
	svc, err := services(o, s.keyless)
	if err != nil {
		return nil, err
	}
	var priv *ecdsa.PrivateKey
	if s.keyless {
		if !hasToken(o.IdentityToken, env) {
			return nil, errNoToken(env)
		}
		// The run's one-use key, which Fulcio certifies.
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		s.fulcio = sigstore.NewFulcio(&sigstore.FulcioOptions{BaseURL: svc.fulcio, Retries: 2})
	} else {
		priv, err = loadKey(o.Key, env)
	}
	if err == nil {
		s.key, err = newKeyPair(priv)
	}
	if err != nil {
		return nil, err
	}
	if svc.tsa != "" {
		s.tsas = []*sigstore.TimestampAuthority{sigstore.NewTimestampAuthority(&sigstore.TimestampAuthorityOptions{URL: svc.tsa, Retries: 2})}
	}
	if svc.rekor != "" {
		s.tlogs = []sigstore.Transparency{sigstore.NewRekor(&sigstore.RekorOptions{BaseURL: svc.rekor, Version: svc.rekorVersion, Retries: 2})}
	}
	if o.TrustedRoot != "" && s.keyless {
		tr, err := root.NewTrustedRootFromPath(o.TrustedRoot)
		if err != nil {
			return nil, fmt.Errorf("--trusted-root %s: %w", o.TrustedRoot, err)
		}
		s.root = tr
	}
	return s, nil
}

// serviceURLs are the services one run talks to.
type serviceURLs struct {
	fulcio, rekor, tsa string
	rekorVersion       uint32
}

// services resolves each service: its flag, else the signing config, else
// (keyless only) the public-good instance. A key run uses only the
// services named by flag.
func services(o Options, keyless bool) (serviceURLs, error) {
	u := serviceURLs{fulcio: o.FulcioURL, rekor: o.RekorURL, tsa: o.TSAURL, rekorVersion: 1}
	if !keyless {
		return u, nil
	}
	if o.SigningConfig == "" {
		u.fulcio, u.rekor, u.tsa = cmp.Or(u.fulcio, DefaultFulcioURL), cmp.Or(u.rekor, DefaultRekorURL), cmp.Or(u.tsa, DefaultTSAURL)
		return u, nil
	}
	sc, err := root.NewSigningConfigFromPath(o.SigningConfig)
	if err != nil {
		return u, fmt.Errorf("--signing-config %s: %w", o.SigningConfig, err)
	}
	for _, svc := range []struct {
		url      *string
		version  *uint32
		list     []root.Service
		versions []uint32
		what     string
	}{
		{&u.fulcio, nil, sc.FulcioCertificateAuthorityURLs(), sigstore.FulcioAPIVersions, "Fulcio"},
		{&u.rekor, &u.rekorVersion, sc.RekorLogURLs(), sigstore.RekorAPIVersions, "Rekor"},
		{&u.tsa, nil, sc.TimestampAuthorityURLs(), sigstore.TimestampAuthorityAPIVersions, "timestamp authority"},
	} {
		// A private instance may have no timestamp authority and rely on
		// Rekor's integrated time instead.
		if *svc.url != "" || (svc.url == &u.tsa && len(svc.list) == 0) {
			continue
		}
		s, err := root.SelectService(svc.list, svc.versions, time.Now())
		if err != nil {
			return u, fmt.Errorf("--signing-config %s: no usable %s service: %w", o.SigningConfig, svc.what, err)
		}
		if *svc.url = s.URL; svc.version != nil {
			*svc.version = s.MajorAPIVersion
		}
	}
	return u, nil
}

// Keyless reports whether s signs with a Fulcio certificate.
func (s *Signer) Keyless() bool { return s.keyless }

// SignDigest signs the artifact whose sha256 digest is digest and returns
// its Sigstore bundle as JSON: a message signature over the digest, which
// is all a verifier checks the artifact against, so skillpack hands the
// helper digests, never archives.
func (s *Signer) SignDigest(ctx context.Context, digest []byte) ([]byte, error) {
	if len(digest) != sha256.Size {
		return nil, fmt.Errorf("signing: want a 32-byte sha256 digest, got %d bytes", len(digest))
	}
	return s.bundle(ctx, digestContent(digest), prehashed{s.key}, verify.WithArtifactDigest("sha256", digest))
}

// bundle signs content with key and the run's certificate, timestamp
// authorities and logs, and returns the bundle as JSON. With
// --trusted-root the bundle is verified against it first, with artifact
// and the policy sigstore-go applies to the bundles it checks after
// signing: every timestamp and log entry the run asked for, and no
// identity. (sigstore-go's own check, BundleOptions.TrustedRoot, would
// take a digestContent's digest for the artifact and hash it again.)
// What a bundle signs is checked by skillpack, across the process
// boundary.
func (s *Signer) bundle(ctx context.Context, content sigstore.Content, key sigstore.Keypair, artifact verify.ArtifactPolicyOption) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	opts := sigstore.BundleOptions{Context: ctx, TimestampAuthorities: s.tsas, TransparencyLogs: s.tlogs}
	if s.keyless {
		if err := s.certificate(ctx); err != nil {
			return nil, err
		}
		opts.CertificateProvider = fixedCert(s.cert)
		// sigstore-go dereferences these options even when the provider
		// ignores them.
		opts.CertificateProviderOptions = &sigstore.CertificateProviderOptions{}
	}
	b, err := sigstore.Bundle(content, key, opts)
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	if s.root != nil {
		if err := s.check(b, artifact); err != nil {
			return nil, fmt.Errorf("signing: the new bundle does not verify against --trusted-root: %w", err)
		}
	}
	return protojson.Marshal(b)
}

func (s *Signer) check(b *protobundle.Bundle, artifact verify.ArtifactPolicyOption) error {
	pb, err := bundle.NewBundle(b)
	if err != nil {
		return err
	}
	var vo []verify.VerifierOption
	if len(s.tsas) > 0 {
		vo = append(vo, verify.WithSignedTimestamps(len(s.tsas)))
	}
	if len(s.tlogs) > 0 {
		vo = append(vo, verify.WithTransparencyLog(len(s.tlogs)))
		if len(s.tsas) == 0 {
			vo = append(vo, verify.WithIntegratedTimestamps(len(s.tlogs)))
		}
	}
	if len(s.tsas) == 0 && len(s.tlogs) == 0 {
		vo = append(vo, verify.WithCurrentTime())
	}
	v, err := verify.NewVerifier(s.root, vo...)
	if err != nil {
		return err
	}
	_, err = v.Verify(pb, verify.NewPolicy(artifact, verify.WithoutIdentitiesUnsafe()))
	return err
}

// digestContent is a message whose sha256 digest is all that is known of
// it: the bundle carries the digest and a signature over it, exactly as
// for sigstore-go's PlainData of the message.
type digestContent []byte

func (d digestContent) PreAuthEncoding() []byte { return d }

func (d digestContent) Bundle(b *protobundle.Bundle, signature, digest []byte, alg protocommon.HashAlgorithm) {
	(&sigstore.PlainData{}).Bundle(b, signature, digest, alg)
}

// prehashed signs the digest it is given as it is, instead of hashing it
// again: it is the key pair for digestContent. Fulcio's proof of
// possession still goes through the plain keyPair, which hashes.
type prehashed struct{ *keyPair }

func (p prehashed) SignData(_ context.Context, digest []byte) ([]byte, []byte, error) {
	sig, err := ecdsa.SignASN1(rand.Reader, p.priv, digest)
	return sig, digest, err
}

// certificate fetches the run's token and certificate once.
func (s *Signer) certificate(ctx context.Context) error {
	if s.cert != nil {
		return nil
	}
	tok, err := idToken(ctx, s.opts.IdentityToken, s.env)
	if err != nil {
		return err
	}
	der, err := s.fulcio.GetCertificate(ctx, s.key, &sigstore.CertificateProviderOptions{IDToken: tok})
	if err != nil {
		return fmt.Errorf("getting a signing certificate from Fulcio: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return fmt.Errorf("getting a signing certificate from Fulcio: %w", err)
	}
	// A certificate for another key would make every signature of the run
	// unverifiable; say so now rather than at verify time.
	if pub, ok := cert.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(s.key.GetPublicKey()) {
		return errors.New("getting a signing certificate from Fulcio: the certificate is for another key")
	}
	s.cert = der
	return nil
}

// fixedCert hands sigstore-go the run's one certificate for every artifact.
type fixedCert []byte

func (c fixedCert) GetCertificate(context.Context, sigstore.Keypair, *sigstore.CertificateProviderOptions) ([]byte, error) {
	return c, nil
}
