package layout

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/jsonenc"
)

var testDigest = Digest("sha256:0123456789abcdeffedcba98765432100123456789abcdeffedcba9876543210")

// Every path and URI the writer spells parses back into the parts it was
// spelt from, and spells again as itself.
func TestParseRoundTrip(t *testing.T) {
	for _, name := range []string{"pdf", "a-b", "x1", "index"} {
		for _, file := range []string{EntryFile, "scripts/a.py", "a b/ü.md", ".hidden/x", "v1..2.md", "index.json", "C#/F#.md", "what?.md", "100%.md", "a%20b.md"} {
			want := Path{Kind: KindFile, Skill: name, File: file}
			roundTrip(t, SkillFile(name, file), want, SkillURI(name, file))
			want.Legacy = true
			roundTrip(t, LegacyFile(name, file), want, "")

			u, ok := ParseURI(SkillURI(name, file))
			if !ok || u.String() != SkillFile(name, file) {
				t.Errorf("ParseURI(%q) = %+v, %v", SkillURI(name, file), u, ok)
			}
			// A URL parser reads the file's path from it, with no fragment
			// or query (which the official SDK refuses).
			if pu, err := url.Parse(SkillURI(name, file)); err != nil || pu.Fragment != "" || pu.RawQuery != "" || pu.Host+pu.Path != name+"/"+file {
				t.Errorf("url.Parse(%q) = %+v, %v: want the path %s/%s", SkillURI(name, file), pu, err, name, file)
			}
		}
		for _, ext := range []string{TarGz, Zip} {
			want := Path{Kind: KindArchive, Skill: name, Short: testDigest.Short(), Format: ext}
			roundTrip(t, ArchivePath(name, testDigest, ext), want, ArchiveURI(name, testDigest, ext))
			n, short, e, ok := ParseArchiveName(ArchiveName(name, testDigest, ext))
			if !ok || n != name || short != testDigest.Short() || e != ext {
				t.Errorf("ParseArchiveName(%q) = %q %q %q %v", ArchiveName(name, testDigest, ext), n, short, e, ok)
			}
			if u, ok := ParseURI(ArchiveURI(name, testDigest, ext)); !ok || u != want {
				t.Errorf("ParseURI(%q) = %+v, %v", ArchiveURI(name, testDigest, ext), u, ok)
			}
		}
	}
	for _, d := range docs {
		uri := ""
		if d == MCPIndex {
			uri = IndexURI
		}
		roundTrip(t, d, Path{Kind: KindDoc, Doc: d}, uri)
	}
	if u, ok := ParseURI(IndexURI); !ok || u.String() != MCPIndex {
		t.Errorf("ParseURI(IndexURI) = %+v, %v", u, ok)
	}
}

func roundTrip(t *testing.T, p string, want Path, uri string) {
	t.Helper()
	got, ok := ParsePath(p)
	if !ok || got != want {
		t.Errorf("ParsePath(%q) = %+v, %v; want %+v", p, got, ok, want)
		return
	}
	if got.String() != p {
		t.Errorf("ParsePath(%q).String() = %q", p, got.String())
	}
	if got.URI() != uri {
		t.Errorf("ParsePath(%q).URI() = %q, want %q", p, got.URI(), uri)
	}
}

// The parsers agree with a whole plan: every entry, every resource's URI
// and every url of the v0.2 index, relative or under a base URL.
func TestParsePlan(t *testing.T) {
	for _, o := range []Options{{}, {BaseURL: "https://example.com/skills/"}} {
		b := plan(t, twoSkills(), o)
		for _, e := range entries(t, b) {
			p, ok := ParsePath(e.Path)
			if !ok || p.String() != e.Path || p.Kind != e.Kind || p.Skill != e.Skill || p.File != e.File || p.Format != e.Format {
				t.Errorf("ParsePath(%q) = %+v, %v; the entry is %+v", e.Path, p, ok, e)
			}
			if p.Kind == KindArchive && p.Short != e.Digest.Short() {
				t.Errorf("%s: short %q, digest %s", e.Path, p.Short, e.Digest)
			}
			if SignedPath(e.Path) != (e.Kind == KindArchive || e.Path == V2Index || e.Path == V1Index || e.Path == MCPIndex || e.Path == MCPSkills) {
				t.Errorf("SignedPath(%q) = %v", e.Path, SignedPath(e.Path))
			}
			if a, ok := SignedArtifact(Signature(e.Path)); ok != SignedPath(e.Path) || ok && a != e.Path {
				t.Errorf("SignedArtifact(%q) = %q, %v", Signature(e.Path), a, ok)
			}
		}
		rs, err := DecodeResources(data(t, b, MCPResources))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if p, ok := ParseURI(r.URI); !ok || p.String() != r.Path || p.URI() != r.URI {
				t.Errorf("ParseURI(%q) = %+v, %v; the resource is at %s", r.URI, p, ok, r.Path)
			}
		}
		v2, err := DecodeIndexV2(data(t, b, V2Index))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range v2.Skills {
			want := ArchivePath(e.Name, e.Digest, TarGz)
			if e.Type == TypeSkillMD {
				want = SkillFile(e.Name, EntryFile)
			}
			if p, ok := ParseIndexURL(e.URL); !ok || p.String() != want {
				t.Errorf("ParseIndexURL(%q) = %+v, %v; want %s", e.URL, p, ok, want)
			}
		}
	}
}

// Hostile paths and URIs are refused, whatever part is wrong.
func TestParseRefuses(t *testing.T) {
	arch := "pdf-0123456789abcdef.zip"
	for _, p := range []string{
		"", "/" + V2Index, V2Index + "/", "./" + V2Index, ".skillpack/other.json",
		SkillsDir, SkillsDir + "/", SkillsDir + "/pdf", SkillsDir + "/pdf/",
		SkillsDir + "/../" + V1Index, SkillsDir + "/pdf/../../../etc/passwd", SkillsDir + "/pdf/./a",
		SkillsDir + "//pdf/a", SkillsDir + "/pdf//a", SkillsDir + "/pdf/a\x00b", SkillsDir + "/pdf/a\nb",
		SkillsDir + "/pdf/a\x7f", SkillsDir + "/pdf/a\\b", SkillsDir + "/pdf/C:/x", SkillsDir + "/pdf/\xff",
		SkillsDir + "/PDF/a", SkillsDir + "/-pdf/a", SkillsDir + "/p--df/a", LegacyDir + "/pdf", LegacyDir + "/Pdf/a",
		SkillsDir + "/pdf-0123456789ABCDEF.zip", SkillsDir + "/pdf-0123456789abcde.zip",
		SkillsDir + "/pdf-0123456789abcdef0.zip", SkillsDir + "/pdf-0123456789abcdeg.zip",
		SkillsDir + "/pdf0123456789abcdef.zip", SkillsDir + "/-0123456789abcdef.zip",
		SkillsDir + "/pdf-0123456789abcdef.tar", SkillsDir + "/pdf-0123456789abcdef.ZIP",
		SkillsDir + "/pdf_x-0123456789abcdef.zip", LegacyDir + "/" + arch, "mcp/" + arch,
		SkillsDir + "/" + arch + SignatureSuffix, V2Index + SignatureSuffix, "etc/passwd",
	} {
		if got, ok := ParsePath(p); ok {
			t.Errorf("ParsePath(%q) = %+v; want it refused", p, got)
		}
	}
	for _, u := range []string{
		"", "skill://", "skill:///SKILL.md", "skill://pdf", "skill://pdf/", "skill://pdf/../x", "skill://../x",
		"skill://pdf//a", "skill://PDF/a", "skill://pdf/a\x00", "skill://pdf/a\\b", "SKILL://pdf/a",
		"file:///etc/passwd", "skill://index.json/x", "skill://pdf-0123456789abcdef.tar", "skill:/" + arch,
		"skill://" + arch + "/x", "skill://x/" + arch + "\n",
		// Spelt otherwise than SkillURI spells a path: what follows "#"
		// or "?" is no part of the path, and "%" begins an escape.
		"skill://pdf/C#.md", "skill://pdf/what?.md", "skill://pdf/100%.md", "skill://pdf/C%23%", "skill://pdf/a%3f.md",
	} {
		if got, ok := ParseURI(u); ok {
			t.Errorf("ParseURI(%q) = %+v; want it refused", u, got)
		}
	}
	for _, u := range []string{
		"", "../skills/pdf/SKILL.md", "/" + SkillsDir + "/pdf/SKILL.md", "index.json", "pdf", "pdf/../x",
		"https://example.com/skills/pdf/SKILL.md", "https://example.com/" + SkillsDir + "/index.json",
	} {
		if got, ok := ParseIndexURL(u); ok {
			t.Errorf("ParseIndexURL(%q) = %+v; want it refused", u, got)
		}
	}
}

func TestCheckPath(t *testing.T) {
	for _, p := range []string{"a", "SKILL.md", "a/b/c.md", ".hidden", "a..b", "ü/x", "ab:c", "1:x", "a b"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q) = %v", p, err)
		}
	}
	for p, want := range map[string]string{
		"": "empty", "/a": "absolute", "C:/x": "drive letter", "c:x": "drive letter", "a:b": "drive letter", "a\\b": `'\'`,
		"a\x00b": "control", "a\tb": "control", "a\x7f": "control", "\xff": "UTF-8",
		"a//b": "empty segment", "a/": "empty segment", "./a": `"."`, "a/..": `".."`,
	} {
		if err := CheckPath(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckPath(%q) = %v, want %q", p, err, want)
		}
	}
	for p, want := range map[string]string{"v1..2.md": `".."`, "a?b": `'?'`, "ü": "ASCII", "../a": `".."`} {
		if err := CheckLegacyPath(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckLegacyPath(%q) = %v, want %q", p, err, want)
		}
	}
}

func TestParseChecksums(t *testing.T) {
	sums := []Sum{{V2Index, DigestOf([]byte("a"))}, {SkillsDir + "/pdf-0123456789abcdef.zip", DigestOf([]byte("b"))}}
	doc := ChecksumsDoc(sums)
	got, err := ParseChecksums(doc)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(sums) {
		t.Fatalf("ParseChecksums(ChecksumsDoc) = %v, %v", got, err)
	}
	if got, err := ParseChecksums(nil); got != nil || err != nil {
		t.Errorf("ParseChecksums(nil) = %v, %v", got, err)
	}

	h := DigestOf([]byte("a")).Hex()
	text := h + " *binary.zip\n" + // sha256sum's binary form: fine
		strings.ToUpper(h) + "  upper\n" +
		h + " one-space\n" +
		"\n" +
		h + "  ../../etc/passwd\n" +
		h + "  binary.zip\n" +
		h[:63] + "  short\n" +
		h + "  last-without-newline"
	got, err = ParseChecksums([]byte(text))
	if len(got) != 8 || got[0].Path != "binary.zip" || got[7].Path != "last-without-newline" {
		t.Fatalf("sums %v", got)
	}
	wantLines := map[int]string{2: "hex digits", 3: "hex digits", 4: "hex digits", 5: `".." segment`, 6: "listed again (first on line 1)", 7: "hex digits"}
	var lines interface{ Unwrap() []error }
	if !errors.As(err, &lines) || len(lines.Unwrap()) != len(wantLines) {
		t.Fatalf("err = %v; want %d lines", err, len(wantLines))
	}
	for _, e := range lines.Unwrap() {
		var le *LineError
		if !errors.As(e, &le) || !strings.Contains(le.Error(), wantLines[le.Line]) || got[le.Line-1] != (Sum{}) {
			t.Errorf("line error %v", e)
		}
		if !strings.HasPrefix(le.Error(), fmt.Sprintf("%s line %d: ", Checksums, le.Line)) {
			t.Errorf("line error %q does not name its line", le)
		}
	}
}

// The decoders read back every document the writer wrote, and encoding
// what they read gives the same bytes: reader and writer agree on every
// key, because they are the same types.
func TestDecodeRoundTrip(t *testing.T) {
	b := plan(t, twoSkills(), Options{Generator: "skillpack test"})
	for path, decode := range map[string]func([]byte) (any, error){
		V2Index:      func(d []byte) (any, error) { return DecodeIndexV2(d) },
		V1Index:      func(d []byte) (any, error) { return DecodeIndexV1(d) },
		MCPSkills:    func(d []byte) (any, error) { return DecodeSkillsMCP(d) },
		MCPIndex:     func(d []byte) (any, error) { return DecodeIndexMCP(d) },
		MCPResources: func(d []byte) (any, error) { return DecodeResources(d) },
	} {
		doc := data(t, b, path)
		v, err := decode(doc)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var again strings.Builder
		if err := jsonenc.Write(&again, v); err != nil {
			t.Fatal(err)
		}
		if again.String() != string(doc) {
			t.Errorf("%s: decoded and encoded again:\n%s\nwant\n%s", path, again.String(), doc)
		}
		if _, err := decode([]byte(`{"skills": 7, [`)); err == nil || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: a broken document gives %v; want an error naming it", path, err)
		}
	}
}

// A reader tells a size the document lacks from a size of 0.
func TestDecodePresence(t *testing.T) {
	skills, err := DecodeSkillsMCP([]byte(`[{"uri":"skill://a/SKILL.md","resources":[{"uri":"skill://a/SKILL.md","size":0},{"uri":"skill://a/b"}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	if r := skills[0].Resources; r[0].Size == nil || *r[0].Size != 0 || r[1].Size != nil {
		t.Errorf("sizes: %v, %v", r[0].Size, r[1].Size)
	}
	if skills[0].Frontmatter != nil {
		t.Errorf("absent frontmatter: %q", skills[0].Frontmatter)
	}
	rs, err := DecodeResources([]byte(`[{"uri":"x","size":0},{"uri":"y"}]`))
	if err != nil || rs[0].Size == nil || rs[1].Size != nil {
		t.Errorf("resources: %+v, %v", rs, err)
	}
	for doc, want := range map[string]bool{`{}`: true, `{"skills":null}`: true, `{"skills":[]}`: false} {
		v2, err := DecodeIndexV2([]byte(doc))
		if err != nil || (v2.Skills == nil) != want {
			t.Errorf("%s: skills %#v, %v", doc, v2.Skills, err)
		}
	}
}

func TestFrontmatterNames(t *testing.T) {
	name, desc, err := FrontmatterNames([]byte(` {"description":"D.","name":"n","x":1} `))
	if name != "n" || desc != "D." || err != nil {
		t.Errorf("got %q %q %v", name, desc, err)
	}
	for fm, want := range map[string]string{
		``: "not valid JSON", `[]`: "not a JSON object", `{"Name":"n","description":"d"}`: `no "name"`,
		`{"name":"n"}`: `no "description"`, `{"name":1,"description":"d"}`: `"name" is not a string`,
	} {
		if _, _, err := FrontmatterNames([]byte(fm)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", fm, err, want)
		}
	}
}

// TestLegacyReasonNamesFew: a skill of many names the v0.1 index cannot
// carry is told by its first five and a count, not by a line per file.
func TestLegacyReasonNamesFew(t *testing.T) {
	s := Skill{Files: []File{{Path: EntryFile}}}
	for i := range 8 {
		s.Files = append(s.Files, File{Path: fmt.Sprintf("references/笔记%d.md", i)})
	}
	got := legacyReason(s)
	if n := strings.Count(got, "is not printable ASCII"); n != 5 {
		t.Errorf("reason names %d files, want 5: %s", n, got)
	}
	if !strings.Contains(got, `; and 3 more files (v0.1 paths`) {
		t.Errorf("reason does not count the rest: %s", got)
	}
}
