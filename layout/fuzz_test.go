package layout

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// FuzzPlan feeds arbitrary names, descriptions and paths to Plan: it must
// never panic, and whatever it accepts every reader must accept too.
func FuzzPlan(f *testing.F) {
	f.Add("pdf", "Does PDFs.", "scripts/a.py")
	f.Add("a-b", "x", "v1..2.md")
	f.Add("-x", "", "../a")
	f.Add("ok", "d", "a/./b")
	f.Add("ok", "d", "what?#[]%.md")
	f.Fuzz(func(t *testing.T, name, desc, path string) {
		s := makeSkill(name, desc, content{"SKILL.md": "s", path: "p"}, "")
		b, err := Plan(List{s, good2()}, Options{})
		if err != nil {
			return
		}
		fe := fetcher{site: "https://example.com/", b: b}
		names, dropped, err := v2Reader(data(t, b, V2Index), fe)
		if err != nil || len(dropped) > 0 || len(names) != 2 {
			t.Fatalf("v0.2 reader: %v %v %v", names, dropped, err)
		}
		names, err = v1Reader(data(t, b, V1Index), fe)
		excluded := len(b.Excluded) == 1 && b.Excluded[0].Name == name
		if err != nil || len(names)+len(b.Excluded) != 2 || !excluded && !slices.Contains(names, name) {
			t.Fatalf("v0.1 reader: %v %v %v", names, b.Excluded, err)
		}
		table, err := resourceTable(data(t, b, MCPResources), b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mcpReader(data(t, b, MCPSkills), table); err != nil {
			t.Fatal(err)
		}
		if _, err := mcpcReader(data(t, b, MCPIndex), table); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzParse feeds arbitrary strings to the parsers: they never panic,
// whatever they accept they spell back as it was, and whatever the writer
// spells from valid parts they parse back into those parts.
func FuzzParse(f *testing.F) {
	f.Add("pdf", "scripts/a.py", SkillsDir+"/pdf-0123456789abcdef.tar.gz")
	f.Add("a-b", "SKILL.md", "skill://a-b/SKILL.md")
	f.Add("x", "../a", LegacyDir+"/x/a\x00")
	f.Add("index", "C:/x", IndexURI)
	f.Add("ok", "a//b", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef  "+V2Index+"\n")
	f.Fuzz(func(t *testing.T, name, file, s string) {
		if p, ok := ParsePath(s); ok {
			if p.String() != s {
				t.Fatalf("ParsePath(%q).String() = %q", s, p.String())
			}
			if again, _ := ParsePath(p.String()); again != p {
				t.Fatalf("ParsePath(%q) = %+v, then %+v", s, p, again)
			}
			if u := p.URI(); u != "" {
				if back, ok := ParseURI(u); !ok || back != p {
					t.Fatalf("ParseURI(%q) = %+v, %v; want %+v", u, back, ok, p)
				}
			}
		}
		if p, ok := ParseURI(s); ok && p.URI() != s {
			t.Fatalf("ParseURI(%q).URI() = %q", s, p.URI())
		}
		if n, short, ext, ok := ParseArchiveName(s); ok && archiveName(n, short, ext) != s {
			t.Fatalf("ParseArchiveName(%q) = %q %q %q", s, n, short, ext)
		}
		if p, ok := ParseIndexURL(s); ok && (p.Kind == KindDoc || p.Legacy) {
			t.Fatalf("ParseIndexURL(%q) = %+v", s, p)
		}
		if sums, _ := ParseChecksums([]byte(s)); len(s) > 0 && len(sums) != strings.Count(strings.TrimSuffix(s, "\n"), "\n")+1 {
			t.Fatalf("ParseChecksums(%q): %d sums", s, len(sums))
		}
		_ = SignedPath(s)
		if p, ok := ResolveURL(Snapshot("1.0.0"), s); ok {
			if p.Legacy || !strings.HasPrefix(p.String(), SkillsDir+"/") {
				t.Fatalf("ResolveURL(%q) = %+v, outside the v0.2 tree", s, p)
			}
		}

		if CheckName(name) != nil || CheckPath(file) != nil {
			return
		}
		want := Path{Kind: KindFile, Skill: name, File: file}
		// A file in a folder named as a version is where --versioned
		// serves that version (a build with it refuses such a file).
		if p, ok := ParsePath(SkillFile(name, file)); !ok || p != want && (VersionClash(name, file) == "" || p.Kind != KindVersion) {
			t.Fatalf("ParsePath(SkillFile(%q, %q)) = %+v, %v", name, file, p, ok)
		}
		if p, ok := ParseURI(SkillURI(name, file)); !ok || p != want {
			t.Fatalf("ParseURI(SkillURI(%q, %q)) = %+v, %v", name, file, p, ok)
		}
		want.Legacy = true
		if p, ok := ParsePath(LegacyFile(name, file)); !ok || p != want {
			t.Fatalf("ParsePath(LegacyFile(%q, %q)) = %+v, %v", name, file, p, ok)
		}
		d := DigestOf([]byte(file))
		for _, ext := range []string{TarGz, Zip} {
			want := Path{Kind: KindArchive, Skill: name, Short: d.Short(), Format: ext}
			if p, ok := ParsePath(ArchivePath(name, d, ext)); !ok || p != want {
				t.Fatalf("ParsePath(ArchivePath(%q)) = %+v, %v", name, p, ok)
			}
			if p, ok := ParseURI(ArchiveURI(name, d, ext)); !ok || p != want {
				t.Fatalf("ParseURI(ArchiveURI(%q)) = %+v, %v", name, p, ok)
			}
		}
	})
}

// FuzzVersions feeds arbitrary bytes to the versions.json decoder and its
// Check, as verify and the build's guard read a previous bundle's: no
// panic, and whatever passes Check lists only clean paths in the tree of
// the skill it names.
func FuzzVersions(f *testing.F) {
	b, err := Plan(List(twoSkills()), Options{Versioned: &Versioning{Release: "1.0.0"}})
	if err != nil {
		f.Fatal(err)
	}
	e, _ := b.Lookup(VersionsIndex)
	var doc strings.Builder
	if err := e.Write(&doc); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(doc.String()))
	f.Add([]byte(`{"latest":"1.0.0","versions":["1.0.0"],"releases":[{"version":"1.0.0","url":"../../x","digest":"sha256:","size":-1}],"skills":[{"name":"a","versions":[{"version":"1.0.0","files":[{"path":"../x"}]}]}]}`))
	f.Add([]byte(`{"skills":[{"name":"a","versions":[{"version":"1.0.0"},{"version":"1.0.0"}]}]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeVersions(data)
		if err != nil {
			return
		}
		if len(v.Check()) > 0 {
			return
		}
		for _, a := range v.Artifacts() {
			p, ok := ParsePath(a.Path)
			if !ok || p.String() != a.Path || !a.Digest.Valid() || a.Size < 0 {
				t.Fatalf("versions.json passed Check but names %+v", a)
			}
			if p.Kind != KindVersion && p.Release == "" {
				t.Fatalf("versions.json passed Check but names %s, no version's file", a.Path)
			}
		}
	})
}

// FuzzDecodeRecord feeds arbitrary bytes to the build record's streamed
// reader, through which build's reuse, verify and publish read the record
// of a folder anyone may have written to: it never panics, its errors name
// the record, and what it accepts encodes to a record that reads back
// unchanged (the encoding is a fixed point, whatever the input's spacing,
// unknown fields or repeated keys).
func FuzzDecodeRecord(f *testing.F) {
	var buf bytes.Buffer
	if err := testRecord().Encode(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	// Every field by hand: a writer that left one out would write seeds
	// without it.
	f.Add([]byte(`{"generator":"g","bundle":"sha256:00","skills":[{"name":"a","key":"k","lint":"l","findings":[{}],"contentDigest":"c",` +
		`"files":[{"path":"SKILL.md","digest":"sha256:00","size":1}],"tarGz":{"digest":"sha256:00","size":3},"zip":{}}],` +
		`"docs":[{"path":"x","digest":"sha256:00","size":1}],"legacyExcluded":[{"name":"x","reason":"why"}],"files":["x"]}`))
	f.Add([]byte(`{"skills":[{"name":"b"}],"skills":[{"name":"a"}],"files":[]}`))
	f.Add([]byte(`{"future":{"a":[1]},"generator":"g","skills":[{"name":"","findings":[1, {}]}],"docs":[],"files":["a","a/b"]} x`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := DecodeRecord(data)
		if err != nil {
			if !strings.Contains(err.Error(), BuildRecord) {
				t.Fatalf("DecodeRecord(%q): %v, which does not name the record", data, err)
			}
			return
		}
		var once, twice bytes.Buffer
		if err := rec.Encode(&once); err != nil {
			t.Fatalf("DecodeRecord(%q) = %+v, which does not encode: %v", data, rec, err)
		}
		back, err := DecodeRecord(once.Bytes())
		if err != nil {
			t.Fatalf("%q decoded, but its encoding does not: %v\n%s", data, err, once.Bytes())
		}
		// Marshal compacts the findings, which Encode indents.
		if a, b := marshal(t, rec), marshal(t, back); !bytes.Equal(a, b) {
			t.Fatalf("%q decoded as\n%s\nbut its encoding as\n%s", data, a, b)
		}
		if err := back.Encode(&twice); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("%q encodes as\n%s\nthen as\n%s (%v)", data, once.Bytes(), twice.Bytes(), err)
		}
	})
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
