package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// manySkills generates n valid skills with varied files, for the tests
// that compare streamed documents with whole-document encoding. The names
// include "index" and "a"/"a-b", whose URIs interleave with
// skill://index.json and with each other's archives; descriptions carry
// what JSON encoders treat specially (<, >, &, U+2028, quotes,
// backslashes, tabs); every seventh skill has a path the v0.1 index
// refuses; some frontmatter is indented, which the documents re-indent.
func manySkills(n int) []Skill {
	r := rand.New(rand.NewSource(int64(n)))
	names := []string{"a", "a-b", "index", "ab", "a0", "z"}
	descs := []string{
		"Plain.",
		"Fill & merge <forms> -> done.",
		"Line\u2028separator and paragraph\u2029separator.",
		`Quotes "here", a back\slash and a	tab.`,
		"Émoji 😀 and ünïcode.",
	}
	pool := []string{"scripts/run.sh", "references/A.md", "a-b/c.txt", "a/b.txt", "Z.md", "0.md", "deep/x/y/z.py", "space name.md", "data.bin", "assets/form.json"}
	var skills []Skill
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		if i < len(names) {
			name = names[i]
		}
		files := content{EntryFile: fmt.Sprintf("---\nname: %s\n---\n# %d\n", name, i)}
		for _, p := range pool {
			if r.Intn(3) == 0 {
				files[p] = fmt.Sprintf("%s of %s", p, name)
			}
		}
		if i%7 == 3 {
			files["notes/v1..2.md"] = "excluded from v0.1"
		}
		extra := ""
		if i%3 == 1 {
			extra = `,"metadata":{"note":"<b>&amp;</b> ` + "\u2028" + `","version":"1.0"},"allowed-tools":["Read","Bash(git:*)"]`
		}
		s := makeSkill(name, descs[i%len(descs)], files, extra)
		if i%4 == 2 {
			var b bytes.Buffer
			if err := json.Indent(&b, s.Frontmatter, "\t", "   "); err != nil {
				panic(err)
			}
			s.Frontmatter = b.Bytes()
		}
		skills = append(skills, s)
	}
	return skills
}

// reference is every document as layout encoded it before documents were
// streamed: json.Encoder over the whole struct. It is the standard the
// streamed bytes are held to, kept here so that it cannot drift with the
// code it checks.
func reference(t *testing.T, skills []Skill, o Options) map[string][]byte {
	t.Helper()
	ss, err := prepare(skills, o)
	if err != nil {
		t.Fatal(err)
	}
	encode := func(v any) []byte {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	docs := map[string][]byte{}

	url := func(distPath string) string {
		if o.BaseURL == "" {
			return relToV2(distPath)
		}
		return joinURL(o.BaseURL, distPath)
	}
	v2 := IndexV2{Schema: Schema, Generator: o.Generator, Skills: []EntryV2{}}
	for _, s := range ss {
		e := EntryV2{Name: s.Name, Description: s.Description, Version: s.Version, ContentDigest: s.ContentDigest}
		if len(s.Files) == 1 {
			e.Type, e.URL, e.Digest = "skill-md", url(SkillFile(s.Name, EntryFile)), s.entry().Digest
		} else {
			e.Type, e.URL, e.Digest = "archive", url(ArchivePath(s.Name, s.TarGz.Digest, TarGz)), s.TarGz.Digest
		}
		v2.Skills = append(v2.Skills, e)
	}
	docs[V2Index] = encode(v2)

	v1 := IndexV1{Generator: o.Generator, Skills: []EntryV1{}}
	for _, s := range ss {
		if legacyReason(s) != "" {
			continue
		}
		e := EntryV1{Name: s.Name, Description: s.Description, Files: []string{EntryFile}}
		for _, f := range s.Files {
			if f.Path != EntryFile {
				e.Files = append(e.Files, f.Path)
			}
		}
		v1.Skills = append(v1.Skills, e)
	}
	docs[V1Index] = encode(v1)

	list := []SkillMCP{}
	for _, s := range ss {
		e := SkillMCP{URI: SkillURI(s.Name, EntryFile), Frontmatter: s.Frontmatter, Resources: []FileMCP{}}
		for _, f := range s.Files {
			e.Resources = append(e.Resources, FileMCP{URI: SkillURI(s.Name, f.Path), Digest: f.Digest, Size: new(f.Size)})
		}
		list = append(list, e)
	}
	slices.SortFunc(list, func(a, b SkillMCP) int { return strings.Compare(a.URI, b.URI) })
	docs[MCPSkills] = encode(list)

	index := IndexMCP{Schema: Schema, Generator: o.Generator, Skills: []EntryMCP{}}
	for _, s := range ss {
		index.Skills = append(index.Skills, EntryMCP{
			Name: s.Name, Type: "skill-md", Description: s.Description, URL: SkillURI(s.Name, EntryFile),
			Digest: s.entry().Digest, Frontmatter: s.Frontmatter,
			Archives: []ArchiveMCP{
				{URL: ArchiveURI(s.Name, s.TarGz.Digest, TarGz), MimeType: MimeType("a." + TarGz), Digest: s.TarGz.Digest},
				{URL: ArchiveURI(s.Name, s.Zip.Digest, Zip), MimeType: MimeType("a." + Zip), Digest: s.Zip.Digest},
			},
			ContentDigest: s.ContentDigest,
		})
	}
	docs[MCPIndex] = encode(index)

	rs := []Resource{{URI: IndexURI, Path: MCPIndex, MimeType: MimeType(MCPIndex), Size: new(int64(len(docs[MCPIndex]))), Digest: DigestOf(docs[MCPIndex])}}
	for _, s := range ss {
		for _, f := range s.Files {
			rs = append(rs, Resource{URI: SkillURI(s.Name, f.Path), Path: SkillFile(s.Name, f.Path), MimeType: MimeType(f.Path), Size: new(f.Size), Digest: f.Digest})
		}
		for _, a := range []struct {
			ext string
			a   Archive
		}{{TarGz, s.TarGz}, {Zip, s.Zip}} {
			rs = append(rs, Resource{URI: ArchiveURI(s.Name, a.a.Digest, a.ext), Path: ArchivePath(s.Name, a.a.Digest, a.ext), MimeType: MimeType("a." + a.ext), Size: new(a.a.Size), Digest: a.a.Digest})
		}
	}
	slices.SortFunc(rs, func(a, b Resource) int { return strings.Compare(a.URI, b.URI) })
	docs[MCPResources] = encode(rs)
	return docs
}

// referenceChecksums is checksums.txt as it was built before: the sums of
// every archive, JSON index and the catalog in b, sorted by path.
func referenceChecksums(t *testing.T, b *Planned) []byte {
	var sums []Sum
	for _, e := range entries(t, b) {
		if e.Kind == KindArchive || e.Kind == KindDoc && (strings.HasSuffix(e.Path, ".json") || e.Path == Catalog) {
			sums = append(sums, Sum{Path: e.Path, Digest: e.Digest})
		}
	}
	slices.SortFunc(sums, func(a, b Sum) int { return strings.Compare(a.Path, b.Path) })
	var s strings.Builder
	for _, x := range sums {
		s.WriteString(x.Digest.Hex() + "  " + x.Path + "\n")
	}
	return []byte(s.String())
}

// The main guard of streaming: every document Plan writes, and every one
// the exported functions return, is byte for byte what encoding the whole
// document gave.
func TestStreamedEqualsEncoded(t *testing.T) {
	page := []byte("<!doctype html>\n<title>catalog</title>\n")
	inputs := []struct {
		name   string
		skills []Skill
	}{
		{"none", nil},
		{"one", manySkills(1)},
		{"two", twoSkills()},
		{"fifty", manySkills(50)},
	}
	opts := []Options{
		{},
		{Generator: "skillpack <test> & \u2028 [] x"}, // "[]" too: the array's brackets are found in the framing
		{BaseURL: "https://cdn.example.com/a/", Catalog: &Rendered{Digest: DigestOf(page), Size: int64(len(page))}},
		{BaseURL: "http://localhost:8080", NoLegacy: true, Generator: "g"},
	}
	for _, in := range inputs {
		for _, o := range opts {
			t.Run(fmt.Sprintf("%s/%s,%v,%q", in.name, o.BaseURL, o.NoLegacy, o.Generator), func(t *testing.T) {
				want := reference(t, in.skills, o)
				b := plan(t, in.skills, o)
				if in.name == "fifty" && (o.NoLegacy != (len(b.Excluded) == 0)) {
					t.Fatalf("the input should exclude legacy skills; excluded %v", b.Excluded)
				}
				want[Checksums] = referenceChecksums(t, b)
				want[NoJekyll] = []byte{}
				want[Headers] = HeadersDoc(false)
				if o.NoLegacy {
					delete(want, V1Index)
				}
				for _, e := range entries(t, b) {
					if e.Kind != KindDoc || e.Path == Catalog {
						continue
					}
					got := docBytes(t, e)
					w, ok := want[e.Path]
					if !ok {
						t.Errorf("unexpected document %s", e.Path)
						continue
					}
					delete(want, e.Path)
					if !bytes.Equal(got, w) {
						t.Errorf("%s differs from whole-document encoding:\n got %q\nwant %q", e.Path, got, w)
					}
					if e.Digest != DigestOf(got) || e.Size != int64(len(got)) {
						t.Errorf("%s: planned %s %d, rendered %s %d", e.Path, e.Digest, e.Size, DigestOf(got), len(got))
					}
				}
				for p := range want {
					t.Errorf("plan lacks %s", p)
				}

				ref := reference(t, in.skills, o)
				for p, doc := range map[string]func() ([]byte, error){
					V2Index:      func() ([]byte, error) { return V2IndexDoc(in.skills, o) },
					V1Index:      func() ([]byte, error) { d, _, err := V1IndexDoc(in.skills, o); return d, err },
					MCPSkills:    func() ([]byte, error) { return MCPSkillsDoc(in.skills) },
					MCPIndex:     func() ([]byte, error) { return MCPIndexDoc(in.skills, o) },
					MCPResources: func() ([]byte, error) { return MCPResourcesDoc(in.skills, o) },
				} {
					if got, err := doc(); err != nil || !bytes.Equal(got, ref[p]) {
						t.Errorf("the function for %s differs from whole-document encoding (err %v)", p, err)
					}
				}
			})
		}
	}
}

func TestWriteRepeatable(t *testing.T) {
	b := plan(t, manySkills(50), Options{})
	for _, e := range entries(t, b) {
		if e.Kind != KindDoc {
			continue
		}
		// Concurrently as well: a writer may render several documents at
		// once, and each call must stand alone.
		results := make([][]byte, 4)
		errs := make([]error, len(results))
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() {
				var buf bytes.Buffer
				errs[i] = e.Write(&buf)
				results[i] = buf.Bytes()
			})
		}
		wg.Wait()
		for i := range results {
			if errs[i] != nil || !bytes.Equal(results[i], results[0]) {
				t.Errorf("%s: call %d gave other bytes (err %v)", e.Path, i, errs[i])
			}
		}
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int64 }

var errWrite = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if int64(len(p)) > f.n {
		k := f.n
		f.n = 0
		return int(k), errWrite
	}
	f.n -= int64(len(p))
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	b := plan(t, manySkills(50), Options{})
	for _, e := range entries(t, b) {
		if e.Kind != KindDoc || e.Size == 0 {
			continue
		}
		// At the start, in the middle of the array, and on the last byte.
		for _, n := range []int64{0, e.Size / 2, e.Size - 1} {
			if err := e.Write(&failAfter{n: n}); !errors.Is(err, errWrite) {
				t.Errorf("%s failing after %d bytes: err %v, want %v", e.Path, n, err, errWrite)
			}
		}
	}
}

func TestCatalogPlanned(t *testing.T) {
	page := Rendered{Digest: DigestOf([]byte("<html>")), Size: 6}
	b := plan(t, twoSkills(), Options{Catalog: &page})
	e, ok := b.Lookup(Catalog)
	if !ok || e.Kind != KindDoc || e.Write != nil || e.Digest != page.Digest || e.Size != page.Size {
		t.Fatalf("catalog entry %+v, %v; want a doc without Write, with the given digest and size", e, ok)
	}
	if line := page.Digest.Hex() + "  " + Catalog + "\n"; !bytes.Contains(data(t, b, Checksums), []byte(line)) {
		t.Errorf("checksums.txt lacks %q:\n%s", line, data(t, b, Checksums))
	}
	for _, bad := range []Rendered{{Digest: "sha256:abc", Size: 6}, {Digest: page.Digest, Size: -1}} {
		if _, err := Plan(List(twoSkills()), Options{Catalog: &bad}); err == nil || !strings.Contains(err.Error(), "catalog") {
			t.Errorf("catalog %+v: err %v, want a catalog error", bad, err)
		}
	}
}

func TestCompareParts(t *testing.T) {
	// compareParts must agree with comparing the joined strings, whatever
	// the split.
	words := []string{"", "a", "a-", "a/", "ab", "b", "skill://a/", "skill://a-b", "skill://index.json", "skill://index/"}
	for _, a1 := range words {
		for _, a2 := range words {
			for _, b1 := range words {
				for _, b2 := range words {
					for _, c := range []struct{ a, b key }{
						{keyOf(a1, a2), keyOf(b1, b2)},
						{keyOf(a1, "", a2), keyOf(b1, b2, "")},
						{keyOf(a1, a2, a1), keyOf(b1, b2, b1)},
					} {
						got := compareParts(c.a, c.b)
						want := strings.Compare(strings.Join(c.a[:], ""), strings.Join(c.b[:], ""))
						if (got < 0) != (want < 0) || (got == 0) != (want == 0) {
							t.Fatalf("compareParts(%q, %q) = %d, want the sign of %d", c.a, c.b, got, want)
						}
					}
				}
			}
		}
	}
}

// A whole document in memory would show in the heap: writing every
// document of a large bundle must not raise the live heap by more than a
// fraction of the largest one.
func TestStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("plans 5,000 skills")
	}
	b := plan(t, manySkills(5000), Options{Generator: "skillpack test"})
	var docs []func(io.Writer) error
	var total int64
	largest := Entry{}
	for _, e := range entries(t, b) {
		if e.Kind == KindDoc {
			docs = append(docs, e.Write)
			total += e.Size
			if e.Size > largest.Size {
				largest = e
			}
		}
	}
	streamed := liveRise(t, docs)
	// The control: the same measurement of the largest document held in
	// memory, as Plan held every document before. If it did not show,
	// this test could not fail.
	held := liveRise(t, []func(io.Writer) error{func(w io.Writer) error {
		_, err := w.Write(docBytes(t, largest))
		return err
	}})
	t.Logf("documents %.1f MB in all, largest %.1f MB; live heap rise writing them all %.3f MB, holding the largest %.1f MB",
		mb(total), mb(largest.Size), mb(streamed), mb(held))
	if limit := largest.Size / 4; streamed > limit || held < limit {
		t.Errorf("live heap rise writing the documents %.3f MB, holding the largest %.1f MB: want the first under %.1f MB and the second over it",
			mb(streamed), mb(held), mb(limit))
	}
}

// liveRise writes each document to a probe that, on the first of every
// 2000 writes, collects garbage and reads the heap, and returns how far the
// live heap rose above its level before. Collecting first measures what
// the writer holds, not garbage the collector has yet to reach.
func liveRise(t *testing.T, docs []func(io.Writer) error) int64 {
	t.Helper()
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	peak := base
	for _, write := range docs {
		writes := 0
		probe := writerFunc(func(p []byte) (int, error) {
			if writes%2000 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapAlloc)
			}
			writes++
			return len(p), nil
		})
		if err := write(probe); err != nil {
			t.Fatal(err)
		}
	}
	return int64(peak - base)
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// Plan keeps a row per skill and nothing per file: planning and listing a
// bundle whose skills have many files must raise the live heap by a small
// fraction of what the skills themselves take. Plan used to keep a sorted
// deep copy of every skill and an entry per file, more than the skills.
func TestPlanMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("plans 2,000 skills of 40 files")
	}
	heap := func() int64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	before := heap()
	var skills List
	for i := range 2000 {
		files := content{EntryFile: fmt.Sprintf("---\nname: s%d\n---\n", i)}
		for j := range 40 {
			files[fmt.Sprintf("references/part-%02d.md", j)] = fmt.Sprintf("%d/%d", i, j)
		}
		skills = append(skills, makeSkill(fmt.Sprintf("s%d", i), "S.", files, ""))
	}
	held := heap() - before

	before = heap()
	b, err := Plan(skills, Options{})
	if err != nil {
		t.Fatal(err)
	}
	planned := heap() - before
	// Listing reads one skill at a time: sample the heap as it goes.
	var listed int64
	n := 0
	for _, err := range b.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n%5000 == 0 {
			listed = max(listed, heap()-before)
		}
	}
	t.Logf("skills %.1f MB, %d entries; live heap rise: planned %.2f MB, listing %.2f MB", mb(held), n, mb(planned), mb(listed))
	if n != b.Len() || n < 2000*80 {
		t.Fatalf("listed %d entries, Len %d", n, b.Len())
	}
	if limit := held / 8; planned > limit || listed > limit {
		t.Errorf("the plan took %.2f MB and listing %.2f MB for skills of %.1f MB: want both under %.1f MB", mb(planned), mb(listed), mb(held), mb(limit))
	}
	runtime.KeepAlive(skills)
}

// flaky is Skills that fail or change after the first read of each skill.
type flaky struct {
	List
	reads  map[int]int
	change bool // after the first read, a file's digest changes; else Skill fails
}

func (f *flaky) Skill(i int) (Skill, error) {
	f.reads[i]++
	s := f.List[i]
	if f.reads[i] == 1 {
		return s, nil
	}
	if !f.change {
		return Skill{}, errors.New("disk on fire")
	}
	s.TarGz.Size++
	return s, nil
}

// A skill read again must be the skill Plan checked: an error or a change
// stops the plan, naming the skill, rather than rendering documents that
// contradict their digests.
func TestPlanRereads(t *testing.T) {
	for _, change := range []bool{false, true} {
		src := &flaky{List: twoSkills(), reads: map[int]int{}, change: change}
		_, err := Plan(src, Options{})
		want := "disk on fire"
		if change {
			want = "changed between two reads"
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "skill \"") {
			t.Errorf("change %v: Plan error %v, want one naming the skill and %q", change, err, want)
		}
	}
}
