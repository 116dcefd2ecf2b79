// Package pack owns one skill's archives: a .tar.gz and a .zip whose bytes
// are a pure function of the file paths, the file bytes, the exec bits and
// the compressor version, so that a content-addressed archive name never
// changes meaning; the compressor-independent content digest (Manifest,
// ContentDigest); and Unpack, the one archive reader, under the one set of
// limits (Limits) that verify and pull hold an untrusted archive to.
//
// It takes nothing from the host: paths come sorted, headers are built
// from scratch (no owners, ids, umask or file times), and the time, the
// compressor and its level are fixed here. It does not name or place an
// archive (layout does).
package pack

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/flate"

	"github.com/skillpack/skillpack/internal/human"
)

// Compressor is the module that compresses both archives. Its output is part
// of the archive bytes, so it is pinned in go.mod and named in Generator.
const Compressor = "github.com/klauspost/compress"

// compressorVersion is the version pinned in go.mod, for a binary that
// carries no build information.
const compressorVersion = "v1.20.3"

// Level is the one deflate level of both archives: the strongest of
// klauspost's fast encoders (7-9 use the slower lazy matcher). On eight
// Markdown files of 12-40 KB, each compressed alone, as zip entries are,
// level 6 gave 33.6% of the input at 58-83 MB/s, level 9 32.7% at 26 MB/s
// (v1.20.3). Skills are packed on every build, so the time matters more.
const Level = 6

// format numbers the way the archives are put together from the
// compressor's output: 2 compresses each file once for both (tarSink).
const format = 2

// Generator names the compressor, its version and level, and the format:
// the archive bytes change when it does, so the build reuses archives only
// of the same Generator.
func Generator() string {
	return fmt.Sprintf("klauspost/compress %s flate level %d, shared deflate/%d", version(), Level, format)
}

var version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return compressorVersion
	}
	for _, m := range info.Deps {
		if m.Path == Compressor && m.Replace != nil && m.Replace.Version != "" {
			return m.Replace.Version
		}
		if m.Path == Compressor && m.Version != "" {
			return m.Version
		}
	}
	return compressorVersion
})

// Options configure a Writer. The zero value gives the defaults.
type Options struct {
	// Time is the one modification time of every entry (SOURCE_DATE_EPOCH
	// when set); zero means 1980-01-01T00:00:00Z. It is truncated to whole
	// seconds and clamped to what each format holds: 1970 to 2242 for tar,
	// 1980 to 2107 in steps of two seconds for zip (DOS time).
	Time time.Time
	// Prefix is put before every path: "" is the flat layout every skill
	// reader wants; "name/" is the wrapped layout of the upload APIs.
	Prefix string
}

// Errors that Add and CheckPath wrap in a *PathError; test with errors.Is.
var (
	// ErrTooLong is a path that does not fit a USTAR tar header.
	ErrTooLong = errors.New("path too long for a tar (USTAR) header")
	// ErrBadPath is a path no archive should hold (see CheckPath).
	ErrBadPath = errors.New("invalid path")
	// ErrOrder is a path added out of sorted order, or twice.
	ErrOrder = errors.New("path out of order")
	// ErrChanged is a file whose length is not the size given to Add.
	ErrChanged = errors.New("file changed during the build")
	// ErrTooLarge is a file too large for a USTAR tar header (CheckSize).
	ErrTooLarge = errors.New("file too large for a tar (USTAR) header")
)

// A PathError is an error about one file of the skill.
type PathError struct {
	Path string // as given to Add, without Options.Prefix
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

func pathErr(path string, sentinel error, format string, args ...any) error {
	return &PathError{Path: path, Err: fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)}
}

// FitsUSTAR reports whether path fits a USTAR header, the only tar format
// the skills CLI reads: 100 bytes of name, and before them up to 155 bytes
// of prefix, split at a '/'. Bytes, not characters: a Chinese one takes three.
func FitsUSTAR(path string) bool {
	_, _, ok := splitUSTAR(path)
	return ok
}

// CheckPath reports whether path can be an entry of an archive, returning a
// *PathError wrapping ErrBadPath or ErrTooLong that says how to fix it. Add
// and lint both apply it, so that a name lint passes is one the build packs.
// A name may be in any script, as its UTF-8 bytes (not normalized); refused
// are what no reader can hold or take apart (an empty, absolute or ".."
// path, a drive letter, a backslash, bytes that are not UTF-8, a path too
// long for USTAR) and the characters RuneProblem names. Whatever it
// accepts, layout.CheckPath accepts too.
func CheckPath(path string) error {
	switch {
	case path == "":
		return pathErr(path, ErrBadPath, "empty path")
	case strings.HasPrefix(path, "/"):
		return pathErr(path, ErrBadPath, "absolute path; give it relative to the skill folder")
	case strings.Contains(path, `\`):
		return pathErr(path, ErrBadPath, `contains '\'; use '/' as the separator and no '\' in names`)
	case len(path) > 1 && path[1] == ':' && ('a' <= path[0]|0x20 && path[0]|0x20 <= 'z'):
		return pathErr(path, ErrBadPath, "starts with a drive letter (%q), which an unpacker on Windows takes as another drive, and the skills CLI refuses the whole archive for", path[:2])
	}
	for i := 0; i < len(path); {
		r, n := utf8.DecodeRuneInString(path[i:])
		notUTF8 := r == utf8.RuneError && n == 1
		why := RuneProblem(r)
		if notUTF8 {
			why = "not UTF-8 (a name in a legacy encoding such as Latin-1 or Shift JIS)"
		}
		if why != "" {
			// Formatted only here: lint and Add check every path.
			what := fmt.Sprintf("%U", r)
			if notUTF8 {
				what = fmt.Sprintf("the byte %#02x", path[i])
			}
			start := strings.LastIndexByte(path[:i], '/') + 1
			name, _, _ := strings.Cut(path[start:], "/")
			return pathErr(path, ErrBadPath, "the name %q has %s at character %d: %s",
				name, what, utf8.RuneCountInString(path[start:i])+1, why)
		}
		i += n
	}
	for _, c := range strings.Split(path, "/") {
		switch c {
		case "":
			return pathErr(path, ErrBadPath, "empty path component (a leading, trailing or double '/'); remove it")
		case ".", "..":
			return pathErr(path, ErrBadPath, "%q component; give the path without it", c)
		}
	}
	if !FitsUSTAR(path) {
		return pathErr(path, ErrTooLong, "%d bytes, but a USTAR header, the only tar format the skills CLI reads, holds at most %d bytes, or a directory of at most %d bytes and a name of at most %d split at a '/'; shorten the path",
			len(path), nameSize, prefixSize, nameSize)
	}
	return nil
}

// RuneProblem says why a file name cannot hold r, or returns "": control
// characters (a newline would break the manifest, a NUL the tar header, an
// escape the terminal), line and paragraph separators, and bidirectional
// controls, which show a name in another order ("notes\u202Edm.exe" shows
// as "notesexe.md").
func RuneProblem(r rune) string {
	switch {
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return "a control character"
	case r == '\u2028' || r == '\u2029':
		return "a line break"
	case r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069':
		return "a bidirectional control, which shows the name in another order than it is"
	}
	return ""
}

// MaxSize is the largest file a USTAR header holds (11 octal digits), the
// one limit on a file's size: the zip takes ZIP64 where it must.
const MaxSize = 1<<33 - 1

// CheckSize reports whether a file of size bytes at path can be an entry of
// an archive, returning a *PathError wrapping ErrTooLarge (or ErrBadPath
// for a negative size). Add and lint both apply it.
func CheckSize(path string, size int64) error {
	switch {
	case size < 0:
		return pathErr(path, ErrBadPath, "negative size %d", size)
	case size > MaxSize:
		return pathErr(path, ErrTooLarge, "%d bytes (%s), but its size field holds at most %d (8 GiB less a byte), and the skills CLI reads no other tar format",
			size, human.Bytes(size), int64(MaxSize))
	}
	return nil
}

// Time bounds of the two formats.
var (
	tarMin = time.Unix(0, 0).UTC()
	tarMax = time.Unix(1<<33-1, 0).UTC() // 11 octal digits
	zipMin = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	zipMax = time.Date(2107, 12, 31, 23, 59, 58, 0, time.UTC)
)

// A Writer writes the .tar.gz and the .zip of one skill at once. Add the
// files in sorted order, then Close. A Writer is not safe for concurrent use.
type Writer struct {
	prefix  string
	tarTime int64 // Unix seconds

	ts tarSink
	tw tarWriter
	zw *zipWriter

	last   string
	files  map[string]bool // paths added, so no file is also used as a directory
	pooled *pooled         // the compressor and Add's buffer, back to flatePool on Close

	err    error // sticky: after a failed write the archives are broken
	closed bool
}

// NewWriter returns a Writer that writes a .tar.gz to tgz and a .zip to z
// (nil: discarded). The first Add or Close reports an invalid Prefix.
func NewWriter(tgz, z io.Writer, opts Options) *Writer {
	tgz, z = cmp.Or(tgz, io.Discard), cmp.Or(z, io.Discard)
	w := &Writer{prefix: opts.Prefix, files: make(map[string]bool)}
	if w.prefix != "" {
		if !strings.HasSuffix(w.prefix, "/") {
			w.err = fmt.Errorf("pack: prefix %q must end in '/'", w.prefix)
		} else if err := CheckPath(strings.TrimSuffix(w.prefix, "/")); err != nil {
			w.err = fmt.Errorf("pack: prefix: %w", err)
		}
	}

	t := opts.Time
	if t.IsZero() {
		t = zipMin
	}
	sec := t.Unix() // no sub-second parts or time zones in the headers
	w.tarTime = min(max(sec, tarMin.Unix()), tarMax.Unix())
	dosDate, dosTime := dosTime(time.Unix(min(max(sec, zipMin.Unix()), zipMax.Unix()), 0).UTC())

	w.pooled, _ = flatePool.Get().(*pooled)
	if w.pooled == nil {
		fw, _ := flate.NewWriter(nil, Level) // Level is valid, so no error
		w.pooled = &pooled{fw: fw, buf: make([]byte, 32<<10)}
	}
	w.ts = tarSink{out: tgz, fw: w.pooled.fw}
	w.tw = tarWriter{w: &w.ts}

	w.zw = newZipWriter(z, dosDate, dosTime)
	return w
}

// dosTime encodes t (UTC, within zipMin..zipMax) as MS-DOS date and time,
// the zip's only time (no extended-timestamp field to keep fixed).
func dosTime(t time.Time) (date, tm uint16) {
	date = uint16(t.Day() | int(t.Month())<<5 | (t.Year()-1980)<<9)
	tm = uint16(t.Second()/2 | t.Minute()<<5 | t.Hour()<<11)
	return date, tm
}

// A compressor holds about a megabyte of tables, whose allocation
// dominated packing many small skills, so compressors are pooled, with
// Add's copy buffer: a Reset one writes the same bytes as a new one
// (TestFreshCompressor).
var flatePool sync.Pool // *pooled

type pooled struct {
	fw  *flate.Writer // at Level
	buf []byte        // Add's copy buffer
}

// The .tar.gz is one gzip member, written by hand around the pieces (see
// tarSink): deflate, no flags, MTIME 0, XFL 0 (as for levels other than 1
// and 9), and OS 255 ("unknown"): the host's OS must not show.
var gzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// finalBlock ends a deflate stream after a sync flush: an empty final block
// with the fixed codes, the two bytes flate.Writer.Close writes there.
var finalBlock = [2]byte{0x03, 0x00}

// A tarSink deflates the tar stream into the .tar.gz, so that each file is
// compressed once and the same bytes serve as its zip entry too.
//
// It is the technique of pigz: the deflate stream is a run of pieces, each
// written by a Reset compressor and ended by a sync flush, so that it
// refers to no byte before it and ends on a byte boundary, and pieces
// concatenate into one stream, which finalBlock closes. A file's data is a
// piece of its own, whose bytes also go to the zip, where finalBlock after
// them makes a whole stream; what tarWriter writes around it makes the
// pieces between. The price, against compressing every file twice: a piece
// cannot refer to the files before it, so the .tar.gz is 13% larger than
// one stream over the whole tar (300 skills from bench/gen).
type tarSink struct {
	out     io.Writer     // the .tar.gz
	fw      *flate.Writer // compressing the open piece
	started bool          // gzipHeader is written
	open    bool          // a piece is open in fw
	crc     uint32        // of the tar stream, for the gzip trailer
	size    uint32        // of the tar stream, modulo 2^32, ditto
}

// Write deflates bytes of the tar stream into the open piece, or a new one.
func (s *tarSink) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !s.open {
		if err := s.begin(nil); err != nil {
			return 0, err
		}
	}
	s.crc = crc32.Update(s.crc, crc32.IEEETable, p)
	s.size += uint32(len(p))
	return s.fw.Write(p)
}

// begin ends the open piece and opens a new one, whose compressed bytes go
// to the .tar.gz and to also, if not nil.
func (s *tarSink) begin(also io.Writer) error {
	if err := s.end(); err != nil {
		return err
	}
	if !s.started {
		s.started = true
		if _, err := s.out.Write(gzipHeader[:]); err != nil {
			return err
		}
	}
	dst := s.out
	if also != nil {
		dst = io.MultiWriter(s.out, also)
	}
	s.fw.Reset(dst)
	s.open = true
	return nil
}

func (s *tarSink) end() error {
	if !s.open {
		return nil
	}
	s.open = false
	return s.fw.Flush()
}

// close ends the deflate stream and the gzip member, after tarWriter's
// close, whose blocks went through Write (so gzipHeader is out).
func (s *tarSink) close() error {
	if err := s.end(); err != nil {
		return err
	}
	b := binary.LittleEndian.AppendUint32(finalBlock[:], s.crc) // a copy: finalBlock[:] is full
	_, err := s.out.Write(binary.LittleEndian.AppendUint32(b, s.size))
	return err
}

var errClosed = errors.New("pack: writer is closed")

// Perm is the mode of a file in an archive, and of its copies a bundle
// serves or a pull writes: 0755 if the source had any execute bit, else
// 0644. A plugin installed from a git checkout of the bundle runs its
// scripts only if the served copy keeps the bit.
func Perm(exec bool) fs.FileMode {
	if exec {
		return 0o755
	}
	return 0o644
}

// Add adds one file to both archives: path (relative, '/'-separated), mode
// 0755 if exec else 0644, and exactly size bytes read once from r, and
// returns their SHA-256. Paths must come in bytewise sorted order, each once.
//
// An error found before anything is written (a bad path, order or size)
// leaves the Writer usable; any later one breaks the archives, and every
// later call returns it.
func (w *Writer) Add(path string, exec bool, size int64, r io.Reader) (sum [32]byte, err error) {
	if w.err != nil {
		return sum, w.err
	}
	if w.closed {
		return sum, errClosed
	}
	if err := w.check(path, size); err != nil {
		return sum, err
	}
	name := w.prefix + path
	defer func() {
		if err != nil {
			w.err = err
		}
	}()

	// USTAR only: the skills CLI reads no PAX or GNU headers (tar.go).
	if err := w.tw.header(name, int64(Perm(exec)), size, w.tarTime); err != nil {
		return sum, &PathError{Path: path, Err: fmt.Errorf("writing tar header: %w", err)}
	}
	// The entry's data is the file's piece of the tar.gz, streamed; its
	// CRC and sizes go in the data descriptor after it (zipWriter.end).
	if err := w.zw.begin(name, exec, size); err != nil {
		return sum, &PathError{Path: path, Err: fmt.Errorf("writing zip header: %w", err)}
	}
	// An empty file has no piece: its zip entry is finalBlock alone.
	if size > 0 {
		if err := w.ts.begin(w.zw); err != nil {
			return sum, &PathError{Path: path, Err: fmt.Errorf("writing archive: %w", err)}
		}
	}

	h := sha256.New()
	crc := crc32.NewIEEE()
	src := &errReader{r: io.LimitReader(r, size)}
	n, err := io.CopyBuffer(io.MultiWriter(&w.ts, crc, h), src, w.pooled.buf)
	if err != nil {
		if src.err != nil {
			return sum, &PathError{Path: path, Err: fmt.Errorf("reading: %w", err)}
		}
		return sum, &PathError{Path: path, Err: fmt.Errorf("writing archive: %w", err)}
	}
	if n < size {
		return sum, pathErr(path, ErrChanged, "read %d bytes, expected %d; build again", n, size)
	}
	var one [1]byte
	if k, err := io.ReadFull(r, one[:]); k > 0 {
		return sum, pathErr(path, ErrChanged, "more than the expected %d bytes; build again", size)
	} else if err != io.EOF {
		return sum, &PathError{Path: path, Err: fmt.Errorf("reading: %w", err)}
	}

	if err := w.ts.end(); err != nil {
		return sum, &PathError{Path: path, Err: fmt.Errorf("writing archive: %w", err)}
	}
	if _, err := w.zw.Write(finalBlock[:]); err != nil {
		return sum, &PathError{Path: path, Err: fmt.Errorf("writing zip: %w", err)}
	}
	if err := w.zw.end(crc.Sum32(), size); err != nil {
		return sum, &PathError{Path: path, Err: fmt.Errorf("writing zip: %w", err)}
	}

	w.last = path
	w.files[path] = true
	h.Sum(sum[:0])
	return sum, nil
}

// check validates a path and size before anything is written.
func (w *Writer) check(path string, size int64) error {
	if err := CheckPath(path); err != nil {
		return err
	}
	if w.prefix != "" && !FitsUSTAR(w.prefix+path) {
		return pathErr(path, ErrTooLong, "%d bytes with the prefix %q, more than a USTAR header holds (100 bytes, or a 155-byte directory and a 100-byte name); shorten the path or the prefix",
			len(w.prefix+path), w.prefix)
	}
	switch {
	case path == w.last:
		return pathErr(path, ErrOrder, "added twice; add each file once")
	case path < w.last:
		return pathErr(path, ErrOrder, "added after %q; add paths in bytewise sorted order (sort.Strings)", w.last)
	}
	// A file added earlier may be a directory of this path, which tar
	// tools fail to extract.
	for d := range parents(path) {
		if w.files[d] {
			return pathErr(path, ErrBadPath, "%q is a file already added, so it cannot be a directory too", d)
		}
	}
	return CheckSize(path, size)
}

// parents yields the directories above path: "a/b/c" gives "a/b", "a".
func parents(path string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for i := strings.LastIndexByte(path, '/'); i > 0; i = strings.LastIndexByte(path, '/') {
			path = path[:i]
			if !yield(path) {
				return
			}
		}
	}
}

// errReader remembers a read error, to tell it from a write error.
type errReader struct {
	r   io.Reader
	err error
}

func (r *errReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// Close finishes both archives. It does not close the underlying writers.
func (w *Writer) Close() error {
	if w.closed {
		return errClosed
	}
	w.closed = true
	defer flatePool.Put(w.pooled)
	if w.err != nil {
		return w.err
	}
	if err := w.tw.close(); err != nil {
		return fmt.Errorf("pack: writing tar: %w", err)
	}
	if err := w.ts.close(); err != nil {
		return fmt.Errorf("pack: writing gzip: %w", err)
	}
	if err := w.zw.close(); err != nil {
		return fmt.Errorf("pack: writing zip: %w", err)
	}
	return nil
}

// A Member is one file of a skill's archive, as the content digest sees it.
type Member struct {
	Path string // relative, '/'-separated, as given to Add
	Exec bool
	Size int64
	Sum  [32]byte // SHA-256 of the file bytes
}

// Manifest returns the manifest that ContentDigest hashes: one line per
// entry, sorted bytewise by path (which passed CheckPath),
//
//	<mode 0644 or 0755> <size> sha256:<hex> <path>\n
//
// It covers what the archives promise (paths, bytes, exec bits) and
// nothing of the compression.
func Manifest(entries []Member) []byte {
	byPath := func(a, b Member) int { return strings.Compare(a.Path, b.Path) }
	es := entries
	if !slices.IsSortedFunc(es, byPath) { // as Add takes them, mostly
		es = slices.SortedFunc(slices.Values(entries), byPath)
	}
	// Appended by hand: fmt's %x was most of a no-op rebuild's keys' cost.
	n := 0
	for _, e := range es {
		n += 98 + len(e.Path) // the longest line but its path
	}
	b := make([]byte, 0, n)
	for _, e := range es {
		b = strconv.AppendUint(append(b, '0'), uint64(Perm(e.Exec)), 8) // 0644 or 0755
		b = strconv.AppendInt(append(b, ' '), e.Size, 10)
		b = hex.AppendEncode(append(b, " sha256:"...), e.Sum[:])
		b = append(append(append(b, ' '), e.Path...), '\n')
	}
	return b
}

// ContentDigest returns the SHA-256 of Manifest(entries): the digest of a
// skill's content, the same whatever compressor wrote its archives.
func ContentDigest(entries []Member) [32]byte {
	return sha256.Sum256(Manifest(entries))
}
