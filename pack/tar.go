package pack

import (
	"io"
	"strconv"
	"strings"
)

// The tar headers are built by hand, as the zip's are (zip.go).
// archive/tar would put a non-ASCII name in a PAX record, which the skills
// CLI skips, seeing a truncated name or none. GNU tar, bsdtar, Python's
// tarfile, Go's archive/tar and the skills CLI all read a name's bytes
// from the USTAR fields, where GNU tar and bsdtar write a UTF-8 name, so
// a name goes there, as its UTF-8 bytes.
//
// For an ASCII name the bytes are those of archive/tar with
// tar.FormatUSTAR (FuzzCheckPath compares every header, TestGolden pins an
// archive).

const blockSize = 512

// USTAR header field offsets and sizes.
const (
	nameSize   = 100 // the name field, at 0
	prefixSize = 155 // the prefix field, at 345
)

// splitUSTAR returns the prefix and name fields of a USTAR header holding
// path, and whether it fits: archive/tar's split (splitUSTARPath), for any
// name ('/' never occurs inside a UTF-8 sequence).
func splitUSTAR(path string) (prefix, name string, ok bool) {
	if len(path) <= nameSize {
		return "", path, true
	}
	// The longest prefix that fits leaves the shortest name.
	i := strings.LastIndexByte(path[:min(len(path), prefixSize+1)], '/')
	n := len(path) - i - 1
	if i <= 0 || n <= 0 || n > nameSize {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}

// ustarHeader fills blk with the USTAR header of a regular file, whose
// name and numbers fit, as Add checks first.
func ustarHeader(blk *[blockSize]byte, path string, mode, size, mtime int64) {
	*blk = [blockSize]byte{}
	prefix, name, _ := splitUSTAR(path)
	copy(blk[0:nameSize], name)
	octal(blk[100:108], mode)
	octal(blk[108:116], 0) // uid
	octal(blk[116:124], 0) // gid
	octal(blk[124:136], size)
	octal(blk[136:148], mtime)
	blk[156] = '0' // a regular file
	copy(blk[257:263], "ustar\x00")
	copy(blk[263:265], "00")
	octal(blk[329:337], 0) // device major
	octal(blk[337:345], 0) // device minor
	copy(blk[345:345+prefixSize], prefix)
	// The checksum is the sum of the header's bytes with its own field
	// taken as spaces, written as six digits, a NUL and a space.
	sum := int64(8 * ' ')
	for i, c := range blk {
		if i < 148 || i >= 156 {
			sum += int64(c)
		}
	}
	octal(blk[148:155], sum)
	blk[155] = ' '
}

// octal writes v in b as zero-padded octal digits and a NUL: fmt's
// "%0*o\x00" without fmt, for six fields a file.
func octal(b []byte, v int64) {
	var d [24]byte
	digits := strconv.AppendInt(d[:0], v, 8)
	n := len(b) - 1
	for i := range n - len(digits) {
		b[i] = '0'
	}
	copy(b[max(n-len(digits), 0):n], digits)
	b[n] = 0
}

var zeroBlock [blockSize]byte

// tarWriter writes the USTAR stream into the tarSink around the files'
// bytes (which Add writes): headers, padding, and two zero blocks at the
// end, each a Write of its own, in archive/tar's order (the padding just
// before the next header), so that the deflate pieces fall where they did.
type tarWriter struct {
	w   io.Writer
	pad int // the zeros owed after the last file's bytes
	blk [blockSize]byte
}

func (t *tarWriter) header(path string, mode, size, mtime int64) error {
	if err := t.flush(); err != nil {
		return err
	}
	ustarHeader(&t.blk, path, mode, size, mtime)
	if _, err := t.w.Write(t.blk[:]); err != nil {
		return err
	}
	t.pad = int(-size & (blockSize - 1))
	return nil
}

func (t *tarWriter) flush() error {
	_, err := t.w.Write(zeroBlock[:t.pad])
	t.pad = 0
	return err
}

// close writes the last padding and the end-of-archive blocks.
func (t *tarWriter) close() error {
	if err := t.flush(); err != nil {
		return err
	}
	for range 2 {
		if _, err := t.w.Write(zeroBlock[:]); err != nil {
			return err
		}
	}
	return nil
}
