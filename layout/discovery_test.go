package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/skillpack/skillpack/internal/testtool"
)

// llms renders llms.txt for the two golden skills.
func llms(t *testing.T, o Options) string {
	t.Helper()
	doc, err := LLMsTxtDoc(twoSkills(), o)
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// section is the Agent Skills section of the two golden skills, with
// relative urls.
const section = "## Agent Skills\n\n" +
	"- [hello](.well-known/agent-skills/hello/SKILL.md): Say hello.\n" +
	"- [pdf-processing](.well-known/agent-skills/pdf-processing/SKILL.md): Extract, fill & merge PDF \\<forms>.\n"

func TestLLMsTxtOwn(t *testing.T) {
	want := "# Agent Skills\n\n" +
		"> The Agent Skills published here, each linked to its SKILL.md.\n\n" +
		"Agents and tools install them from the discovery index at .well-known/agent-skills/index.json, which gives each skill's digest.\n\n" +
		section
	if got := llms(t, Options{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got := llms(t, Options{BaseURL: "https://example.com/a b(c)"})
	for _, s := range []string{
		"# example.com\n",
		"at https://example.com/a%20b%28c%29/.well-known/agent-skills/index.json,",
		"- [hello](https://example.com/a%20b%28c%29/.well-known/agent-skills/hello/SKILL.md): Say hello.\n",
	} {
		if !strings.Contains(got, s) {
			t.Errorf("with a base URL, no %q in\n%s", s, got)
		}
	}
}

func TestLLMsTxtMerge(t *testing.T) {
	start, end := LLMsStart+"\n", LLMsEnd+"\n"
	crlf := strings.ReplaceAll(section, "\n", "\r\n")
	for _, tc := range []struct{ name, base, want string }{
		{"between markers",
			"# Site\n\n> About.\n\n## Docs\n\n- [a](a.md)\n\n" + start + "## Agent Skills\n\n- [old](old.md)\n" + end + "\n## Optional\n\n- [b](b.md)\n",
			"# Site\n\n> About.\n\n## Docs\n\n- [a](a.md)\n\n" + section + "\n## Optional\n\n- [b](b.md)\n"},
		{"a blank line around", "# Site\n" + start + end + "## Next\n", "# Site\n\n" + section + "\n## Next\n"},
		{"adjacent markers", start + end, section},
		{"indented markers", "# Site\n  " + LLMsStart + " \n\t" + LLMsEnd + "\n\n\n## Tail", "# Site\n\n" + section + "\n\n## Tail"},
		{"no markers", "# Site\n\n> About.\n", "# Site\n\n> About.\n\n" + section},
		{"no markers, a blank line at the end", "# Site\n\n", "# Site\n\n" + section},
		{"no final newline", "# Site", "# Site\n\n" + section},
		{"empty", "", section},
		{"CRLF", "# Site\r\n\r\n" + LLMsStart + "\r\nold\r\n" + LLMsEnd + "\r\n", "# Site\r\n\r\n" + crlf},
		{"CRLF appended", "# Site\r\n", "# Site\r\n\r\n" + crlf},
		{"heading of its own between markers", start + "## Agent Skills\n" + end, section},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := llms(t, Options{LLMsTxt: &LLMsOptions{Base: []byte(tc.base), Name: "site/llms.txt"}})
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
			d, err := DecodeLLMsTxt([]byte(got))
			if err != nil {
				t.Fatal(err)
			}
			if s := d.Section(LLMsSectionName); d.Start != 0 || len(s) != 1 || len(s[0].Links) != 2 || len(s[0].Other) != 0 {
				t.Errorf("decoded: markers %d-%d, sections %+v", d.Start, d.End, s)
			}
		})
	}
}

func TestLLMsBaseErrors(t *testing.T) {
	start, end := LLMsStart+"\n", LLMsEnd+"\n"
	for _, tc := range []struct{ name, base, want string }{
		{"second start", start + "x\n" + start + end, "site/llms.txt line 3: a second " + LLMsStart + " (the first is on line 1); keep one pair of markers"},
		{"second end", start + end + end, "site/llms.txt line 3: a second " + LLMsEnd + " (the first is on line 2); keep one pair of markers"},
		{"end before start", "# S\n" + end + "x\n" + start, "site/llms.txt line 2: " + LLMsEnd + " comes before " + LLMsStart + " on line 4; swap the two lines"},
		{"start alone", "# S\n\n" + start + "## Agent Skills\n", "site/llms.txt line 3: " + LLMsStart + " has no " + LLMsEnd + " after it; add it on a line below the section"},
		{"end alone", "# S\n" + end, "site/llms.txt line 2: " + LLMsEnd + " has no " + LLMsStart + " before it; add it on a line above the section"},
		{"marker in text", "# S\nsee " + LLMsStart + "\n" + end, "site/llms.txt line 2: a marker shares its line with other text"},
		{"NUL", "# S\n\nx\x00y", "site/llms.txt line 3: has a NUL byte: it is not a text file"},
		{"not UTF-8", "# S\n\xff\n", "site/llms.txt line 2: is not UTF-8 text; save it as UTF-8"},
		{"own section, no markers", "# S\n\n## Agent skills ##\n\n- [x](y)\n", "site/llms.txt line 3: has an \"## Agent Skills\" section of its own outside the markers, and the build adds one; put " + LLMsStart + " on the line above it"},
		{"own section beside markers", "# S\n" + start + end + "## Agent Skills\n", "site/llms.txt line 4: has an \"## Agent Skills\" section of its own outside the markers, and the build adds one; remove it, or move it between the markers"},
		{"text after the end marker", "# S\n" + start + end + "\n- [x](y)\n## Next\n", "site/llms.txt line 5: text between " + LLMsEnd + " and the next heading would read as part of the \"## Agent Skills\" section the build puts there; start it with a heading, or move it above the markers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLLMsBase("site/llms.txt", []byte(tc.base))
			var le *LineError
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.As(err, &le) {
				t.Fatalf("CheckLLMsBase: %v\nwant %s…", err, tc.want)
			}
			// Plan refuses it too, naming the file.
			_, err = Plan(List(twoSkills()), Options{LLMsTxt: &LLMsOptions{Base: []byte(tc.base), Name: "site/llms.txt"}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Plan: %v", err)
			}
		})
	}
	// A ### heading is not the section; nor is one in the replaced part;
	// any heading may follow the end marker.
	for _, base := range []string{"## Agent Skills and more\n### Agent Skills\n", start + "## Agent Skills\n" + end, start + end + "\n  # Top\nprose\n"} {
		if err := CheckLLMsBase("f", []byte(base)); err != nil {
			t.Errorf("%q: %v", base, err)
		}
	}
}

func TestLLMsDescription(t *testing.T) {
	for in, want := range map[string]string{
		"Say hello.":                      "Say hello.",
		"  Two\nlines\r\n\n## Heading  ":  "Two lines ## Heading",
		"a\u2028b\u0085c\td\x01e":         "a b c d e",
		"[x](y) and <!-- c --> \\ `code`": `\[x\](y) and \<!-- c --> \\ ` + "`code`",
		LLMsEnd:                           `\` + LLMsEnd,
		"\x01\x02":                        "",
	} {
		if got := LLMsDescription(in); got != want {
			t.Errorf("LLMsDescription(%q) = %q, want %q", in, got, want)
		}
	}
	// A hostile description stays on its line, and the line reads back.
	evil := "x\n" + LLMsEnd + "\n## Other\n- [a](b): c\n> q"
	s := twoSkills()
	s[1] = makeSkill("hello", evil, content{"SKILL.md": "s"}, "")
	doc, err := LLMsTxtDoc(s, Options{LLMsTxt: &LLMsOptions{Base: []byte("# S\n")}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeLLMsTxt(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Sections) != 1 || len(d.Sections[0].Links) != 2 || d.Sections[0].Links[0].Description != LLMsDescription(evil) {
		t.Errorf("a description broke the list:\n%s\n%+v", doc, d.Sections)
	}
}

func TestDecodeLLMsTxt(t *testing.T) {
	d, err := DecodeLLMsTxt([]byte(llms(t, Options{})))
	if err != nil {
		t.Fatal(err)
	}
	want := []LLMsLink{
		{Name: "hello", URL: ".well-known/agent-skills/hello/SKILL.md", Description: "Say hello.", Line: 9},
		{Name: "pdf-processing", URL: ".well-known/agent-skills/pdf-processing/SKILL.md", Description: `Extract, fill & merge PDF \<forms>.`, Line: 10},
	}
	if d.Title != "Agent Skills" || d.Summary == "" || d.Start != 0 || len(d.Sections) != 1 || d.Sections[0].Line != 7 || !slices.Equal(d.Sections[0].Links, want) {
		t.Errorf("decoded %+v", d)
	}
	d, err = DecodeLLMsTxt([]byte("# T\n## A\nprose\n- [x](y)\n###  B\n## C ##\n- [z](w): v  \n"))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", d.Sections)
	if w := "[{Name:A Line:2 Links:[{Name:x URL:y Description: Line:4}] Other:[3 5]} {Name:C Line:6 Links:[{Name:z URL:w Description:v Line:7}] Other:[]}]"; got != w {
		t.Errorf("sections:\n got %s\nwant %s", got, w)
	}
	if _, err := DecodeLLMsTxt([]byte(LLMsEnd + "\n")); err == nil {
		t.Error("an end marker alone decoded")
	}
}

// TestLLMsReferenceParser runs the proposal's own parser on what the
// build writes, its own and merged into a site's: it must read the title,
// the summary, every section and every link.
func TestLLMsReferenceParser(t *testing.T) {
	py := testtool.Need(t, "python3")
	site := "# Example\n\n> Docs.\n\nMore.\n\n## Docs\n\n- [Guide](guide.md): How to.\n" + LLMsStart + "\n" + LLMsEnd + "\n## Optional\n\n- [Blog](blog.md)\n"
	for _, o := range []Options{
		{},
		{BaseURL: "https://example.com/skills"},
		{LLMsTxt: &LLMsOptions{Base: []byte(site)}},
		{LLMsTxt: &LLMsOptions{Base: []byte("# Example\n\n> Docs.\n\nMore.\n\n## Docs\n\n- [Guide](guide.md)")}},
	} {
		doc := llms(t, o)
		f := filepath.Join(t.TempDir(), "llms.txt")
		if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(py, "parse.py", f)
		cmd.Dir = filepath.Join("testdata", "llmstxt")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("parse.py: %v\n%s", err, out)
		}
		var got struct {
			Title, Summary string
			Sections       map[string][]struct{ Title, URL, Desc string }
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		d, _ := DecodeLLMsTxt([]byte(doc))
		links := got.Sections[LLMsSectionName]
		if got.Title != d.Title || got.Summary != d.Summary || len(got.Sections) != len(d.Sections) || len(links) != 2 {
			t.Fatalf("the reference parser read %+v from\n%s", got, doc)
		}
		for i, l := range links {
			w := d.Section(LLMsSectionName)[0].Links[i]
			if l.Title != w.Name || l.URL != w.URL || l.Desc != w.Description {
				t.Errorf("link %d: reference %+v, ours %+v", i, l, w)
			}
		}
	}
}

func TestLLMsGolden(t *testing.T) {
	ar := &txtar.Archive{Comment: []byte("llms.txt as the build writes it for the two golden skills.\nRegenerate with: go test ./layout -run TestLLMsGolden -update\n")}
	base := "# Example\n\n> Docs for example.com.\n\n## Docs\n\n- [Guide](guide.md): How to.\n\n" + LLMsStart + "\n" + LLMsEnd + "\n\n## Optional\n\n- [Blog](blog.md)\n"
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"own, relative", Options{}},
		{"own, base URL", Options{BaseURL: "https://example.com/skills/"}},
		{"merged", Options{LLMsTxt: &LLMsOptions{Base: []byte(base)}}},
		{"appended", Options{LLMsTxt: &LLMsOptions{Base: []byte("# Example\n\n> Docs.\n")}}},
	} {
		ar.Files = append(ar.Files, txtar.File{Name: c.name, Data: []byte(llms(t, c.o))})
	}
	golden(t, "llms-txt.txtar", string(txtar.Format(ar)))
}

// catalogSchema is the JSON Schema of the AI Catalog v0.9 (see
// testdata/ai-catalog/README.md: skillpack's transcription, since no
// published one was found), with formats asserted.
func catalogSchema(t *testing.T) *jsonschema.Schema {
	return testtool.JSONSchema(t, filepath.Join("testdata", "ai-catalog", "ai-catalog-0.9.schema.json"))
}

func TestAICatalog(t *testing.T) {
	sch := catalogSchema(t)
	skills := twoSkills()
	base := "https://Skills.Example.com:8443/a/"
	hello, pdf := skills[1], skills[0]
	md, tgz, zip := SkillFile("hello", EntryFile), ArchivePath("hello", hello.TarGz.Digest, TarGz), ArchivePath("hello", hello.Zip.Digest, Zip)
	sums := AICatalogAttestation{AttestChecksums, base + Checksums, "lists the archive's sha256"}
	manifest := func(id, typ, url string, d Digest, att ...AICatalogAttestation) []AICatalogTrustManifest {
		return []AICatalogTrustManifest{{Contributor: base, Attestations: att,
			Subject: &AICatalogSubject{Identifier: id, Type: typ, URL: url, Digest: d}}}
	}
	for _, signed := range []bool{false, true} {
		doc, err := AICatalogDoc(skills, Options{BaseURL: base, Signs: signed, SignsFolders: signed})
		if err != nil {
			t.Fatal(err)
		}
		if err := testtool.Validate(sch, doc); err != nil {
			t.Fatalf("signed %t: the catalog fails the schema: %v\n%s", signed, err, doc)
		}
		c, err := DecodeAICatalog(doc)
		if err != nil {
			t.Fatal(err)
		}
		if c.SpecVersion != "0.9" || c.Host == nil || c.Host.DisplayName != "skills.example.com" || len(c.Entries) != 6 {
			t.Fatalf("catalog %+v", c)
		}
		idMD, idGz, idZip := "urn:air:skills.example.com:hello/md:skill", "urn:air:skills.example.com:hello/gzip:skill", "urn:air:skills.example.com:hello/zip:skill"
		want := []AICatalogEntry{
			{idMD, "hello", MediaSkillMarkdown, base + md, "Say hello.", "", hello.entry().Digest, nil},
			{idGz, "hello", MediaSkillGzip, base + tgz, "Say hello.", "", hello.TarGz.Digest,
				manifest(idGz, MediaSkillGzip, base+tgz, hello.TarGz.Digest, sums)},
			{idZip, "hello", MediaSkillZip, base + zip, "Say hello.", "", hello.Zip.Digest,
				manifest(idZip, MediaSkillZip, base+zip, hello.Zip.Digest, sums)},
		}
		if signed {
			want[0].TrustManifests = manifest(idMD, MediaSkillMarkdown, base+md, hello.entry().Digest,
				AICatalogAttestation{AttestOMSSignature, base + FolderSignature("hello"), "the skill folder's signature (OpenSSF Model Signing), over every file with its sha256, SKILL.md among them"})
			want[1].TrustManifests[0].Attestations = append(want[1].TrustManifests[0].Attestations,
				AICatalogAttestation{AttestSigstore, base + Signature(tgz), "the archive's Sigstore signature"})
			want[2].TrustManifests[0].Attestations = append(want[2].TrustManifests[0].Attestations,
				AICatalogAttestation{AttestSigstore, base + Signature(zip), "the archive's Sigstore signature"})
		}
		if !reflect.DeepEqual(c.Entries[:3], want) {
			t.Errorf("signed %t, entries:\n got %+v\nwant %+v", signed, c.Entries[:3], want)
		}
		if e := c.Entries[3]; e.Version != "2.1.0" || e.Identifier != "urn:air:skills.example.com:pdf-processing/md:skill" || e.Digest != pdf.entry().Digest {
			t.Errorf("signed %t, entry %+v", signed, e)
		}
		for _, e := range c.Entries {
			pub, form, name, ok := ParseAICatalogIdentifier(e.Identifier)
			if !ok || pub != "skills.example.com" || AICatalogMedia(form) != e.Type || name != e.DisplayName || AICatalogIdentifier(pub, form, name) != e.Identifier {
				t.Errorf("identifier %q does not round-trip", e.Identifier)
			}
			if _, _, _, ok := ParseAICatalogIdentifier1(e.Identifier); ok {
				t.Errorf("identifier %q passes for the 1.0 form", e.Identifier)
			}
			for _, m := range e.TrustManifests {
				if s := m.Subject; s.Version != e.Version || s.Digest != e.Digest || s.URL != e.URL || s.Identifier != e.Identifier || s.Type != e.Type {
					t.Errorf("%s: subject %+v is not the entry's", e.Identifier, s)
				}
			}
		}

		// The validator is not blind: what breaks the schema fails it.
		for _, bad := range []string{
			strings.Replace(string(doc), ":skill\"", ":skill:x\"", 1),
			strings.Replace(string(doc), `"url": "https://`, `"url": "//`, 1),
			strings.Replace(string(doc), `"specVersion": "0.9"`, `"specVersion": "1.0"`, 1),
			strings.Replace(string(doc), `"contributor": "https://`, `"contributor": "//`, 1),
			strings.Replace(string(doc), `"contributor"`, `"publisher"`, 1),
			strings.Replace(string(doc), `"attestations"`, `"attested"`, 1),
			strings.Replace(string(doc), `"digest": "sha256:`, `"digest": "SHA256:`, 1),
		} {
			if err := testtool.Validate(sch, []byte(bad)); err == nil {
				t.Errorf("the schema accepts\n%s", bad)
			}
		}
	}
	// The 1.0 form that builds before v0.9 wrote, which verify still reads.
	if pub, form, name, ok := ParseAICatalogIdentifier1("urn:air:skills.example.com:skill:gzip:hello"); !ok || pub != "skills.example.com" || form != "gzip" || name != "hello" {
		t.Errorf("ParseAICatalogIdentifier1 = %q %q %q %t", pub, form, name, ok)
	}
	if _, _, _, ok := ParseAICatalogIdentifier("urn:air:skills.example.com:skill:gzip:hello"); ok {
		t.Error("ParseAICatalogIdentifier accepts the 1.0 form")
	}
}

func TestAICatalogNeedsABaseURL(t *testing.T) {
	for base, want := range map[string]string{
		"":                       "the AI Catalog needs a base URL (--base-url)",
		"https://[::1]/":         `the AI Catalog's identifiers name its host, and "::1" is not a DNS name`,
		"https://bücher.de/":     `the AI Catalog's identifiers name its host, and "bücher.de" is not a DNS name; use one, in its ASCII form (xn--…)`,
		"https://x_y.example/":   `"x_y.example" is not a DNS name`,
		"ftp://example.com/":     "use an absolute http or https URL",
		"https://127.0.0.1:8080": "",
	} {
		_, err := Plan(List(twoSkills()), Options{BaseURL: base, AICatalog: true})
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", base, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", base, err, want)
		}
	}
	for _, id := range []string{"", "urn:air:example.com:skill:md", "urn:air:example.com:skill:tar:x", "urn:air:Example.com:skill:md:x",
		"urn:air:example.com:agent:md:x", "urn:air:example.com:skill:md:X", "urn:air:example.com:skill:md:x:y"} {
		if _, _, _, ok := ParseAICatalogIdentifier1(id); ok {
			t.Errorf("ParseAICatalogIdentifier1(%q) accepted it", id)
		}
	}
	for _, id := range []string{"", "urn:air:example.com:x/md", "urn:air:example.com:x/tar:skill", "urn:air:Example.com:x/md:skill",
		"urn:air:example.com:x/md:agent", "urn:air:example.com:X/md:skill", "urn:air:example.com:x/md:skill:y", "urn:air:example.com:x:skill",
		"urn:air:example.com:x/md/y:skill", "urn:x:example.com:x/md:skill"} {
		if _, _, _, ok := ParseAICatalogIdentifier(id); ok {
			t.Errorf("ParseAICatalogIdentifier(%q) accepted it", id)
		}
	}
}

func TestDiscoveryInBundle(t *testing.T) {
	o := Options{BaseURL: "https://example.com/s", LLMsTxt: &LLMsOptions{}, AICatalog: true}
	b := plan(t, twoSkills(), o)
	sums, err := ParseChecksums(data(t, b, Checksums))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{LLMsTxt, AICatalog} {
		e, ok := b.Lookup(p)
		if !ok || e.Kind != KindDoc || e.Digest != DigestOf(data(t, b, p)) {
			t.Errorf("%s: entry %+v", p, e)
		}
		if !slices.Contains(sums, Sum{Path: p, Digest: e.Digest}) {
			t.Errorf("checksums.txt does not list %s", p)
		}
		if pp, ok := ParsePath(p); !ok || pp.Kind != KindDoc || pp.Doc != p {
			t.Errorf("ParsePath(%s) = %+v %v", p, pp, ok)
		}
	}
	if !SignedPath(AICatalog) || SignedPath(LLMsTxt) {
		t.Error("the AI Catalog must be signed and llms.txt not")
	}
	// Without the options, the bundle is what it was: no document, no
	// rule in _headers, no line in checksums.txt.
	plain := plan(t, twoSkills(), Options{BaseURL: "https://example.com/s"})
	for _, p := range []string{LLMsTxt, AICatalog} {
		if _, ok := plain.Lookup(p); ok || bytes.Contains(data(t, plain, Headers), []byte(p)) || bytes.Contains(data(t, plain, Checksums), []byte(p)) {
			t.Errorf("a bundle that did not ask for %s has it", p)
		}
	}
}

// FuzzLLMsMerge merges the section into arbitrary files with arbitrary
// descriptions: a base CheckLLMsBase accepts merges into a file that
// decodes with one section, between markers, of every skill, and keeps
// the base's text outside the markers; one it refuses, Plan refuses too.
func FuzzLLMsMerge(f *testing.F) {
	f.Add("# S\n", "d")
	f.Add("# S\r\n"+LLMsStart+"\r\nx\r\n"+LLMsEnd+"\r\n", "a\nb")
	f.Add(LLMsEnd+"\n"+LLMsStart+"\n", "## x")
	f.Add("## Agent Skills\n", LLMsStart)
	f.Add("a\n"+LLMsStart+LLMsEnd+"\n", "<!--")
	f.Add("\xff", "\\")
	f.Fuzz(func(t *testing.T, base, desc string) {
		s := twoSkills()
		s[1] = makeSkill("hello", desc, content{"SKILL.md": "s"}, "")
		// makeSkill's %q is Go's quoting, not JSON's.
		s[1].Frontmatter, _ = json.Marshal(map[string]string{"name": "hello", "description": desc})
		o := Options{LLMsTxt: &LLMsOptions{Base: []byte(base), Name: "f"}}
		b, err := Plan(List(s), o)
		checkErr := CheckLLMsBase("f", []byte(base))
		if err != nil {
			if checkErr == nil && CheckDescription(desc) == nil {
				t.Fatalf("Plan refused a good base: %v", err)
			}
			return
		}
		if checkErr != nil {
			t.Fatalf("Plan took a base CheckLLMsBase refuses: %v", checkErr)
		}
		doc := data(t, b, LLMsTxt)
		d, err := DecodeLLMsTxt(doc)
		if err != nil {
			t.Fatalf("the merged file does not decode: %v\n%q", err, doc)
		}
		secs := d.Section(LLMsSectionName)
		if d.Start != 0 || len(secs) != 1 || len(secs[0].Links) != 2 || len(secs[0].Other) != 0 {
			t.Fatalf("merged %q: markers %d-%d, sections %+v", doc, d.Start, d.End, secs)
		}
		if l := secs[0].Links[0]; l.Name != "hello" || l.Description != LLMsDescription(desc) {
			t.Fatalf("link %+v for description %q", l, desc)
		}
		// The base is kept whole around the section: all of it before the
		// section, or what is before the start marker's line before it and
		// what is after the end marker's line after it.
		pre, post := base, ""
		if i := strings.Index(base, LLMsStart); i >= 0 {
			j := strings.Index(base, LLMsEnd)
			pre = base[:strings.LastIndexByte(base[:i], '\n')+1]
			post = base[j:]
			if k := strings.IndexByte(post, '\n'); k >= 0 {
				post = post[k+1:]
			} else {
				post = ""
			}
		}
		if !strings.HasPrefix(string(doc), pre) || !strings.HasSuffix(string(doc), post) {
			t.Fatalf("merging %q changed the base around the section: %q", base, doc)
		}
	})
}

// FuzzDecodeDiscovery feeds arbitrary bytes to the two decoders: they
// never panic, and DecodeLLMsTxt refuses exactly what has bad markers or
// is not text.
func FuzzDecodeDiscovery(f *testing.F) {
	f.Add([]byte("# T\n\n> S\n\n## A\n- [x](y): z\n"))
	f.Add([]byte(LLMsStart + "\r\n## Agent Skills\r\n" + LLMsEnd))
	f.Add([]byte(`{"specVersion":"1.0","entries":[{"identifier":"urn:air:a:skill:md:b","type":1}]}`))
	f.Add([]byte("\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := DecodeLLMsTxt(data)
		if _, serr := scanLLMs(LLMsTxt, data); (err == nil) != (serr == nil) {
			t.Fatalf("DecodeLLMsTxt %v, scan %v", err, serr)
		}
		if err == nil {
			for _, s := range d.Sections {
				for _, l := range s.Links {
					if l.Line < 1 || l.Line <= s.Line || strings.Contains(l.Description, "\n") {
						t.Fatalf("link %+v in section %+v", l, s)
					}
				}
			}
		}
		if c, err := DecodeAICatalog(data); err == nil && c == nil {
			t.Fatal("nil catalog without an error")
		}
	})
}
