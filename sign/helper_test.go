package sign

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/signtest"
)

// TestMain builds skillpack-sign and puts it first on PATH, where
// skillpack finds it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "skillpack-sign-test")
	if err == nil {
		_, err = signtest.Build(dir)
	}
	if err == nil {
		err = os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// writeKey writes a new P-256 key pair and returns the private and public
// key files.
func writeKey(t *testing.T) (string, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(k)
	must(t, err)
	pder, err := x509.MarshalPKIXPublicKey(k.Public())
	must(t, err)
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, "key.pem"), filepath.Join(dir, "pub.pem")
	must(t, os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))
	must(t, os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder}), 0o644))
	return priv, pub
}

func newSigner(t *testing.T, o Options) *Signer {
	t.Helper()
	s, err := NewSigner(context.Background(), o, func(string) string { return "" })
	must(t, err)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the helper: %v", err)
		}
	})
	return s
}

// TestHelperUsage checks that the helper's refusals of bad options come
// back with its message, before anything is signed.
func TestHelperUsage(t *testing.T) {
	var stderr bytes.Buffer
	none := func(string) string { return "" }
	_, err := NewSigner(context.Background(), Options{Stderr: &stderr}, none)
	if err == nil || !strings.Contains(err.Error(), "keyless signing needs an OIDC identity token") {
		t.Errorf("keyless without a token: %v", err)
	}
	_, err = NewSigner(context.Background(), Options{Key: "nowhere.pem"}, none)
	if err == nil || !strings.Contains(err.Error(), "nowhere.pem") {
		t.Errorf("a missing key: %v", err)
	}
	_, err = NewVerifier(context.Background(), VerifyOptions{CertificateIdentity: "a"})
	if err == nil || !strings.Contains(err.Error(), "--certificate-oidc-issuer") {
		t.Errorf("keyless verification without an issuer: %v", err)
	}
	if stderr.Len() > 0 {
		t.Errorf("the helper wrote on stderr: %s", stderr.String())
	}
}

// TestNoHelper checks the message that tells a user how to install the
// helper when it is nowhere to be found.
func TestNoHelper(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := NewSigner(context.Background(), Options{Key: "k.pem"}, nil)
	if err == nil || !strings.Contains(err.Error(), Install()) {
		t.Errorf("err = %v", err)
	}
	// The helper of skillpack's own version: a release's, else the one in
	// the checkout skillpack was built from (nothing is at @latest before
	// the first release, and a newer one would not match).
	for v, want := range map[string]string{
		"v1.2.3":                                   "`go install github.com/skillpack/skillpack/cmd/skillpack-sign@v1.2.3`",
		"v1.3.0-rc.1":                              "`go install github.com/skillpack/skillpack/cmd/skillpack-sign@v1.3.0-rc.1`",
		"v0.0.0-20261203150000-abcdef123456":       "`go -C cmd/skillpack-sign install .` in skillpack's checkout",
		"v0.1.1-0.20261203150000-abcdef123456":     "`go -C cmd/skillpack-sign install .` in skillpack's checkout",
		"v0.0.0-20261203150000-abcdef123456+dirty": "`go -C cmd/skillpack-sign install .` in skillpack's checkout",
		"(devel)": "`go -C cmd/skillpack-sign install .` in skillpack's checkout",
	} {
		if got := installFor(v); got != want {
			t.Errorf("installFor(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestHelperProtocolVersion checks that a helper of another protocol
// version is refused with a message that says to install a matching one.
func TestHelperProtocolVersion(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in helper is a shell script")
	}
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	must(t, os.WriteFile(filepath.Join(dir, Helper), []byte("#!/bin/sh\necho '{\"protocol\":99}'\ncat >/dev/null\n"), 0o755))
	_, err := NewSigner(context.Background(), Options{Key: "k.pem"}, nil)
	if err == nil || !strings.Contains(err.Error(), "speaks helper protocol 99") {
		t.Errorf("err = %v", err)
	}
}
