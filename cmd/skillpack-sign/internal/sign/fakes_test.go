package sign

// The helper's tests sign against sigstoretest's private Sigstore instance,
// in process: the signer logs to the instance's Log directly.

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpack/skillpack/cmd/skillpack-sign/internal/sigstoretest"
)

const (
	testWorkflow = sigstoretest.Workflow
	testIdentity = sigstoretest.Identity
	testRegexp   = sigstoretest.IdentityRegexp
)

// fakeSigstore is one private Sigstore instance, stopped with the test.
type fakeSigstore struct {
	*sigstoretest.Instance
	t *testing.T
}

func newFakeSigstore(t *testing.T) *fakeSigstore {
	t.Helper()
	f, err := sigstoretest.New()
	must(t, err)
	t.Cleanup(f.Close)
	return &fakeSigstore{f, t}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// env is what a GitHub Actions job with `id-token: write` sees.
func (f *fakeSigstore) env() func(string) string {
	vars := map[string]string{
		ActionsURLEnv:    f.Token.URL + "/token?api-version=2.0",
		ActionsTokenEnv:  sigstoretest.ActionsBearer,
		"GITHUB_ACTIONS": "true",
	}
	return func(k string) string { return vars[k] }
}

// options point a Signer at the fakes.
func (f *fakeSigstore) options(trustedRoot string) Options {
	return Options{FulcioURL: f.Fulcio.URL, TSAURL: f.TSA.URL + sigstoretest.TSAPath, RekorURL: f.Rekor.URL, TrustedRoot: trustedRoot}
}

// signer is a keyless Signer against the fakes.
func (f *fakeSigstore) signer(trustedRoot string) *Signer {
	f.t.Helper()
	s, err := NewSigner(context.Background(), f.options(trustedRoot), f.env())
	must(f.t, err)
	return s
}

// writeTrustedRoot writes a trusted_root.json that trusts the fakes.
func (f *fakeSigstore) writeTrustedRoot(dir string) string {
	f.t.Helper()
	data, err := f.TrustedRoot()
	must(f.t, err)
	p := filepath.Join(dir, "trusted_root.json")
	must(f.t, os.WriteFile(p, data, 0o644))
	return p
}

// Sign signs artifact as skillpack has it signed: SignDigest of its sha256
// digest.
func (s *Signer) Sign(ctx context.Context, artifact []byte) ([]byte, error) {
	sum := sha256.Sum256(artifact)
	return s.SignDigest(ctx, sum[:])
}
