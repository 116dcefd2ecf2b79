package layout

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func plan(t *testing.T, skills []Skill, o Options) *Planned {
	t.Helper()
	b, err := Plan(List(skills), o)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	return b
}

func data(t *testing.T, b *Planned, path string) []byte {
	t.Helper()
	e, ok := b.Lookup(path)
	if !ok {
		t.Fatalf("bundle has no %s", path)
	}
	if e.Kind != KindDoc {
		t.Fatalf("%s is a %v, not a doc", path, e.Kind)
	}
	return docBytes(t, e)
}

// docBytes renders a document entry.
func docBytes(t *testing.T, e Entry) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := e.Write(&b); err != nil {
		t.Fatalf("%s: %v", e.Path, err)
	}
	return b.Bytes()
}

func TestReaders(t *testing.T) {
	const site = "https://example.com/docs/"
	for _, o := range []Options{
		{},
		{NoLegacy: true}, // v0.2 must stand alone: an unknown $schema would send the CLI to a tree that is not there
		{BaseURL: "https://cdn.example.com/docs/"},
	} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			b := plan(t, twoSkills(), o)
			f := fetcher{site: site, b: b}
			if o.BaseURL != "" {
				f.site = o.BaseURL
			}
			want := []string{"hello", "pdf-processing"}

			names, dropped, err := v2Reader(data(t, b, V2Index), f)
			if err != nil || len(dropped) > 0 || !slices.Equal(names, want) {
				t.Errorf("v0.2 reader: names %v, dropped %v, err %v", names, dropped, err)
			}

			if o.NoLegacy {
				for _, e := range entries(t, b) {
					if strings.HasPrefix(e.Path, LegacyDir+"/") {
						t.Errorf("NoLegacy bundle has %s", e.Path)
					}
				}
			} else if names, err := v1Reader(data(t, b, V1Index), f); err != nil || !slices.Equal(names, want) {
				t.Errorf("v0.1 reader: names %v, err %v", names, err)
			}

			table, err := resourceTable(data(t, b, MCPResources), b)
			if err != nil {
				t.Fatalf("resources.json: %v", err)
			}
			if r := table[IndexURI]; r == nil || r["path"] != MCPIndex || r["digest"] != string(DigestOf(data(t, b, MCPIndex))) {
				t.Errorf("resources.json: skill://index.json is %v", r)
			}
			if names, err := mcpReader(data(t, b, MCPSkills), table); err != nil || !slices.Equal(names, want) {
				t.Errorf("MCP reader: names %v, err %v", names, err)
			}
			if names, err := mcpcReader(data(t, b, MCPIndex), table); err != nil || !slices.Equal(names, want) {
				t.Errorf("legacy MCP reader: names %v, err %v", names, err)
			}
		})
	}
}

func TestV2Entries(t *testing.T) {
	skills := twoSkills()
	doc, err := V2IndexDoc(skills, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Skills []map[string]string `json:"skills"`
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	pdf := skills[0]
	want := []map[string]string{
		{"name": "hello", "type": "skill-md", "description": "Say hello.",
			"url": "hello/SKILL.md", "digest": string(skills[1].entry().Digest), "contentDigest": string(skills[1].ContentDigest)},
		{"name": "pdf-processing", "type": "archive", "description": pdf.Description, "version": "2.1.0",
			"url": ArchiveName(pdf.Name, pdf.TarGz.Digest, TarGz), "digest": string(pdf.TarGz.Digest), "contentDigest": string(pdf.ContentDigest)},
	}
	if !slices.EqualFunc(got.Skills, want, func(a, b map[string]string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
		t.Errorf("entries:\n got %v\nwant %v", got.Skills, want)
	}
	if !bytes.Contains(doc, []byte(`"Extract, fill & merge PDF <forms>."`)) {
		t.Errorf("description was escaped:\n%s", doc)
	}
}

// A skill's version is in its index entry when it is SemVer, from
// metadata.version or else, under a profile that knows the key, a
// top-level version, and absent otherwise.
func TestVersionOf(t *testing.T) {
	for _, c := range []struct {
		fm             string
		topLevel, none string // the version with and without top-level versions
	}{
		{`{"name":"a","metadata":{"version":"1.2.3"}}`, "1.2.3", "1.2.3"},
		{`{"name":"a","version":"2.0.0-rc.1"}`, "2.0.0-rc.1", ""},
		{`{"name":"a","version":"9.9.9","metadata":{"version":"1.0.0"}}`, "1.0.0", "1.0.0"},
		{`{"name":"a","version":"9.9.9","metadata":{"version":"1.0"}}`, "", ""},
		{`{"name":"a","metadata":{"version":"1.0"}}`, "", ""},
		{`{"name":"a","metadata":{"version":"v1.0.0"}}`, "", ""},
		{`{"name":"a","metadata":{"version":1}}`, "", ""},
		{`{"name":"a"}`, "", ""},
		{`[1]`, "", ""},
	} {
		if got := VersionOf(json.RawMessage(c.fm), true); got != c.topLevel {
			t.Errorf("%s, top level allowed: version %q, want %q", c.fm, got, c.topLevel)
		}
		if got := VersionOf(json.RawMessage(c.fm), false); got != c.none {
			t.Errorf("%s, top level not allowed: version %q, want %q", c.fm, got, c.none)
		}
	}
}

func TestBaseURL(t *testing.T) {
	skills := twoSkills()
	for base, want := range map[string]string{
		"https://example.com/skills":   "https://example.com/skills/.well-known/agent-skills/hello/SKILL.md",
		"https://example.com/skills/":  "https://example.com/skills/.well-known/agent-skills/hello/SKILL.md",
		"https://example.com//":        "https://example.com/.well-known/agent-skills/hello/SKILL.md",
		"http://localhost:8080":        "http://localhost:8080/.well-known/agent-skills/hello/SKILL.md",
		"https://cdn.example.com/a/b/": "https://cdn.example.com/a/b/.well-known/agent-skills/hello/SKILL.md",
	} {
		doc, err := V2IndexDoc(skills, Options{BaseURL: base})
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if !bytes.Contains(doc, []byte(`"url": "`+want+`"`)) {
			t.Errorf("base %s: want url %s in\n%s", base, want, doc)
		}
		archive := strings.TrimSuffix(want, "hello/SKILL.md") + ArchiveName("pdf-processing", skills[0].TarGz.Digest, TarGz)
		if !bytes.Contains(doc, []byte(`"url": "`+archive+`"`)) {
			t.Errorf("base %s: want url %s in\n%s", base, archive, doc)
		}
	}
	for _, bad := range []string{"example.com", "/skills", "ftp://example.com", "https://example.com/?x=1", "https://example.com/#top", "https://u:p@example.com", "https://"} {
		if _, err := V2IndexDoc(skills, Options{BaseURL: bad}); err == nil || !strings.Contains(err.Error(), "base URL") {
			t.Errorf("base %q: err %v, want a base URL error", bad, err)
		}
	}
}

func TestV1Exclusion(t *testing.T) {
	skills := append(twoSkills(),
		makeSkill("dots", "Has a double dot.", content{"SKILL.md": "x", "notes/v1..2.md": "y"}, ""),
		makeSkill("query", "Has a question mark.", content{"SKILL.md": "x", "what?.md": "y"}, ""),
		makeSkill("unicode", "Has a non-ASCII path.", content{"SKILL.md": "x", "café.md": "y"}, ""),
	)
	b := plan(t, skills, Options{})
	f := fetcher{site: "https://example.com/", b: b}
	names, err := v1Reader(data(t, b, V1Index), f)
	if err != nil || !slices.Equal(names, []string{"hello", "pdf-processing"}) {
		t.Errorf("v0.1 reader: names %v, err %v", names, err)
	}
	var left []string
	for _, x := range b.Excluded {
		left = append(left, x.Name)
	}
	if !slices.Equal(left, []string{"dots", "query", "unicode"}) {
		t.Errorf("Excluded = %v", b.Excluded)
	}
	if x := b.Excluded[0]; !strings.Contains(x.Reason, `"notes/v1..2.md"`) || !strings.Contains(x.Reason, `".."`) {
		t.Errorf("reason %q does not name the file and the rule", x.Reason)
	}
	for _, e := range entries(t, b) {
		if strings.HasPrefix(e.Path, LegacyDir+"/dots/") {
			t.Errorf("excluded skill still in the legacy tree: %s", e.Path)
		}
	}
	// Every other document keeps the excluded skills.
	names, dropped, err := v2Reader(data(t, b, V2Index), f)
	if err != nil || len(dropped) > 0 || len(names) != 5 {
		t.Errorf("v0.2 reader: names %v, dropped %v, err %v", names, dropped, err)
	}
	if _, ok := b.Lookup(SkillFile("dots", "notes/v1..2.md")); !ok {
		t.Error("excluded skill missing from the v0.2 tree")
	}
	doc, left2, err := V1IndexDoc(skills, Options{})
	if err != nil || !bytes.Equal(doc, data(t, b, V1Index)) || len(left2) != 3 {
		t.Errorf("V1IndexDoc differs from Plan: %v, %v", left2, err)
	}
}

// A skill MCP hosts refuse (Skill.OffMCP) is left out of the three MCP
// documents, with its reason, and kept in every other: its files,
// archives, the v0.2 and v0.1 indexes, checksums.txt. The build record
// carries the reason.
func TestMCPExclusion(t *testing.T) {
	off := makeSkill("nested", "Has nested metadata.", content{"SKILL.md": "x", "notes.md": "y"}, `,"metadata":{"openclaw":"{}"}`)
	off.OffMCP, off.OffMCPFix = "metadata.openclaw is a mapping, where MCP hosts take only strings", "flatten it"
	b := plan(t, append(twoSkills(), off), Options{})
	if len(b.OffMCP) != 1 || b.OffMCP[0] != (Excluded{Name: "nested", Reason: off.OffMCP, Fix: "flatten it"}) {
		t.Errorf("OffMCP = %v", b.OffMCP)
	}
	for _, doc := range []string{MCPSkills, MCPIndex, MCPResources} {
		d := string(data(t, b, doc))
		if strings.Contains(d, "nested") || !strings.Contains(d, "skill://hello/SKILL.md") {
			t.Errorf("%s lists the skill MCP hosts refuse, or not the others:\n%s", doc, d)
		}
	}
	f := fetcher{site: "https://example.com/", b: b}
	if names, dropped, err := v2Reader(data(t, b, V2Index), f); err != nil || len(dropped) > 0 || !slices.Contains(names, "nested") {
		t.Errorf("v0.2 reader: names %v, dropped %v, err %v", names, dropped, err)
	}
	if names, err := v1Reader(data(t, b, V1Index), f); err != nil || !slices.Contains(names, "nested") {
		t.Errorf("v0.1 reader: names %v, err %v", names, err)
	}
	for _, p := range []string{SkillFile("nested", "notes.md"), LegacyFile("nested", "notes.md"), ArchivePath("nested", off.TarGz.Digest, TarGz)} {
		if _, ok := b.Lookup(p); !ok {
			t.Errorf("%s is not in the bundle", p)
		}
	}
	if sums := string(data(t, b, Checksums)); !strings.Contains(sums, ArchivePath("nested", off.Zip.Digest, Zip)) {
		t.Errorf("checksums.txt does not list the skill's archives:\n%s", sums)
	}
	var rec bytes.Buffer
	if err := (&Record{MCPExcluded: b.OffMCP}).Encode(&rec); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecord(rec.Bytes())
	if err != nil || !slices.Equal(back.MCPExcluded, b.OffMCP) || !strings.Contains(rec.String(), `"mcpExcluded": [`) {
		t.Errorf("the record's mcpExcluded: %v, %v\n%s", back, err, rec.String())
	}
	if rec.Reset(); (&Record{}).Encode(&rec) != nil || strings.Contains(rec.String(), "mcpExcluded") {
		t.Errorf("a record with no skill left out names mcpExcluded:\n%s", rec.String())
	}
}

func TestV1FilesOrder(t *testing.T) {
	// "A.md" and "0.md" sort before "SKILL.md"; v0.1 wants SKILL.md first.
	s := makeSkill("order", "Order.", content{"SKILL.md": "s", "A.md": "a", "0.md": "0", "z/y.md": "z"}, "")
	doc, _, err := V1IndexDoc([]Skill{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Skills []struct{ Files []string } `json:"skills"`
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if want := []string{"SKILL.md", "0.md", "A.md", "z/y.md"}; !slices.Equal(got.Skills[0].Files, want) {
		t.Errorf("files = %v, want %v", got.Skills[0].Files, want)
	}
}

func TestMCPFrontmatterUnchanged(t *testing.T) {
	skills := twoSkills()
	var want bytes.Buffer
	json.Compact(&want, skills[0].Frontmatter)
	type entry struct {
		URI, Name   string
		Frontmatter json.RawMessage
	}
	skillsDoc, err := MCPSkillsDoc(skills)
	if err != nil {
		t.Fatal(err)
	}
	var list []entry
	if err := json.Unmarshal(skillsDoc, &list); err != nil {
		t.Fatal(err)
	}
	indexDoc, err := MCPIndexDoc(skills, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var index struct{ Skills []entry }
	if err := json.Unmarshal(indexDoc, &index); err != nil {
		t.Fatal(err)
	}
	for doc, entries := range map[string][]entry{"skills.json": list, "index.json": index.Skills} {
		found := false
		for _, e := range entries {
			// Key order and values must survive: compare compacted bytes.
			var got bytes.Buffer
			if err := json.Compact(&got, e.Frontmatter); err != nil {
				t.Fatal(err)
			}
			if e.URI == "skill://pdf-processing/SKILL.md" || e.Name == "pdf-processing" {
				found = true
				if got.String() != want.String() {
					t.Errorf("%s: frontmatter\n got %s\nwant %s", doc, got.String(), want.String())
				}
			}
		}
		if !found {
			t.Errorf("%s: no pdf-processing entry", doc)
		}
	}
}

func TestMCPSkillsSortedByURI(t *testing.T) {
	// By name "a" < "a-b"; by URI "skill://a-b/" < "skill://a/".
	skills := []Skill{
		makeSkill("a", "A.", content{"SKILL.md": "a"}, ""),
		makeSkill("a-b", "AB.", content{"SKILL.md": "ab"}, ""),
	}
	doc, err := MCPSkillsDoc(skills)
	if err != nil {
		t.Fatal(err)
	}
	if i, j := bytes.Index(doc, []byte("skill://a-b/SKILL.md")), bytes.Index(doc, []byte("skill://a/SKILL.md")); i < 0 || j < 0 || i > j {
		t.Errorf("not sorted by uri:\n%s", doc)
	}
}

func TestArchiveName(t *testing.T) {
	d := Digest("sha256:0123456789abcdeffedcba98765432100123456789abcdeffedcba9876543210")
	if got := ArchiveName("pdf", d, TarGz); got != "pdf-0123456789abcdef.tar.gz" {
		t.Errorf("ArchiveName = %s", got)
	}
	if got := ArchivePath("pdf", d, Zip); got != ".well-known/agent-skills/pdf-0123456789abcdef.zip" {
		t.Errorf("ArchivePath = %s", got)
	}
	if got := ArchiveURI("pdf", d, Zip); got != "skill://pdf-0123456789abcdef.zip" {
		t.Errorf("ArchiveURI = %s", got)
	}
	_ = ArchiveName("pdf", "sha256:12", TarGz) // must not panic on a short digest

	// The plan names each archive by its own digest, not the other's.
	s := twoSkills()[0]
	b := plan(t, []Skill{s}, Options{})
	for _, a := range []struct {
		ext string
		a   Archive
	}{{TarGz, s.TarGz}, {Zip, s.Zip}} {
		p := SkillsDir + "/pdf-processing-" + a.a.Digest.Hex()[:16] + "." + a.ext
		e, ok := b.Lookup(p)
		if !ok || e.Kind != KindArchive || e.Format != a.ext || e.Digest != a.a.Digest || e.Size != a.a.Size {
			t.Errorf("archive %s: %+v, %v", p, e, ok)
		}
	}
}

func TestPaths(t *testing.T) {
	for got, want := range map[string]string{
		SkillDir("pdf"):                     ".well-known/agent-skills/pdf",
		SkillFile("pdf", "scripts/a.py"):    ".well-known/agent-skills/pdf/scripts/a.py",
		LegacyFile("pdf", "scripts/a.py"):   ".well-known/skills/pdf/scripts/a.py",
		SkillURI("pdf", "SKILL.md"):         "skill://pdf/SKILL.md",
		SkillURI("pdf", "references/FO.md"): "skill://pdf/references/FO.md",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

func TestDeterminism(t *testing.T) {
	skills := append(twoSkills(), makeSkill("zeta", "Z.", content{"SKILL.md": "z", "b": "b", "a/c": "c", "a-d": "d"}, ""))
	want := plan(t, skills, Options{Generator: "skillpack test"})
	r := rand.New(rand.NewSource(1))
	for range 20 {
		shuffled := make([]Skill, len(skills))
		for i, j := range r.Perm(len(skills)) {
			s := skills[j]
			s.Files = slices.Clone(s.Files)
			r.Shuffle(len(s.Files), func(a, b int) { s.Files[a], s.Files[b] = s.Files[b], s.Files[a] })
			shuffled[i] = s
		}
		got := plan(t, shuffled, Options{Generator: "skillpack test"})
		if render(t, got) != render(t, want) {
			t.Fatalf("shuffled input gives different bytes:\n%s\nvs\n%s", render(t, got), render(t, want))
		}
	}
	// The input is not reordered in place.
	if skills[0].Name != "pdf-processing" {
		t.Error("Plan sorted its input")
	}
}

func TestPlanEntries(t *testing.T) {
	b := plan(t, twoSkills(), Options{})
	if !slices.IsSortedFunc(entries(t, b), func(x, y Entry) int { return strings.Compare(x.Path, y.Path) }) {
		t.Error("entries not sorted by path")
	}
	for _, e := range entries(t, b) {
		if !e.Digest.Valid() || e.Size < 0 {
			t.Errorf("%s: digest %q size %d", e.Path, e.Digest, e.Size)
		}
		if e.Kind != KindDoc {
			continue
		}
		data := docBytes(t, e)
		if e.Digest != DigestOf(data) || e.Size != int64(len(data)) {
			t.Errorf("%s: digest or size does not match its bytes", e.Path)
		}
		if len(data) > 0 && (!bytes.HasSuffix(data, []byte("\n")) || bytes.Contains(data, []byte("\r"))) {
			t.Errorf("%s: not \\n-terminated lines", e.Path)
		}
	}
	for _, p := range []string{V2Index, V1Index, MCPSkills, MCPIndex, MCPResources, Checksums, NoJekyll, Headers,
		SkillFile("pdf-processing", "scripts/fill.sh"), LegacyFile("pdf-processing", "scripts/fill.sh")} {
		if _, ok := b.Lookup(p); !ok {
			t.Errorf("plan lacks %s", p)
		}
	}
	if _, ok := b.Lookup(Catalog); ok {
		t.Error("plan has index.html, which is not planned here yet")
	}
	e, _ := b.Lookup(LegacyFile("hello", "SKILL.md"))
	if e.Kind != KindFile || e.Skill != "hello" || e.File != "SKILL.md" {
		t.Errorf("legacy copy: %+v", e)
	}

	// checksums.txt: sha256sum -c format, every archive and every index.
	sums := string(data(t, b, Checksums))
	line := regexp.MustCompile(`^[0-9a-f]{64}  \S+$`)
	var listed []string
	for _, l := range strings.Split(strings.TrimSuffix(sums, "\n"), "\n") {
		if !line.MatchString(l) {
			t.Errorf("checksums line %q", l)
			continue
		}
		p := l[66:]
		listed = append(listed, p)
		if e, ok := b.Lookup(p); !ok || e.Digest != Digest("sha256:"+l[:64]) {
			t.Errorf("checksums: %s does not match the plan", p)
		}
	}
	var want []string
	for _, e := range entries(t, b) {
		if e.Kind == KindArchive || e.Kind == KindDoc && strings.HasSuffix(e.Path, ".json") {
			want = append(want, e.Path)
		}
	}
	if !slices.Equal(listed, want) {
		t.Errorf("checksums list\n%v\nwant\n%v", listed, want)
	}
}

func TestChecksumsDoc(t *testing.T) {
	a := DigestOf([]byte("a"))
	b := DigestOf([]byte("b"))
	got := string(ChecksumsDoc([]Sum{{"z.zip", a}, {"a.tar.gz", b}}))
	want := b.Hex() + "  a.tar.gz\n" + a.Hex() + "  z.zip\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if len(ChecksumsDoc(nil)) != 0 {
		t.Error("empty sums give bytes")
	}
}

func TestMimeType(t *testing.T) {
	for name, want := range map[string]string{
		"SKILL.md":        "text/markdown",
		"refs/FORMS.MD":   "text/markdown",
		"index.json":      "application/json",
		"a-0123.tar.gz":   "application/gzip",
		"a-0123.zip":      "application/zip",
		"scripts/fill.py": "text/x-python",
		"scripts/run.sh":  "text/x-shellscript",
		"notes.txt":       "text/plain",
		"LICENSE":         "application/octet-stream",
		"data.bin":        "application/octet-stream",
		"x.yaml":          "application/yaml",
	} {
		if got := MimeType(name); got != want {
			t.Errorf("MimeType(%s) = %s, want %s", name, got, want)
		}
	}
	if got := ContentType("SKILL.md"); got != "text/markdown; charset=utf-8" {
		t.Errorf("ContentType(SKILL.md) = %s", got)
	}
	if got := ContentType("a.tar.gz"); got != "application/gzip" {
		t.Errorf("ContentType(a.tar.gz) = %s", got)
	}
	// The AI Catalog's own type, at its path only.
	for p, want := range map[string]string{
		AICatalog:                              "application/ai-catalog+json",
		SkillFile("x", "ai-catalog.json"):      "application/json",
		LLMsTxt:                                "text/plain; charset=utf-8",
		SkillFile("x", ".well-known/llms.txt"): "text/plain; charset=utf-8",
	} {
		if got := ContentType(p); got != want {
			t.Errorf("ContentType(%s) = %s, want %s", p, got, want)
		}
	}
}

// headerRules parses a _headers file into pattern → headers.
func headerRules(t *testing.T, doc string) (patterns []string, rules map[string][][2]string) {
	rules = map[string][][2]string{}
	cur := ""
	for _, l := range strings.Split(doc, "\n") {
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "  "):
			name, value, ok := strings.Cut(strings.TrimSpace(l), ": ")
			if !ok || cur == "" {
				t.Fatalf("bad header line %q", l)
			}
			rules[cur] = append(rules[cur], [2]string{name, value})
		default:
			if strings.Count(l, "*") > 1 {
				t.Errorf("pattern %q has more than one splat (Cloudflare allows one)", l)
			}
			cur = l
			patterns = append(patterns, l)
		}
	}
	return patterns, rules
}

func TestHeadersDoc(t *testing.T) {
	for _, o := range []Options{{}, {BaseURL: "https://example.com", LLMsTxt: &LLMsOptions{}, AICatalog: true}} {
		b := plan(t, twoSkills(), o)
		testHeadersDoc(t, b, string(data(t, b, Headers)))
	}
	// A skill's own file named like an archive (anthropics/skills ships
	// one) is not cached as immutable: no rule matches archives then.
	shadowing := append(twoSkills(), makeSkill("ui", "Ships its own archive.", content{"SKILL.md": "s", "assets/kit.tar.gz": "k"}, ""))
	b := plan(t, shadowing, Options{})
	if doc := string(data(t, b, Headers)); strings.Contains(doc, ".tar.gz") {
		t.Errorf("a skill ships a .tar.gz, but _headers has a rule for archives:\n%s", doc)
	} else {
		testHeadersDoc(t, b, doc)
	}
	if got := HeadersDoc(false, V2Index, Catalog, BuildRecord); !bytes.Equal(got, HeadersDoc(false)) {
		t.Errorf("documents with no rule of their own change _headers:\n%s", got)
	}
	for _, p := range []string{LLMsTxt, AICatalog} {
		if doc := HeadersDoc(false, p); !bytes.Contains(doc, []byte("\n/"+p+"\n")) || bytes.Contains(HeadersDoc(false), []byte("/"+p)) {
			t.Errorf("HeadersDoc(%s) has no rule of its own for it, or HeadersDoc() has one:\n%s", p, doc)
		}
	}
}

func testHeadersDoc(t *testing.T, b *Planned, doc string) {
	t.Helper()
	patterns, rules := headerRules(t, doc)
	if len(patterns) > 100 {
		t.Errorf("%d rules; Cloudflare allows 100", len(patterns))
	}
	// What a host sends: the union of every matching rule, with repeated
	// headers joined by commas (which would corrupt Content-Type).
	headers := func(path string) map[string]string {
		h := map[string]string{}
		for _, p := range patterns {
			re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(p), `\*`, ".*") + "$")
			if !re.MatchString(path) {
				continue
			}
			for _, kv := range rules[p] {
				if old, ok := h[kv[0]]; ok {
					h[kv[0]] = old + ", " + kv[1]
				} else {
					h[kv[0]] = kv[1]
				}
			}
		}
		return h
	}
	for _, e := range entries(t, b) {
		if e.Path == Headers || e.Path == NoJekyll {
			continue
		}
		h := headers("/" + e.Path)
		if h["Access-Control-Allow-Origin"] != "*" {
			t.Errorf("%s: no CORS header", e.Path)
		}
		ct, cc := h["Content-Type"], h["Cache-Control"]
		switch {
		case e.Kind == KindArchive && !strings.Contains(doc, "*.tar.gz"):
			if ct != "" || cc != "" {
				t.Errorf("%s: Content-Type %q Cache-Control %q; want the host's", e.Path, ct, cc)
			}
		case e.Kind == KindArchive:
			if ct != MimeType(e.Path) || !strings.Contains(cc, "immutable") || strings.Contains(cc, ",  ") {
				t.Errorf("%s: Content-Type %q Cache-Control %q", e.Path, ct, cc)
			}
		case e.Kind == KindDoc && (strings.HasSuffix(e.Path, ".json") || e.Path == LLMsTxt):
			if ct != ContentType(e.Path) || cc != DefaultCache.Control(e.Path) || !strings.Contains(cc, "max-age=300,") {
				t.Errorf("%s: Content-Type %q Cache-Control %q", e.Path, ct, cc)
			}
		case strings.HasSuffix(e.Path, ".md"):
			if ct != "text/markdown; charset=utf-8" || cc != DefaultCache.Control(e.Path) || !strings.Contains(cc, "max-age=3600,") {
				t.Errorf("%s: Content-Type %q Cache-Control %q", e.Path, ct, cc)
			}
		default:
			if strings.Contains(ct, ",") || strings.Contains(cc, "immutable") {
				t.Errorf("%s: Content-Type %q Cache-Control %q", e.Path, ct, cc)
			}
		}
		if strings.Count(cc, "max-age") > 1 {
			t.Errorf("%s: Cache-Control set twice: %q", e.Path, cc)
		}
	}
	if strings.Contains(doc, "Content-Encoding") {
		t.Error("_headers sets Content-Encoding, which breaks archive digests")
	}
}

func TestInvalidInput(t *testing.T) {
	good := func() Skill { return makeSkill("good", "Fine.", content{"SKILL.md": "s", "a.md": "a"}, "") }
	tests := []struct {
		name   string
		mutate func(s *Skill)
		want   string
	}{
		{"empty name", func(s *Skill) { s.Name = "" }, "name is empty"},
		{"upper case", func(s *Skill) { s.Name = "Good" }, `'G'`},
		{"leading dash", func(s *Skill) { s.Name = "-good" }, "starts or ends"},
		{"double dash", func(s *Skill) { s.Name = "go--od" }, `"--"`},
		{"dot", func(s *Skill) { s.Name = "go.od" }, `'.'`},
		{"long name", func(s *Skill) { s.Name = strings.Repeat("a", 65) }, "limit is 64"},
		{"empty description", func(s *Skill) { s.Description = " " }, "description is empty"},
		{"long description", func(s *Skill) { s.Description = strings.Repeat("é", 1025) }, "limit is 1024"},
		{"UTF-16 description", func(s *Skill) { s.Description = strings.Repeat("😀", 513) }, "1026 characters"},
		{"invalid UTF-8", func(s *Skill) { s.Description = "a\xffb" }, "not valid UTF-8"},
		{"no SKILL.md", func(s *Skill) { s.Files = s.Files[:1]; s.Files[0].Path = "a.md" }, "no SKILL.md"},
		{"bad file digest", func(s *Skill) { s.Files[0].Digest = "sha256:ABC" }, "digest"},
		{"md5 digest", func(s *Skill) { s.Files[0].Digest = Digest("md5:" + strings.Repeat("0", 32)) }, "digest"},
		{"bad archive digest", func(s *Skill) { s.Zip.Digest = "" }, "zip archive digest"},
		{"bad content digest", func(s *Skill) { s.ContentDigest = "x" }, "content digest"},
		{"zero archive size", func(s *Skill) { s.TarGz.Size = 0 }, "tar.gz archive size"},
		{"duplicate file", func(s *Skill) { s.Files = append(s.Files, s.Files[0]) }, "listed twice"},
		{"case collision", func(s *Skill) { s.Files = append(s.Files, File{Path: "A.md", Digest: s.Files[0].Digest}) }, "differ only in case"},
		{"dotdot segment", func(s *Skill) { s.Files[0].Path = "x/../a.md" }, `".." segment`},
		{"absolute", func(s *Skill) { s.Files[0].Path = "/etc/passwd" }, "absolute"},
		{"empty segment", func(s *Skill) { s.Files[0].Path = "x//a.md" }, "empty segment"},
		{"backslash", func(s *Skill) { s.Files[0].Path = `x\a.md` }, `'\'`},
		{"control", func(s *Skill) { s.Files[0].Path = "a\nb" }, "control character"},
		{"file and folder", func(s *Skill) { s.Files = append(s.Files, File{Path: "a.md/b", Digest: s.Files[0].Digest}) }, "also a folder"},
		{"frontmatter not JSON", func(s *Skill) { s.Frontmatter = json.RawMessage("name: good") }, "not valid JSON"},
		{"frontmatter array", func(s *Skill) { s.Frontmatter = json.RawMessage(`["good"]`) }, "not a JSON object"},
		{"frontmatter name differs", func(s *Skill) { s.Frontmatter = json.RawMessage(`{"name":"other","description":"Fine."}`) }, `"name" is "other"`},
		{"frontmatter Name case", func(s *Skill) { s.Frontmatter = json.RawMessage(`{"Name":"good","description":"Fine."}`) }, `no "name"`},
		{"frontmatter description differs", func(s *Skill) { s.Frontmatter = json.RawMessage(`{"name":"good","description":"Other."}`) }, `"description" is "Other."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good()
			slices.SortFunc(s.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
			tt.mutate(&s)
			_, err := Plan(List{good2(), s}, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %s", err, tt.want)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("skill %q", s.Name)) {
				t.Errorf("err %v does not name the skill", err)
			}
			for _, doc := range []func() error{
				func() error { _, err := V2IndexDoc([]Skill{s}, Options{}); return err },
				func() error { _, _, err := V1IndexDoc([]Skill{s}, Options{}); return err },
				func() error { _, err := MCPSkillsDoc([]Skill{s}); return err },
				func() error { _, err := MCPIndexDoc([]Skill{s}, Options{}); return err },
				func() error { _, err := MCPResourcesDoc([]Skill{s}, Options{}); return err },
			} {
				if doc() == nil {
					t.Error("a document accepted the bad skill")
				}
			}
		})
	}
	if _, err := Plan(List{good(), good()}, Options{}); err == nil || !strings.Contains(err.Error(), "unique") {
		t.Errorf("duplicate names: err %v", err)
	}
}

func good2() Skill { return makeSkill("other", "Other.", content{"SKILL.md": "o"}, "") }

func TestEmpty(t *testing.T) {
	b := plan(t, nil, Options{})
	for _, p := range []string{V2Index, V1Index, MCPIndex} {
		if !bytes.Contains(data(t, b, p), []byte(`"skills": []`)) {
			t.Errorf("%s: want an empty skills array, got\n%s", p, data(t, b, p))
		}
	}
	if got := string(data(t, b, MCPSkills)); got != "[]\n" {
		t.Errorf("skills.json = %q", got)
	}
}

// render is a plan as text: one line per entry, then every document.
func render(t *testing.T, b *Planned) string {
	ar := &txtar.Archive{}
	var list strings.Builder
	for _, e := range entries(t, b) {
		fmt.Fprintf(&list, "%-7s %s %d %s", e.Kind, e.Digest[7:19], e.Size, e.Path)
		if e.Skill != "" {
			fmt.Fprintf(&list, " (skill %s %s%s)", e.Skill, e.File, e.Format)
		}
		if e.Version != "" {
			fmt.Fprintf(&list, " @%s", e.Version)
		}
		list.WriteString("\n")
	}
	ar.Files = append(ar.Files, txtar.File{Name: "entries", Data: []byte(list.String())})
	for _, e := range entries(t, b) {
		if e.Kind == KindDoc {
			ar.Files = append(ar.Files, txtar.File{Name: e.Path, Data: docBytes(t, e)})
		}
	}
	for _, x := range b.Excluded {
		ar.Files = append(ar.Files, txtar.File{Name: "excluded " + x.Name, Data: []byte(x.Reason + "\n")})
	}
	return string(txtar.Format(ar))
}

func TestGolden(t *testing.T) {
	for name, o := range map[string]Options{
		"plan-relative.txtar": {Generator: "skillpack v0.0.0-test (klauspost/compress v1.20.3 flate 6)"},
		"plan-baseurl.txtar":  {BaseURL: "https://example.com/skills/", NoLegacy: true},
		"plan-discovery.txtar": {BaseURL: "https://example.com/skills/", NoLegacy: true,
			LLMsTxt: &LLMsOptions{}, AICatalog: true},
	} {
		t.Run(name, func(t *testing.T) { golden(t, name, render(t, plan(t, twoSkills(), o))) })
	}
}

// golden compares what a test rendered with testdata/name, or with
// -update writes it there.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./layout -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("differs from %s (run with -update if intended):\n%s", path, got)
	}
}

func TestCacheControl(t *testing.T) {
	c := Cache{Index: 90 * time.Second, Files: 0}
	for p, want := range map[string]string{
		V2Index:                            "public, max-age=90, must-revalidate",
		Checksums:                          "public, max-age=90, must-revalidate",
		SkillFile("demo", EntryFile):       "public, no-cache",
		LegacyFile("demo", "scripts/a.sh"): "public, no-cache",
		ArchivePath("demo", DigestOf([]byte("x")), TarGz):           Immutable,
		ArchivePath("demo", DigestOf([]byte("x")), Zip):             Immutable,
		VersionArchive("demo", "1.0.0", DigestOf([]byte("x")), Zip): Immutable,
		VersionFile("demo", "1.0.0", EntryFile):                     "public, no-cache",
		Snapshot("1.0.0"):                                           "public, max-age=90, must-revalidate",
		VersionsIndex:                                               "public, max-age=90, must-revalidate",
	} {
		if got := c.Control(p); got != want {
			t.Errorf("Control(%s) = %q, want %q", p, got, want)
		}
	}
	if got := DefaultCache.Control(SkillFile("demo", EntryFile)); got != "public, max-age=3600, must-revalidate" {
		t.Errorf("SKILL.md by default: %q, want an hour", got)
	}
}

// TestPlanRender checks that Plan renders each document through
// Options.Render exactly once, and takes its digest and size from that
// rendering: the build stages what Render writes and does not render it
// again.
func TestPlanRender(t *testing.T) {
	rendered := map[string][]byte{}
	var mu sync.Mutex // Render is called from several goroutines at once
	b := plan(t, twoSkills(), Options{Render: func(path string, write func(io.Writer) error) (Rendered, error) {
		var buf bytes.Buffer
		r, err := Render(&buf, write)
		mu.Lock()
		defer mu.Unlock()
		if _, ok := rendered[path]; ok {
			t.Errorf("%s rendered twice", path)
		}
		rendered[path] = buf.Bytes()
		return r, err
	}})
	for _, e := range b.Docs() {
		data, ok := rendered[e.Path]
		switch {
		case !ok:
			t.Errorf("%s not rendered through Options.Render", e.Path)
		case e.Digest != DigestOf(data) || e.Size != int64(len(data)):
			t.Errorf("%s: the plan's digest or size is not of the bytes rendered", e.Path)
		}
	}
	if len(rendered) != len(b.Docs()) {
		t.Errorf("rendered %d documents, the plan has %d", len(rendered), len(b.Docs()))
	}
}

// A skill's page in the catalog is planned where Skill.Page says, in path
// order, as a KindPage entry with the digest and size given, and listed in
// checksums.txt; a skill without one has none.
func TestPlanPages(t *testing.T) {
	skills := twoSkills()
	page := Rendered{Digest: DigestOf([]byte("<!doctype html>")), Size: 15}
	skills[1].Page = &page
	b := plan(t, skills, Options{})
	if !slices.IsSortedFunc(entries(t, b), func(x, y Entry) int { return strings.Compare(x.Path, y.Path) }) {
		t.Error("entries not sorted by path")
	}
	var pages []Entry
	for _, e := range entries(t, b) {
		if e.Kind == KindPage {
			pages = append(pages, e)
		}
	}
	want := Entry{Path: "skills/" + skills[1].Name + ".html", Kind: KindPage, Skill: skills[1].Name, Digest: page.Digest, Size: page.Size}
	if len(pages) != 1 || pages[0].Path != want.Path || pages[0].Kind != want.Kind || pages[0].Skill != want.Skill || pages[0].Digest != want.Digest || pages[0].Size != want.Size {
		t.Errorf("pages %+v, want %+v", pages, want)
	}
	if sums := string(data(t, b, Checksums)); !strings.Contains(sums, page.Digest.Hex()+"  "+want.Path+"\n") {
		t.Errorf("checksums.txt does not list %s:\n%s", want.Path, sums)
	}
	if p, ok := ParsePath(want.Path); !ok || p.Kind != KindPage || p.Skill != want.Skill || p.String() != want.Path {
		t.Errorf("ParsePath(%s) = %+v, %v", want.Path, p, ok)
	}
	for _, bad := range []string{"skills/Bad.html", "skills/a.htm", "skills/a/b.html", "skills/.html", "skills/a.html/x"} {
		if p, ok := ParsePath(bad); ok {
			t.Errorf("ParsePath(%s) = %+v, want no path of the bundle", bad, p)
		}
	}
}
