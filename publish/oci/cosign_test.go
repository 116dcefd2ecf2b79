package oci

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/verify"
)

// keySigner signs statements as skillpack-sign does with --key: a
// Sigstore bundle (v0.3) holding a DSSE envelope over the statement,
// signed with an ECDSA P-256 key, with no log entry. It is written here
// with the standard library, so that the test needs no Sigstore module;
// cosign, when installed, checks that it is the real thing. It returns
// the signer, the public key and a count of its signatures.
func keySigner(t *testing.T) (Signer, *ecdsa.PublicKey, *atomic.Int32) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	sign := func(_ context.Context, statement []byte) ([]byte, error) {
		n.Add(1)
		sum := sha256.Sum256(pae(inTotoPayloadType, statement))
		sig, err := ecdsa.SignASN1(rand.Reader, key, sum[:])
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{
			"mediaType":            ArtifactTypeSigstoreBundle,
			"verificationMaterial": map[string]any{"publicKey": map[string]string{"hint": ""}},
			"dsseEnvelope": map[string]any{
				"payload": statement, "payloadType": inTotoPayloadType,
				"signatures": []map[string]any{{"sig": sig}},
			},
		})
	}
	return sign, &key.PublicKey, &n
}

const inTotoPayloadType = "application/vnd.in-toto+json"

// pae is DSSE's pre-authentication encoding, what a DSSE signature signs.
func pae(payloadType string, payload []byte) []byte {
	return fmt.Appendf(nil, "DSSEv1 %d %s %d %s", len(payloadType), payloadType, len(payload), payload)
}

// signedStatement fetches the signature attached to a manifest by
// Options.Sign, checks its envelope against pub, and returns the
// statement it signs.
func signedStatement(t *testing.T, repo *remote.Repository, subject ocispec.Descriptor, pub *ecdsa.PublicKey) (statement struct {
	Type          string             `json:"_type"`
	Subject       []statementSubject `json:"subject"`
	PredicateType string             `json:"predicateType"`
}) {
	t.Helper()
	ctx := context.Background()
	var sigs []ocispec.Descriptor
	if err := repo.Referrers(ctx, subject, ArtifactTypeSigstoreBundle, func(refs []ocispec.Descriptor) error {
		for _, r := range refs {
			if r.Annotations[annTitle] == manifestSignatureTitle {
				sigs = append(sigs, r)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(sigs) != 1 {
		t.Fatalf("manifest %s has %d signatures of its own, want 1", subject.Digest, len(sigs))
	}
	var m ocispec.Manifest
	fetchJSON(t, repo, string(sigs[0].Digest), &m)
	if len(m.Layers) != 1 || m.Layers[0].MediaType != ArtifactTypeSigstoreBundle || m.Subject == nil || m.Subject.Digest != subject.Digest ||
		m.Annotations[annSigstoreContent] != "dsse-envelope" || m.Annotations[annBundlePredicateType] != CosignSignPredicate {
		t.Fatalf("the signature of %s is not laid out as cosign's: %+v", subject.Digest, m)
	}
	rc, err := repo.Blobs().Fetch(ctx, m.Layers[0])
	if err != nil {
		t.Fatal(err)
	}
	data, err := content.ReadAll(rc, m.Layers[0])
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	payload, err := keyStatements(pub)(data)
	if err != nil {
		t.Fatalf("the bundle of %s: %v", subject.Digest, err)
	}
	if err := json.Unmarshal(payload, &statement); err != nil {
		t.Fatal(err)
	}
	return statement
}

// Publish with Sign signs every skill's manifest and the collection as
// cosign sign does, once: a rerun signs nothing and attaches nothing, and
// a dry run signs nothing. cosign verify, when installed, accepts the
// release tag and each skill.
func TestSignManifests(t *testing.T) {
	reg := startRegistry(t)
	_, b := newBundle(t)
	sign, pub, signed := keySigner(t)
	target := "oci://" + reg.host + "/acme/skills:v1"

	dry := publishTo(t, b, target, Options{Sign: sign, DryRun: true})
	if signed.Load() != 0 || dry.count()[publish.WouldUpload] == 0 {
		t.Fatalf("a dry run signed %d statements, states %v", signed.Load(), dry.count())
	}

	res := publishTo(t, b, target, Options{Sign: sign})
	if want := int32(len(b.Skills) + 1); signed.Load() != want {
		t.Errorf("signed %d statements, want %d (every skill and the collection)", signed.Load(), want)
	}
	repo := repoOf(t, reg.host, "acme/skills")
	idx, err := repo.Resolve(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	subjects := []ocispec.Descriptor{idx}
	for _, s := range b.Skills {
		d := digest.NewDigestFromEncoded(digest.SHA256, manifestOf(t, res, s.Name))
		desc, err := repo.Resolve(context.Background(), string(d))
		if err != nil {
			t.Fatal(err)
		}
		subjects = append(subjects, desc)
	}
	for _, subject := range subjects {
		st := signedStatement(t, repo, subject, pub)
		if st.Type != inTotoStatementType || st.PredicateType != CosignSignPredicate ||
			len(st.Subject) != 1 || st.Subject[0].Digest["sha256"] != subject.Digest.Encoded() {
			t.Errorf("the statement signing %s is %+v", subject.Digest, st)
		}
	}

	signed.Store(0)
	again := publishTo(t, b, target, Options{Sign: sign})
	if up := again.byState(publish.Uploaded); len(up) > 0 || signed.Load() != 0 {
		t.Errorf("a rerun signed %d statements and sent %v", signed.Load(), up)
	}

	cosign, err := testtool.Look("cosign")
	if err != nil {
		t.Logf("cosign verify not run: %v", err)
		return
	}
	verify := func(pub *ecdsa.PublicKey, ref string) ([]byte, error) {
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		keyFile := filepath.Join(t.TempDir(), "cosign.pub")
		if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(cosign, "verify", "--key", keyFile, "--insecure-ignore-tlog", "--allow-http-registry", ref)
		cmd.Env = append(os.Environ(), "TUF_ROOT="+t.TempDir())
		return cmd.CombinedOutput()
	}
	refs := []string{reg.host + "/acme/skills:v1"}
	for _, s := range subjects[1:] {
		refs = append(refs, reg.host+"/acme/skills@"+string(s.Digest))
	}
	for _, ref := range refs {
		out, err := verify(pub, ref)
		if err != nil {
			t.Errorf("cosign verify %s: %v\n%s", ref, err, out)
		} else if !bytes.Contains(out, []byte(CosignSignPredicate)) {
			t.Errorf("cosign verify %s printed no statement of cosign's type:\n%s", ref, out)
		}
	}
	// Another key's signature is refused: cosign checked this one.
	_, other, _ := keySigner(t)
	if out, err := verify(other, refs[0]); err == nil {
		t.Errorf("cosign verify %s accepted another key:\n%s", refs[0], out)
	}
}

// keyStatements checks what keySigner signed with pub, as skillpack-sign's
// VerifyStatement does with --key: it returns the statement of a bundle
// whose envelope verifies with pub.
func keyStatements(pub *ecdsa.PublicKey) func([]byte) ([]byte, error) {
	return func(bundle []byte) ([]byte, error) {
		var b struct {
			DSSE struct {
				Payload     []byte `json:"payload"`
				PayloadType string `json:"payloadType"`
				Signatures  []struct {
					Sig []byte `json:"sig"`
				} `json:"signatures"`
			} `json:"dsseEnvelope"`
		}
		if err := json.Unmarshal(bundle, &b); err != nil || len(b.DSSE.Signatures) != 1 {
			return nil, fmt.Errorf("not a DSSE bundle with one signature")
		}
		sum := sha256.Sum256(pae(b.DSSE.PayloadType, b.DSSE.Payload))
		if b.DSSE.PayloadType != inTotoPayloadType || !ecdsa.VerifyASN1(pub, sum[:], b.DSSE.Signatures[0].Sig) {
			return nil, fmt.Errorf("the signature does not verify with the key (payload type %s)", b.DSSE.PayloadType)
		}
		return b.DSSE.Payload, nil
	}
}

// verify oci:// reads the manifests' own signatures (publish --sign's, as
// cosign's) as theirs, not as files of the bundle: without a statement
// verifier they are passed over; with one, each manifest's must verify
// and sign its digest, and another key or a statement about another
// manifest is a problem at the manifest.
func TestVerifySignedManifests(t *testing.T) {
	reg := startRegistry(t)
	_, b := newBundle(t)
	sign, pub, _ := keySigner(t)
	target := "oci://" + reg.host + "/acme/skills:v1"
	publishTo(t, b, target, Options{Sign: sign})

	check := func(o Options) *verify.Report {
		t.Helper()
		rep, err := verifyWith(t, target, o)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	for name, o := range map[string]Options{"no statement verifier": {}, "the key": {VerifyStatement: keyStatements(pub)}} {
		if rep := check(o); !rep.OK() {
			var out bytes.Buffer
			rep.WriteText(&out)
			t.Errorf("%s: the signed bundle does not verify:\n%s", name, out.String())
		}
	}

	_, other, _ := keySigner(t)
	rep := check(Options{VerifyStatement: keyStatements(other)})
	if n := len(rep.Problems); n != len(b.Skills)+1 {
		t.Errorf("another key: %d problems, want one a manifest (%d)", n, len(b.Skills)+1)
	}
	idx, err := repoOf(t, reg.host, "acme/skills").Resolve(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, rep, target[:strings.LastIndex(target, ":")]+"@"+string(idx.Digest),
		"none of its 1 signatures (cosign's, of the manifest) verifies", "does not verify with the key")

	// A signer that signs a statement about another manifest.
	liar := func(ctx context.Context, statement []byte) ([]byte, error) {
		return sign(ctx, signStatement(digest.FromString("another manifest")))
	}
	target = "oci://" + reg.host + "/acme/lies:v1"
	publishTo(t, b, target, Options{Sign: liar})
	lies, err := repoOf(t, reg.host, "acme/lies").Resolve(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, check(Options{VerifyStatement: keyStatements(pub)}), "oci://"+reg.host+"/acme/lies@"+string(lies.Digest),
		"its statement is about "+string(digest.FromString("another manifest"))+", not "+string(lies.Digest))
}
