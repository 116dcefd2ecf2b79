package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/jsonenc"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// sum is what reading one location found.
type sum struct {
	digest layout.Digest
	raw    []byte // the sha256 itself, for signature checks
	size   int64
	text   bool   // resources/read serves the bytes as text (skill.IsText), not base64
	head   []byte // of a skill's served SKILL.md, the bytes up to its body, which checkMCP judges
	err    error
	// reported is set once err is in the report: a document the bundle may
	// leave out is not reported missing when looked for, only when listed.
	reported bool
}

// measure records the digest and size of what r holds, and whether it is text.
func (s *sum) measure(r io.Reader) error {
	var t skill.TextCheck
	raw, size, err := bundle.Sum(io.TeeReader(r, &t))
	s.raw, s.digest, s.size, s.text = raw[:], layout.SumDigest(raw[:]), size, t.Text()
	return err
}

// checker runs one verification. Every location is read at most once; a
// location that cannot be read is reported once, and later comparisons
// with it are skipped rather than reported again.
type checker struct {
	ctx  context.Context
	src  bundle.Source
	o    Options
	mem  *memory
	doc  *held // the document loaded last (load)
	rep  *Report
	sums map[string]*sum

	pending []claim      // the comparisons expect queued for settle
	cut     atomic.Int64 // reads the deadline cut short
	unheld  []claim      // about files the source does not hold, for checkUnheld

	foreign  bool            // the v0.2 index is not skillpack's: checked as clients read it (foreign.go)
	fallback bool            // the host answered an optional file with an HTML page (read)
	skillMDs map[string]bool // a foreign index's skill-md urls, whose heads prefetch keeps

	skills   map[string]*skillModel
	names    []string // of skills, sorted
	archives map[string]*archiveRef
	docs     []string // index documents read, for checksums and signatures
	summed   []string // other files checksums.txt must list: the versions' and plugins' archives

	versioned       map[string]bool            // every file versions.json names; nil without one
	versionArchives []versionArchive           // the versions' archives, to unpack
	v1              map[string]*layout.EntryV1 // by name; nil when absent
	fmByURI         map[string]json.RawMessage // mcp/skills.json's frontmatter, which mcp/index.json repeats
	// mcpListed is, for each MCP document read, the skills it lists: all
	// of the v0.2 index's but those MCP hosts refuse (checkMCP).
	mcpListed map[string]map[string]bool
	sumLines  *parsedSums    // checksums.txt (checksumLines)
	rec       *layout.Record // the build record (record), once recRead
	recRead   bool
}

// parsedSums is checksums.txt as checksumLines read it.
type parsedSums struct {
	sums []layout.Sum
	err  error
	ok   bool
}

// skillModel is one skill as the v0.2 index names it, and what the other
// documents say about it.
type skillModel struct {
	name, typ, description string
	version                string        // from the v0.2 entry, when SemVer
	digest, contentDigest  layout.Digest // from the v0.2 entry
	loc                    string        // where its url points
	files                  []string
	filesFrom              string           // the document files came from
	served                 map[string]*sum  // path → the v0.2 copy
	listed                 map[string]claim // path → what mcp/skills.json says
	archives               []*archiveRef
}

// archiveRef is one archive and every claim made about it.
type archiveRef struct {
	loc, skill, ext string
	claims          []claim
	unpacked        *unpacked // nil until read
}

// claim is what a document (from) says of the file at loc: its digest,
// and its size if >= 0.
type claim struct {
	loc, from string
	digest    layout.Digest
	size      int64
}

// differs reports whether the file read as s is not what cl says, as a
// problem: the first of its digest and size that differ.
func (c *checker) differs(s *sum, cl claim) bool {
	switch {
	case s.digest != cl.digest:
		c.problem(cl.loc, "digest is %s, but %s says %s", s.digest, cl.from, cl.digest)
	case cl.size >= 0 && s.size != cl.size:
		c.problem(cl.loc, "is %d bytes, but %s says %d", s.size, cl.from, cl.size)
	default:
		return false
	}
	return true
}

func run(ctx context.Context, src bundle.Source, o Options) (*Report, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, o.Deadline, errDeadline)
	defer cancel()
	c := &checker{
		ctx: ctx, src: src, o: o,
		mem:      newMemory(o.MaxSize),
		rep:      &Report{Source: src.String()},
		sums:     map[string]*sum{},
		skills:   map[string]*skillModel{},
		archives: map[string]*archiveRef{},
		fmByURI:  map[string]json.RawMessage{},
		skillMDs: map[string]bool{},

		mcpListed: map[string]map[string]bool{},
	}
	if err := c.prepare(); err != nil {
		return nil, err
	}
	more, err := c.v2()
	if err != nil {
		return nil, err
	}
	if more && c.foreign {
		c.asClient()
	} else if more {
		c.v1Index()
		c.mcpSkills()
		c.mcpIndex()
		c.mcpResources()
		c.versions()
		c.llmsTxt()
		c.aiCatalog()
		c.plugins()
		c.recordArchives()
		c.settle()
		c.unpackArchives()
		c.unpackVersions()
		c.checkSkills()
		c.checksums()
		c.buildRecord()
		c.settle()
		c.signatures()
		if o.Previous != "" {
			c.previous()
		}
		c.folderSignatures()
	}
	c.dropDoc()
	c.rep.Checked.Skills = len(c.skills)
	for _, s := range c.sums {
		switch {
		case s.err == nil:
			c.rep.Checked.Files++
		case errors.Is(s.err, bundle.ErrNotHeld):
			c.rep.Checked.NotHeld++ // looked for, and not held by the source
		}
	}
	c.stoppedProblem()
	c.rep.finish()
	if errors.Is(context.Cause(ctx), errDeadline) {
		return c.rep, nil // a problem in the report
	}
	return c.rep, ctx.Err()
}

// problem records one thing that did not verify, or counts it as omitted
// past Options.MaxProblems. The strings and errors in args are clipped
// (see clipped).
func (c *checker) problem(path, format string, args ...any) {
	r := c.rep
	if len(r.Problems) >= c.o.MaxProblems {
		r.Omitted++
		return
	}
	for i, a := range args {
		switch a := a.(type) {
		case string:
			args[i] = clipped(a)
		case layout.Digest:
			args[i] = clipped(a)
		case error:
			args[i] = clipped(a.Error())
		case []string:
			args[i] = clippedList(a)
		}
	}
	r.Problems = append(r.Problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// clipped is a string from the bundle in a problem's message, cut to its
// first maxQuoted bytes when it is more than twice as long: a hostile
// document cannot make each problem as long as itself. (A label that
// quotes a clipped name is not clipped again.)
type clipped string

const maxQuoted = 256

func (s clipped) Format(f fmt.State, verb rune) {
	v, more := string(s), 0
	if len(v) > 2*maxQuoted {
		n := maxQuoted
		for n > 0 && !utf8.RuneStart(v[n]) {
			n-- // not inside a character
		}
		v, more = v[:n], len(v)-n
	}
	if verb == 'q' {
		v = strconv.Quote(v)
	}
	io.WriteString(f, v)
	if more > 0 {
		fmt.Fprintf(f, "… (%d bytes more)", more)
	}
}

// clippedList is a list from the bundle in a problem's message (a skill's
// files, say): each value clipped, and the first maxListed values printed
// when there are more than twice as many.
type clippedList []string

const maxListed = 16

func (l clippedList) Format(f fmt.State, verb rune) {
	show := []string(l)
	if len(show) > 2*maxListed {
		show = show[:maxListed]
	}
	cs := make([]clipped, len(show))
	for i, v := range show {
		cs[i] = clipped(v)
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), cs)
	if len(show) < len(l) {
		fmt.Fprintf(f, "… (%d more)", len(l)-len(show))
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
	if errors.As(err, &se) || errors.As(err, &te) {
		line, _, msg := jsonenc.Explain(data, err)
		c.problem(path, "line %d: %s", line, msg)
	} else {
		c.problem(path, "%s", strings.TrimPrefix(err.Error(), path+": "))
	}
	return false
}
