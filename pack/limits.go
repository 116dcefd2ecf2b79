package pack

import (
	"cmp"
	"fmt"
	"io"
)

// The limits of what a reader that does not trust a bundle reads of it
// (verify, pull), which the build refuses a skill to cross, so that what a
// build writes, verify accepts: one set, so that they cannot disagree.
//
// No real archive meets the ratio limit: deflate encodes at most 258 bytes
// in 2 bits, so no stream unpacks to 1,032 times its size (skillpack's own
// stay near 510). An archive over MaxRatio counts the same compressed bytes
// more than once, as a zip whose entries overlap does: a decompression
// bomb, stopped long before MaxUnpacked.
const (
	MaxFile     = 64 << 20  // bytes of any one file read whole: a served file, an archive, a document, an archive's entry
	MaxUnpacked = 256 << 20 // bytes one archive unpacks to, every entry with its tar header
	MaxEntries  = 10000     // entries of one archive: files of one skill
	MaxRatio    = 1032      // unpacked bytes per archive byte, once past RatioFloor
	RatioFloor  = 1 << 20   // bytes an archive may unpack to before MaxRatio applies
)

// Limits bound what unpacking one archive may cost; a zero field means
// its default (Max*).
type Limits struct {
	File     int64 // any one entry
	Unpacked int64 // all entries together
	Entries  int
	Ratio    int64 // unpacked bytes per archive byte, above RatioFloor
}

// WithDefaults fills the zero (or negative) fields with the defaults.
func (l Limits) WithDefaults() Limits {
	l.File = cmp.Or(max(l.File, 0), MaxFile)
	l.Unpacked = cmp.Or(max(l.Unpacked, 0), MaxUnpacked)
	l.Entries = cmp.Or(max(l.Entries, 0), MaxEntries)
	l.Ratio = cmp.Or(max(l.Ratio, 0), MaxRatio)
	return l
}

// TarBound is the most a skill's .tar.gz unpacks to when its files have
// the given sizes: each file's header and padded data, room for a PAX
// header, and the end of the archive.
func TarBound(sizes []int64) int64 {
	n := int64(1024)
	for _, s := range sizes {
		n += 3*512 + (s+511)/512*512
	}
	return n
}

// BombError stops unpacking at a limit.
type BombError struct{ msg string }

func (e *BombError) Error() string { return e.msg }

// unpacking counts the bytes unpacked from one archive of packed bytes,
// every entry's through it, so that entries sharing compressed bytes add
// up, and stops at the first limit crossed.
type unpacking struct {
	l         Limits // with its defaults
	packed, n int64
}

// reader counts what is read from r and fails with a *BombError once a
// limit is crossed.
func (u *unpacking) reader(r io.Reader) io.Reader { return &unpackReader{r: r, u: u} }

type unpackReader struct {
	r io.Reader
	u *unpacking
}

func (ur *unpackReader) Read(p []byte) (int, error) {
	n, err := ur.r.Read(p)
	u := ur.u
	u.n += int64(n)
	switch {
	case u.n > u.l.Unpacked:
		return n, &BombError{fmt.Sprintf("decompression bomb: unpacks to more than %d bytes (the limit); stopped", u.l.Unpacked)}
	case u.n > RatioFloor && u.n > u.l.Ratio*u.packed:
		return n, &BombError{fmt.Sprintf("decompression bomb: %d bytes unpack to more than %d (over %d times, more than deflate can compress; entries share compressed bytes); stopped", u.packed, u.n, u.l.Ratio)}
	}
	return n, err
}
