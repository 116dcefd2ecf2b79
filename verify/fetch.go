package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// How the checks read: documents one at a time, as each check needs them;
// everything else on Options.Jobs workers, between the checks (prefetch,
// settle, the archive and signature steps). A worker only reads, hashes,
// unpacks or checks a signature; problems are reported afterwards, in the
// checks' order, so the report is the same however the fetches interleave.

// errDeadline is the cause of the check's context when Options.Deadline
// passes; errStopped marks a read cut short by it (or by the caller's
// cancelling), which is reported once for the whole check, not per file.
var (
	errDeadline = errors.New("deadline passed")
	errStopped  = errors.New("not read")
)

// fetch reads loc and returns what it found; with keep, the body is held
// in memory and returned too, for the caller to release, else it is hashed
// as it streams. It runs on the workers, so it touches only what they may
// share: the source, the options, the memory.
func (c *checker) fetch(loc string, keep bool) (*sum, *held) {
	s := &sum{}
	var h *held
	switch {
	case c.ctx.Err() != nil:
		s.err = c.ctx.Err()
	case keep:
		h, s.err = c.hold(loc, s)
	default:
		s.err = c.stream(loc, s)
	}
	if s.err != nil && c.ctx.Err() != nil {
		c.cut.Add(1)
		s.err = errStopped
	}
	return s, h
}

// stream hashes loc without keeping it.
func (c *checker) stream(loc string, s *sum) error {
	rc, _, err := bundle.OpenMax(c.ctx, c.src, loc, c.o.MaxSize)
	if err != nil {
		return err
	}
	defer rc.Close()
	return s.measure(rc)
}

// hold reads loc into memory, hashing it.
func (c *checker) hold(loc string, s *sum) (*held, error) {
	rc, size, err := bundle.OpenMax(c.ctx, c.src, loc, c.o.MaxSize)
	if err != nil {
		return nil, err
	}
	h, ok := c.mem.tryReserve(c.mem.chunks(size))
	if !ok {
		// Waiting with the response open would spend its --timeout on
		// verify's own wait: ask again once there is room, holding none
		// meanwhile so that no two workers wait on each other. Bytes past
		// that room, if the body has grown since, are errGrew.
		rc.Close()
		if h, err = c.mem.reserve(c.ctx, c.mem.chunks(size)); err != nil {
			return nil, err
		}
		if rc, _, err = bundle.OpenMax(c.ctx, c.src, loc, c.o.MaxSize); err != nil {
			h.release()
			return nil, err
		}
	}
	defer rc.Close()
	if size >= 0 {
		h.room = h.room[:size:size] // the declared size, so that more is errGrew
	}
	if err := h.fill(rc); err != nil {
		h.release()
		return nil, err
	}
	s.measure(bytes.NewReader(h.bytes())) // reading memory cannot fail
	return h, nil
}

// load reads loc, recording its sum, and returns its bytes if keep: a
// non-nil slice, empty for an empty file, valid until the next document
// is loaded (c.doc).
func (c *checker) load(loc string, keep bool) ([]byte, error) {
	c.dropDoc()
	s, h := c.fetch(loc, keep)
	c.sums[loc], c.doc = s, h
	if s.err != nil || !keep {
		return nil, s.err
	}
	return h.bytes(), nil
}

// dropDoc gives back the memory of the document loaded last: before the
// next is, and before the workers hold what they read, so that none waits
// for memory the checks hold.
func (c *checker) dropDoc() {
	if c.doc != nil {
		c.doc.release()
		c.doc = nil
	}
}

// prefetch hashes the locations not read yet, on the workers, for the
// checks that follow. It reports nothing: the first check to use a
// location reports what went wrong with it (failed).
func (c *checker) prefetch(locs []string) {
	var todo []string
	seen := map[string]bool{}
	for _, loc := range locs {
		if _, done := c.sums[loc]; !done && !seen[loc] {
			seen[loc] = true
			todo = append(todo, loc)
		}
	}
	got := make([]*sum, len(todo))
	if slices.ContainsFunc(todo, c.entry) {
		c.dropDoc() // so that no worker holding a SKILL.md waits for its memory
	}
	c.each(len(todo), func(i int) {
		if !c.entry(todo[i]) {
			got[i], _ = c.fetch(todo[i], false)
			return
		}
		var h *held
		if got[i], h = c.fetch(todo[i], true); h != nil {
			got[i].head = skill.Head(h.bytes())
			h.release()
		}
	})
	for i, loc := range todo {
		c.sums[loc] = got[i]
	}
}

// entry reports whether loc is the served SKILL.md of a skill of the v0.2
// index (of a foreign one, a skill-md url), which prefetch keeps the
// frontmatter of (sum.head). It reads only what the workers may share.
func (c *checker) entry(loc string) bool {
	if c.foreign {
		return c.skillMDs[loc]
	}
	p, ok := layout.ParsePath(loc)
	return ok && p.Kind == layout.KindFile && !p.Legacy && p.File == layout.EntryFile && c.skills[p.Skill] != nil
}

// fetchHeld reads each of locs whole on the workers, handing its bytes to
// use, which must not keep them, and returns what each read found. The
// document loaded last is dropped first, so no worker waits for its memory.
func (c *checker) fetchHeld(locs []string, use func(i int, data []byte)) []*sum {
	got := make([]*sum, len(locs))
	c.dropDoc()
	c.each(len(locs), func(i int) {
		var h *held
		if got[i], h = c.fetch(locs[i], true); h != nil {
			use(i, h.bytes())
			h.release()
		}
	})
	return got
}

func (c *checker) each(n int, fn func(i int)) {
	parallel.Each(n, c.o.Jobs, func(i int) error { fn(i); return nil })
}

// read returns the bytes at loc, or nil after reporting why not. A missing
// optional file is not reported (until another document lists it).
func (c *checker) read(loc string, optional bool) []byte {
	if s, ok := c.sums[loc]; ok && s.err != nil {
		return nil
	}
	data, err := c.load(loc, true)
	if err != nil {
		if !(optional && errors.Is(err, bundle.ErrNotFound)) {
			c.failed(loc, "")
		}
		return nil
	}
	if optional && fallbackPage(loc, data) {
		c.fellBack(loc)
		return nil
	}
	return data
}

// fallbackPage reports whether data, read for an optional file at loc,
// is a page a host answers with for a file it does not have (a single-page
// app's fallback: Cloudflare Pages' own for a site without a 404.html):
// no such file is there.
func fallbackPage(loc string, data []byte) bool {
	return path.Ext(loc) != ".html" && htmlPage(data)
}

// fellBack notes the first file taken as absent for fallbackPage, as a
// warning.
func (c *checker) fellBack(loc string) {
	if !c.fallback {
		c.fallback = true
		c.rep.Warnings = append(c.rep.Warnings, Problem{loc, "the host answers it with an HTML page, taken as its answer for a file it does not have (a single-page-app fallback, as Cloudflare Pages gives a site without a 404.html): such files are taken as absent"})
	}
}

// htmlPage reports whether data begins as an HTML page does. Not
// http.DetectContentType: its sniffing takes "<!--" or "<p" for HTML, with
// which a Markdown llms.txt may begin.
func htmlPage(data []byte) bool {
	head := bytes.ToLower(bytes.TrimLeft(data[:min(len(data), 64)], " \t\r\n\ufeff"))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}

// hash returns the digest and size of loc, read once and not kept.
func (c *checker) hash(loc string) *sum {
	if _, ok := c.sums[loc]; !ok {
		c.load(loc, false)
	}
	c.failed(loc, "")
	return c.sums[loc]
}

// failed reports, once, why loc could not be read, if it could not;
// from is the document that lists it, if one does. A read the deadline
// cut short is not reported here: run says so once.
func (c *checker) failed(loc, from string) {
	s := c.sums[loc]
	if s.err == nil || s.reported || errors.Is(s.err, errStopped) || errors.Is(s.err, bundle.ErrNotHeld) {
		return
	}
	s.reported = true
	if from != "" && errors.Is(s.err, bundle.ErrNotFound) {
		c.problem(loc, "%s, though %s lists it", describe(s.err), from)
		return
	}
	c.problem(loc, "%s", describe(s.err))
}

func describe(err error) string {
	if errors.Is(err, bundle.ErrNotFound) {
		return "missing (not found)"
	}
	return err.Error()
}

// expect queues the claim of document from that the file at loc has a
// digest (and size, if >= 0), for settle to check.
func (c *checker) expect(loc, from string, digest layout.Digest, size int64) {
	c.pending = append(c.pending, claim{loc, from, digest, size})
}

// settle fetches the files the queued claims name, at once, then checks
// the claims in the order they were made.
func (c *checker) settle() {
	locs := make([]string, len(c.pending))
	for i, e := range c.pending {
		locs[i] = e.loc
	}
	c.prefetch(locs)
	pending := c.pending
	c.pending = nil
	for _, e := range pending {
		c.failed(e.loc, e.from)
		s := c.sums[e.loc]
		switch {
		case errors.Is(s.err, bundle.ErrNotHeld):
			c.unheld = append(c.unheld, e)
		case s.err == nil:
			c.differs(s, e)
		}
	}
}

// stoppedProblem says, when reads were cut short, that the check is
// incomplete; it is the one problem the limit on problems never drops.
func (c *checker) stoppedProblem() {
	if c.cut.Load() == 0 {
		return
	}
	c.rep.Problems = append(c.rep.Problems, Problem{Path: c.rep.Source, Message: fmt.Sprintf(
		"not verified: %s after %s had been read; the rest was not checked. Raise --deadline, or --jobs to fetch more at once",
		c.stopReason(), human.Plural(c.rep.Checked.Files, "file"))})
}

// stopReason says why the check's context ended.
func (c *checker) stopReason() string {
	if errors.Is(context.Cause(c.ctx), errDeadline) {
		return fmt.Sprintf("the %v deadline for the whole check (--deadline) passed", c.o.Deadline)
	}
	return "the check was cancelled"
}
