package sign

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/url"
	"strings"
	"testing"
	"time"

	sigstore "github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/skillpack/skillpack/cmd/skillpack-sign/internal/sigstoretest"
)

// TestVerifyRejects checks that each way a signature can be wrong is
// refused with a message that names it.
func TestVerifyRejects(t *testing.T) {
	f := newFakeSigstore(t)
	dir := t.TempDir()
	tr := f.writeTrustedRoot(dir)
	ctx := context.Background()
	artifact := []byte("the artifact\n")
	sum := sha256.Sum256(artifact)
	good, err := f.signer(tr).Sign(ctx, artifact)
	must(t, err)

	// A certificate that expired before anything vouched for the time of
	// signing.
	expired := newFakeSigstore(t)
	expired.CertTimes = func() (time.Time, time.Time) {
		return time.Now().Add(-90 * time.Second), time.Now().Add(-30 * time.Second)
	}
	expiredTR := expired.writeTrustedRoot(t.TempDir())
	expiredBundle, err := expired.signer("").Sign(ctx, artifact)
	must(t, err)

	// A bundle without a transparency log entry.
	noLog := f.signer("")
	noLog.tlogs = nil
	noLogBundle, err := noLog.Sign(ctx, artifact)
	must(t, err)

	otherTR := newFakeSigstore(t).writeTrustedRoot(t.TempDir())
	tampered := sha256.Sum256([]byte("the artifact, changed\n"))
	other := sha256.Sum256([]byte("another artifact\n"))
	id := VerifyOptions{CertificateIdentity: testIdentity, CertificateOIDCIssuer: GitHubIssuer, TrustedRoot: tr}
	with := func(edit func(*VerifyOptions)) VerifyOptions {
		o := id
		edit(&o)
		return o
	}

	cases := []struct {
		name   string
		opts   VerifyOptions
		bundle []byte
		digest [32]byte
		want   string
	}{
		{"wrong identity", with(func(o *VerifyOptions) {
			o.CertificateIdentity = "https://github.com/evil/fork/.github/workflows/release.yml@refs/tags/v1.2.0"
		}),
			good, sum, `wrong identity: the certificate's identity is "` + testIdentity + `"`},
		{"wrong identity regexp", with(func(o *VerifyOptions) {
			o.CertificateIdentity, o.CertificateIdentityRegexp = "", `^https://github\.com/octo/skills/\.github/workflows/ci\.yml@`
		}), good, sum, "wrong identity"},
		{"wrong issuer", with(func(o *VerifyOptions) { o.CertificateOIDCIssuer = "https://accounts.google.com" }),
			good, sum, `wrong issuer: the certificate's OIDC issuer is "` + GitHubIssuer + `"`},
		{"wrong digest", id, good, other, "digest mismatch"},
		{"tampered artifact", id, good, tampered, "digest mismatch"},
		{"wrong trusted root", with(func(o *VerifyOptions) { o.TrustedRoot = otherTR }), good, sum, "untrusted root"},
		{"expired certificate", with(func(o *VerifyOptions) { o.TrustedRoot = expiredTR }), expiredBundle, sum, "certificate expired"},
		{"self-signed certificate", id, selfSigned(t, f, artifact), sum, "untrusted root: the certificate is self-signed"},
		{"no log entry", id, noLogBundle, sum, "no verified transparency log entry"},
		{"not a bundle", id, []byte(`{"mediaType":"x"}`), sum, "not a Sigstore bundle"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := NewVerifier(tc.opts)
			must(t, err)
			err = v.Verify(tc.bundle, tc.digest[:])
			t.Log(err)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}

	// The same bundles pass when nothing is wrong.
	for name, c := range map[string]struct {
		opts   VerifyOptions
		bundle []byte
	}{"good": {id, good}} {
		v, err := NewVerifier(c.opts)
		must(t, err)
		if err := v.Verify(c.bundle, sum[:]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestVerifyIntegratedTime checks that a keyless bundle with Rekor's
// integrated time and no RFC 3161 timestamp (what cosign 2 writes)
// verifies: the log entry is the trusted time.
func TestVerifyIntegratedTime(t *testing.T) {
	f := newFakeSigstore(t)
	tr := f.writeTrustedRoot(t.TempDir())
	s := f.signer(tr)
	s.tsas = nil
	artifact := []byte("x")
	sum := sha256.Sum256(artifact)
	b, err := s.Sign(context.Background(), artifact)
	must(t, err)
	v, err := NewVerifier(VerifyOptions{CertificateIdentityRegexp: testRegexp, CertificateOIDCIssuer: GitHubIssuer, TrustedRoot: tr})
	must(t, err)
	if err := v.Verify(b, sum[:]); err != nil {
		t.Fatal(err)
	}
	// And a key verifier refuses it as the wrong kind of bundle.
	_, pub := writeKey(t, t.TempDir(), mustKey(t), nil)
	kv, err := NewVerifier(VerifyOptions{Key: pub})
	must(t, err)
	if err := kv.Verify(b, sum[:]); err == nil || !strings.Contains(err.Error(), "signed keyless") {
		t.Errorf("keyless bundle under --key: err = %v", err)
	}
}

func TestVerifierOptions(t *testing.T) {
	for _, tc := range []struct {
		o    VerifyOptions
		want string
	}{
		{VerifyOptions{Key: "pub.pem", CertificateIdentity: "x"}, "cannot be combined"},
		{VerifyOptions{CertificateOIDCIssuer: GitHubIssuer}, "needs --certificate-identity"},
		{VerifyOptions{CertificateIdentity: "x"}, "needs --certificate-oidc-issuer"},
		{VerifyOptions{CertificateIdentity: "x", CertificateIdentityRegexp: "y", CertificateOIDCIssuer: GitHubIssuer}, "not both"},
		{VerifyOptions{CertificateIdentityRegexp: "(", CertificateOIDCIssuer: GitHubIssuer}, "--certificate-identity-regexp"},
		{VerifyOptions{CertificateIdentity: "x", CertificateOIDCIssuer: GitHubIssuer, TrustedRoot: "/nonexistent/trusted_root.json"}, "--trusted-root"},
	} {
		if _, err := NewVerifier(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.want)
		}
	}
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	return k
}

// selfSigned is a bundle whose certificate, with the right identity and
// issuer, is signed by its own key instead of a Fulcio CA. The fake log and
// timestamp authority vouch for it, so only the chain is wrong.
func selfSigned(t *testing.T, f *fakeSigstore, artifact []byte) []byte {
	t.Helper()
	k := mustKey(t)
	issuer, _ := f.Claims["iss"].(string)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7),
		Subject:      pkix.Name{CommonName: "self"},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(10 * time.Minute),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		URIs:         []*url.URL{{Scheme: "https", Host: "github.com", Path: "/" + testWorkflow}},
		ExtraExtensions: []pkix.Extension{
			{Id: sigstoretest.OIDIssuerV1, Value: []byte(issuer)},
		},
	}
	tmpl.Issuer = tmpl.Subject
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, k.Public(), k)
	must(t, err)
	kp, err := newKeyPair(k)
	must(t, err)
	b, err := sigstore.Bundle(&sigstore.PlainData{Data: artifact}, kp, sigstore.BundleOptions{
		CertificateProvider:        fixedCert(der),
		CertificateProviderOptions: &sigstore.CertificateProviderOptions{},
		TimestampAuthorities:       []*sigstore.TimestampAuthority{sigstore.NewTimestampAuthority(&sigstore.TimestampAuthorityOptions{URL: f.TSA.URL})},
		TransparencyLogs:           []sigstore.Transparency{f.Client()},
	})
	must(t, err)
	data, err := protojson.Marshal(b)
	must(t, err)
	return data
}

func mustP384(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	must(t, err)
	return k
}
