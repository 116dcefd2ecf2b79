package sign

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// statement is a small in-toto statement to sign: the OMS one of the
// specification's example model.
const statement = `{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"model","digest":{"sha256":"92745110b1ab4368471cbe31664e10174e954b113a3df333db860317b2c6dec4"}}],"predicateType":"https://model_signing/signature/v1.0","predicate":{"resources":[{"name":"signme-1","digest":"bc9a717db6064a32cbe9eae6fc40651dd6d36ef1757183f590eff2b1765d7ebc","algorithm":"sha256"},{"name":"signme-2","digest":"32dcb1f8e1ae52d5963e56a6ba06ab58b424c15ed2a6b70d2feca1d089370028","algorithm":"sha256"}],"serialization":{"method":"files","hash_type":"sha256","allow_symlinks":false}}}`

func omsFile(name string) string { return filepath.Join("testdata", "oms", name) }

// bundleFields is what these tests read of a bundle.
type bundleFields struct {
	VerificationMaterial struct {
		PublicKey struct {
			Hint string `json:"hint"`
		} `json:"publicKey"`
		TlogEntries []struct {
			KindVersion struct{ Kind string } `json:"kindVersion"`
		} `json:"tlogEntries"`
	} `json:"verificationMaterial"`
	DSSEEnvelope struct {
		Payload     []byte `json:"payload"`
		PayloadType string `json:"payloadType"`
		Signatures  []struct {
			Sig []byte `json:"sig"`
		} `json:"signatures"`
	} `json:"dsseEnvelope"`
}

func fields(t *testing.T, b []byte) bundleFields {
	t.Helper()
	var f bundleFields
	must(t, json.Unmarshal(b, &f))
	return f
}

// A statement signed with a key verifies with the public key, returns
// the statement as signed, and carries what the reference tool checks:
// the hint is the hex sha256 of the public key's PEM (the specification's
// test key gives the specification's hint).
func TestSignStatementKey(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, key, pub, hint string }{
		{"P-256", "", "", ""},
		{"P-384 spec key", omsFile("signing-key.pem"), omsFile("signing-key-pub.pem"), "e8450dec4eb99dae995da9af1bc2cc9f76ed669ee2e744f57abba763df3e3f8e"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.key == "" {
				tc.key, tc.pub = writeKeyPair(t, t.TempDir())
			}
			s, err := NewSigner(ctx, Options{Key: tc.key}, nil)
			must(t, err)
			b, err := s.SignStatement(ctx, []byte(statement))
			must(t, err)
			f := fields(t, b)
			if string(f.DSSEEnvelope.Payload) != statement || f.DSSEEnvelope.PayloadType != inTotoPayloadType {
				t.Errorf("envelope holds %q (%s)", f.DSSEEnvelope.Payload, f.DSSEEnvelope.PayloadType)
			}
			if h := f.VerificationMaterial.PublicKey.Hint; len(h) != 64 || tc.hint != "" && h != tc.hint {
				t.Errorf("hint %q, want the hex sha256 of the PEM %s", h, tc.hint)
			}
			// As the reference verifier checks it: ECDSA with the curve's
			// hash over the DSSE pre-authentication encoding.
			pubPEM, err := os.ReadFile(tc.pub)
			must(t, err)
			pub, err := cryptoutils.UnmarshalPEMToPublicKey(pubPEM)
			must(t, err)
			ek := pub.(*ecdsa.PublicKey)
			h := curveHash(ek.Curve).New()
			fmt.Fprintf(h, "DSSEv1 %d %s %d %s", len(inTotoPayloadType), inTotoPayloadType, len(statement), statement)
			if sigs := f.DSSEEnvelope.Signatures; len(sigs) != 1 || !ecdsa.VerifyASN1(ek, h.Sum(nil), sigs[0].Sig) {
				t.Errorf("the envelope's signature is not ECDSA with %v over the PAE", curveHash(ek.Curve))
			}
			v, err := NewVerifier(VerifyOptions{Key: tc.pub})
			must(t, err)
			got, err := v.VerifyStatement(b)
			must(t, err)
			if string(got) != statement {
				t.Errorf("VerifyStatement returned %q", got)
			}

			// Another key, a changed statement, a blob verifier's call.
			_, otherPub := writeKeyPair(t, t.TempDir())
			other, err := NewVerifier(VerifyOptions{Key: otherPub})
			must(t, err)
			if _, err := other.VerifyStatement(b); err == nil || !strings.Contains(err.Error(), "the signature does not verify with the public key in "+otherPub) {
				t.Errorf("another key: %v", err)
			}
			tampered := bytes.Replace(b, []byte(base64.StdEncoding.EncodeToString([]byte(statement))),
				[]byte(base64.StdEncoding.EncodeToString([]byte(strings.Replace(statement, "signme-2", "signme-3", 1)))), 1)
			if bytes.Equal(tampered, b) {
				t.Fatal("the payload was not found to tamper with")
			}
			if _, err := v.VerifyStatement(tampered); err == nil || !strings.Contains(err.Error(), "does not verify") {
				t.Errorf("tampered statement: %v", err)
			}
			sum := sha256.Sum256([]byte(statement))
			if err := v.Verify(b, sum[:]); err == nil || !strings.Contains(err.Error(), "no message signature") {
				t.Errorf("Verify of a folder signature: %v", err)
			}
		})
	}
}

// Signing refuses what is not an in-toto statement.
func TestSignStatementRefuses(t *testing.T) {
	key, _ := writeKeyPair(t, t.TempDir())
	s, err := NewSigner(context.Background(), Options{Key: key}, nil)
	must(t, err)
	for _, p := range []string{`{"_type":"https://example.com"}`, `not json`} {
		if _, err := s.SignStatement(context.Background(), []byte(p)); err == nil || !strings.Contains(err.Error(), "not an in-toto statement") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// Keyless: one certificate, a dsse log entry and a timestamp; the
// identity policy applies as for blobs, and a blob's bundle is not a
// folder signature.
func TestSignStatementKeyless(t *testing.T) {
	f := newFakeSigstore(t)
	tr := f.writeTrustedRoot(t.TempDir())
	s := f.signer(tr) // checks each bundle against the root right after signing
	ctx := context.Background()
	b, err := s.SignStatement(ctx, []byte(statement))
	must(t, err)
	blob, err := s.Sign(ctx, []byte("an artifact"))
	must(t, err)
	if n := f.FulcioCalls.Load(); n != 1 {
		t.Errorf("%d certificates for a statement and a blob, want 1", n)
	}
	if e := fields(t, b).VerificationMaterial.TlogEntries; len(e) != 1 || e[0].KindVersion.Kind != "dsse" {
		t.Errorf("log entries %+v, want one dsse entry", e)
	}
	id := VerifyOptions{CertificateIdentity: testIdentity, CertificateOIDCIssuer: GitHubIssuer, TrustedRoot: tr}
	v, err := NewVerifier(id)
	must(t, err)
	got, err := v.VerifyStatement(b)
	must(t, err)
	if string(got) != statement {
		t.Errorf("VerifyStatement returned %q", got)
	}
	if _, err := v.VerifyStatement(blob); err == nil || !strings.Contains(err.Error(), "not a folder's statement") {
		t.Errorf("a blob bundle: %v", err)
	}
	id.CertificateIdentity = "https://github.com/evil/fork/.github/workflows/release.yml@refs/tags/v1.2.0"
	wrong, err := NewVerifier(id)
	must(t, err)
	if _, err := wrong.VerifyStatement(b); err == nil || !strings.Contains(err.Error(), "wrong identity: the certificate's identity is \""+testIdentity+"\"") {
		t.Errorf("wrong identity: %v", err)
	}
	otherTR := newFakeSigstore(t).writeTrustedRoot(t.TempDir())
	untrusted, err := NewVerifier(VerifyOptions{CertificateIdentity: testIdentity, CertificateOIDCIssuer: GitHubIssuer, TrustedRoot: otherTR})
	must(t, err)
	if _, err := untrusted.VerifyStatement(b); err == nil || !strings.Contains(err.Error(), "untrusted root") {
		t.Errorf("wrong trusted root: %v", err)
	}
	keyV, err := NewVerifier(VerifyOptions{Key: mustPub(t)})
	must(t, err)
	if _, err := keyV.VerifyStatement(b); err == nil || !strings.Contains(err.Error(), "signed keyless") {
		t.Errorf("keyless bundle, key verifier: %v", err)
	}
}

func mustPub(t *testing.T) string {
	_, pub := writeKeyPair(t, t.TempDir())
	return pub
}

// writeKeyPair writes a new P-256 key and its public key.
func writeKeyPair(t *testing.T, dir string) (key, pub string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	return writeKey(t, dir, priv, nil)
}

// Interoperability: the specification's test vectors, made by the
// reference tool (model_signing), verify here. The key one is P-384 with
// SHA-384; the keyless one was signed on the public-good instance in
// October 2025 and is checked offline against its trusted root.
func TestVerifyStatementSpecVectors(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile(omsFile(name))
		must(t, err)
		return data
	}
	payload := func(b []byte) []byte { return fields(t, b).DSSEEnvelope.Payload }

	key := read("key.bundle.json")
	v, err := NewVerifier(VerifyOptions{Key: omsFile("signing-key-pub.pem")})
	must(t, err)
	got, err := v.VerifyStatement(key)
	must(t, err)
	if !bytes.Equal(got, payload(key)) {
		t.Errorf("key vector: returned %q", got)
	}

	keyless := read("sigstore.bundle.json")
	v, err = NewVerifier(VerifyOptions{
		CertificateIdentity: "stefanb@us.ibm.com", CertificateOIDCIssuer: "https://sigstore.verify.ibm.com/oauth2",
		TrustedRoot: omsFile("trusted-root-public-good.json"),
	})
	must(t, err)
	got, err = v.VerifyStatement(keyless)
	must(t, err)
	if !bytes.Equal(got, payload(keyless)) {
		t.Errorf("sigstore vector: returned %q", got)
	}
	v, err = NewVerifier(VerifyOptions{
		CertificateIdentity: "someone@example.com", CertificateOIDCIssuer: "https://sigstore.verify.ibm.com/oauth2",
		TrustedRoot: omsFile("trusted-root-public-good.json"),
	})
	must(t, err)
	if _, err := v.VerifyStatement(keyless); err == nil || !strings.Contains(err.Error(), `wrong identity: the certificate's identity is "stefanb@us.ibm.com"`) {
		t.Errorf("sigstore vector, another identity: %v", err)
	}
}

// The certificate method: a leaf certificate and its CA chain in the
// bundle, trusted through the CA's certificate. NVIDIA's verified skills
// are signed so (checked against NVIDIA's published root); so is the
// specification's certificate test vector.
func TestVerifyStatementCertificateChain(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile(omsFile(name))
		must(t, err)
		return data
	}
	for _, tc := range []struct{ bundle, chain string }{
		{"nvidia-tao-list-capabilities.oms.sig", "nv-agent-root-cert.pem"},
		{"certificate.bundle.json", "ca-cert.pem"},
	} {
		b := read(tc.bundle)
		v, err := NewVerifier(VerifyOptions{CertificateChain: omsFile(tc.chain)})
		must(t, err)
		got, err := v.VerifyStatement(b)
		if err != nil {
			t.Errorf("%s with %s: %v", tc.bundle, tc.chain, err)
			continue
		}
		if !bytes.Equal(got, fields(t, b).DSSEEnvelope.Payload) {
			t.Errorf("%s: returned %q", tc.bundle, got)
		}
	}
	nv := read("nvidia-tao-list-capabilities.oms.sig")
	nvidia, err := NewVerifier(VerifyOptions{CertificateChain: omsFile("nv-agent-root-cert.pem")})
	must(t, err)
	p := fields(t, nv).DSSEEnvelope.Payload
	tampered := bytes.Replace(nv, []byte(base64.StdEncoding.EncodeToString(p)), []byte(base64.StdEncoding.EncodeToString(bytes.Replace(p, []byte("SKILL.md"), []byte("SKILL.MD"), 1))), 1)
	if _, err := nvidia.VerifyStatement(tampered); err == nil || !strings.Contains(err.Error(), "the signature does not verify with the certificate \"NVIDIA Agent Skills Signing 001\"") {
		t.Errorf("a changed statement: %v", err)
	}
	other, err := NewVerifier(VerifyOptions{CertificateChain: omsFile("ca-cert.pem")})
	must(t, err)
	if _, err := other.VerifyStatement(nv); err == nil || !strings.Contains(err.Error(), "untrusted root") {
		t.Errorf("NVIDIA's signature against another CA: %v", err)
	}
	key, err := NewVerifier(VerifyOptions{Key: omsFile("signing-key-pub.pem")})
	must(t, err)
	if _, err := key.VerifyStatement(nv); err == nil || !strings.Contains(err.Error(), "verify it with --certificate-chain") {
		t.Errorf("a chain signature, key verifier: %v", err)
	}
	if _, err := other.VerifyStatement(read("key.bundle.json")); err == nil || !strings.Contains(err.Error(), "not signed with a certificate chain") {
		t.Errorf("a key signature, chain verifier: %v", err)
	}
	for _, o := range []VerifyOptions{
		{CertificateChain: omsFile("int-ca-cert.pem")},
		{CertificateChain: omsFile("key.bundle.json")},
		{CertificateChain: omsFile("ca-cert.pem"), Key: omsFile("signing-key-pub.pem")},
	} {
		if _, err := NewVerifier(o); err == nil {
			t.Errorf("NewVerifier(%+v): no error", o)
		}
	}
}
