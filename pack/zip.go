package pack

import (
	"bufio"
	"encoding/binary"
	"io"
	"strings"
	"unicode/utf8"
)

// The zip's headers are set by hand around the pieces the tarSink shares
// with it. archive/zip's CreateRaw decides on ZIP64 after an entry's data,
// so a large entry's local header cannot say so, and a test cannot reach
// ZIP64 without writing 4 GiB; here the thresholds are variables, and an
// entry that may need ZIP64 says so from its local header on. Below them
// the bytes are archive/zip's (TestGolden pins them).

// Signatures and versions of the zip format (PKWARE's APPNOTE.TXT 6.3).
const (
	zipLocalSig      = 0x04034b50
	zipCentralSig    = 0x02014b50
	zipDescriptorSig = 0x08074b50
	zipEndSig        = 0x06054b50
	zip64EndSig      = 0x06064b50
	zip64LocatorSig  = 0x07064b50

	zip64ExtraID = 0x0001

	zipVersion20 = 20 // deflate and a data descriptor
	zipVersion45 = 45 // ZIP64
	zipUnix      = 3 << 8

	zipFlagDescriptor = 0x8   // CRC and sizes follow the data
	zipFlagUTF8       = 0x800 // the name is UTF-8 (general purpose bit 11)
	zipDeflate        = 8

	zip64EndLen = 56 // the ZIP64 end of central directory record

	sIFREG = 0o100000 // a regular file, in the Unix mode of the external attributes
)

// A size or offset at or above zip64Size, or an entry count at or above
// zip64Count, is written in ZIP64 fields (the short fields hold their
// largest value). Variables, so that tests reach ZIP64 with small files.
var (
	zip64Size  uint64 = 1<<32 - 1
	zip64Count        = 1<<16 - 1
)

// maxDeflated bounds what deflate makes of n bytes: stored blocks add 5
// bytes to each 65,535, less than n/8192, and 64 bytes cover a piece's
// sync marker, finalBlock and a partial last block.
func maxDeflated(n uint64) uint64 { return n + n/8192 + 64 }

// A zipEntry is what the central directory says of an entry.
type zipEntry struct {
	name   string
	exec   bool
	crc    uint32
	csize  uint64
	usize  uint64
	offset uint64 // of the local header
	start  uint64 // of the data
	zip64  bool   // sizes in ZIP64 fields: in the local header's extra field and the descriptor
}

// flags are the entry's general purpose flags: a data descriptor, and the
// UTF-8 flag for a name that is not ASCII (else read as code page 437).
// Unlike archive/zip, not for '~': an archive's bytes must not change.
func (e *zipEntry) flags() uint16 {
	if strings.ContainsFunc(e.name, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return zipFlagDescriptor | zipFlagUTF8
	}
	return zipFlagDescriptor
}

// zipWriter writes a zip one entry at a time: begin, the compressed data
// through Write, end, and close for the central directory.
type zipWriter struct {
	bw         *bufio.Writer
	n          uint64 // bytes written, the buffered ones too: the next offset
	date, time uint16 // MS-DOS, of every entry
	dir        []zipEntry
	buf        []byte
}

func newZipWriter(w io.Writer, date, time uint16) *zipWriter {
	return &zipWriter{bw: bufio.NewWriter(w), date: date, time: time}
}

// Write writes compressed data of the open entry.
func (z *zipWriter) Write(p []byte) (int, error) {
	n, err := z.bw.Write(p)
	z.n += uint64(n)
	return n, err
}

func (z *zipWriter) flush() error {
	_, err := z.Write(z.buf)
	z.buf = z.buf[:0]
	return err
}

func (z *zipWriter) u16(v uint16) { z.buf = binary.LittleEndian.AppendUint16(z.buf, v) }
func (z *zipWriter) u32(v uint32) { z.buf = binary.LittleEndian.AppendUint32(z.buf, v) }
func (z *zipWriter) u64(v uint64) { z.buf = binary.LittleEndian.AppendUint64(z.buf, v) }

// u32or writes v, or 0xffffffff when v goes in a ZIP64 field.
func (z *zipWriter) u32or(v uint64, zip64 bool) {
	if zip64 {
		z.u32(0xffffffff)
		return
	}
	z.u32(uint32(v))
}

// begin writes the local header of a file of size bytes; its CRC and
// sizes follow in the descriptor. An entry whose data may reach zip64Size
// has a ZIP64 extra field (sizes 0), so that a streaming reader knows the
// descriptor's sizes take 8 bytes.
func (z *zipWriter) begin(name string, exec bool, size int64) error {
	e := zipEntry{name: name, exec: exec, offset: z.n, zip64: maxDeflated(uint64(size)) >= zip64Size}
	version, extra := uint16(zipVersion20), 0
	if e.zip64 {
		version, extra = zipVersion45, 20
	}
	z.u32(zipLocalSig)
	z.u16(version)
	z.u16(e.flags())
	z.u16(zipDeflate)
	z.u16(z.time)
	z.u16(z.date)
	z.u32(0) // CRC-32, in the descriptor
	z.u32or(0, e.zip64)
	z.u32or(0, e.zip64)
	z.u16(uint16(len(name)))
	z.u16(uint16(extra))
	z.buf = append(z.buf, name...)
	if e.zip64 {
		z.u16(zip64ExtraID)
		z.u16(16)
		z.u64(0)
		z.u64(0)
	}
	err := z.flush()
	e.start = z.n
	z.dir = append(z.dir, e)
	return err
}

// end closes the open entry, of usize bytes and this CRC-32, with its
// data descriptor, which takes 8-byte sizes, as archive/zip's does, should
// the data outgrow maxDeflated after all (the central directory says so).
func (z *zipWriter) end(crc uint32, usize int64) error {
	e := &z.dir[len(z.dir)-1]
	e.crc, e.usize, e.csize = crc, uint64(usize), z.n-e.start
	e.zip64 = e.zip64 || e.csize >= zip64Size || e.usize >= zip64Size
	z.u32(zipDescriptorSig)
	z.u32(crc)
	if e.zip64 {
		z.u64(e.csize)
		z.u64(e.usize)
	} else {
		z.u32(uint32(e.csize))
		z.u32(uint32(e.usize))
	}
	return z.flush()
}

// close writes the central directory and its end records, then flushes.
func (z *zipWriter) close() error {
	start := z.n
	for _, e := range z.dir {
		farOffset := e.offset >= zip64Size
		version := uint16(zipVersion20)
		var extra []byte // the ZIP64 extra field's data: what does not fit above, in this order
		if e.zip64 {
			extra = binary.LittleEndian.AppendUint64(extra, e.usize)
			extra = binary.LittleEndian.AppendUint64(extra, e.csize)
		}
		if farOffset {
			extra = binary.LittleEndian.AppendUint64(extra, e.offset)
		}
		if extra != nil { // the field: its ID and length, then the data
			version = zipVersion45
			head := binary.LittleEndian.AppendUint16(nil, zip64ExtraID)
			extra = append(binary.LittleEndian.AppendUint16(head, uint16(len(extra))), extra...)
		}
		mode := sIFREG | uint32(Perm(e.exec))
		z.u32(zipCentralSig)
		z.u16(zipUnix | version)
		z.u16(version)
		z.u16(e.flags())
		z.u16(zipDeflate)
		z.u16(z.time)
		z.u16(z.date)
		z.u32(e.crc)
		z.u32or(e.csize, e.zip64)
		z.u32or(e.usize, e.zip64)
		z.u16(uint16(len(e.name)))
		z.u16(uint16(len(extra)))
		z.u16(0) // comment length
		z.u16(0) // disk number
		z.u16(0) // internal attributes
		z.u32(mode << 16)
		z.u32or(e.offset, farOffset)
		z.buf = append(z.buf, e.name...)
		z.buf = append(z.buf, extra...)
		if err := z.flush(); err != nil {
			return err
		}
	}
	end := z.n
	count, size := uint64(len(z.dir)), end-start
	manyEntries := count >= uint64(zip64Count)
	bigDir, farDir := size >= zip64Size, start >= zip64Size
	if manyEntries || bigDir || farDir {
		z.u32(zip64EndSig)
		z.u64(zip64EndLen - 12) // the record after this field
		z.u16(zipUnix | zipVersion45)
		z.u16(zipVersion45)
		z.u32(0) // this disk
		z.u32(0) // the disk of the central directory
		z.u64(count)
		z.u64(count)
		z.u64(size)
		z.u64(start)
		z.u32(zip64LocatorSig)
		z.u32(0) // the disk of the ZIP64 end record
		z.u64(end)
		z.u32(1) // disks
	}
	z.u32(zipEndSig)
	z.u16(0) // this disk
	z.u16(0) // the disk of the central directory
	for range 2 {
		if manyEntries {
			z.u16(0xffff)
		} else {
			z.u16(uint16(count))
		}
	}
	z.u32or(size, bigDir)
	z.u32or(start, farDir)
	z.u16(0) // comment length
	if err := z.flush(); err != nil {
		return err
	}
	return z.bw.Flush()
}
