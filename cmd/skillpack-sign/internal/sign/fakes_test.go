package sign

// Offline fakes of the services keyless signing talks to: GitHub's token
// endpoint, Fulcio (with an embedded SCT from a fake CT log), an RFC 3161
// timestamp authority and a Rekor v1 log, all on loopback, and a
// trusted_root.json that trusts exactly them.

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/digitorus/timestamp"
	"github.com/go-openapi/strfmt"
	ct "github.com/google/certificate-transparency-go"
	cttls "github.com/google/certificate-transparency-go/tls"
	ctx509 "github.com/google/certificate-transparency-go/x509"
	ctx509util "github.com/google/certificate-transparency-go/x509util"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/pki"
	"github.com/sigstore/rekor/pkg/tle"
	"github.com/sigstore/rekor/pkg/types"
	rekordsse "github.com/sigstore/rekor/pkg/types/dsse"
	_ "github.com/sigstore/rekor/pkg/types/dsse/v0.0.1" // registers the entry version
	"github.com/sigstore/rekor/pkg/types/hashedrekord"
	_ "github.com/sigstore/rekor/pkg/types/hashedrekord/v0.0.1" // registers the entry version
	rekorutil "github.com/sigstore/rekor/pkg/util"
	"github.com/sigstore/sigstore-go/pkg/root"
	sigstore "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// Fulcio's OIDC issuer extensions: v1 holds the raw string, v2 a DER
// UTF8String.
var (
	oidIssuerV1 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}
	oidIssuerV2 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 8}
)

const (
	testWorkflow = "octo/skills/.github/workflows/release.yml@refs/tags/v1.2.0"
	testIdentity = "https://github.com/" + testWorkflow
	testRegexp   = `^https://github\.com/octo/skills/\.github/workflows/release\.yml@refs/tags/v`
	actionsBear  = "actions-request-token"
)

// fakeSigstore is one private Sigstore instance.
type fakeSigstore struct {
	t                  *testing.T
	root               *x509.Certificate
	fulcioCA           *x509.Certificate
	fulcioKey          *ecdsa.PrivateKey
	tsaCA, tsaLeaf     *x509.Certificate
	tsaKey             *ecdsa.PrivateKey
	ctKey, rekorKey    *ecdsa.PrivateKey
	fulcio, tsa, token *httptest.Server
	fulcioCalls        atomic.Int32
	tokenCalls         atomic.Int32
	// certTimes gives a certificate's validity; the default is Fulcio's
	// ten minutes from a minute ago.
	certTimes func() (notBefore, notAfter time.Time)
	claims    map[string]any // the claims of the token the fake GitHub hands out
}

func newFakeSigstore(t *testing.T) *fakeSigstore {
	t.Helper()
	f := &fakeSigstore{t: t, claims: map[string]any{
		"iss": GitHubIssuer, "sub": "repo:octo/skills:ref:refs/tags/v1.2.0", "aud": "sigstore",
		"job_workflow_ref": testWorkflow,
	}}
	rootCert, rootKey, err := ca.GenerateRootCa()
	must(t, err)
	f.root = rootCert
	f.fulcioCA, f.fulcioKey, err = ca.GenerateFulcioIntermediate(rootCert, rootKey)
	must(t, err)
	var tsaCAKey *ecdsa.PrivateKey
	f.tsaCA, tsaCAKey, err = ca.GenerateTSAIntermediate(rootCert, rootKey)
	must(t, err)
	f.tsaKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	f.tsaLeaf, err = ca.GenerateTSALeafCert(time.Now().Add(-time.Minute), f.tsaKey, f.tsaCA, tsaCAKey)
	must(t, err)
	f.ctKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	f.rekorKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	f.certTimes = func() (time.Time, time.Time) {
		now := time.Now().Add(-time.Minute)
		return now, now.Add(10 * time.Minute)
	}
	f.fulcio = httptest.NewServer(http.HandlerFunc(f.serveFulcio))
	f.tsa = httptest.NewServer(http.HandlerFunc(f.serveTSA))
	f.token = httptest.NewServer(http.HandlerFunc(f.serveToken))
	t.Cleanup(func() { f.fulcio.Close(); f.tsa.Close(); f.token.Close() })
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// jwt makes an unsigned token: Fulcio verifies signatures, this fake does not.
func jwt(claims map[string]any) string {
	b, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc(b) + "." + enc([]byte("sig"))
}

// env is what a GitHub Actions job with `id-token: write` sees.
func (f *fakeSigstore) env() func(string) string {
	vars := map[string]string{
		ActionsURLEnv:    f.token.URL + "/token?api-version=2.0",
		ActionsTokenEnv:  actionsBear,
		"GITHUB_ACTIONS": "true",
	}
	return func(k string) string { return vars[k] }
}

// options point a Signer at the fakes.
func (f *fakeSigstore) options(trustedRoot string) Options {
	return Options{FulcioURL: f.fulcio.URL, TSAURL: f.tsa.URL + "/api/v1/timestamp", RekorURL: "http://rekor.invalid", TrustedRoot: trustedRoot}
}

// signer is a keyless Signer against the fakes, with the fake log.
func (f *fakeSigstore) signer(trustedRoot string) *Signer {
	f.t.Helper()
	s, err := NewSigner(context.Background(), f.options(trustedRoot), f.env(), nil)
	must(f.t, err)
	s.tlogs = []sigstore.Transparency{&fakeRekor{key: f.rekorKey}}
	return s
}

// serveToken mimics GitHub's OIDC token endpoint.
func (f *fakeSigstore) serveToken(w http.ResponseWriter, r *http.Request) {
	f.tokenCalls.Add(1)
	if r.Header.Get("Authorization") != "bearer "+actionsBear {
		http.Error(w, "bad request token", http.StatusUnauthorized)
		return
	}
	if r.URL.Query().Get("audience") != "sigstore" || r.URL.Query().Get("api-version") != "2.0" {
		http.Error(w, "want audience=sigstore and the original query", http.StatusBadRequest)
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"value": jwt(f.claims)})
}

// serveFulcio mimics POST /api/v2/signingCert: it checks the proof of
// possession, then issues a certificate with an embedded SCT.
func (f *fakeSigstore) serveFulcio(w http.ResponseWriter, r *http.Request) {
	f.fulcioCalls.Add(1)
	fail := func(code int, format string, args ...any) { http.Error(w, fmt.Sprintf(format, args...), code) }
	if r.Method != http.MethodPost || r.URL.Path != "/api/v2/signingCert" {
		fail(http.StatusNotFound, "no such endpoint")
		return
	}
	var claims map[string]any
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(tok, ".")
	if !ok || len(parts) != 3 {
		fail(http.StatusUnauthorized, "no bearer token")
		return
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(payload, &claims) != nil {
		fail(http.StatusUnauthorized, "bad token")
		return
	}
	var req struct {
		PublicKeyRequest struct {
			PublicKey         struct{ Algorithm, Content string } `json:"publicKey"`
			ProofOfPossession string                              `json:"proofOfPossession"`
		} `json:"publicKeyRequest"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		fail(http.StatusBadRequest, "%v", err)
		return
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey([]byte(req.PublicKeyRequest.PublicKey.Content))
	if err != nil {
		fail(http.StatusBadRequest, "%v", err)
		return
	}
	sig, _ := base64.StdEncoding.DecodeString(req.PublicKeyRequest.ProofOfPossession)
	sub := sha256.Sum256([]byte(fmt.Sprint(claims["sub"])))
	if ek, ok := pub.(*ecdsa.PublicKey); !ok || !ecdsa.VerifyASN1(ek, sub[:], sig) {
		fail(http.StatusBadRequest, "proof of possession does not verify")
		return
	}
	notBefore, notAfter := f.certTimes()
	issuer := fmt.Sprint(claims["iss"])
	issuerV2, _ := asn1.MarshalWithParams(issuer, "utf8")
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{
			{Id: oidIssuerV1, Value: []byte(issuer)},
			{Id: oidIssuerV2, Value: issuerV2},
		},
	}
	if ref, ok := claims["job_workflow_ref"].(string); ok {
		tmpl.URIs = []*url.URL{{Scheme: "https", Host: "github.com", Path: "/" + ref}}
	} else {
		tmpl.EmailAddresses = []string{fmt.Sprint(claims["email"])}
	}
	leaf, err := f.issue(tmpl, pub)
	if err != nil {
		fail(http.StatusInternalServerError, "%v", err)
		return
	}
	chain := []string{pemCert(leaf), pemCert(f.fulcioCA.Raw), pemCert(f.root.Raw)}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"signedCertificateEmbeddedSct": map[string]any{"chain": map[string]any{"certificates": chain}},
	})
}

// issue signs tmpl as a precertificate, has the fake CT log sign an SCT
// over it, and issues the final certificate with the SCT embedded.
func (f *fakeSigstore) issue(tmpl *x509.Certificate, pub crypto.PublicKey) ([]byte, error) {
	pre, err := x509.CreateCertificate(rand.Reader, tmpl, f.fulcioCA, pub, f.fulcioKey)
	if err != nil {
		return nil, err
	}
	preCert, err := x509.ParseCertificate(pre)
	if err != nil {
		return nil, err
	}
	logID, err := keyID(f.ctKey.Public())
	if err != nil {
		return nil, err
	}
	sct := ct.SignedCertificateTimestamp{SCTVersion: ct.V1, LogID: ct.LogID{KeyID: logID}, Timestamp: uint64(time.Now().UnixMilli())}
	entry := ct.LogEntry{Leaf: ct.MerkleTreeLeaf{
		Version: ct.V1, LeafType: ct.TimestampedEntryLeafType,
		TimestampedEntry: &ct.TimestampedEntry{
			Timestamp: sct.Timestamp, EntryType: ct.PrecertLogEntryType,
			PrecertEntry: &ct.PreCert{
				IssuerKeyHash:  sha256.Sum256(f.fulcioCA.RawSubjectPublicKeyInfo),
				TBSCertificate: preCert.RawTBSCertificate,
			},
		},
	}}
	input, err := ct.SerializeSCTSignatureInput(sct, entry)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(input)
	sig, err := ecdsa.SignASN1(rand.Reader, f.ctKey, h[:])
	if err != nil {
		return nil, err
	}
	sct.Signature = ct.DigitallySigned{
		Algorithm: cttls.SignatureAndHashAlgorithm{Hash: cttls.SHA256, Signature: cttls.ECDSA},
		Signature: sig,
	}
	list, err := ctx509util.MarshalSCTsIntoSCTList([]*ct.SignedCertificateTimestamp{&sct})
	if err != nil {
		return nil, err
	}
	raw, err := cttls.Marshal(*list)
	if err != nil {
		return nil, err
	}
	ext, err := asn1.Marshal(raw)
	if err != nil {
		return nil, err
	}
	tmpl.ExtraExtensions = append(tmpl.ExtraExtensions, pkix.Extension{Id: asn1.ObjectIdentifier(ctx509.OIDExtensionCTSCT), Value: ext})
	return x509.CreateCertificate(rand.Reader, tmpl, f.fulcioCA, pub, f.fulcioKey)
}

// serveTSA answers an RFC 3161 timestamp query.
func (f *fakeSigstore) serveTSA(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req, err := timestamp.ParseRequest(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ts := timestamp.Timestamp{
		HashAlgorithm: req.HashAlgorithm, HashedMessage: req.HashedMessage, Nonce: req.Nonce,
		Time: time.Now(), Policy: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 2},
	}
	resp, err := ts.CreateResponseWithOpts(f.tsaLeaf, f.tsaKey, crypto.SHA256)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/timestamp-reply")
	w.Write(resp)
}

// writeTrustedRoot writes a trusted_root.json that trusts the fakes.
func (f *fakeSigstore) writeTrustedRoot(dir string) string {
	f.t.Helper()
	start := time.Now().Add(-time.Hour)
	ctID, err := keyID(f.ctKey.Public())
	must(f.t, err)
	rekorID, err := keyID(f.rekorKey.Public())
	must(f.t, err)
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		[]root.CertificateAuthority{&root.FulcioCertificateAuthority{
			Root: f.root, Intermediates: []*x509.Certificate{f.fulcioCA}, ValidityPeriodStart: start, URI: f.fulcio.URL}},
		map[string]*root.TransparencyLog{hex.EncodeToString(ctID[:]): {
			BaseURL: "https://ct.fake.test", ID: ctID[:], ValidityPeriodStart: start, HashFunc: crypto.SHA256,
			PublicKey: f.ctKey.Public(), SignatureHashFunc: crypto.SHA256}},
		[]root.TimestampingAuthority{&root.SigstoreTimestampingAuthority{
			Root: f.root, Intermediates: []*x509.Certificate{f.tsaCA}, Leaf: f.tsaLeaf, ValidityPeriodStart: start, URI: f.tsa.URL}},
		map[string]*root.TransparencyLog{hex.EncodeToString(rekorID[:]): {
			BaseURL: "https://" + fakeRekorHost, ID: rekorID[:], ValidityPeriodStart: start, HashFunc: crypto.SHA256,
			PublicKey: f.rekorKey.Public(), SignatureHashFunc: crypto.SHA256}})
	must(f.t, err)
	data, err := tr.MarshalJSON()
	must(f.t, err)
	p := filepath.Join(dir, "trusted_root.json")
	must(f.t, os.WriteFile(p, data, 0o644))
	return p
}

func keyID(pub crypto.PublicKey) ([32]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	return sha256.Sum256(der), err
}

func pemCert(der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

const fakeRekorHost = "rekor.fake.test"

// fakeRekor is a Rekor v1 log in memory. Each entry is logged in a tree
// shard of its own (size 1), which is enough for an inclusion proof, a signed
// checkpoint and a signed entry timestamp that verify like real ones.
type fakeRekor struct {
	key   *ecdsa.PrivateKey
	calls atomic.Int32
}

func (r *fakeRekor) GetTransparencyLogEntry(ctx context.Context, keyOrCertPEM []byte, b *protobundle.Bundle) error {
	r.calls.Add(1)
	var proposed models.ProposedEntry
	var err error
	if env := b.GetDsseEnvelope(); env != nil {
		// A folder signature is logged as a dsse entry, as sigstore-go
		// logs one in Rekor v1.
		raw, merr := json.Marshal(env)
		if merr != nil {
			return merr
		}
		props := types.ArtifactProperties{PublicKeyBytes: [][]byte{keyOrCertPEM}, ArtifactBytes: raw}
		proposed, err = rekordsse.New().CreateProposedEntry(ctx, "", props)
	} else {
		ms := b.GetMessageSignature()
		props := types.ArtifactProperties{
			PublicKeyBytes: [][]byte{keyOrCertPEM},
			PKIFormat:      string(pki.X509),
			SignatureBytes: ms.GetSignature(),
			ArtifactHash:   rekorutil.PrefixSHA(hex.EncodeToString(ms.GetMessageDigest().GetDigest())),
		}
		proposed, err = hashedrekord.New().CreateProposedEntry(ctx, "", props)
	}
	if err != nil {
		return err
	}
	impl, err := types.CreateVersionedEntry(proposed)
	if err != nil {
		return err
	}
	body, err := types.CanonicalizeEntry(ctx, impl)
	if err != nil {
		return err
	}
	id, err := keyID(r.key.Public())
	if err != nil {
		return err
	}
	// Like Rekor's shards: the global index differs from the index in the
	// tree the proof is for (and old verifiers refuse a global index of 0).
	logID, now, index := hex.EncodeToString(id[:]), time.Now().Unix(), 1000+int64(r.calls.Load())
	payload, err := json.Marshal(tlog.RekorPayload{Body: base64.StdEncoding.EncodeToString(body), IntegratedTime: now, LogIndex: index, LogID: logID})
	if err != nil {
		return err
	}
	canon, err := jsoncanonicalizer.Transform(payload)
	if err != nil {
		return err
	}
	h := sha256.Sum256(canon)
	set, err := ecdsa.SignASN1(rand.Reader, r.key, h[:])
	if err != nil {
		return err
	}
	leaf := sha256.Sum256(append([]byte{0}, body...))
	signer, err := signature.LoadECDSASignerVerifier(r.key, crypto.SHA256)
	if err != nil {
		return err
	}
	checkpoint, err := rekorutil.CreateAndSignCheckpoint(ctx, fakeRekorHost, 1, 1, leaf[:], signer)
	if err != nil {
		return err
	}
	rootHash, cp, size, treeIndex := hex.EncodeToString(leaf[:]), string(checkpoint), int64(1), int64(0)
	entry, err := tle.GenerateTransparencyLogEntry(models.LogEntryAnon{
		Body: base64.StdEncoding.EncodeToString(body), IntegratedTime: &now, LogID: &logID, LogIndex: &index,
		Verification: &models.LogEntryAnonVerification{
			SignedEntryTimestamp: strfmt.Base64(set),
			InclusionProof: &models.InclusionProof{
				Checkpoint: &cp, Hashes: []string{}, LogIndex: &treeIndex, RootHash: &rootHash, TreeSize: &size,
			},
		},
	})
	if err != nil {
		return err
	}
	b.VerificationMaterial.TlogEntries = append(b.VerificationMaterial.TlogEntries, entry)
	return nil
}
