package scratch

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/skillpack/skillpack/layout"
)

// Encoder writes an item in the one encoding of scratch items: fields
// in a fixed order the caller keeps, strings length-prefixed, numbers as
// varints. It is a fraction of JSON's cost to decode, which matters
// because a build reads each item once per document.
type Encoder struct{ B []byte }

func (e *Encoder) Num(n int64) { e.B = binary.AppendVarint(e.B, n) }

func (e *Encoder) Str(s string) {
	e.B = binary.AppendUvarint(e.B, uint64(len(s)))
	e.B = append(e.B, s...)
}

// Decoder reads what Encoder wrote; the first error sticks and every
// later read returns a zero value. Its strings are cut from one copy of
// the item, not copied one by one: a build reads each item once per
// document, and a skill's item holds a string or two a file.
type Decoder struct {
	b   []byte // what is left to read
	s   string // the item, which strings are cut from
	err error
}

// NewDecoder reads item, which it does not keep.
func NewDecoder(item []byte) *Decoder { return &Decoder{b: item, s: string(item)} }

var errShort = errors.New("a scratch record is cut short")

func (d *Decoder) Num() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Count reads a length, which must fit in what is left.
func (d *Decoder) Count() int {
	n := d.Num()
	if n < 0 || n > int64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

// Str reads a length-prefixed field.
func (d *Decoder) Str() string {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > uint64(len(d.b)-k) {
		d.fail()
		return ""
	}
	at := len(d.s) - len(d.b) + k
	d.b = d.b[k+int(n):]
	return d.s[at : at+int(n)]
}

// End returns the first error, or an error if bytes are left over.
func (d *Decoder) End() error {
	if d.err == nil && len(d.b) > 0 {
		d.err = errors.New("trailing bytes in a scratch record")
	}
	return d.err
}

func (d *Decoder) fail() {
	if d.err == nil {
		d.err = errShort
	}
	d.b = nil
}

// RecordSkill writes what the build record says of a skill, as both
// kinds of per-skill item in a build (what it keeps of a skill, what the
// last build's record held) carry it.
func (e *Encoder) RecordSkill(c *layout.RecordSkill) {
	// Grown once for about what follows, not field by field.
	e.B = slices.Grow(e.B, 512+len(c.Findings)+160*len(c.Files))
	for _, s := range []string{c.Name, string(c.Key), string(c.Lint), string(c.Findings), string(c.ContentDigest), string(c.TarGz.Digest), string(c.Zip.Digest)} {
		e.Str(s)
	}
	e.Num(c.TarGz.Size)
	e.Num(c.Zip.Size)
	var page layout.Archive
	if c.Page != nil {
		page = *c.Page
	}
	e.Str(string(page.Digest))
	e.Num(page.Size)
	e.Num(int64(len(c.Files)))
	for _, f := range c.Files {
		e.Str(f.Path)
		e.Str(string(f.Digest))
		e.Num(f.Size)
		exec := int64(0)
		if f.Exec {
			exec = 1
		}
		e.Num(exec)
	}
}

// RecordSkill reads what Encoder.RecordSkill wrote; nil Findings, Page
// and Files for none.
func (d *Decoder) RecordSkill() *layout.RecordSkill {
	c := &layout.RecordSkill{Name: d.Str(), Key: layout.Digest(d.Str()), Lint: layout.Digest(d.Str())}
	if f := d.Str(); len(f) > 0 {
		c.Findings = []byte(f)
	}
	c.ContentDigest = layout.Digest(d.Str())
	c.TarGz.Digest, c.Zip.Digest = layout.Digest(d.Str()), layout.Digest(d.Str())
	c.TarGz.Size, c.Zip.Size = d.Num(), d.Num()
	if page := (layout.Archive{Digest: layout.Digest(d.Str()), Size: d.Num()}); page.Digest != "" {
		c.Page = &page
	}
	if n := d.Count(); n > 0 {
		c.Files = make([]layout.File, n)
		for i := range c.Files {
			f := &c.Files[i]
			f.Path, f.Digest, f.Size, f.Exec = d.Str(), layout.Digest(d.Str()), d.Num(), d.Num() == 1
		}
	}
	return c
}
