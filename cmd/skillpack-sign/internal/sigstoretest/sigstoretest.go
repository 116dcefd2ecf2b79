// Package sigstoretest is a private Sigstore instance on loopback, for
// tests of keyless signing: GitHub's OIDC token endpoint, Fulcio (with an
// embedded SCT from a fake CT log), an RFC 3161 timestamp authority and a
// Rekor v1 log, and a trusted_root.json that trusts exactly them. The
// helper's own tests use it in process; the fakesigstore program puts it
// behind a process boundary for the main module's end-to-end tests, which
// cannot import this module.
//
// Signatures are real: what these services vouch for verifies with
// sigstore-go and cosign against the trusted root. What is fake is whom
// they trust: Fulcio does not check the token's signature, and the log
// keeps each entry in a tree of its own.
package sigstoretest

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
	"strings"
	"sync/atomic"
	"time"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/digitorus/timestamp"
	"github.com/go-openapi/runtime"
	"github.com/go-openapi/strfmt"
	ct "github.com/google/certificate-transparency-go"
	cttls "github.com/google/certificate-transparency-go/tls"
	ctx509 "github.com/google/certificate-transparency-go/x509"
	ctx509util "github.com/google/certificate-transparency-go/x509util"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/types"
	_ "github.com/sigstore/rekor/pkg/types/dsse/v0.0.1"         // registers the entry version
	_ "github.com/sigstore/rekor/pkg/types/hashedrekord/v0.0.1" // registers the entry version
	rekorutil "github.com/sigstore/rekor/pkg/util"
	"github.com/sigstore/sigstore-go/pkg/root"
	sigstore "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// The identity the fake GitHub hands out: a release workflow's.
const (
	Issuer         = "https://token.actions.githubusercontent.com"
	Workflow       = "octo/skills/.github/workflows/release.yml@refs/tags/v1.2.0"
	Identity       = "https://github.com/" + Workflow
	IdentityRegexp = `^https://github\.com/octo/skills/\.github/workflows/release\.yml@refs/tags/v`
	// ActionsBearer is the request token a job with `id-token: write`
	// presents to the token endpoint.
	ActionsBearer = "actions-request-token"
	// TSAPath is the timestamp endpoint's path on TSA.
	TSAPath = "/api/v1/timestamp"
)

// RekorOrigin is the origin the log's checkpoints name.
const RekorOrigin = "rekor.fake.test"

// Fulcio's OIDC issuer extensions: v1 holds the raw string, v2 a DER
// UTF8String.
var (
	OIDIssuerV1 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}
	oidIssuerV2 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 8}
)

// Instance is one private Sigstore instance. Its exported fields other than
// the servers may be changed before the first request.
type Instance struct {
	Fulcio, TSA, Token, Rekor *httptest.Server
	// Log is the transparency log Rekor serves.
	Log *Log
	// Claims are the claims of the token the fake GitHub hands out.
	Claims map[string]any
	// CertTimes gives a certificate's validity; the default is Fulcio's
	// ten minutes from a minute ago.
	CertTimes               func() (notBefore, notAfter time.Time)
	FulcioCalls, TokenCalls atomic.Int32

	root, fulcioCA, tsaCA, tsaLeaf *x509.Certificate
	fulcioKey, tsaKey, ctKey       *ecdsa.PrivateKey
}

// New makes the keys and certificates and starts the servers; Close stops
// them.
func New() (*Instance, error) {
	f := &Instance{Claims: map[string]any{
		"iss": Issuer, "sub": "repo:octo/skills:ref:refs/tags/v1.2.0", "aud": "sigstore",
		"job_workflow_ref": Workflow,
	}}
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		return nil, err
	}
	f.root = rootCert
	if f.fulcioCA, f.fulcioKey, err = ca.GenerateFulcioIntermediate(rootCert, rootKey); err != nil {
		return nil, err
	}
	var tsaCAKey *ecdsa.PrivateKey
	if f.tsaCA, tsaCAKey, err = ca.GenerateTSAIntermediate(rootCert, rootKey); err != nil {
		return nil, err
	}
	f.tsaKey, f.ctKey = newKey(), newKey()
	if f.tsaLeaf, err = ca.GenerateTSALeafCert(time.Now().Add(-time.Minute), f.tsaKey, f.tsaCA, tsaCAKey); err != nil {
		return nil, err
	}
	f.Log = &Log{key: newKey()}
	f.CertTimes = func() (time.Time, time.Time) {
		now := time.Now().Add(-time.Minute)
		return now, now.Add(10 * time.Minute)
	}
	f.Fulcio = httptest.NewServer(http.HandlerFunc(f.serveFulcio))
	f.TSA = httptest.NewServer(http.HandlerFunc(f.serveTSA))
	f.Token = httptest.NewServer(http.HandlerFunc(f.serveToken))
	f.Rekor = httptest.NewServer(f.Log)
	return f, nil
}

// Close stops the servers.
func (f *Instance) Close() {
	f.Fulcio.Close()
	f.TSA.Close()
	f.Token.Close()
	f.Rekor.Close()
}

// IDToken is a token with Claims, as the fake GitHub hands out. It is
// unsigned: Fulcio verifies signatures, this fake does not.
func (f *Instance) IDToken() string {
	b, _ := json.Marshal(f.Claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc(b) + "." + enc([]byte("sig"))
}

// serveToken mimics GitHub's OIDC token endpoint.
func (f *Instance) serveToken(w http.ResponseWriter, r *http.Request) {
	f.TokenCalls.Add(1)
	if r.Header.Get("Authorization") != "bearer "+ActionsBearer {
		http.Error(w, "bad request token", http.StatusUnauthorized)
		return
	}
	if r.URL.Query().Get("audience") != "sigstore" || r.URL.Query().Get("api-version") != "2.0" {
		http.Error(w, "want audience=sigstore and the original query", http.StatusBadRequest)
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"value": f.IDToken()})
}

// serveFulcio mimics POST /api/v2/signingCert: it checks the proof of
// possession, then issues a certificate with an embedded SCT.
func (f *Instance) serveFulcio(w http.ResponseWriter, r *http.Request) {
	f.FulcioCalls.Add(1)
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
	notBefore, notAfter := f.CertTimes()
	issuer := fmt.Sprint(claims["iss"])
	issuerV2, _ := asn1.MarshalWithParams(issuer, "utf8")
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{
			{Id: OIDIssuerV1, Value: []byte(issuer)},
			{Id: oidIssuerV2, Value: issuerV2},
		},
		// The identity of a GitHub Actions token, the only kind handed out.
		URIs: []*url.URL{{Scheme: "https", Host: "github.com", Path: "/" + fmt.Sprint(claims["job_workflow_ref"])}},
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
func (f *Instance) issue(tmpl *x509.Certificate, pub crypto.PublicKey) ([]byte, error) {
	pre, err := x509.CreateCertificate(rand.Reader, tmpl, f.fulcioCA, pub, f.fulcioKey)
	if err != nil {
		return nil, err
	}
	preCert, err := x509.ParseCertificate(pre)
	if err != nil {
		return nil, err
	}
	sct := ct.SignedCertificateTimestamp{SCTVersion: ct.V1, LogID: ct.LogID{KeyID: keyID(f.ctKey)}, Timestamp: uint64(time.Now().UnixMilli())}
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
func (f *Instance) serveTSA(w http.ResponseWriter, r *http.Request) {
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

// TrustedRoot is a trusted_root.json that trusts exactly this instance.
func (f *Instance) TrustedRoot() ([]byte, error) {
	start := time.Now().Add(-time.Hour)
	ctID, rekorID := keyID(f.ctKey), keyID(f.Log.key)
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		[]root.CertificateAuthority{&root.FulcioCertificateAuthority{
			Root: f.root, Intermediates: []*x509.Certificate{f.fulcioCA}, ValidityPeriodStart: start, URI: f.Fulcio.URL}},
		map[string]*root.TransparencyLog{hex.EncodeToString(ctID[:]): {
			BaseURL: "https://ct.fake.test", ID: ctID[:], ValidityPeriodStart: start, HashFunc: crypto.SHA256,
			PublicKey: f.ctKey.Public(), SignatureHashFunc: crypto.SHA256}},
		[]root.TimestampingAuthority{&root.SigstoreTimestampingAuthority{
			Root: f.root, Intermediates: []*x509.Certificate{f.tsaCA}, Leaf: f.tsaLeaf, ValidityPeriodStart: start, URI: f.TSA.URL}},
		map[string]*root.TransparencyLog{hex.EncodeToString(rekorID[:]): {
			BaseURL: "https://" + RekorOrigin, ID: rekorID[:], ValidityPeriodStart: start, HashFunc: crypto.SHA256,
			PublicKey: f.Log.key.Public(), SignatureHashFunc: crypto.SHA256}})
	if err != nil {
		return nil, err
	}
	return tr.MarshalJSON()
}

// Log is a Rekor v1 log in memory. Each entry is logged in a tree shard of
// its own (size 1), which is enough for an inclusion proof, a signed
// checkpoint and a signed entry timestamp that verify like real ones.
type Log struct {
	key   *ecdsa.PrivateKey
	calls atomic.Int32
}

// Entries is how many entries the log has taken.
func (l *Log) Entries() int { return int(l.calls.Load()) }

// Client is a sigstore-go Rekor client of the log, for signing in process.
func (f *Instance) Client() sigstore.Transparency {
	return sigstore.NewRekor(&sigstore.RekorOptions{BaseURL: f.Rekor.URL, Version: 1})
}

// ServeHTTP is Rekor's POST /api/v1/log/entries, which sigstore-go's Rekor
// v1 client calls: 201 Created, the entry's UUID as the ETag, and the
// entry under its UUID.
func (l *Log) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/log/entries" {
		http.Error(w, "no such endpoint", http.StatusNotFound)
		return
	}
	uuid, entry, err := l.add(r.Context(), io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", uuid)
	w.Header().Set("Location", "/api/v1/log/entries/"+uuid)
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(models.LogEntry{uuid: entry})
}

// add canonicalizes a proposed entry, as Rekor does, and logs it.
func (l *Log) add(ctx context.Context, r io.Reader) (string, models.LogEntryAnon, error) {
	proposed, err := models.UnmarshalProposedEntry(r, runtime.JSONConsumer())
	if err != nil {
		return "", models.LogEntryAnon{}, err
	}
	n := l.calls.Add(1)
	impl, err := types.CreateVersionedEntry(proposed)
	if err != nil {
		return "", models.LogEntryAnon{}, err
	}
	body, err := types.CanonicalizeEntry(ctx, impl)
	if err != nil {
		return "", models.LogEntryAnon{}, err
	}
	id := keyID(l.key)
	// Like Rekor's shards: the global index differs from the index in the
	// tree the proof is for (and old verifiers refuse a global index of 0).
	logID, now, index := hex.EncodeToString(id[:]), time.Now().Unix(), 1000+int64(n)
	payload, err := json.Marshal(tlog.RekorPayload{Body: base64.StdEncoding.EncodeToString(body), IntegratedTime: now, LogIndex: index, LogID: logID})
	if err != nil {
		return "", models.LogEntryAnon{}, err
	}
	canon, err := jsoncanonicalizer.Transform(payload)
	if err != nil {
		return "", models.LogEntryAnon{}, err
	}
	h := sha256.Sum256(canon)
	set, err := ecdsa.SignASN1(rand.Reader, l.key, h[:])
	if err != nil {
		return "", models.LogEntryAnon{}, err
	}
	leaf := sha256.Sum256(append([]byte{0}, body...))
	signer, err := signature.LoadECDSASignerVerifier(l.key, crypto.SHA256)
	if err != nil {
		return "", models.LogEntryAnon{}, err
	}
	checkpoint, err := rekorutil.CreateAndSignCheckpoint(ctx, RekorOrigin, 1, 1, leaf[:], signer)
	if err != nil {
		return "", models.LogEntryAnon{}, err
	}
	rootHash, cp, size, treeIndex := hex.EncodeToString(leaf[:]), string(checkpoint), int64(1), int64(0)
	return rootHash, models.LogEntryAnon{
		Body: base64.StdEncoding.EncodeToString(body), IntegratedTime: &now, LogID: &logID, LogIndex: &index,
		Verification: &models.LogEntryAnonVerification{
			SignedEntryTimestamp: strfmt.Base64(set),
			InclusionProof: &models.InclusionProof{
				Checkpoint: &cp, Hashes: []string{}, LogIndex: &treeIndex, RootHash: &rootHash, TreeSize: &size,
			},
		},
	}, nil
}

// keyID is a log's ID: the sha256 of its public key, as DER.
func keyID(k *ecdsa.PrivateKey) [32]byte {
	der, _ := x509.MarshalPKIXPublicKey(k.Public()) // only unknown key types fail
	return sha256.Sum256(der)
}

// newKey is a P-256 key; crypto/rand never fails (it crashes instead).
func newKey() *ecdsa.PrivateKey {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	return k
}

func pemCert(der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
