package bundle

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"

	"github.com/skillpack/skillpack/layout"
)

// ChangedError is bytes that are not those of the digest and size a
// document gives them. What to do about it is the caller's to add.
type ChangedError struct {
	layout.Artifact        // the file as By describes it
	By              string // what gives its digest: a document, a manifest
	Got             layout.Digest
	Read            int64 // bytes read: Size+1 means more than Size (Got is then "")
}

func (e *ChangedError) Error() string {
	switch {
	case e.Got != "" && e.Read != e.Size:
		return fmt.Sprintf("%s is %s (%d bytes), but %s says %s (%d bytes)", e.Path, e.Got, e.Read, e.By, e.Digest, e.Size)
	case e.Got != "":
		return fmt.Sprintf("%s is %s, but %s says %s", e.Path, e.Got, e.By, e.Digest)
	case e.Read > e.Size:
		return fmt.Sprintf("%s has more than the %d bytes %s says", e.Path, e.Size, e.By)
	}
	return fmt.Sprintf("%s has %d bytes, but %s says %d", e.Path, e.Read, e.By, e.Size)
}

// Checked reads r, which should hold the bytes of want, as by says. The
// read that would complete them, or go past them, returns none of its
// bytes but a *ChangedError when they are not those: a consumer never gets
// the last bytes of a wrong file (an upload never has the length it
// promised, and the server stores nothing).
func Checked(r io.Reader, want layout.Artifact, by string) io.Reader {
	return &checked{r: r, want: want, by: by, h: sha256.New()}
}

type checked struct {
	r    io.Reader
	want layout.Artifact
	by   string
	n    int64
	h    hash.Hash
}

func (c *checked) Read(p []byte) (int, error) {
	size := c.want.Size
	if rest := size + 1 - c.n; int64(len(p)) > rest {
		p = p[:rest] // one byte past the size is enough to tell
	}
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if c.n >= size || err == io.EOF {
		e := &ChangedError{Artifact: c.want, By: c.by, Read: c.n}
		if c.n == size {
			if e.Got = layout.SumDigest(c.h.Sum(nil)); e.Got == c.want.Digest {
				return n, err
			}
		}
		return 0, e
	}
	return n, err
}

// Check reads r, which should hold the bytes of want, as by says, to its
// end or one byte past want's size, and returns a *ChangedError if they
// are not those: Checked, for a reader that keeps nothing it reads.
func Check(r io.Reader, want layout.Artifact, by string) error {
	_, _, err := Sum(Checked(r, want, by))
	return err
}
