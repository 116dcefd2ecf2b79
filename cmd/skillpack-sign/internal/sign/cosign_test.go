package sign

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCosignVerifyBlob checks that cosign accepts our bundles, with a key
// and keyless against the fakes' trusted root. It runs only where a cosign
// binary (2.4 or later) is on PATH: cosign is an optional tool, which
// Debian does not package, so CI may not have it (this module cannot use
// skillpack's internal/testtool, which skips the same way).
func TestCosignVerifyBlob(t *testing.T) {
	cosign, err := exec.LookPath("cosign")
	if err != nil {
		t.Skip("cosign is not on PATH (go install github.com/sigstore/cosign/v2/cmd/cosign@latest); skipping the check that cosign accepts our bundles")
	}
	dir := t.TempDir()
	blob := filepath.Join(dir, "blob.tar.gz")
	artifact := []byte("an archive, as far as cosign knows\n")
	must(t, os.WriteFile(blob, artifact, 0o644))
	// verifyBlob runs cosign verify-blob on file and reports its verdict.
	verifyBlob := func(t *testing.T, file string, args ...string) error {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// cosign 2.x needs --new-bundle-format; 3.x reads only that format.
		argv := append(append([]string{"verify-blob"}, args...), "--new-bundle-format", file)
		out, err := exec.CommandContext(ctx, cosign, argv...).CombinedOutput()
		if err != nil && strings.Contains(string(out), "unknown flag: --new-bundle-format") {
			argv = append(argv[:len(argv)-2], file)
			out, err = exec.CommandContext(ctx, cosign, argv...).CombinedOutput()
		}
		t.Logf("cosign %s\n%s", strings.Join(argv, " "), out)
		return err
	}
	run := func(t *testing.T, args ...string) {
		t.Helper()
		if err := verifyBlob(t, blob, args...); err != nil {
			t.Fatalf("cosign verify-blob: %v", err)
		}
		// And cosign really checks: the same bundle does not cover other bytes.
		other := filepath.Join(t.TempDir(), "other")
		must(t, os.WriteFile(other, []byte("other bytes\n"), 0o644))
		if err := verifyBlob(t, other, args...); err == nil {
			t.Fatalf("cosign verified a bundle for another blob")
		}
	}

	for _, curve := range []string{"P-256", "P-384"} {
		t.Run("key "+curve, func(t *testing.T) {
			priv := mustKey(t)
			if curve == "P-384" {
				priv = mustP384(t)
			}
			keyPath, pubPath := writeKey(t, t.TempDir(), priv, nil)
			s, err := NewSigner(context.Background(), Options{Key: keyPath}, nil)
			must(t, err)
			b, err := s.Sign(context.Background(), artifact)
			must(t, err)
			bundle := blob + "." + curve + ".sigstore.json"
			must(t, os.WriteFile(bundle, b, 0o644))
			run(t, "--key", pubPath, "--bundle", bundle, "--trusted-root", emptyRoot(t), "--insecure-ignore-tlog=true")
		})
	}

	// A key cosign made, encrypted with its password format.
	t.Run("cosign key", func(t *testing.T) {
		kdir := t.TempDir()
		gen := exec.Command(cosign, "generate-key-pair")
		gen.Dir, gen.Env = kdir, append(os.Environ(), CosignPasswordEnv+"=hunter2")
		if out, err := gen.CombinedOutput(); err != nil {
			t.Fatalf("cosign generate-key-pair: %v\n%s", err, out)
		}
		env := func(k string) string { return map[string]string{CosignPasswordEnv: "hunter2"}[k] }
		s, err := NewSigner(context.Background(), Options{Key: filepath.Join(kdir, "cosign.key")}, env)
		must(t, err)
		b, err := s.Sign(context.Background(), artifact)
		must(t, err)
		bundle := blob + ".cosign-key" + ".sigstore.json"
		must(t, os.WriteFile(bundle, b, 0o644))
		run(t, "--key", filepath.Join(kdir, "cosign.pub"), "--bundle", bundle, "--trusted-root", emptyRoot(t), "--insecure-ignore-tlog=true")
	})

	t.Run("keyless", func(t *testing.T) {
		f := newFakeSigstore(t)
		tr := f.writeTrustedRoot(t.TempDir())
		b, err := f.signer(tr).Sign(context.Background(), artifact)
		must(t, err)
		bundle := blob + ".sigstore.json"
		must(t, os.WriteFile(bundle, b, 0o644))
		run(t, "--bundle", bundle, "--trusted-root", tr,
			"--certificate-identity-regexp", testRegexp, "--certificate-oidc-issuer", GitHubIssuer)
	})
}

// emptyRoot is a trusted root that trusts nothing. Given to cosign with
// --key, it keeps cosign from fetching the public-good root through TUF
// (these tests run offline); a key needs no other trust.
func emptyRoot(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "trusted_root.json")
	must(t, os.WriteFile(p, []byte(`{"mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`), 0o644))
	return p
}
