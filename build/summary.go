package build

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/skillpack/skillpack/build/internal/scratch"
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
type summaries struct{ s *scratch.File }

func newSummaries() (*summaries, error) {
	s, err := scratch.New()
	return &summaries{s}, err
}

// add writes a summary and returns where it is.
func (s *summaries) add(sum *summary) (scratch.Spot, error) { return s.s.Add(sum.encode()) }

func (s *summaries) seal() error { return s.s.Seal() }

// read returns the summary at a spot.
func (s *summaries) read(at scratch.Spot) (*summary, error) {
	data, err := s.s.Read(at)
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
		s.s.Close()
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
