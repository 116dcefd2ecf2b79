package sign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/layout"
)

// TestSignVerify signs artifacts with a key through the helper and checks
// each signature against the artifact's digest. What a bundle signs, and
// where the signatures go, is package build's (its sign step); keyless
// signing is the helper's own business, tested in its module.
func TestSignVerify(t *testing.T) {
	keyPath, pub := writeKey(t)
	s := newSigner(t, Options{Key: keyPath})
	if s.Keyless() {
		t.Error("a key signer says it is keyless")
	}
	v, err := NewVerifier(context.Background(), VerifyOptions{Key: pub})
	must(t, err)
	defer v.Close()
	for _, data := range [][]byte{[]byte("an archive's bytes"), {}, []byte(strings.Repeat("index\n", 1000))} {
		b, err := s.Sign(context.Background(), data)
		must(t, err)
		sum := sha256.Sum256(data)
		if err := v.Verify(b, sum[:]); err != nil {
			t.Errorf("%d bytes: %v", len(data), err)
		}
		// A signature checked against another artifact's digest fails,
		// naming the mismatch.
		other := sha256.Sum256(append(data, '!'))
		if err := v.Verify(b, other[:]); err == nil || !strings.Contains(err.Error(), "digest mismatch") {
			t.Errorf("%d bytes against another digest: %v", len(data), err)
		}
	}
}

// TestSignStatement signs a folder's statement through the helper, as the
// build's sign step does, and gets the same statement back from verify;
// another key does not verify it.
func TestSignStatement(t *testing.T) {
	keyPath, pub := writeKey(t)
	s := newSigner(t, Options{Key: keyPath})
	st, err := layout.StatementDoc("hello", []layout.File{{Path: layout.EntryFile, Digest: layout.DigestOf([]byte("hi\n"))}})
	must(t, err)
	b, err := s.SignStatement(context.Background(), st)
	must(t, err)
	v, err := NewVerifier(context.Background(), VerifyOptions{Key: pub})
	must(t, err)
	defer v.Close()
	got, err := v.VerifyStatement(b)
	must(t, err)
	if !bytes.Equal(got, st) {
		t.Errorf("VerifyStatement returned %q, want %q", got, st)
	}
	_, otherPub := writeKey(t)
	other, err := NewVerifier(context.Background(), VerifyOptions{Key: otherPub})
	must(t, err)
	defer other.Close()
	if _, err := other.VerifyStatement(b); err == nil || !strings.Contains(err.Error(), "does not verify with the public key") {
		t.Errorf("another key: %v", err)
	}
	// A folder signature is not an artifact's, nor the other way round.
	sum := sha256.Sum256(st)
	if err := v.Verify(b, sum[:]); err == nil {
		t.Error("a folder signature verified as an artifact's")
	}
	blob, err := s.Sign(context.Background(), st)
	must(t, err)
	if _, err := v.VerifyStatement(blob); err == nil || !strings.Contains(err.Error(), "not a folder's statement") {
		t.Errorf("an artifact's signature as a folder's: %v", err)
	}
}
