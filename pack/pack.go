// Package pack writes the archives of one skill: a .tar.gz and a .zip whose
// bytes are a pure function of the file paths, the file bytes, the exec bits
// and the compressor version, so that a content-addressed archive name never
// changes meaning. It also computes the compressor-independent content digest
// of a skill.
//
// Everything that could vary between machines is fixed here on purpose:
// entry order (the caller adds paths in sorted order), headers built from
// scratch (no owner names, ids, umask or file times from the host), one
// modification time, one compressor at one level. See
// design/bundle.md, "Archives".
package pack

import (
	"archive/tar"
	"archive/zip"
	"crypto/sha256"
	"errors"
	"fmt"
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
	"github.com/klauspost/compress/gzip"
)

// Compressor is the module that compresses both archives. Its output is part
// of the archive bytes, so it is pinned in go.mod and named in Generator.
const Compressor = "github.com/klauspost/compress"

// compressorVersion is the version pinned in go.mod, used when the binary
// carries no build information (for example when built without modules).
const compressorVersion = "v1.20.3"

// Level is the one deflate level used for both archives.
//
// Level 6 is the strongest of klauspost's fast encoders (levels 1-6); 7-9 use
// the slower lazy matcher. Measured with v1.20.3 on eight Markdown files of
// 12-40 KB (184 KB in all), each compressed on its own, as zip entries are:
//
//	level 6: 33.6% of the input, 58-83 MB/s
//	level 9: 32.7% of the input, 26 MB/s
//
// Level 9 saves 3% of the archive size for 2.5-3 times the time. Skills are
// small and packed on every build, so the time matters more.
const Level = 6

// Generator names the compressor, its version and level, for the build's
// metadata and `skillpack version`: the archive bytes change when it does.
func Generator() string {
	return fmt.Sprintf("klauspost/compress %s flate level %d", version(), Level)
}

var version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return compressorVersion
	}
	for _, m := range info.Deps {
		if m.Path != Compressor {
			continue
		}
		if m.Replace != nil && m.Replace.Version != "" {
			return m.Replace.Version
		}
		if m.Version != "" {
			return m.Version
		}
	}
	return compressorVersion
})

// Options configure a Writer. The zero value gives the defaults.
type Options struct {
	// Time is the one modification time of every entry; zero means
	// 1980-01-01T00:00:00Z. Callers pass SOURCE_DATE_EPOCH when it is set.
	// It is truncated to whole seconds and clamped to what each format can
	// hold: 1970-01-01 to 2242 for tar (USTAR has no negative times), and
	// 1980-01-01 to 2107 in steps of two seconds for zip (DOS time).
	Time time.Time

	// Prefix is put before every path: "" is the flat layout every skill
	// reader wants (SKILL.md at the root); "name/" is the wrapped layout of
	// the upload APIs. It must be empty or a valid path ending in '/'.
	Prefix string
}

// Errors that Add and CheckPath wrap in a *PathError; test with errors.Is.
var (
	// ErrTooLong is a path that does not fit a USTAR tar header.
	ErrTooLong = errors.New("path too long for a tar (USTAR) header")
	// ErrBadPath is a path no archive should hold: absolute, with "..",
	// empty components, backslashes, control or non-ASCII characters.
	ErrBadPath = errors.New("invalid path")
	// ErrOrder is a path added out of sorted order, or twice.
	ErrOrder = errors.New("path out of order")
	// ErrChanged is a file whose length differs from the size given to
	// Add: it changed while the build read it.
	ErrChanged = errors.New("file changed during the build")
	// ErrTooLarge is a file or archive too large for a zip without ZIP64.
	ErrTooLarge = errors.New("too large for a zip without ZIP64")
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

// USTAR header field sizes.
const (
	nameSize   = 100
	prefixSize = 155
)

// FitsUSTAR reports whether path fits a USTAR header: the name field holds
// 100 bytes, and a longer path may put up to 155 bytes before one of its '/'
// in the prefix field. USTAR is the only tar format the skills CLI reads (no
// PAX or GNU long names), so lint warns with the same check that Add applies.
func FitsUSTAR(path string) bool {
	if len(path) <= nameSize {
		return true
	}
	// The longest prefix that fits leaves the shortest name; if that name
	// is still too long, no split works.
	i := strings.LastIndexByte(path[:min(len(path), prefixSize+1)], '/')
	n := len(path) - i - 1
	return i > 0 && n > 0 && n <= nameSize
}

// CheckPath reports whether path can be an entry of an archive, returning a
// *PathError wrapping ErrBadPath or ErrTooLong that says how to fix it. Add
// applies it to every path (with Options.Prefix in front).
func CheckPath(path string) error {
	switch {
	case path == "":
		return pathErr(path, ErrBadPath, "empty path")
	case strings.HasPrefix(path, "/"):
		return pathErr(path, ErrBadPath, "absolute path; give it relative to the skill folder")
	case strings.Contains(path, `\`):
		return pathErr(path, ErrBadPath, `contains '\'; use '/' as the separator and no '\' in names`)
	}
	for i := 0; i < len(path); i++ {
		c := path[i]
		// A newline would break the one-line-per-file manifest, a NUL the
		// tar header, and the others the indexes and terminals they reach.
		if c < 0x20 || c == 0x7f {
			return pathErr(path, ErrBadPath, "contains the control character %#02x; rename the file", c)
		}
		// archive/tar writes only ASCII names in USTAR headers, and the
		// legacy discovery index accepts only printable ASCII.
		if c >= 0x80 {
			if !utf8.ValidString(path) {
				return pathErr(path, ErrBadPath, "not valid UTF-8; rename the file")
			}
			return pathErr(path, ErrBadPath, "contains non-ASCII characters, which a USTAR tar header cannot hold; rename the file with ASCII characters")
		}
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

// Zip limits without ZIP64. maxZip is a variable so that tests can reach it
// without writing 4 GiB.
var maxZip int64 = 1<<32 - 1

const maxEntries = 1<<16 - 2

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
	tarTime time.Time
	dosDate uint16
	dosTime uint16

	gz *gzip.Writer
	tw *tar.Writer
	zc countWriter
	zw *zip.Writer
	zf *flate.Writer // reused for every zip entry

	last  string
	files map[string]bool // paths added, so no file is also used as a directory
	buf   []byte

	err    error // sticky: after a failed write the archives are broken
	closed bool
}

// NewWriter returns a Writer that writes a .tar.gz to tgz and a .zip to z.
// A nil writer discards that archive. An invalid Options.Prefix is reported
// by the first Add or Close.
func NewWriter(tgz, z io.Writer, opts Options) *Writer {
	if tgz == nil {
		tgz = io.Discard
	}
	if z == nil {
		z = io.Discard
	}
	w := &Writer{
		prefix: opts.Prefix,
		files:  make(map[string]bool),
		buf:    make([]byte, 32<<10),
	}
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
	// Sub-second parts and time zones would otherwise reach the headers.
	t = t.UTC().Truncate(time.Second)
	w.tarTime = clamp(t, tarMin, tarMax)
	w.dosDate, w.dosTime = dosTime(clamp(t, zipMin, zipMax))

	if gz, ok := gzipPool.Get().(*gzip.Writer); ok {
		gz.Reset(tgz)
		w.gz = gz
	} else {
		w.gz, _ = gzip.NewWriterLevel(tgz, Level) // Level is valid, so no error
	}
	// klauspost's gzip writes the low 32 bits of ModTime.Unix(), which for
	// the zero time.Time is garbage, not 0: set the epoch explicitly. No
	// name, no comment; the OS byte is fixed at 255 ("unknown"), as the
	// host's OS must not show in the bytes.
	w.gz.Header = gzip.Header{ModTime: time.Unix(0, 0), OS: 255}
	w.tw = tar.NewWriter(w.gz)

	w.zc.w = z
	w.zw = zip.NewWriter(&w.zc)
	w.zw.RegisterCompressor(zip.Deflate, w.deflate)
	return w
}

// deflate is the zip's compressor: the pinned module and level rather than
// archive/zip's own compress/flate, whose output follows the Go version.
// archive/zip closes each entry's compressor before it starts the next, so
// one serves them all.
func (w *Writer) deflate(out io.Writer) (io.WriteCloser, error) {
	if w.zf == nil {
		w.zf, _ = flatePool.Get().(*flate.Writer)
	}
	if w.zf == nil {
		f, err := flate.NewWriter(out, Level)
		w.zf = f
		return f, err
	}
	w.zf.Reset(out)
	return w.zf, nil
}

func clamp(t, lo, hi time.Time) time.Time {
	if t.Before(lo) {
		return lo
	}
	if t.After(hi) {
		return hi
	}
	return t
}

// dosTime encodes t (UTC, within zipMin..zipMax) as MS-DOS date and time.
// Setting these by hand and leaving FileHeader.Modified zero keeps
// archive/zip from adding an extended-timestamp extra field.
func dosTime(t time.Time) (date, tm uint16) {
	date = uint16(t.Day() | int(t.Month())<<5 | (t.Year()-1980)<<9)
	tm = uint16(t.Second()/2 | t.Minute()<<5 | t.Hour()<<11)
	return date, tm
}

// A compressor holds about a megabyte of tables and a build packs many
// skills, each with a few small files, so allocating them dominated the
// time. They are pooled: a Reset compressor writes the same bytes as a new
// one (TestFreshCompressor checks it), so reuse cannot change an archive.
var (
	gzipPool  sync.Pool // *gzip.Writer at Level
	flatePool sync.Pool // *flate.Writer at Level
)

// release returns the compressors to their pools.
func (w *Writer) release() {
	gzipPool.Put(w.gz)
	w.gz = nil
	if w.zf != nil {
		flatePool.Put(w.zf)
		w.zf = nil
	}
}

// countWriter counts the bytes of the zip, to refuse one that needs ZIP64.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

var errClosed = errors.New("pack: writer is closed")

// Add adds one file to both archives: path (relative, '/'-separated), mode
// 0755 if exec else 0644, and exactly size bytes read from r. It reads r
// once, feeding the tar, the zip and the file's SHA-256, and returns that
// digest. Paths must come in bytewise sorted order, each once.
//
// An error found before anything is written (a bad path, order or size)
// leaves the Writer usable. Any later error (I/O, or r not giving exactly
// size bytes) leaves the archives broken, and every later call returns it.
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

	// Headers are built from scratch: no owner, group, ids or host times.
	mode := int64(0o644)
	if exec {
		mode = 0o755
	}
	err = w.tw.WriteHeader(&tar.Header{
		Typeflag: tar.TypeReg,
		Name:     name,
		Mode:     mode,
		Size:     size,
		ModTime:  w.tarTime,
		// USTAR only: the skills CLI reads no PAX or GNU headers, and a
		// fixed format keeps archive/tar from choosing one per entry.
		Format: tar.FormatUSTAR,
	})
	if err != nil {
		return sum, &PathError{Path: path, Err: fmt.Errorf("writing tar header: %w", err)}
	}
	fh := &zip.FileHeader{
		Name:         name,
		Method:       zip.Deflate,
		ModifiedDate: w.dosDate,
		ModifiedTime: w.dosTime,
	}
	fh.SetMode(fs.FileMode(mode))
	zf, err := w.zw.CreateHeader(fh)
	if err != nil {
		return sum, &PathError{Path: path, Err: fmt.Errorf("writing zip header: %w", err)}
	}

	h := sha256.New()
	src := &errReader{r: io.LimitReader(r, size)}
	n, err := io.CopyBuffer(io.MultiWriter(w.tw, zf, h), src, w.buf)
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

	// Flush so the count is exact, and a zip past the limit fails here
	// rather than only in Close. The count misses this file's last
	// compressed bytes, which leave the compressor when the next entry
	// starts or at Close, so it is checked again there.
	if err := w.zw.Flush(); err != nil {
		return sum, &PathError{Path: path, Err: fmt.Errorf("writing zip: %w", err)}
	}
	if w.zc.n >= maxZip {
		return sum, pathErr(path, ErrTooLarge, "the zip reaches %d bytes; it must stay under 4 GiB", w.zc.n)
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
	// A directory sorts before the files in it, so only a file added
	// earlier can clash with a directory of this path. Tar tools fail
	// to extract such a pair.
	for d := range parents(path) {
		if w.files[d] {
			return pathErr(path, ErrBadPath, "%q is a file already added, so it cannot be a directory too", d)
		}
	}
	switch {
	case size < 0:
		return pathErr(path, ErrBadPath, "negative size %d", size)
	case size >= 1<<32-1:
		return pathErr(path, ErrTooLarge, "%d bytes; a file must be under 4 GiB", size)
	case len(w.files) >= maxEntries:
		return pathErr(path, ErrTooLarge, "more than %d files", maxEntries)
	}
	return nil
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
	defer w.release()
	if w.err != nil {
		return w.err
	}
	if err := w.tw.Close(); err != nil {
		return fmt.Errorf("pack: writing tar: %w", err)
	}
	if err := w.gz.Close(); err != nil {
		return fmt.Errorf("pack: writing gzip: %w", err)
	}
	if err := w.zw.Close(); err != nil {
		return fmt.Errorf("pack: writing zip: %w", err)
	}
	// Every offset and size in the zip is below its total length, so a
	// total under 4 GiB means archive/zip wrote no ZIP64 record.
	if w.zc.n >= maxZip {
		return fmt.Errorf("pack: %w: the zip is %d bytes; it must stay under 4 GiB", ErrTooLarge, w.zc.n)
	}
	return nil
}

// An Entry is one file of a skill, as the content digest sees it.
type Entry struct {
	Path string // relative, '/'-separated, as given to Add
	Exec bool
	Size int64
	Sum  [32]byte // SHA-256 of the file bytes
}

// Manifest returns the manifest that ContentDigest hashes: one line per
// entry, sorted bytewise by path,
//
//	<mode 0644 or 0755> <size> sha256:<hex> <path>\n
//
// It covers exactly what the archives promise (paths, bytes, exec bits) and
// nothing of the compression, so a reader can check a skill's content
// without trusting deflate. Paths are expected to have passed CheckPath; a
// newline in one would make the manifest ambiguous.
func Manifest(entries []Entry) []byte {
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	var b []byte
	for _, e := range es {
		mode := "0644"
		if e.Exec {
			mode = "0755"
		}
		b = append(b, mode...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, e.Size, 10)
		b = append(b, " sha256:"...)
		b = fmt.Appendf(b, "%x", e.Sum)
		b = append(b, ' ')
		b = append(b, e.Path...)
		b = append(b, '\n')
	}
	return b
}

// ContentDigest returns the SHA-256 of Manifest(entries): the digest of a
// skill's content, the same whatever compressor wrote its archives.
func ContentDigest(entries []Entry) [32]byte {
	return sha256.Sum256(Manifest(entries))
}
