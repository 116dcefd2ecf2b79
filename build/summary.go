package build

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/skillpack/skillpack/layout"
)

// summary is what the build keeps of a skill once its worker is done with
// it: what the documents, the catalog and the build record say about it.
// Summaries go to a file as workers finish, and each is read back when a
// document reaches its skill, so that a build holds a few strings per
// skill however large the tree (about 1 KB a skill would be 10 MB at
// 10,000 skills, and twice that before the collector catches up).
type summary struct {
	out     layout.Skill
	license string // frontmatter values the catalog shows
	compat  string
	key     layout.Digest // the reuse key
	lint    layout.Digest // lint's verdict key (lint.VerdictKey)
	verdict []byte        // the per-skill findings under it (lint.EncodeVerdict)
	leftOut []string      // junk and .skillignore'd paths
}

// summaries is the file of every skill's summary. Workers add to it at
// once; reads come after seal and may run at once too.
type summaries struct{ s *scratch }

func newSummaries() (*summaries, error) {
	s, err := newScratch()
	return &summaries{s}, err
}

// add writes a summary and returns where it is.
func (s *summaries) add(sum *summary) (spot, error) { return s.s.add(sum.encode()) }

func (s *summaries) seal() error { return s.s.seal() }

// read returns the summary at a spot.
func (s *summaries) read(at spot) (*summary, error) {
	data, err := s.s.read(at)
	if err != nil {
		return nil, err
	}
	sum, err := decodeSummary(data)
	if err != nil {
		return nil, fmt.Errorf("reading the scratch file: %w", err)
	}
	return sum, nil
}

func (s *summaries) close() {
	if s != nil {
		s.s.close()
	}
}

// scratch is a temporary file of records: added at once by several
// goroutines, then read at a spot or all in order. It keeps what would
// otherwise grow with the tree out of memory.
type scratch struct {
	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	size  int64
	err   error // the first write error; every later add and seal returns it
	named bool  // the file still has its name, for close to remove
}

// spot is where a record is in a scratch file.
type spot struct {
	off int64
	n   int32
}

// newScratch makes the file in the system's temporary folder. Where an
// open file outlives its name (Unix), the name is removed at once, so that
// nothing is left behind even if the build is killed; elsewhere close
// removes it.
func newScratch() (*scratch, error) {
	f, err := os.CreateTemp("", "skillpack-*.scratch")
	if err != nil {
		return nil, fmt.Errorf("making a scratch file: %w", err)
	}
	s := &scratch{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	s.named = os.Remove(f.Name()) != nil
	return s, nil
}

// add writes a record, after its length so that scan can find it, and
// returns where it is.
func (s *scratch) add(data []byte) (spot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return spot{}, s.err
	}
	var n [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(len(data)))
	s.w.Write(n[:k])
	if _, err := s.w.Write(data); err != nil {
		s.err = fmt.Errorf("writing the scratch file: %w", err)
		return spot{}, s.err
	}
	at := spot{off: s.size + int64(k), n: int32(len(data))}
	s.size += int64(k + len(data))
	return at, nil
}

// seal flushes what was added, so that it can be read.
func (s *scratch) seal() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		if err := s.w.Flush(); err != nil {
			s.err = fmt.Errorf("writing the scratch file: %w", err)
		}
	}
	return s.err
}

// read returns the record at a spot; seal must have been called.
func (s *scratch) read(at spot) ([]byte, error) {
	data := make([]byte, at.n)
	if _, err := s.f.ReadAt(data, at.off); err != nil {
		return nil, fmt.Errorf("reading the scratch file: %w", err)
	}
	return data, nil
}

// scan calls fn with every record in the order added, until fn returns
// false; seal must have been called. The bytes are fn's only until it
// returns.
func (s *scratch) scan(fn func([]byte) bool) error {
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, s.size), 64<<10)
	var buf []byte
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the scratch file: %w", err)
		}
		if uint64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return fmt.Errorf("reading the scratch file: %w", err)
		}
		if !fn(buf) {
			return nil
		}
	}
}

// close closes and removes the file.
func (s *scratch) close() {
	if s == nil {
		return
	}
	s.f.Close()
	if s.named {
		os.Remove(s.f.Name())
	}
}

// The encoding is private to one build: fields in a fixed order, strings
// length-prefixed, numbers as varints. It is a fraction of JSON's cost to
// decode, which matters because each summary is read once per document.

func (sum *summary) encode() []byte {
	var e encoder
	o := &sum.out
	for _, s := range []string{o.Name, o.Description, string(o.Frontmatter), sum.license, sum.compat, string(sum.verdict)} {
		e.str(s)
	}
	for _, d := range []layout.Digest{o.TarGz.Digest, o.Zip.Digest, o.ContentDigest, sum.key, sum.lint} {
		e.str(string(d))
	}
	e.num(o.TarGz.Size)
	e.num(o.Zip.Size)
	e.num(int64(len(o.Files)))
	for _, f := range o.Files {
		e.str(f.Path)
		e.str(string(f.Digest))
		e.num(f.Size)
		e.flag(f.Exec)
	}
	e.num(int64(len(sum.leftOut)))
	for _, p := range sum.leftOut {
		e.str(p)
	}
	return e.b
}

func decodeSummary(data []byte) (*summary, error) {
	d := decoder{b: data}
	sum := &summary{}
	o := &sum.out
	var fm, verdict string
	for _, s := range []*string{&o.Name, &o.Description, &fm, &sum.license, &sum.compat, &verdict} {
		*s = d.str()
	}
	if verdict != "" {
		sum.verdict = []byte(verdict)
	}
	for _, p := range []*layout.Digest{&o.TarGz.Digest, &o.Zip.Digest, &o.ContentDigest, &sum.key, &sum.lint} {
		*p = layout.Digest(d.str())
	}
	if fm != "" {
		o.Frontmatter = []byte(fm)
	}
	o.TarGz.Size = d.num()
	o.Zip.Size = d.num()
	if n := d.count(); n > 0 {
		o.Files = make([]layout.File, n)
		for i := range o.Files {
			f := &o.Files[i]
			f.Path, f.Digest, f.Size, f.Exec = d.str(), layout.Digest(d.str()), d.num(), d.flag()
		}
	}
	if n := d.count(); n > 0 {
		sum.leftOut = make([]string, n)
		for i := range sum.leftOut {
			sum.leftOut[i] = d.str()
		}
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = errors.New("trailing bytes")
	}
	return sum, d.err
}

type encoder struct{ b []byte }

func (e *encoder) num(n int64) { e.b = binary.AppendVarint(e.b, n) }

func (e *encoder) str(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) flag(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// decoder reads what encoder wrote; the first error sticks and every
// later read returns a zero value.
type decoder struct {
	b   []byte
	err error
}

var errShort = errors.New("a summary is cut short")

func (d *decoder) num() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length, which must fit in what is left.
func (d *decoder) count() int {
	n := d.num()
	if n < 0 || n > int64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > uint64(len(d.b)-k) {
		d.fail()
		return ""
	}
	s := string(d.b[k : k+int(n)])
	d.b = d.b[k+int(n):]
	return s
}

func (d *decoder) flag() bool {
	if len(d.b) == 0 {
		d.fail()
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errShort
	}
	d.b = nil
}
