package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/skillpack/skillpack/layout"
)

// sum is what reading one location found.
type sum struct {
	digest layout.Digest
	raw    []byte // the sha256 itself, for signature checks
	size   int64
	err    error
}

// checker runs one verification. Every location is read at most once; a
// location that cannot be read is reported once, and later comparisons
// with it are skipped rather than reported again.
type checker struct {
	ctx  context.Context
	src  source
	o    Options
	rep  *Report
	sums map[string]*sum

	skills   map[string]*skillModel
	names    []string // of skills, sorted
	archives map[string]*archiveRef
	docs     []string        // index documents read, for checksums and signatures
	v1       *layout.IndexV1 // nil when absent
	// fmByURI is the frontmatter of each skill in mcp/skills.json, which
	// mcp/index.json must repeat exactly.
	fmByURI map[string]json.RawMessage
}

// skillModel is one skill as the v0.2 index names it, and what the other
// documents say about it.
type skillModel struct {
	name, typ, description string
	digest, contentDigest  layout.Digest // from the v0.2 entry
	loc                    string        // where its url points
	files                  []string
	filesFrom              string                // the document files came from
	served                 map[string]*sum       // path → the v0.2 copy
	listed                 map[string]claimedSum // path → what mcp/skills.json says
	archives               []*archiveRef
}

type claimedSum struct {
	digest layout.Digest
	size   int64
}

// archiveRef is one archive and every claim made about it.
type archiveRef struct {
	loc, skill, ext string
	claims          []claim
	unpacked        *unpacked // nil until read
}

type claim struct {
	from   string // the document that makes it
	digest layout.Digest
	size   int64 // -1: not said
}

func run(ctx context.Context, src source, o Options) (*Report, error) {
	c := &checker{
		ctx: ctx, src: src, o: o,
		rep:      &Report{Source: src.String()},
		sums:     map[string]*sum{},
		skills:   map[string]*skillModel{},
		archives: map[string]*archiveRef{},
		fmByURI:  map[string]json.RawMessage{},
	}
	if err := c.v2(); err != nil {
		return nil, err
	}
	c.v1Index()
	c.mcpSkills()
	c.mcpIndex()
	c.mcpResources()
	c.unpackArchives()
	for _, name := range c.names {
		c.skill(c.skills[name])
	}
	c.checksums()
	c.buildRecord()
	c.signatures()
	c.rep.Checked.Skills = len(c.skills)
	for _, s := range c.sums {
		if s.err == nil {
			c.rep.Checked.Files++
		}
	}
	c.rep.finish()
	return c.rep, ctx.Err()
}

// problem records one thing that did not verify.
func (c *checker) problem(path, format string, args ...any) {
	if len(c.rep.Problems) >= c.o.MaxProblems {
		c.rep.Omitted++
		return
	}
	c.rep.Problems = append(c.rep.Problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// read returns the bytes at loc, or nil after reporting why not. A missing
// optional file is not reported.
func (c *checker) read(loc string, optional bool) []byte {
	if s, ok := c.sums[loc]; ok && s.err != nil {
		return nil
	}
	data, err := c.load(loc, true)
	if err != nil {
		if !(optional && errors.Is(err, errNotFound)) {
			c.problem(loc, "%s", describe(err))
		}
		return nil
	}
	return data
}

// hash returns the digest and size of loc, read once and not kept.
func (c *checker) hash(loc string) *sum {
	if s, ok := c.sums[loc]; ok {
		return s
	}
	_, err := c.load(loc, false)
	if err != nil {
		c.problem(loc, "%s", describe(err))
	}
	return c.sums[loc]
}

// load reads loc under the size limit, records its sum and returns the
// bytes if keep.
func (c *checker) load(loc string, keep bool) ([]byte, error) {
	s := &sum{}
	c.sums[loc] = s
	rc, err := c.src.open(c.ctx, loc)
	if err != nil {
		s.err = err
		return nil, err
	}
	defer rc.Close()
	h := sha256.New()
	var buf bytes.Buffer
	w := io.Writer(h)
	if keep {
		w = io.MultiWriter(h, &buf)
	}
	s.size, err = io.Copy(w, &limitReader{r: rc, limit: c.o.MaxSize})
	if err != nil {
		s.err = err
		return nil, err
	}
	s.raw = h.Sum(nil)
	s.digest = layout.SumDigest(s.raw)
	return buf.Bytes(), nil
}

func describe(err error) string {
	if errors.Is(err, errNotFound) {
		return "missing (not found)"
	}
	return err.Error()
}

// expect compares the file at loc with a digest (and size, if >= 0) that
// document from claims.
func (c *checker) expect(loc, from string, digest layout.Digest, size int64) {
	s := c.hash(loc)
	if s.err != nil {
		return
	}
	if s.digest != digest {
		c.problem(loc, "digest is %s, but %s says %s", s.digest, from, digest)
	} else if size >= 0 && s.size != size {
		c.problem(loc, "is %d bytes, but %s says %d", s.size, from, size)
	}
}

// decoded reports whether a document decoded, reporting why not: a JSON
// syntax or type error at its line.
func (c *checker) decoded(path string, data []byte, err error) bool {
	if err == nil {
		return true
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		c.problem(path, "line %d: not valid JSON: %v", line(data, se.Offset), se)
	case errors.As(err, &te):
		what := "the document"
		if te.Field != "" {
			what = strconv.Quote(te.Field)
		}
		c.problem(path, "line %d: %s should be a JSON %s, not %s", line(data, te.Offset), what, goType(te.Type.Kind().String()), te.Value)
	default:
		c.problem(path, "%s", strings.TrimPrefix(err.Error(), path+": "))
	}
	return false
}

func line(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

func goType(kind string) string {
	switch kind {
	case "slice":
		return "array"
	case "struct", "map":
		return "object"
	case "int64", "int":
		return "number"
	}
	return kind
}
