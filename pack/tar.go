package pack

import (
	"io"
	"strconv"
	"strings"
)

// The tar is written here, each header built by hand, as the zip is
// (zip.go). archive/tar writes a USTAR header only for an ASCII name: it
// would put any other name in a PAX record, which the skills CLI's reader
// skips, so that it would see the entry under the truncated ASCII name the
// USTAR fields then hold, or none. The readers that matter (GNU tar,
// bsdtar, Python's tarfile, Go's archive/tar, the skills CLI) all read a
// name's bytes from the USTAR name and prefix fields as they are, which is
// how GNU tar and bsdtar write a UTF-8 name in the ustar format, so a
// name goes there as its UTF-8 bytes, and nowhere else.
//
// For an ASCII name the bytes are exactly those of archive/tar with
// tar.FormatUSTAR (FuzzCheckPath compares every header, TestGolden pins an
// archive): the fields archive/tar fills, in its number format.

const blockSize = 512

// USTAR header field offsets and sizes.
const (
	nameSize   = 100 // the name field, at 0
	prefixSize = 155 // the prefix field, at 345
)

// splitUSTAR returns the prefix and name fields of a USTAR header holding
// path, and whether it fits at all: a path of at most 100 bytes is all
// name; a longer one is split at the last '/' that leaves at most 155
// bytes before it, and the rest must be 1 to 100 bytes. This is
// archive/tar's split (splitUSTARPath), in bytes, for any name: '/' never
// occurs inside a UTF-8 sequence, so both fields hold whole characters.
func splitUSTAR(path string) (prefix, name string, ok bool) {
	if len(path) <= nameSize {
		return "", path, true
	}
	// The longest prefix that fits leaves the shortest name; if that name
	// is still too long, no split works.
	i := strings.LastIndexByte(path[:min(len(path), prefixSize+1)], '/')
	n := len(path) - i - 1
	if i <= 0 || n <= 0 || n > nameSize {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}

// ustarHeader fills blk with the USTAR header of a regular file. The name
// must fit (splitUSTAR) and the numbers their octal fields (CheckSize,
// tarMax), which Add checks first.
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

// octal writes v in b as zero-padded octal digits and a NUL, as
// archive/tar does. v is not negative and fits (Add checks), so this is
// fmt's "%0*o\x00" without fmt: six fields a file.
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

// tarWriter writes the USTAR stream into the tarSink: a header, the file's
// bytes (which Add writes to the sink itself), the zeros that pad them to
// a block, and two zero blocks at the end. Each piece is a Write of its own,
// in archive/tar's order (the padding goes out just before the next header
// or the end), so that the sink's deflate pieces fall where they always did.
type tarWriter struct {
	w   io.Writer
	pad int // the zeros owed after the last file's bytes
	blk [blockSize]byte
}

// header writes the header of a file of size bytes.
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
