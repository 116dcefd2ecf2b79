package layout

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Digest is a content digest as every document of a bundle spells it:
// "sha256:" and 64 lowercase hex digits (Valid).
type Digest string

// DigestOf is the digest of data.
func DigestOf(data []byte) Digest {
	sum := sha256.Sum256(data)
	return SumDigest(sum[:])
}

// SumDigest spells a SHA-256 sum (32 bytes) as a digest.
func SumDigest(sum []byte) Digest { return Digest("sha256:" + hex.EncodeToString(sum)) }

// Valid reports whether d is "sha256:" followed by 64 lowercase hex
// digits, the only form the readers accept.
func (d Digest) Valid() bool {
	hex, ok := strings.CutPrefix(string(d), "sha256:")
	return ok && len(hex) == 64 && isLowerHex(hex)
}

// isLowerHex reports whether s is lowercase hex digits only.
func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Hex is the digest without its "sha256:" prefix, as sha256sum prints it.
func (d Digest) Hex() string { return strings.TrimPrefix(string(d), "sha256:") }

// Short is the digest's part of an archive name: its first 16 hex digits.
func (d Digest) Short() string {
	h := d.Hex()
	return h[:min(16, len(h))]
}

func (d Digest) String() string { return string(d) }
