package layout

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Digest is a content digest as every document of a bundle spells it:
// "sha256:" and 64 lowercase hex digits. It is a string so that it encodes
// to JSON as itself; Valid says whether a value read from elsewhere has the
// one form the readers accept.
type Digest string

// DigestOf is the digest of data.
func DigestOf(data []byte) Digest {
	sum := sha256.Sum256(data)
	return SumDigest(sum[:])
}

// SumDigest spells a SHA-256 sum (32 bytes) as a digest.
func SumDigest(sum []byte) Digest { return Digest("sha256:" + hex.EncodeToString(sum)) }

// ParseDigest reads a digest, accepting only the form Valid describes.
func ParseDigest(s string) (Digest, error) {
	if d := Digest(s); d.Valid() {
		return d, nil
	}
	return "", fmt.Errorf("%q is not a digest (sha256: and 64 lowercase hex digits)", s)
}

// Valid reports whether d is "sha256:" followed by 64 lowercase hex
// digits, the only form the readers accept.
func (d Digest) Valid() bool {
	hex, ok := strings.CutPrefix(string(d), "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Hex is the digest without its "sha256:" prefix, as sha256sum prints it.
func (d Digest) Hex() string { return strings.TrimPrefix(string(d), "sha256:") }

// Short is the digest's part of an archive name: its first 16 hex digits
// (see ArchiveName).
func (d Digest) Short() string {
	h := d.Hex()
	return h[:min(16, len(h))]
}

func (d Digest) String() string { return string(d) }
