package catalog

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpack/skillpack/layout"
)

// update rewrites the golden pages in testdata from the current code.
var update = flag.Bool("update", false, "rewrite the golden pages in testdata")

// body is a Skill.Body that returns md.
func body(md string) func() ([]byte, error) {
	return func() ([]byte, error) { return []byte(md), nil }
}

// render returns the catalog: the front page Render writes, then the page
// of every skill that Pages makes, in name order. (Pages start alike up to
// their titles, which start with the names, so sorting the pages sorts
// them by name.)
func render(skills Skills, o Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := Render(&buf, skills, o); err != nil {
		return buf.Bytes(), err
	}
	var mu sync.Mutex
	var pages [][]byte
	err := Pages(skills, o, func(_ int, page []byte) error {
		mu.Lock()
		defer mu.Unlock()
		pages = append(pages, bytes.Clone(page))
		return nil
	})
	slices.SortFunc(pages, bytes.Compare)
	for _, p := range pages {
		buf.Write(p)
	}
	return buf.Bytes(), err
}

// synth is the i-th skill of a generated bundle, with a SKILL.md of about
// size bytes that uses what real ones do: headings (some repeated), lists,
// a table, a task list, code, raw HTML, and links to its files, to missing
// files and to the web. Its Body makes the text on each call, so that a
// test of many skills holds no bodies but those Render holds.
func synth(i, size int) Skill {
	name := fmt.Sprintf("skill-%04d", i)
	d := func(s string) layout.Digest { return layout.DigestOf([]byte(name + "/" + s)) }
	files := []layout.File{
		{Path: "SKILL.md", Digest: d("SKILL.md"), Size: int64(size)},
		{Path: "references/REFERENCE.md", Digest: d("ref"), Size: int64(100 * i)},
	}
	if i%3 == 0 {
		files = append(files, layout.File{Path: "scripts/run.sh", Digest: d("run"), Size: 300, Exec: true})
	}
	s := Skill{
		Skill: layout.Skill{
			Name:          name,
			Description:   fmt.Sprintf("Generated skill %d: does thing %d & more.", i, i%7),
			Files:         files,
			TarGz:         layout.Archive{Digest: d("tgz"), Size: int64(1000 + i)},
			Zip:           layout.Archive{Digest: d("zip"), Size: int64(1200 + i)},
			ContentDigest: d("content"),
		},
		Body: func() ([]byte, error) { return []byte(synthBody(i, size)), nil },
	}
	if i%2 == 0 {
		s.License = "MIT"
	}
	if i%5 == 0 {
		s.Compatibility = "Needs Python 3."
	}
	return s
}

// synthBody is the SKILL.md body of synth(i, size).
func synthBody(i, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Skill %d\n\nUse this skill when the task mentions *thing %d*. See [the reference](references/REFERENCE.md), [the script](scripts/run.sh) and [the web](https://example.com/%d).\n\n", i, i%7, i)
	b.WriteString("## Steps\n\n1. Read the input.\n2. Run `scripts/run.sh`.\n3. Check the [steps](#steps).\n\n" +
		"| Option | Meaning |\n|---|---|\n| `-v` | verbose |\n| `-n` | dry run |\n\n" +
		"- [x] done\n- [ ] todo\n\n~~Old~~ text with <em>raw HTML</em> and www.example.org.\n\n")
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, "## Details\n\nStep %d of skill %d: run the command below on the input, then check the output against **the [reference](references/REFERENCE.md)**.\n\n```sh\ntool --step %d input.csv\n```\n\n- one point\n- another point\n\n", n, i, n)
	}
	return b.String()
}

// lazy is Skills made on demand, as a build reads them back from disk: it
// holds none, and every call makes a new copy.
type lazy struct {
	n     int
	skill func(i int) Skill
}

func (l lazy) Len() int                   { return l.n }
func (l lazy) Skill(i int) (Skill, error) { return l.skill(i), nil }

// golden are the inputs of the pages in testdata/<name>.html.
func golden() map[string]struct {
	skills []Skill
	o      Options
} {
	another := demo()
	another.Name, another.Description, another.Compatibility = "another", "Another skill.", ""
	minimal := Skill{
		Skill: layout.Skill{
			Name:          "minimal",
			Description:   "Nothing but a SKILL.md.",
			Files:         []layout.File{{Path: "SKILL.md", Digest: layout.DigestOf([]byte("m")), Size: 40}},
			TarGz:         layout.Archive{Digest: layout.DigestOf([]byte("mt")), Size: 200},
			Zip:           layout.Archive{Digest: layout.DigestOf([]byte("mz")), Size: 300},
			ContentDigest: layout.DigestOf([]byte("mc")),
		},
		Body: body(""),
	}
	// Given out of order, so that the pages also pin the sorting.
	var many []Skill
	for i := range 24 {
		many = append(many, synth(i*17%24, 400))
	}
	return map[string]struct {
		skills []Skill
		o      Options
	}{
		"empty":   {nil, Options{Title: `A "B" & C`}},
		"hostile": {[]Skill{demo()}, Options{}},
		"several": {[]Skill{synth(7, 3000), minimal, demo(), another}, Options{BaseURL: "https://cdn.example/skills/", Generator: "skillpack test", Title: "Team <skills> & co", Publisher: "Example & Co", Source: "https://git.example/team/skills?x=1&y=<2>"}},
		"many":    {many, Options{Generator: "skillpack test"}},
	}
}

// TestRenderGolden pins the page byte for byte. The files in testdata were
// written by the Render of commit a490568, which executed the whole page
// into one buffer; that they still match shows streaming changed no byte.
// After an intended change of the page, rewrite them with
//
//	go test ./catalog -run TestRenderGolden -update
//
// and review the diff (the pages open in a browser).
func TestRenderGolden(t *testing.T) {
	for name, c := range golden() {
		t.Run(name, func(t *testing.T) {
			got, err := render(List(c.skills), c.o)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", name+".html")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./catalog -run TestRenderGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("page differs from %s at byte %d of %d (want %d):\n got %q\nwant %q",
					path, i, len(got), len(want), got[i:min(i+80, len(got))], want[i:min(i+80, len(want))])
			}
		})
	}
}

// synths returns skills 0 to n-1 of synth, in reverse order.
func synths(n, size int) []Skill {
	ss := make([]Skill, n)
	for i := range ss {
		ss[n-1-i] = synth(i, size)
	}
	return ss
}

// counted replaces the Body of every skill by one that counts its calls.
func counted(ss []Skill) []atomic.Int32 {
	calls := make([]atomic.Int32, len(ss))
	for i := range ss {
		b := ss[i].Body
		ss[i].Body = func() ([]byte, error) {
			calls[i].Add(1)
			return b()
		}
	}
	return calls
}

// total is the sum of calls.
func total(calls []atomic.Int32) int {
	n := 0
	for i := range calls {
		n += int(calls[i].Load())
	}
	return n
}

// noLeak waits until Render's goroutines have exited: parallel.Each waits
// for them, but one may still be on its way out after it said so.
func noLeak(t *testing.T, before int) {
	t.Helper()
	for range 200 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines after Render, %d before", runtime.NumGoroutine(), before)
}

// Pages finish rendering out of order and make the same catalog.
func TestRenderOrder(t *testing.T) {
	ss := synths(300, 400)
	want, err := render(List(ss), Options{})
	if err != nil {
		t.Fatal(err)
	}
	slow := synths(300, 400)
	for i := range slow {
		b := slow[i].Body
		slow[i].Body = func() ([]byte, error) {
			time.Sleep(time.Duration(i*7%5) * 200 * time.Microsecond)
			return b()
		}
	}
	got, err := render(List(slow), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the catalog changes with the time pages take")
	}
}

func TestRenderBodyOnce(t *testing.T) {
	ss := synths(200, 400)
	calls := counted(ss)
	if _, err := render(List(ss), Options{}); err != nil {
		t.Fatal(err)
	}
	for i := range calls {
		if n := calls[i].Load(); n != 1 {
			t.Errorf("%s: Body called %d times", ss[i].Name, n)
		}
	}
}

// probe is Skills that counts, for each skill, the calls of Skill and of
// its Body, and lets hook change or fail a read (the first is read 1).
type probe struct {
	Skills
	hook          func(i int, read int32, s *Skill) error
	reads, bodies []atomic.Int32
}

func newProbe(s Skills, hook func(i int, read int32, s *Skill) error) *probe {
	return &probe{Skills: s, hook: hook, reads: make([]atomic.Int32, s.Len()), bodies: make([]atomic.Int32, s.Len())}
}

func (p *probe) Skill(i int) (Skill, error) {
	read := p.reads[i].Add(1)
	s, err := p.Skills.Skill(i)
	if err != nil {
		return s, err
	}
	if b := s.Body; b != nil {
		s.Body = func() ([]byte, error) {
			p.bodies[i].Add(1)
			return b()
		}
	}
	if p.hook != nil {
		err = p.hook(i, read, &s)
	}
	return s, err
}

// reversed is the skills synths(n, 400) gives, made on demand: skill i is
// synth(n-1-i, 400), so positions and names differ.
func reversed(n int) lazy {
	return lazy{n, func(i int) Skill { return synth(n-1-i, 400) }}
}

// Skills made on demand, in another order, give the catalog a List gives;
// each is read a few times (checked and listed by Render, checked and
// rendered by Pages), not once per other skill, and its Body once.
func TestRenderSkills(t *testing.T) {
	cases := golden()
	cases["ordered"] = struct {
		skills []Skill
		o      Options
	}{synths(300, 400), Options{}}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := render(List(c.skills), c.o)
			if err != nil {
				t.Fatal(err)
			}
			n := len(c.skills)
			p := newProbe(lazy{n, func(i int) Skill {
				s := c.skills[n-1-i]
				s.Files = slices.Clone(s.Files)
				return s
			}}, nil)
			got, err := render(p, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Error("the page differs from the List's")
			}
			for i := range n {
				if r, b := p.reads[i].Load(), p.bodies[i].Load(); r > 4 || b != 1 {
					t.Errorf("skill %d: read %d times, its Body called %d times; want at most 4 and 1", i, r, b)
				}
			}
		})
	}
}

// A Skill that fails stops the render, whichever read fails: on the first
// nothing is written and the error names the skill's position, since its
// name is not known; later it names the skill. The front page written
// stops before the skill's entry, and Pages hands over no page of it.
func TestRenderSkillError(t *testing.T) {
	const n = 200
	var full bytes.Buffer
	if err := Render(&full, List(synths(n, 400)), Options{}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	// Positions in reversed(n): skill-0050 is 149.
	for _, tc := range []struct {
		name   string
		read   int32 // the read of skill 149 that fails
		want   string
		before int  // the page's bytes before skill-0050
		exact  bool // all of them are written, not only some
	}{
		// The first read fails in the check, before anything is written,
		// and the reads stop there.
		{"check", 1, "catalog: skill 149: boom", 0, true},
		// The second in the table of contents.
		{"contents", 2, `catalog: skill "skill-0050": boom`, bytes.Index(full.Bytes(), []byte(`<li><a href="skills/skill-0050.html">`)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProbe(reversed(n), func(i int, read int32, s *Skill) error {
				if i == 149 && read == tc.read {
					return boom
				}
				return nil
			})
			var buf bytes.Buffer
			err := Render(&buf, p, Options{})
			if !errors.Is(err, boom) || err.Error() != tc.want {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
			got := buf.Bytes()
			if !bytes.HasPrefix(full.Bytes(), got) || len(got) > tc.before || tc.exact && len(got) != tc.before {
				t.Errorf("wrote %d bytes (the page's: %v), want the %d before skill-0050 (all: %v)", len(got), bytes.HasPrefix(full.Bytes(), got), tc.before, tc.exact)
			}
			for i := range n {
				if b := p.bodies[i].Load(); b != 0 {
					t.Fatalf("skill %d: Body called %d times; the front page reads none", i, b)
				}
			}
			if tc.read == 1 {
				for i := range n {
					want := int32(0)
					if i <= 149 {
						want = 1
					}
					if r := p.reads[i].Load(); r != want {
						t.Fatalf("skill %d read %d times, want %d: the check goes on after a failure", i, r, want)
					}
				}
			}
		})
	}
	// In Pages, the first failing skill in name order, however late it
	// fails: skill-0050 after 20 ms, skill-0052 (147) and skill-0150 (49)
	// at once.
	t.Run("page", func(t *testing.T) {
		later := errors.New("later")
		p := newProbe(reversed(n), func(i int, read int32, s *Skill) error {
			switch {
			case read != 2:
			case i == 149:
				time.Sleep(20 * time.Millisecond)
				return boom
			case i == 147 || i == 49:
				return later
			}
			return nil
		})
		before := runtime.NumGoroutine()
		var mu sync.Mutex
		written := map[int]bool{}
		err := Pages(p, Options{}, func(i int, _ []byte) error {
			mu.Lock()
			defer mu.Unlock()
			written[i] = true
			return nil
		})
		if !errors.Is(err, boom) || err.Error() != `catalog: skill "skill-0050": boom` {
			t.Fatalf("err = %v, want boom from skill-0050", err)
		}
		if written[149] || written[147] {
			t.Error("a page of a skill that failed was handed over")
		}
		noLeak(t, before)
	})
}

// Skills must return the same skill on every call; one that does not fails
// the render rather than put an unchecked skill on the page.
func TestRenderSkillChanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(read int32, s *Skill)
		want   string
	}{
		{"renamed", func(read int32, s *Skill) {
			if read == 2 {
				s.Name = "skill-9999"
			}
		}, `catalog: skill "skill-0003": read again as "skill-9999"`},
		{"no body", func(read int32, s *Skill) {
			if read == 3 {
				s.Body = nil
			}
		}, `catalog: skill "skill-0003": no Body`},
		{"bad digest", func(read int32, s *Skill) {
			if read == 3 {
				s.Files = []layout.File{{Path: "SKILL.md", Digest: "sha256:x"}}
			}
		}, `catalog: skill "skill-0003": file "SKILL.md": digest "sha256:x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProbe(reversed(10), func(i int, read int32, s *Skill) error {
				if i == 6 { // skill-0003
					tc.change(read, s)
				}
				return nil
			})
			_, err := render(p, Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
			if n := p.bodies[6].Load(); n != 0 {
				t.Errorf("the changed skill's Body was called %d times", n)
			}
		})
	}
}

// The front page reads no SKILL.md and links every skill's page; each page
// shows its skill's SKILL.md rendered, links the file, and leads back.
func TestRenderPagesShowBodies(t *testing.T) {
	ss := synths(4, 400)
	for i := range ss {
		ss[i].Body = body("# Usage\n\nRun it.\n")
	}
	calls := counted(ss)
	var front bytes.Buffer
	if err := Render(&front, List(ss), Options{}); err != nil {
		t.Fatal(err)
	}
	if n := total(calls); n != 0 {
		t.Errorf("the front page read %d bodies", n)
	}
	var mu sync.Mutex
	pages := map[string][]byte{}
	err := Pages(List(ss), Options{}, func(i int, page []byte) error {
		mu.Lock()
		defer mu.Unlock()
		pages[ss[i].Name] = bytes.Clone(page)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := total(calls); n != 4 || len(pages) != 4 {
		t.Errorf("%d pages, %d bodies read; want 4 and 4", len(pages), n)
	}
	for _, s := range ss {
		if !bytes.Contains(front.Bytes(), []byte(`<a href="skills/`+s.Name+`.html">`)) {
			t.Errorf("the front page does not link %s's page", s.Name)
		}
		page := pages[s.Name]
		for _, want := range []string{`<details class="doc" open>`, `<h3 id="` + s.Name + `--usage">Usage</h3>`, `href="../.well-known/agent-skills/` + s.Name + `/SKILL.md"`, `<a href="../index.html">`} {
			if !bytes.Contains(page, []byte(want)) {
				t.Errorf("%s's page has no %s", s.Name, want)
			}
		}
	}
}

// A failing Body stops the pages. The error is the first failing skill's
// in name order, whichever fails first in time.
func TestRenderBodyError(t *testing.T) {
	const n = 200
	boom := errors.New("boom")
	ss := synths(n, 400)
	later := make(chan struct{}) // closed once skill-0052's body has failed
	for i := range ss {
		switch ss[i].Name {
		case "skill-0050":
			// Fails last in time, first in order: after skill-0052 (a wait,
			// not a sleep, so that a loaded machine cannot reorder them).
			ss[i].Body = func() ([]byte, error) {
				select {
				case <-later:
				case <-time.After(10 * time.Second):
				}
				return nil, boom
			}
		case "skill-0052":
			ss[i].Body = func() ([]byte, error) { defer close(later); return nil, errors.New("later") }
		case "skill-0150":
			ss[i].Body = func() ([]byte, error) { return nil, errors.New("later") }
		}
	}
	calls := counted(ss)
	before := runtime.NumGoroutine()
	err := Pages(List(ss), Options{}, func(int, []byte) error { return nil })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `skill "skill-0050"`) {
		t.Fatalf("err = %v, want boom from skill-0050", err)
	}
	// Skills 0 to 52, and not all the rest: how many start between
	// skill-0052's failure and its worker saying so depends on the
	// scheduler (90 of 200 on a machine running 20 processes on 2 cores).
	if got := total(calls); got < 53 || got >= n {
		t.Errorf("Body called %d times, want 53 to %d", got, n-1)
	}
	noLeak(t, before)
}

// failWriter accepts n bytes, then fails every write.
type failWriter struct {
	n     int
	fails int
}

var errDisk = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		w.fails++
		return 0, errDisk
	}
	w.n -= len(p)
	return len(p), nil
}

// A failing writer stops the render at the write that failed, naming what
// it was writing; a failing write of a page stops the pages, naming the
// skill.
func TestRenderWriteError(t *testing.T) {
	const n = 200
	var full countWriter
	if err := Render(&full, List(synths(n, 400)), Options{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		n    int // bytes written before the failure
		want string
	}{
		{"head", 0, "catalog: head of the page: disk full"},
		{"foot", int(full.n) - 1, "catalog: foot of the page: disk full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := synths(n, 400)
			calls := counted(ss)
			w := &failWriter{n: tc.n}
			err := Render(w, List(ss), Options{})
			if !errors.Is(err, errDisk) || err.Error() != tc.want {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
			if w.fails != 1 {
				t.Errorf("%d writes failed; Render should stop at the first", w.fails)
			}
			if got := total(calls); got != 0 {
				t.Errorf("Body called %d times; the front page reads none", got)
			}
		})
	}
	t.Run("page", func(t *testing.T) {
		ss := synths(n, 400)
		before := runtime.NumGoroutine()
		err := Pages(List(ss), Options{}, func(i int, _ []byte) error {
			if ss[i].Name == "skill-0010" {
				return errDisk
			}
			return nil
		})
		if !errors.Is(err, errDisk) || err.Error() != `catalog: skill "skill-0010": disk full` {
			t.Fatalf("err = %v, want disk full for skill-0010", err)
		}
		noLeak(t, before)
	})
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// heap renders the catalog of skills and returns the most heap in use
// meanwhile, above what was in use before, and the size of its pages.
func heap(t *testing.T, skills Skills) (used, page int64) {
	t.Helper()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapInuse
	var peak atomic.Uint64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak.Store(max(peak.Load(), m.HeapInuse))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	var w countWriter
	err := Render(&w, skills, Options{})
	if err == nil {
		var mu sync.Mutex
		err = Pages(skills, Options{}, func(_ int, page []byte) error {
			mu.Lock()
			defer mu.Unlock()
			_, err := w.Write(page)
			return err
		})
	}
	close(stop)
	<-stopped
	if err != nil {
		t.Fatal(err)
	}
	return int64(peak.Load()) - int64(base), w.n
}

// The heap Render and Pages use is bounded by their workers, not by the
// bundle. The skills are made on demand, as a build reads them back from
// disk, so the heap holds only what the catalog keeps; each has a 10 KB
// body and a 4 KB description, which the front page and its own page show.
// Rendering 3,500 skills must take about the heap 500 take: had the
// catalog kept the skills, their bodies, their descriptions or the pages,
// the 3,000 more would take at least their 12 MB of descriptions more.
func TestRenderMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("renders pages of about 10 and 70 MB")
	}
	// The workers, and so the bound, scale with the CPUs: fix them so the
	// test means the same on every machine.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	// The collector lets garbage grow to GOGC percent of the live heap
	// before it runs, more when it is short of CPU; kept low, the heap in
	// use follows what Render keeps reachable, which is what streaming
	// bounds.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	const desc = 4 << 10
	skills := func(n int) Skills {
		return lazy{n, func(i int) Skill {
			s := synth(n-1-i, 0)
			s.Description += strings.Repeat(" Words of a long description.", desc/30)
			// Plain text: the test is about memory, and plain text
			// renders fast.
			s.Body = func() ([]byte, error) { return bytes.Repeat([]byte("Plain words of a long SKILL.md. "), 320), nil }
			return s
		}}
	}
	const few, many = 500, 3500
	// The least of five runs: what Render keeps shows in every run, and
	// a collector slowed by other tests on the same CPUs in only some.
	least := func(n int) (used, page int64) {
		used = math.MaxInt64
		for range 5 {
			u, p := heap(t, skills(n))
			used, page = min(used, u), p
		}
		return used, page
	}
	base, _ := least(few)
	used, page := least(many)
	t.Logf("heap in use at most %.1f MB for %d skills, %.1f MB for %d (a page of %.1f MB)", float64(base)/1e6, few, float64(used)/1e6, many, float64(page)/1e6)
	if used > page/4 {
		t.Errorf("Render had %d bytes of heap in use for a page of %d; want less than a quarter", used, page)
	}
	// Half their descriptions: a Render that kept them would take all of
	// them and more (about 12 MB), while the collector's lag alone took
	// up to 4.1 MB here under a loaded CI run (a quarter was 3.1 MB).
	if more := (many - few) * desc / 2; used-base > int64(more) {
		t.Errorf("Render took %d bytes more heap for %d skills than for %d; want less than %d, half of their descriptions", used-base, many, few, more)
	}
}

// BenchmarkRender renders the catalog of 500 skills with 5 KB bodies; the
// MB/s are of pages written.
func BenchmarkRender(b *testing.B) {
	ss := synths(500, 5<<10)
	page, err := render(List(ss), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Render(io.Discard, List(ss), Options{}); err != nil {
			b.Fatal(err)
		}
		if err := Pages(List(ss), Options{}, func(int, []byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// The front page (masthead, search, letter index and every card) is what
// a visitor loads to choose a skill,
// so it has a budget: at 500 skills, 160 KiB with descriptions of 200
// characters (bench/gen's are 120 to 200) and 640 KiB with every one at
// the specification's limit of 1,024. The cards show whole descriptions,
// so the front grows with them, and with nothing else.
func TestRenderFrontBudget(t *testing.T) {
	for _, c := range []struct {
		desc   int
		budget int
	}{{200, 160 << 10}, {1024, 640 << 10}} {
		ss := synths(500, 100)
		for i := range ss {
			d := strings.Repeat(fmt.Sprintf("Use when %d ", i), c.desc)
			ss[i].Description = d[:c.desc]
		}
		var page bytes.Buffer
		if err := Render(&page, List(ss), Options{Title: "Budget", Publisher: "Acme Inc.", Source: "https://github.com/acme/skills"}); err != nil {
			t.Fatal(err)
		}
		front := page.Len()
		t.Logf("descriptions of %d characters: the front page is %d KiB", c.desc, front>>10)
		if front > c.budget {
			t.Errorf("descriptions of %d characters: the front page is %d bytes at 500 skills; the budget is %d", c.desc, front, c.budget)
		}
	}
}
