package build

import (
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

// summary reads back what the build kept of a packed skill.
func (p *packed) summary(w *work) (*summary, error) {
	data, err := p.sums.Read(w.at)
	if err != nil {
		return nil, err
	}
	sum, err := decodeSummary(data)
	if err != nil {
		return nil, fmt.Errorf("reading the scratch file: %w", err)
	}
	if sum.out.Name != w.name {
		return nil, fmt.Errorf("the scratch file holds %q where %q should be", sum.out.Name, w.name)
	}
	return sum, nil
}

func (p *packed) close() {
	if p != nil {
		p.sums.Close()
	}
}

// The encoding is private to one build: fields in a fixed order, strings
// length-prefixed, numbers as varints. It is a fraction of JSON's cost to
// decode, which matters because each summary is read once per document.

func (sum *summary) encode() []byte {
	var e scratch.Encoder
	o := &sum.out
	for _, s := range []string{o.Name, o.Description, string(o.Frontmatter), o.Version, sum.license, sum.compat, string(sum.verdict)} {
		e.Str(s)
	}
	for _, d := range []layout.Digest{o.TarGz.Digest, o.Zip.Digest, o.ContentDigest, sum.key, sum.lint} {
		e.Str(string(d))
	}
	e.Num(o.TarGz.Size)
	e.Num(o.Zip.Size)
	e.Files(o.Files)
	e.Num(int64(len(sum.leftOut)))
	for _, p := range sum.leftOut {
		e.Str(p)
	}
	return e.B
}

func decodeSummary(data []byte) (*summary, error) {
	d := scratch.Decoder{B: data}
	sum := &summary{}
	o := &sum.out
	var fm, verdict string
	for _, s := range []*string{&o.Name, &o.Description, &fm, &o.Version, &sum.license, &sum.compat, &verdict} {
		*s = d.Str()
	}
	if verdict != "" {
		sum.verdict = []byte(verdict)
	}
	for _, p := range []*layout.Digest{&o.TarGz.Digest, &o.Zip.Digest, &o.ContentDigest, &sum.key, &sum.lint} {
		*p = layout.Digest(d.Str())
	}
	if fm != "" {
		o.Frontmatter = []byte(fm)
	}
	o.TarGz.Size = d.Num()
	o.Zip.Size = d.Num()
	o.Files = d.Files()
	if n := d.Count(); n > 0 {
		sum.leftOut = make([]string, n)
		for i := range sum.leftOut {
			sum.leftOut[i] = d.Str()
		}
	}
	return sum, d.End()
}
