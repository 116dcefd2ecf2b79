package verify

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// discoveryBase is where the discovery bundle says it is served.
const discoveryBase = "https://skills.example.com/x"

var (
	discoveryOnce sync.Once
	discoveryDir  string
	discoveryErr  error
)

// discoveryDist returns a fresh copy of the examples built with llms.txt,
// merged into a site's own, and the AI Catalog.
func discoveryDist(t testing.TB) string {
	t.Helper()
	discoveryOnce.Do(func() {
		tmp := filepath.Join(filepath.Dir(built), "discovery") // removed by TestMain
		if discoveryErr = os.MkdirAll(tmp, 0o755); discoveryErr != nil {
			return
		}
		site := filepath.Join(tmp, "llms.txt")
		text := "# Site\n\n> About.\n\nMore.\n\n" + layout.LLMsStart + "\n" + layout.LLMsEnd + "\n\n## After\n\nProse.\n"
		if discoveryErr = os.WriteFile(site, []byte(text), 0o644); discoveryErr != nil {
			return
		}
		discoveryDir = filepath.Join(tmp, "dist")
		_, discoveryErr = build.Run([]string{"../examples"}, build.Options{Out: discoveryDir, BaseURL: discoveryBase, LLMsTxtMerge: site, AICatalog: true})
	})
	if discoveryErr != nil {
		t.Fatal(discoveryErr)
	}
	dir := filepath.Join(t.TempDir(), "dist")
	if err := os.CopyFS(dir, os.DirFS(discoveryDir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDiscoveryClean(t *testing.T) {
	dir := discoveryDist(t)
	rep := check(t, dir, Options{})
	wantOK(t, rep)
	if rep.Checked.Indexes != check(t, copyBuilt(t), Options{}).Checked.Indexes+2 {
		t.Errorf("checked %+v; llms.txt and the catalog must count as indexes", rep.Checked)
	}
	// The catalog is signed like the indexes; llms.txt is not.
	rep = check(t, dir, Options{RequireSignatures: true, Verifier: &fakeVerifier{}})
	wantProblem(t, rep, layout.AICatalog, "has no signature")
	for _, p := range rep.Problems {
		if p.Path == layout.LLMsTxt {
			t.Errorf("llms.txt: %s", p.Message)
		}
	}
	if arts := sign(t, dir); !slices.Contains(arts, layout.AICatalog) || slices.Contains(arts, layout.LLMsTxt) {
		t.Errorf("signed %v", arts)
	}
	wantOK(t, check(t, dir, Options{RequireSignatures: true, Verifier: &fakeVerifier{}}))
}

func TestLLMsTxtProblems(t *testing.T) {
	line := func(name, desc string) string {
		return "- [" + name + "](" + discoveryBase + "/" + layout.SkillFile(name, layout.EntryFile) + "): " + desc
	}
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{
		{"description", "Writes clear git commit", "Writes bad git commit",
			[]string{`line 9 "commit-messages": description "Writes bad git commit messages with a short imperative subject, a body that explains why, and trailers. Use when committing staged changes, rewording or squashing commits, or reviewing commit messages in a pull request." differs from the one in .well-known/agent-skills/index.json ("Writes clear`}},
		{"another skill's file", "commit-messages/SKILL.md", "csv-profiler/SKILL.md",
			[]string{`line 9 "commit-messages": url "https://skills.example.com/x/.well-known/agent-skills/csv-profiler/SKILL.md" is not the skill's SKILL.md`}},
		{"an archive", "commit-messages/SKILL.md", "commit-messages-0123456789abcdef.zip", []string{"is not the skill's SKILL.md"}},
		{"outside the bundle", discoveryBase + "/.well-known/agent-skills/commit-messages/SKILL.md", "https://evil.example/x.md", []string{"is not the skill's SKILL.md"}},
		{"missing", line("release-notes", "Drafts"), "", []string{`skill "release-notes" of .well-known/agent-skills/index.json is missing; llms.txt lists every skill`}},
		{"twice", "- [csv-profiler]", "- [release-notes](x): y\n- [csv-profiler]", []string{`line 13 "release-notes": listed twice`}},
		{"unknown", "- [csv-profiler]", "- [ghost](x): y\n- [csv-profiler]", []string{`line 10 "ghost": not a skill of`}},
		{"prose", "- [csv-profiler]", "Some prose.\n- [csv-profiler]", []string{`line 10: not a skill's line`}},
		{"second section", "Prose.", "## Agent Skills\n", []string{`line 17: a second "## Agent Skills" section (the first is on line 7)`}},
		{"markers left", "## Agent Skills", layout.LLMsStart + "\n" + layout.LLMsEnd + "\n## Agent Skills",
			[]string{"line 7: " + layout.LLMsStart + " marks where the section goes in the site's llms.txt; the build writes the section in its place"}},
		{"marker lost", "## Agent Skills", layout.LLMsStart + "\n## Agent Skills", []string{"line 7: " + layout.LLMsStart + " has no " + layout.LLMsEnd + " after it"}},
		{"not text", "Prose.", "\x00", []string{"has a NUL byte"}},
		{"no section", "## Agent Skills", "## Skills", []string{`has no "## Agent Skills" section`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := discoveryDist(t)
			edit(t, dir, layout.LLMsTxt, tc.old, tc.new)
			reseal(t, dir)
			rep := check(t, dir, Options{})
			for _, w := range tc.want {
				wantProblem(t, rep, layout.LLMsTxt, w)
			}
		})
	}
	// The other sections are the site's own: anything goes there.
	dir := discoveryDist(t)
	edit(t, dir, layout.LLMsTxt, "Prose.", "Prose and a [link](x).\n- [x](y): z")
	reseal(t, dir)
	wantOK(t, check(t, dir, Options{}))
}

// TestSiteLLMsTxt: a site may serve an llms.txt of its own at the
// bundle's root. Over HTTP one with neither the section nor the markers
// is not the bundle's, and is no problem; in a folder, every file is the
// build's.
func TestSiteLLMsTxt(t *testing.T) {
	own := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }
	}
	dir := copyBuilt(t)
	for _, body := range []string{"# Site\n\n## Docs\n\n- [a](b)\nprose\n", "\x00\xff binary"} {
		wantOK(t, fetch(t, serve(t, dir, map[string]http.HandlerFunc{"/" + layout.LLMsTxt: own(body)}).URL, Options{}))
	}
	// With the markers, it says it is the bundle's.
	rep := fetch(t, serve(t, dir, map[string]http.HandlerFunc{"/" + layout.LLMsTxt: own("# S\n" + layout.LLMsStart + "\n")}).URL, Options{})
	wantProblem(t, rep, layout.LLMsTxt, "has no "+layout.LLMsEnd)
	writeFile(t, dir, layout.LLMsTxt, []byte("# Site\n"))
	wantProblem(t, check(t, dir, Options{}), layout.LLMsTxt, `has no "## Agent Skills" section`)
}

func TestAICatalogProblems(t *testing.T) {
	entry := func(dir string, i int) map[string]any {
		var doc struct{ Entries []map[string]any }
		if err := json.Unmarshal(readFile(t, dir, layout.AICatalog), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Entries[i]
	}
	for _, tc := range []struct {
		name     string
		old, new func(dir string) string // of the catalog's text
		path     string
		want     []string
	}{
		{"spec version", fixed(`"specVersion": "0.9"`), fixed(`"specVersion": "2.0"`), layout.AICatalog, []string{`specVersion is "2.0"; the build writes "0.9" (and wrote "1.0" before v0.9)`}},
		{"archive digest", field(entry, 1, "digest"), digestOf("x"), "",
			[]string{"but .well-known/ai-catalog.json says " + string(layout.DigestOf([]byte("x")))}},
		{"SKILL.md digest", field(entry, 0, "digest"), digestOf("y"), layout.SkillFile("commit-messages", layout.EntryFile),
			[]string{"but .well-known/ai-catalog.json says " + string(layout.DigestOf([]byte("y")))}},
		{"type", fixed(`"type": "application/agent-skills+zip"`), fixed(`"type": "application/zip"`), layout.AICatalog,
			[]string{`entries[2] "urn:air:skills.example.com:commit-messages/zip:skill": type is "application/zip", want "application/agent-skills+zip"`}},
		{"identifier", fixed(`"urn:air:skills.example.com:commit-messages/md:skill"`), fixed(`"urn:x:commit-messages"`), layout.AICatalog,
			[]string{"identifier is not urn:air:<host>:<name>/<md|gzip|zip>:skill"}},
		{"identifier of 1.0", fixed(`"urn:air:skills.example.com:commit-messages/md:skill"`), fixed(`"urn:air:skills.example.com:skill:md:commit-messages"`), layout.AICatalog,
			[]string{"identifier is not urn:air:<host>:<name>/<md|gzip|zip>:skill"}},
		{"publisher", fixed(`"urn:air:skills.example.com:csv-profiler/md:skill"`), fixed(`"urn:air:evil.example:csv-profiler/md:skill"`), layout.AICatalog,
			[]string{`publisher "evil.example", but entries before it have "skills.example.com"`}},
		{"url of another skill", fixed(`/commit-messages/SKILL.md`), fixed(`/csv-profiler/SKILL.md`), layout.AICatalog,
			[]string{`url "https://skills.example.com/x/.well-known/agent-skills/csv-profiler/SKILL.md" is not where the skill's application/agent-skills+md is`}},
		{"relative url", field(entry, 0, "url"), fixed(`"url": ".well-known/agent-skills/commit-messages/SKILL.md"`), layout.AICatalog, []string{"is not an absolute URL"}},
		{"entry missing", fixed(`"urn:air:skills.example.com:commit-messages/zip:skill"`), fixed(`"urn:air:skills.example.com:commit-messages/gzip:skill"`), layout.AICatalog,
			[]string{"listed twice", `skill "commit-messages" has entries [gzip md]`}},
		{"description", fixed(`"description": "Writes clear`), fixed(`"description": "Writes`), layout.AICatalog, []string{"description differs"}},
		{"version", fixed(`"identifier": "urn:air:skills.example.com:commit-messages/md:skill",`), fixed(`"identifier": "urn:air:skills.example.com:commit-messages/md:skill", "version": "9.9.9",`),
			layout.AICatalog, []string{`version is "9.9.9", but .well-known/agent-skills/index.json says ""`}},
		{"not JSON", fixed(`"specVersion"`), fixed(`specVersion`), layout.AICatalog, []string{"line 2: not valid JSON"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := discoveryDist(t)
			edit(t, dir, layout.AICatalog, tc.old(dir), tc.new(dir))
			reseal(t, dir)
			rep := check(t, dir, Options{})
			for _, w := range tc.want {
				wantProblem(t, rep, tc.path, w)
			}
		})
	}
}

// rewriteCatalog rewrites the bundle's AI Catalog with fn and reseals it.
func rewriteCatalog(t *testing.T, dir string, fn func(*layout.AICatalogDocument)) {
	t.Helper()
	doc, err := layout.DecodeAICatalog(readFile(t, dir, layout.AICatalog))
	if err != nil {
		t.Fatal(err)
	}
	fn(doc)
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, layout.AICatalog, data)
	reseal(t, dir)
}

// TestAICatalogTrust checks the Trust Manifests of a v0.9 catalog: what
// the build writes passes, signed or not; each part the build writes is
// held to the entry and to the bundle's files.
func TestAICatalogTrust(t *testing.T) {
	const zipAt = 2 // commit-messages' .zip
	sigAttest := func(d *layout.AICatalogDocument) {
		e := &d.Entries[zipAt]
		m := &e.TrustManifests[0]
		m.Attestations = append(m.Attestations, layout.AICatalogAttestation{Type: layout.AttestSigstore, URI: e.URL + layout.SignatureSuffix})
	}
	for _, tc := range []struct {
		name string
		fn   func(*layout.AICatalogDocument)
		want string
	}{
		{"no manifest", func(d *layout.AICatalogDocument) { d.Entries[zipAt].TrustManifests = nil }, "has no Trust Manifest"},
		{"two manifests", func(d *layout.AICatalogDocument) {
			e := &d.Entries[zipAt]
			e.TrustManifests = append(e.TrustManifests, e.TrustManifests[0])
		}, "has 2 Trust Manifests"},
		{"subject", func(d *layout.AICatalogDocument) {
			d.Entries[zipAt].TrustManifests[0].Subject.Digest = layout.DigestOf([]byte("x"))
		}, "is not the entry's identifier, type, url, digest and version"},
		{"no subject", func(d *layout.AICatalogDocument) { d.Entries[zipAt].TrustManifests[0].Subject = nil }, "has no subject"},
		{"contributor", func(d *layout.AICatalogDocument) {
			d.Entries[zipAt].TrustManifests[0].Contributor = "https://evil.example/"
		}, `contributor "https://evil.example/" is not the base URL`},
		{"no evidence", func(d *layout.AICatalogDocument) { d.Entries[zipAt].TrustManifests[0].Attestations = nil }, "points at no evidence"},
		{"checksums elsewhere", func(d *layout.AICatalogDocument) {
			d.Entries[zipAt].TrustManifests[0].Attestations[0].URI = discoveryBase + "/sums.txt"
		}, `points at "` + discoveryBase + `/sums.txt", want "` + discoveryBase + "/" + layout.Checksums + `"`},
		{"unknown type", func(d *layout.AICatalogDocument) {
			d.Entries[zipAt].TrustManifests[0].Attestations[0].Type = "SOC2-Type2"
		}, `has type "SOC2-Type2", which the build does not write`},
		{"signature not held", sigAttest, "names " + layout.Signature(archiveOf(t, discoveryDist(t), "commit-messages", layout.Zip)) + ", which the bundle does not hold"},
		{"folder signature not held", func(d *layout.AICatalogDocument) {
			e := &d.Entries[zipAt-2]
			e.TrustManifests = []layout.AICatalogTrustManifest{{Contributor: discoveryBase, Attestations: []layout.AICatalogAttestation{{Type: layout.AttestOMSSignature,
				URI: discoveryBase + "/" + layout.FolderSignature("commit-messages")}},
				Subject: &layout.AICatalogSubject{Identifier: e.Identifier, Type: e.Type, URL: e.URL, Digest: e.Digest, Version: e.Version}}}
		}, "names " + layout.FolderSignature("commit-messages") + ", which the bundle does not hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := discoveryDist(t)
			rewriteCatalog(t, dir, tc.fn)
			wantProblem(t, check(t, dir, Options{}), layout.AICatalog, tc.want)
		})
	}
	// The signature the catalog names, once the bundle holds it, passes.
	dir := discoveryDist(t)
	rewriteCatalog(t, dir, sigAttest)
	sign(t, dir)
	wantOK(t, check(t, dir, Options{RequireSignatures: true, Verifier: &fakeVerifier{}}))
}

// TestAICatalogSigned builds with signing: each Trust Manifest names the
// signatures the build made, and verify finds them.
func TestAICatalogSigned(t *testing.T) {
	build1 := func(dir string, signed bool) {
		o := build.Options{Out: dir, BaseURL: discoveryBase, AICatalog: true}
		if signed {
			o.Sign = func(data []byte) ([]byte, error) {
				return json.Marshal(fakeSig{Digest: layout.DigestOf(data).Hex(), Good: true})
			}
			o.SignFolder = signFolder
		}
		if _, err := build.Run([]string{"../examples"}, o); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "dist")
	build1(dir, true)
	doc, err := layout.DecodeAICatalog(readFile(t, dir, layout.AICatalog))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range doc.Entries {
		for _, m := range e.TrustManifests {
			for _, a := range m.Attestations {
				kinds[a.Type]++
			}
		}
	}
	n := len(doc.Entries) / 3
	if kinds[layout.AttestSigstore] != 2*n || kinds[layout.AttestOMSSignature] != n || kinds[layout.AttestChecksums] != 2*n {
		t.Errorf("attestations by type %v for %d skills", kinds, n)
	}
	wantOK(t, check(t, dir, Options{RequireSignatures: true, Verifier: &fakeVerifier{}}))
	// An unsigned build's catalog names none. (One into the signed
	// bundle that changes nothing leaves it as it is: build's
	// TestSignBuiltBundle.)
	dir = filepath.Join(t.TempDir(), "unsigned")
	build1(dir, false)
	if text := readFile(t, dir, layout.AICatalog); bytes.Contains(text, []byte(layout.AttestSigstore)) || bytes.Contains(text, []byte(layout.AttestOMSSignature)) {
		t.Errorf("the unsigned rebuild's catalog names signatures:\n%s", text)
	}
	wantOK(t, check(t, dir, Options{}))
	dir = filepath.Join(t.TempDir(), "dist")
	build1(dir, true)
	// A signature the catalog names, gone, is reported there.
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(layout.FolderSignature("commit-messages")))); err != nil {
		t.Fatal(err)
	}
	wantProblem(t, check(t, dir, Options{}), layout.AICatalog, "names "+layout.FolderSignature("commit-messages")+", which the bundle does not hold")
}

// TestAICatalog1 reads the catalog of a bundle built before v0.9:
// specVersion "1.0", its identifiers, no Trust Manifests.
func TestAICatalog1(t *testing.T) {
	to1 := func(d *layout.AICatalogDocument) {
		d.SpecVersion = layout.AICatalogVersion1
		for i := range d.Entries {
			e := &d.Entries[i]
			pub, form, name, ok := layout.ParseAICatalogIdentifier(e.Identifier)
			if !ok {
				t.Fatalf("identifier %q", e.Identifier)
			}
			e.Identifier, e.TrustManifests = "urn:air:"+pub+":skill:"+form+":"+name, nil
		}
	}
	dir := discoveryDist(t)
	rewriteCatalog(t, dir, to1)
	if !strings.Contains(string(readFile(t, dir, layout.AICatalog)), `"urn:air:skills.example.com:skill:gzip:commit-messages"`) {
		t.Fatalf("not the 1.0 form:\n%s", readFile(t, dir, layout.AICatalog))
	}
	// It is the form the 1.0 schema describes (layout's testdata).
	sch := testtool.JSONSchema(t, filepath.Join("..", "layout", "testdata", "ai-catalog", "ai-catalog.schema.json"))
	if err := testtool.Validate(sch, readFile(t, dir, layout.AICatalog)); err != nil {
		t.Errorf("the 1.0 catalog fails its schema: %v", err)
	}
	wantOK(t, check(t, dir, Options{}))
	// Its identifiers are held to their own grammar, not v0.9's.
	edit(t, dir, layout.AICatalog, `"urn:air:skills.example.com:skill:md:commit-messages"`, `"urn:air:skills.example.com:commit-messages/md:skill"`)
	reseal(t, dir)
	wantProblem(t, check(t, dir, Options{}), layout.AICatalog, "identifier is not urn:air:<host>:skill:<md|gzip|zip>:<name>")
}

// fixed is a literal edit of TestAICatalogProblems.
func fixed(s string) func(string) string { return func(string) string { return s } }

// field is the JSON text of one field of the i-th catalog entry.
func field(entry func(string, int) map[string]any, i int, key string) func(string) string {
	return func(dir string) string {
		v, _ := json.Marshal(entry(dir, i)[key])
		return `"` + key + `": ` + string(v)
	}
}

// digestOf is a digest field for the bytes s.
func digestOf(s string) func(string) string {
	return fixed(`"digest": "` + string(layout.DigestOf([]byte(s))) + `"`)
}

// TestDiscoveryOverHTTP serves the discovery bundle under its base URL's
// path on 127.0.0.1: verify follows the absolute urls of llms.txt and the
// catalog to the server only when they are on its origin, so the bundle
// is rebuilt for the server's own address.
func TestDiscoveryOverHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	out := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{"../examples"}, build.Options{Out: out, BaseURL: base, LLMsTxt: true, AICatalog: true}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(servedBundle(out, nil))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	rep := fetch(t, srv.URL, Options{})
	wantOK(t, rep)
	if want := check(t, out, Options{}).Checked.Indexes; rep.Checked.Indexes != want || want != 7 {
		t.Errorf("over HTTP %d indexes, as a folder %d; want 7", rep.Checked.Indexes, want)
	}
	// A SKILL.md the catalog and llms.txt point to, changed on the server.
	edit(t, out, layout.SkillFile("release-notes", layout.EntryFile), "release", "RELEASE")
	rep = fetch(t, srv.URL, Options{})
	wantProblem(t, rep, layout.SkillFile("release-notes", layout.EntryFile), "but .well-known/ai-catalog.json says")
	if !strings.Contains(string(readFile(t, out, layout.LLMsTxt)), base+"/"+layout.SkillFile("release-notes", layout.EntryFile)) {
		t.Error("llms.txt does not use the base URL")
	}
}
