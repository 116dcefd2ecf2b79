// Package signtest builds the skillpack-sign helper for the tests that
// sign and verify through it, end to end, as a user's skillpack does, and
// has a stand-in signer and verifier for the tests that need no Sigstore.
package signtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Build compiles cmd/skillpack-sign, a module of its own, into dir and
// returns the program's path. The first build compiles sigstore-go (minutes
// from an empty cache); later ones only link.
func Build(dir string) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("signtest: no source path")
	}
	src := filepath.Join(filepath.Dir(file), "..", "..", "cmd", "skillpack-sign")
	name := "skillpack-sign"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	out := filepath.Join(dir, name)
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("signtest: the go command builds the helper: %w", err)
	}
	cmd := exec.Command(gobin, "build", "-o", out, ".")
	cmd.Dir = src
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("signtest: building %s: %w\n%s", src, err, msg)
	}
	return out, nil
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
