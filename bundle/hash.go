package bundle

import (
	"crypto/sha256"
	"io"
	"sync"

	"github.com/skillpack/skillpack/internal/smallfile"
	"github.com/skillpack/skillpack/layout"
)

// Sum returns the SHA-256 and length of what r holds. It reads through a
// pooled buffer: io.Copy from an *os.File allocates one per call, which
// on a no-op rebuild of a large tree is most of the garbage.
func Sum(r io.Reader) (sum [32]byte, n int64, err error) {
	buf := readBufs.Get().(*[]byte)
	defer readBufs.Put(buf)
	h := sha256.New()
	// Wrapped, so that an *os.File's WriteTo, which allocates a buffer of
	// its own, is not used.
	n, err = io.CopyBuffer(h, struct{ io.Reader }{r}, *buf)
	h.Sum(sum[:0])
	return sum, n, err
}

var readBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// Hash is the digest and length of what r holds.
func Hash(r io.Reader) (layout.Digest, int64, error) {
	sum, n, err := Sum(r)
	return layout.SumDigest(sum[:]), n, err
}

// SumFile is Sum of the file at p, opened without blocking: a named pipe
// put in a file's place must not hang the reader.
func SumFile(p string) (sum [32]byte, n int64, err error) {
	f, err := smallfile.Open(p)
	if err != nil {
		return sum, 0, err
	}
	defer f.Close()
	return Sum(f)
}

// HashFile is the digest and length of the file at p (see SumFile).
func HashFile(p string) (layout.Digest, int64, error) {
	sum, n, err := SumFile(p)
	return layout.SumDigest(sum[:]), n, err
}
