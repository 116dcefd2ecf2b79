package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// What a hostile server can make verify spend: a deadline for the whole
// check, a cap on an index's skills, a few fetches at once, and one
// --max-size buffer of memory however many bodies never end.

// generatedSkill is the SKILL.md of a generated skill.
func generatedSkill(name string) []byte {
	return []byte("---\nname: " + name + "\ndescription: A generated skill.\n---\n# " + name + "\n")
}

// manySkills serves a v0.2 index of n skill-md entries, each SKILL.md
// answered by file (nil: at once) and everything else not found.
func manySkills(t *testing.T, n int, file http.HandlerFunc) *httptest.Server {
	t.Helper()
	doc := layout.IndexV2{Schema: layout.Schema, Skills: make([]layout.EntryV2, n)}
	for i := range doc.Skills {
		name := fmt.Sprintf("s%06d", i)
		sum := sha256.Sum256(generatedSkill(name))
		doc.Skills[i] = layout.EntryV2{Name: name, Type: layout.TypeSkillMD, Description: "A generated skill.",
			URL: name + "/" + layout.EntryFile, Digest: layout.SumDigest(sum[:])}
	}
	index, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/"+layout.V2Index {
			w.Write(index)
			return
		}
		name, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/"+layout.SkillsDir+"/"), "/"+layout.EntryFile)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if file != nil {
			file(w, r)
		}
		w.Write(generatedSkill(name))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// stall holds a request until the client goes away.
func stall(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

func onlyProblem(t *testing.T, rep *Report, want Problem) {
	t.Helper()
	if len(rep.Problems) != 1 || rep.Omitted != 0 || rep.Problems[0] != want {
		t.Fatalf("want exactly the problem\n\t%s\ngot:\n%s", want, problems(rep))
	}
}

// An index of 100,000 entries is refused whole, before a file is fetched.
func TestURLHundredThousandSkills(t *testing.T) {
	var fetched atomic.Int32
	var stalls atomic.Bool
	srv := manySkills(t, 100000, func(w http.ResponseWriter, r *http.Request) {
		if fetched.Add(1); stalls.Load() {
			stall(w, r)
		}
	})
	rep := fetch(t, srv.URL, Options{})
	onlyProblem(t, rep, Problem{Path: layout.V2Index, Message: "lists 100000 skills, more than the limit of 10000 (--max-skills); not checked further. Pass --max-skills 100000 to check a bundle this large"})
	if n := fetched.Load(); n != 0 || rep.Checked.Skills != 0 {
		t.Errorf("%d files fetched, %d skills checked; want none", n, rep.Checked.Skills)
	}

	// Allowed, it is checked until the deadline, which a server that
	// never answers makes sure to reach, and the report says so once.
	// (The deadline leaves time to read the index, 16 MB, even under the
	// race detector.)
	stalls.Store(true)
	rep = fetch(t, srv.URL, Options{MaxSkills: 100000, Deadline: 5 * time.Second})
	onlyProblem(t, rep, Problem{Path: srv.URL + "/", Message: "not verified: the 5s deadline for the whole check (--deadline) passed after 1 file had been read; the rest was not checked. Raise --deadline, or --jobs to fetch more at once"})
	if rep.Checked.Skills != 100000 {
		t.Errorf("%d skills checked, want 100000", rep.Checked.Skills)
	}
}

// The cap holds for every index, and a folder's too.
func TestMaxSkills(t *testing.T) {
	rep := check(t, built, Options{MaxSkills: 4})
	onlyProblem(t, rep, Problem{Path: layout.V2Index, Message: "lists 5 skills, more than the limit of 4 (--max-skills); not checked further. Pass --max-skills 5 to check a bundle this large"})
	wantOK(t, check(t, built, Options{MaxSkills: 5}))

	// Each other index, given a sixth entry, is not read further.
	dir := copyBuilt(t)
	for _, doc := range []string{layout.V1Index, layout.MCPSkills, layout.MCPIndex} {
		var v any
		if err := json.Unmarshal(readFile(t, dir, doc), &v); err != nil {
			t.Fatal(err)
		}
		switch d := v.(type) {
		case []any:
			v = append(d, d[0])
		case map[string]any:
			list := d["skills"].([]any)
			d["skills"] = append(list, list[0])
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, doc, data)
	}
	rep = check(t, dir, Options{MaxSkills: 5})
	for _, doc := range []string{layout.V1Index, layout.MCPSkills, layout.MCPIndex} {
		wantProblem(t, rep, doc, "lists 6 skills, more than the limit of 5 (--max-skills); not checked further")
	}
}

// The deadline ends a check that servers would make last for ever, each
// file slow but within its own timeout; what was found is still reported.
func TestURLDeadline(t *testing.T) {
	dir := copyBuilt(t)
	p := layout.SkillFile(multi, "scripts/profile.py")
	edit(t, dir, p, "import", "import os\nimport")
	srv := serve(t, dir, map[string]http.HandlerFunc{"/" + layout.SkillFile(other, layout.EntryFile): stall})
	// Long enough for everything but the stalled file on a loaded machine
	// (500 ms was not, at a load average of 34).
	rep := fetch(t, srv.URL, Options{Deadline: 3 * time.Second, Timeout: time.Hour})
	wantProblem(t, rep, p, "but "+layout.MCPSkills+" says")
	wantProblem(t, rep, srv.URL+"/", "not verified: the 3s deadline for the whole check (--deadline) passed after")
	for _, pr := range rep.Problems {
		if strings.HasPrefix(pr.Path, layout.SkillDir(other)) {
			t.Errorf("a file the deadline cut short has a problem of its own: %s", pr)
		}
	}

	// An index not read by the deadline is an error, as it is for any
	// index that cannot be read.
	srv = serve(t, dir, map[string]http.HandlerFunc{"/" + layout.V2Index: stall})
	_, err := URL(context.Background(), srv.URL, Options{Deadline: 200 * time.Millisecond, Timeout: time.Hour})
	if want := "cannot read " + srv.URL + "/" + layout.V2Index + ": not read: the 200ms deadline for the whole check (--deadline) passed"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}

	// A folder too.
	rep = check(t, built, Options{Deadline: time.Nanosecond})
	onlyProblem(t, rep, Problem{Path: built, Message: "not verified: the 1ns deadline for the whole check (--deadline) passed after 0 files had been read; the rest was not checked. Raise --deadline, or --jobs to fetch more at once"})
}

// Files are fetched Jobs at a time: each request waits until Jobs are in
// flight, which only fetching at once achieves.
func TestURLFetchesAtOnce(t *testing.T) {
	const jobs = 4
	var mu sync.Mutex
	inFlight, most := 0, 0
	full := make(chan struct{})
	var once sync.Once // in flight can come back to jobs after the first batch
	srv := manySkills(t, 20, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight == jobs && most == jobs {
			once.Do(func() { close(full) })
		}
		mu.Unlock()
		select {
		case <-full:
		case <-time.After(3 * time.Second): // one at a time: fail, not hang
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
	})
	wantOK(t, fetch(t, srv.URL, Options{Jobs: jobs}))
	if most != jobs {
		t.Errorf("%d requests in flight at most, want %d", most, jobs)
	}
}

// Fetching at once does not change the report.
func TestReportDeterministic(t *testing.T) {
	dir := copyBuilt(t)
	edit(t, dir, layout.SkillFile(multi, "scripts/profile.py"), "import", "import os\nimport")
	edit(t, dir, layout.SkillFile(other, "scripts/check.sh"), "#!", "#!/bin/sh\n#!")
	edit(t, dir, layout.LegacyFile(single, layout.EntryFile), "commit", "cmomit")
	os.Remove(filepath.Join(dir, filepath.FromSlash(layout.SkillFile(single, layout.EntryFile))))
	srv := serve(t, dir, nil)
	text := func(rep *Report) string { return problems(rep) + rep.Summary() }
	url, folder := text(fetch(t, srv.URL, Options{Jobs: 1})), text(check(t, dir, Options{Jobs: 1}))
	for _, jobs := range []int{8, 3, 8, 8} {
		if got := text(fetch(t, srv.URL, Options{Jobs: jobs})); got != url {
			t.Fatalf("URL, jobs %d:\n%s\nwant, as one at a time:\n%s", jobs, got, url)
		}
		if got := text(check(t, dir, Options{Jobs: jobs})); got != folder {
			t.Fatalf("folder, jobs %d:\n%s\nwant, as one at a time:\n%s", jobs, got, folder)
		}
	}
}

// Bodies that never end, or of exactly --max-size bytes, cost one
// --max-size buffer: not one per body, nor the doubling of a growing one,
// nor a copy to decode a document. At 16 MiB, verify allocates less than
// twice that in all while it reads 16 MiB of every file it asks for.
func TestURLHugeBodiesMemory(t *testing.T) {
	const maxSize = 16 << 20
	for name, size := range map[string]int64{"endless": -1, "max-size": maxSize} {
		t.Run(name, func(t *testing.T) {
			dir := copyBuilt(t)
			var served atomic.Int32
			files := http.FileServer(http.Dir(dir))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/"+layout.V2Index {
					files.ServeHTTP(w, r)
					return
				}
				served.Add(1)
				w.(http.Flusher).Flush() // no Content-Length
				huge(size)(w, r)
			}))
			defer srv.Close()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rep := fetch(t, srv.URL, Options{MaxSize: maxSize})
			runtime.ReadMemStats(&after)
			if size < 0 {
				wantProblem(t, rep, layout.MCPSkills, "is larger than the 16777216-byte limit (--max-size); stopped reading")
			} else {
				wantProblem(t, rep, layout.MCPSkills, "not valid JSON")
				wantProblem(t, rep, layout.Checksums, "line 1: not")
			}
			if n := served.Load(); n < 15 {
				t.Fatalf("%d huge bodies read; the test proves little", n)
			}
			got := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %d MiB reading %d bodies", got>>20, served.Load())
			if got >= 2*maxSize {
				t.Errorf("allocated %d MiB reading %d bodies, want less than %d MiB", got>>20, served.Load(), 2*maxSize>>20)
			}
		})
	}
}

// Build and verify keep to one set of limits (pack's): every build of a
// tree of large repetitive files that succeeds gives a bundle verify
// accepts, and a skill over a limit is a finding of the build, which
// --skip-invalid leaves out, never a bundle verify refuses.
func TestBuildVerifyAgree(t *testing.T) {
	root := t.TempDir()
	skillDir := func(name string, body []byte) string {
		dir := filepath.Join(root, "skills", name)
		md := append([]byte("---\nname: "+name+"\ndescription: A generated skill of large repetitive files.\n---\n# "+name+"\n"), body...)
		writeFile(t, dir, "SKILL.md", md)
		return dir
	}
	// A 3 MB CSV of one row, a 50 MB SKILL.md and 60 MiB of one line
	// compress hundreds of times: under deflate's limit, not bombs.
	writeFile(t, skillDir("csv", nil), "data.csv", bytes.Repeat([]byte("2024-01-01,0.000,0.000,0.000\n"), 3_000_000/29))
	skillDir("big-md", bytes.Repeat([]byte("The same line of instructions, again and again.\n"), 50_000_000/48))
	line := skillDir("lines", nil)
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		writeFile(t, line, f, bytes.Repeat([]byte("x"), 20<<20))
	}
	// Over a limit: one file (sparse, never read), too many files, too
	// many bytes unpacked.
	sparse := func(dir, name string, size int64) {
		f, err := os.Create(filepath.Join(dir, name))
		if err == nil {
			err = f.Truncate(size)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	sparse(skillDir("huge-file", nil), "model.bin", pack.MaxFile+1)
	total := skillDir("huge-skill", nil)
	for _, f := range []string{"1.bin", "2.bin", "3.bin", "4.bin"} {
		sparse(total, f, pack.MaxFile)
	}
	many := skillDir("many-files", nil)
	for i := range pack.MaxEntries {
		writeFile(t, many, fmt.Sprintf("f/%05d.txt", i), nil)
	}
	// At every limit at once: files of pack.MaxFile, the archive
	// unpacking to as much of pack.MaxUnpacked as the build's bound
	// allows, all zeros (deflate's best ratio). It builds, and verifies.
	edge := skillDir("at-the-limits", nil)
	sizes := []int64{pack.MaxFile, pack.MaxFile, pack.MaxFile, 0}
	if md, err := os.Stat(filepath.Join(edge, "SKILL.md")); err == nil {
		sizes = append(sizes, md.Size())
	}
	last := (pack.MaxUnpacked - pack.TarBound(sizes)) / 512 * 512
	for i, size := range []int64{pack.MaxFile, pack.MaxFile, pack.MaxFile, last} {
		sparse(edge, fmt.Sprintf("%d.bin", i), size)
	}

	out := filepath.Join(root, "dist")
	_, err := build.Run([]string{filepath.Join(root, "skills")}, build.Options{Out: out})
	var le *build.LintError
	if !errors.As(err, &le) || le.Errors != 3 {
		t.Fatalf("build without --skip-invalid: %v, want 3 lint errors", err)
	}
	res, err := build.Run([]string{filepath.Join(root, "skills")}, build.Options{Out: out, SkipInvalid: true})
	if err != nil {
		t.Fatalf("build --skip-invalid: %v", err)
	}
	want := map[string]string{
		"huge-file":  "the file is 67108865 bytes; verify and pull read no file over 67108864 bytes",
		"huge-skill": "bytes; verify and pull unpack no archive to more than 268435456 bytes",
		"many-files": "the skill has 10001 files; verify and pull refuse an archive of more than 10000",
	}
	for _, s := range res.Skipped {
		if len(s.Findings) != 1 || !strings.Contains(s.Findings[0].Message, want[s.Name]) || want[s.Name] == "" {
			t.Errorf("%s left out for %+v, want %q", s.Name, s.Findings, want[s.Name])
		}
		delete(want, s.Name)
	}
	if len(want) > 0 {
		t.Errorf("not left out: %v", want)
	}
	wantOK(t, check(t, out, Options{}))
}

// A bundle whose documents a reader would refuse is refused by the build
// first, naming the document and the limit: 68 skills of 1 MB of
// frontmatter make mcp/index.json, which copies each, larger than
// layout.MaxDocument. Without four of them the build writes it, and verify
// accepts it: at the limit, build and verify agree.
func TestBuildVerifyAgreeDocuments(t *testing.T) {
	// The build holds documents to layout's limit, verify every file to
	// pack's: the one must not be over the other.
	if layout.MaxDocument > DefaultMaxSize {
		t.Fatalf("the build writes documents of up to %d bytes; verify reads no file over %d", layout.MaxDocument, DefaultMaxSize)
	}
	root := t.TempDir()
	skills := filepath.Join(root, "skills")
	notes := strings.Repeat("x", 1_000_000)
	for i := range 68 {
		name := fmt.Sprintf("s%02d", i)
		writeFile(t, filepath.Join(skills, name), "SKILL.md", []byte("---\nname: "+name+"\ndescription: A generated skill of a large frontmatter.\nmetadata:\n  notes: "+notes+"\n---\n# "+name+"\n"))
	}
	out := filepath.Join(root, "dist")
	_, err := build.Run([]string{skills}, build.Options{Out: out})
	var le *layout.LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), layout.MCPIndex+" would be ") || !strings.Contains(err.Error(), "read no document over 67108864 bytes") {
		t.Fatalf("68 MB of frontmatter: %v, want a LimitError naming %s", err, layout.MCPIndex)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused build left %s: %v", out, err)
	}
	for i := 64; i < 68; i++ {
		if err := os.RemoveAll(filepath.Join(skills, fmt.Sprintf("s%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := build.Run([]string{skills}, build.Options{Out: out}); err != nil {
		t.Fatalf("64 MB of frontmatter: %v", err)
	}
	wantOK(t, check(t, out, Options{}))
}
