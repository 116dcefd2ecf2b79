package sign

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/youmark/pkcs8"
)

func TestKeylessSignVerify(t *testing.T) {
	f := newFakeSigstore(t)
	dir := t.TempDir()
	tr := f.writeTrustedRoot(dir)
	s := f.signer(tr)
	ctx := context.Background()

	artifacts := [][]byte{[]byte("first artifact\n"), []byte("second artifact\n")}
	var bundles [][]byte
	for _, a := range artifacts {
		b, err := s.Sign(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		bundles = append(bundles, b)
	}
	// One token and one certificate for the whole run.
	if n := f.TokenCalls.Load(); n != 1 {
		t.Errorf("token endpoint called %d times, want 1", n)
	}
	if n := f.FulcioCalls.Load(); n != 1 {
		t.Errorf("Fulcio called %d times, want 1", n)
	}
	var doc struct {
		MediaType            string `json:"mediaType"`
		VerificationMaterial struct {
			Certificate struct {
				RawBytes string `json:"rawBytes"`
			} `json:"certificate"`
			TlogEntries               []json.RawMessage `json:"tlogEntries"`
			TimestampVerificationData struct {
				RFC3161Timestamps []json.RawMessage `json:"rfc3161Timestamps"`
			} `json:"timestampVerificationData"`
		} `json:"verificationMaterial"`
	}
	must(t, json.Unmarshal(bundles[0], &doc))
	if doc.MediaType != MediaType {
		t.Errorf("mediaType = %q, want %q", doc.MediaType, MediaType)
	}
	vm := doc.VerificationMaterial
	if vm.Certificate.RawBytes == "" || len(vm.TlogEntries) != 1 || len(vm.TimestampVerificationData.RFC3161Timestamps) != 1 {
		t.Errorf("bundle lacks a certificate, a log entry or a timestamp: %s", bundles[0])
	}

	for _, o := range []VerifyOptions{
		{CertificateIdentity: testIdentity, CertificateOIDCIssuer: GitHubIssuer, TrustedRoot: tr},
		{CertificateIdentityRegexp: testRegexp, CertificateOIDCIssuer: GitHubIssuer, TrustedRoot: tr},
	} {
		v, err := NewVerifier(o)
		must(t, err)
		for i, a := range artifacts {
			sum := sha256.Sum256(a)
			if err := v.Verify(bundles[i], sum[:]); err != nil {
				t.Errorf("artifact %d: %v", i, err)
			}
		}
		// The first bundle does not sign the second artifact.
		sum := sha256.Sum256(artifacts[1])
		if err := v.Verify(bundles[0], sum[:]); err == nil || !strings.Contains(err.Error(), "digest mismatch") {
			t.Errorf("bundle for another artifact: err = %v, want a digest mismatch", err)
		}
	}
}

func TestKeylessTokenSources(t *testing.T) {
	f := newFakeSigstore(t)
	tok := f.IDToken()
	tokFile := filepath.Join(t.TempDir(), "token")
	must(t, os.WriteFile(tokFile, []byte(tok+"\n"), 0o600))
	ctx := context.Background()
	for name, tc := range map[string]struct {
		flag string
		env  map[string]string
	}{
		"flag":      {flag: tok},
		"flag file": {flag: tokFile},
		"env":       {env: map[string]string{TokenEnv: tok}},
	} {
		t.Run(name, func(t *testing.T) {
			o := f.options("")
			o.IdentityToken = tc.flag
			s, err := NewSigner(ctx, o, func(k string) string { return tc.env[k] })
			must(t, err)

			if _, err := s.Sign(ctx, []byte("x")); err != nil {
				t.Fatal(err)
			}
		})
	}
	if n := f.TokenCalls.Load(); n != 0 {
		t.Errorf("GitHub's endpoint was asked %d times with a token at hand", n)
	}

	// No source at all is refused before anything is built.
	_, err := NewSigner(ctx, f.options(""), func(k string) string {
		return map[string]string{"GITHUB_ACTIONS": "true"}[k]
	})
	if err == nil || !strings.Contains(err.Error(), "id-token: write") {
		t.Errorf("no token: err = %v, want advice on id-token: write", err)
	}
	// A request token GitHub refuses says so.
	bad := f.env()
	s, err := NewSigner(ctx, f.options(""), func(k string) string {
		if k == ActionsTokenEnv {
			return "wrong"
		}
		return bad(k)
	})
	must(t, err)
	if _, err := s.Sign(ctx, []byte("x")); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("refused request token: err = %v, want the 401", err)
	}
	// --key and keyless flags do not mix.
	_, err = NewSigner(ctx, Options{Key: "k.pem", IdentityToken: tok}, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("--key with --identity-token: err = %v", err)
	}
}

// writeKey writes priv as PEM and its public key beside it, returning both paths.
func writeKey(t *testing.T, dir string, priv any, block func(der []byte) *pem.Block) (string, string) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	must(t, err)
	if block == nil {
		block = func(der []byte) *pem.Block { return &pem.Block{Type: "PRIVATE KEY", Bytes: der} }
	}
	keyPath, pubPath := filepath.Join(dir, "key.pem"), filepath.Join(dir, "pub.pem")
	must(t, os.WriteFile(keyPath, pem.EncodeToMemory(block(der)), 0o600))
	if s, ok := priv.(crypto.Signer); ok {
		pub, err := cryptoutils.MarshalPublicKeyToPEM(s.Public())
		must(t, err)
		must(t, os.WriteFile(pubPath, pub, 0o644))
	}
	return keyPath, pubPath
}

func TestKeySignVerify(t *testing.T) {
	ctx := context.Background()
	artifact := []byte("an archive\n")
	sum := sha256.Sum256(artifact)
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	must(t, err)
	ecDER, err := x509.MarshalECPrivateKey(p256)
	must(t, err)

	cases := map[string]struct {
		priv any
		pem  func(t *testing.T, pkcs8 []byte) *pem.Block
		env  map[string]string
	}{
		"P-256 PKCS#8": {priv: p256},
		"P-384 PKCS#8": {priv: p384},
		"P-256 EC": {priv: p256, pem: func(*testing.T, []byte) *pem.Block {
			return &pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER}
		}},
		"cosign encrypted": {priv: p256, env: map[string]string{PasswordEnv: "hunter2"},
			pem: func(t *testing.T, pkcs8 []byte) *pem.Block {
				enc, err := cryptoutils.MarshalPrivateKeyToEncryptedDER(p256, cryptoutils.StaticPasswordFunc([]byte("hunter2")))
				must(t, err)
				return &pem.Block{Type: "ENCRYPTED SIGSTORE PRIVATE KEY", Bytes: enc}
			}},
		"encrypted PKCS#8": {priv: p384, env: map[string]string{PasswordEnv: "hunter2"},
			pem: func(t *testing.T, _ []byte) *pem.Block {
				der, err := pkcs8.MarshalPrivateKey(p384, []byte("hunter2"), nil)
				must(t, err)
				return &pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: der}
			}},
		"legacy encrypted PEM": {priv: p256, env: map[string]string{CosignPasswordEnv: "hunter2"},
			pem: func(t *testing.T, _ []byte) *pem.Block {
				b, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", ecDER, []byte("hunter2"), x509.PEMCipherAES256) //nolint:staticcheck // the legacy format under test
				must(t, err)
				return b
			}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var block func([]byte) *pem.Block
			if tc.pem != nil {
				block = func(der []byte) *pem.Block { return tc.pem(t, der) }
			}
			keyPath, pubPath := writeKey(t, dir, tc.priv, block)
			s, err := NewSigner(ctx, Options{Key: keyPath}, func(k string) string { return tc.env[k] })
			must(t, err)
			if s.Keyless() || len(s.tlogs) != 0 || len(s.tsas) != 0 {
				t.Fatalf("a key run must not use a log or a timestamp authority by default")
			}
			b, err := s.Sign(ctx, artifact)
			must(t, err)
			v, err := NewVerifier(VerifyOptions{Key: pubPath})
			must(t, err)
			if err := v.Verify(b, sum[:]); err != nil {
				t.Fatal(err)
			}
			tampered := sha256.Sum256(append([]byte("x"), artifact...))
			if err := v.Verify(b, tampered[:]); err == nil || !strings.Contains(err.Error(), "digest mismatch") {
				t.Errorf("tampered artifact: err = %v, want a digest mismatch", err)
			}
			if tc.env != nil {
				_, err := NewSigner(ctx, Options{Key: keyPath}, func(string) string { return "" })
				if err == nil || !strings.Contains(err.Error(), PasswordEnv) {
					t.Errorf("encrypted key without password: err = %v, want advice on %s", err, PasswordEnv)
				}
				_, err = NewSigner(ctx, Options{Key: keyPath}, func(k string) string {
					return map[string]string{PasswordEnv: "wrong"}[k]
				})
				if err == nil || !strings.Contains(err.Error(), "cannot decrypt") {
					t.Errorf("wrong password: err = %v", err)
				}
			}
		})
	}

	// Another key does not verify.
	dir := t.TempDir()
	keyPath, _ := writeKey(t, dir, p256, nil)
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	_, otherPub := writeKey(t, t.TempDir(), other, nil)
	s, err := NewSigner(ctx, Options{Key: keyPath}, nil)
	must(t, err)
	b, err := s.Sign(ctx, artifact)
	must(t, err)
	v, err := NewVerifier(VerifyOptions{Key: otherPub})
	must(t, err)
	if err := v.Verify(b, sum[:]); err == nil || !strings.Contains(err.Error(), "does not verify with the public key") {
		t.Errorf("other key: err = %v", err)
	}
}

func TestRefusedKeys(t *testing.T) {
	dir := t.TempDir()
	_, edPriv, err := ed25519.GenerateKey(rand.Reader)
	must(t, err)
	edKey, _ := writeKey(t, dir, edPriv, nil)
	_, err = NewSigner(context.Background(), Options{Key: edKey}, nil)
	if err == nil || !strings.Contains(err.Error(), "Ed25519 keys are not supported") || !strings.Contains(err.Error(), edKey) {
		t.Errorf("Ed25519: err = %v", err)
	}
	edPub, err := cryptoutils.MarshalPublicKeyToPEM(edPriv.Public())
	must(t, err)
	pubPath := filepath.Join(dir, "ed.pub")
	must(t, os.WriteFile(pubPath, edPub, 0o644))
	if _, err := NewVerifier(VerifyOptions{Key: pubPath}); err == nil || !strings.Contains(err.Error(), "Ed25519") {
		t.Errorf("Ed25519 public key: err = %v", err)
	}

	p521, err := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	must(t, err)
	k521, _ := writeKey(t, t.TempDir(), p521, nil)
	if _, err := NewSigner(context.Background(), Options{Key: k521}, nil); err == nil || !strings.Contains(err.Error(), "P-521") {
		t.Errorf("P-521: err = %v", err)
	}
	junk := filepath.Join(dir, "junk.pem")
	must(t, os.WriteFile(junk, []byte("not a key"), 0o600))
	if _, err := NewSigner(context.Background(), Options{Key: junk}, nil); err == nil || !strings.Contains(err.Error(), "not a PEM private key") {
		t.Errorf("junk: err = %v", err)
	}
}

func TestSigningConfig(t *testing.T) {
	f := newFakeSigstore(t)
	dir := t.TempDir()
	svc := func(url string) string {
		return `[{"url": "` + url + `", "majorApiVersion": 1, "validFor": {"start": "2020-01-01T00:00:00Z"}, "operator": "fake"}]`
	}
	config := func(fulcio string) string {
		p := filepath.Join(dir, "signing_config.json")
		must(t, os.WriteFile(p, []byte(`{
  "mediaType": "application/vnd.dev.sigstore.signingconfig.v0.2+json",
  "caUrls": `+svc(fulcio)+`,
  "rekorTlogUrls": `+svc("https://rekor.fake.test")+`,
  "rekorTlogConfig": {"selector": "ANY"},
  "tsaUrls": `+svc(f.TSA.URL+"/api/v1/timestamp")+`,
  "tsaConfig": {"selector": "ANY"}
}`), 0o644))
		return p
	}
	got, err := services(Options{SigningConfig: config(f.Fulcio.URL)}, true)
	must(t, err)
	want := serviceURLs{fulcio: f.Fulcio.URL, rekor: "https://rekor.fake.test", tsa: f.TSA.URL + "/api/v1/timestamp", rekorVersion: 1}
	if got != want {
		t.Errorf("from the signing config: %+v, want %+v", got, want)
	}
	// A flag wins over the config.
	got, err = services(Options{SigningConfig: config("http://fulcio.invalid"), FulcioURL: f.Fulcio.URL}, true)
	must(t, err)
	if got.fulcio != f.Fulcio.URL {
		t.Errorf("--fulcio-url lost to the signing config: %+v", got)
	}
	s, err := NewSigner(context.Background(), Options{SigningConfig: config(f.Fulcio.URL)}, f.env())
	must(t, err)
	s.tlogs[0] = f.Client() // the config names the log at rekor.fake.test
	if _, err := s.Sign(context.Background(), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if f.FulcioCalls.Load() != 1 {
		t.Errorf("the signing config's Fulcio was not asked")
	}

	// No config, no flags: the public-good instance; a key run uses none.
	got, err = services(Options{}, true)
	must(t, err)
	if got != (serviceURLs{DefaultFulcioURL, DefaultRekorURL, DefaultTSAURL, 1}) {
		t.Errorf("defaults: %+v", got)
	}
	got, err = services(Options{Key: "k.pem", SigningConfig: "ignored.json"}, false)
	must(t, err)
	if got != (serviceURLs{rekorVersion: 1}) {
		t.Errorf("key run: %+v, want no services", got)
	}
	if _, err := services(Options{SigningConfig: filepath.Join(dir, "missing.json")}, true); err == nil || !strings.Contains(err.Error(), "--signing-config") {
		t.Errorf("missing config: err = %v", err)
	}
}

// Keyless against the fake Rekor over HTTP, through sigstore-go's own
// Rekor v1 client (what a run with --rekor-url uses): a blob is logged as
// hashedrekord and a statement as dsse, each entry verifies against the
// trusted root, and the log took exactly those two.
func TestKeylessRekorHTTP(t *testing.T) {
	f := newFakeSigstore(t)
	tr := f.writeTrustedRoot(t.TempDir())
	o := f.options(tr)
	o.RekorURL = f.Rekor.URL
	s, err := NewSigner(context.Background(), o, f.env())
	must(t, err)
	ctx := context.Background()
	artifact := []byte("an artifact\n")
	blob, err := s.Sign(ctx, artifact)
	must(t, err)
	folder, err := s.SignStatement(ctx, []byte(statement))
	must(t, err)
	if n := f.Log.Entries(); n != 2 {
		t.Errorf("the log took %d entries, want 2", n)
	}
	for _, c := range []struct {
		bundle []byte
		kind   string
	}{{blob, "hashedrekord"}, {folder, "dsse"}} {
		if e := fields(t, c.bundle).VerificationMaterial.TlogEntries; len(e) != 1 || e[0].KindVersion.Kind != c.kind {
			t.Errorf("log entries %+v, want one %s entry", e, c.kind)
		}
	}
	v, err := NewVerifier(VerifyOptions{CertificateIdentity: testIdentity, CertificateOIDCIssuer: GitHubIssuer, TrustedRoot: tr})
	must(t, err)
	sum := sha256.Sum256(artifact)
	if err := v.Verify(blob, sum[:]); err != nil {
		t.Errorf("blob: %v", err)
	}
	if got, err := v.VerifyStatement(folder); err != nil || string(got) != statement {
		t.Errorf("statement: %q, %v", got, err)
	}
}
