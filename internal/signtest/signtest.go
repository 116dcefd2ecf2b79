// Package signtest builds the skillpack-sign helper for the tests that
// sign and verify through it, end to end, as a user's skillpack does,
// starts a private Sigstore instance for keyless runs of it, and has a
// stand-in signer and verifier for the tests that need no Sigstore.
package signtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Build compiles cmd/skillpack-sign, a module of its own, into dir and
// returns the program's path. The first build compiles sigstore-go (minutes
// from an empty cache); later ones only link.
func Build(dir string) (string, error) {
	return build(dir, ".", "skillpack-sign")
}

// build compiles the package pkg of the helper's module into dir/name.
func build(dir, pkg, name string) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("signtest: no source path")
	}
	src := filepath.Join(filepath.Dir(file), "..", "..", "cmd", "skillpack-sign")
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	out := filepath.Join(dir, name)
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("signtest: the go command builds the helper: %w", err)
	}
	cmd := exec.Command(gobin, "build", "-o", out, pkg)
	cmd.Dir = src
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("signtest: building %s in %s: %w\n%s", pkg, src, err, msg)
	}
	return out, nil
}

// Sigstore is a private Sigstore instance on loopback (Fulcio, Rekor, a
// timestamp authority and a CT log whose signatures verify against
// TrustedRoot), run by the helper module's fakesigstore program, for
// end-to-end tests of keyless signing.
type Sigstore struct {
	FulcioURL string `json:"fulcioURL"`
	RekorURL  string `json:"rekorURL"`
	TSAURL    string `json:"tsaURL"`
	// IdentityToken is an OIDC token Fulcio takes, for Identity (a GitHub
	// release workflow's) and Issuer.
	IdentityToken string `json:"identityToken"`
	Identity      string `json:"identity"`
	Issuer        string `json:"issuer"`
	// TrustedRoot is a trusted_root.json file that trusts exactly it.
	TrustedRoot string `json:"-"`
}

// StartSigstore builds and starts the instance; it stops with the test.
func StartSigstore(t testing.TB) *Sigstore {
	t.Helper()
	dir := t.TempDir()
	prog, err := build(dir, "./internal/sigstoretest/fakesigstore", "fakesigstore")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sigstore{TrustedRoot: filepath.Join(dir, "trusted_root.json")}
	cmd := exec.Command(prog, "-root", s.TrustedRoot)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Closing its standard input stops it.
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	if err := json.NewDecoder(stdout).Decode(s); err != nil {
		t.Fatalf("signtest: fakesigstore said no services: %v", err)
	}
	return s
}

// SignFlags are the signing flags that sign keyless against s.
func (s *Sigstore) SignFlags() []string {
	return []string{"--identity-token", s.IdentityToken, "--fulcio-url", s.FulcioURL,
		"--rekor-url", s.RekorURL, "--tsa-url", s.TSAURL, "--trusted-root", s.TrustedRoot}
}

// VerifyFlags are the flags that verify s's signatures of Identity.
func (s *Sigstore) VerifyFlags() []string {
	return []string{"--certificate-identity", s.Identity, "--certificate-oidc-issuer", s.Issuer, "--trusted-root", s.TrustedRoot}
}

// Stub is a stand-in signature, for tests that treat signatures as
// opaque files: {"signed":"sha256:<hex>"} of the bytes signed, the same
// every time (unlike Sigstore's), so that a republish finds it present.
func Stub(data []byte) ([]byte, error) {
	return []byte(`{"signed":"sha256:` + fmt.Sprintf("%x", sha256.Sum256(data)) + `"}`), nil
}

// StubVerifier accepts Stub's signatures, as a Sigstore verifier checks a
// bundle's message digest: it has verify.SignatureVerifier's method.
type StubVerifier struct{}

// Verify checks that bundleJSON is a stub signature of the artifact whose
// sha256 is digest.
func (StubVerifier) Verify(bundleJSON, digest []byte) error {
	var sig struct{ Signed string }
	if err := json.Unmarshal(bundleJSON, &sig); err != nil {
		return err
	}
	if want := fmt.Sprintf("sha256:%x", digest); sig.Signed != want {
		return fmt.Errorf("signs %s, not %s", sig.Signed, want)
	}
	return nil
}

// StubStatement is a stand-in folder signature (build.StatementSigner):
// {"statement":"<base64>"}, which StubVerifier reads back.
func StubStatement(statement []byte) ([]byte, error) {
	return json.Marshal(struct {
		Statement []byte `json:"statement"`
	}{statement})
}

// VerifyStatement returns the statement of a StubStatement signature (it
// has verify.StatementVerifier's method).
func (StubVerifier) VerifyStatement(bundleJSON []byte) ([]byte, error) {
	var sig struct{ Statement []byte }
	if err := json.Unmarshal(bundleJSON, &sig); err != nil {
		return nil, err
	}
	if sig.Statement == nil {
		return nil, fmt.Errorf("not a stub folder signature")
	}
	return sig.Statement, nil
}
