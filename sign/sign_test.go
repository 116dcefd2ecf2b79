package sign

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"
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
	v, err := NewVerifier(context.Background(), VerifyOptions{Key: pub, Helper: helper})
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
