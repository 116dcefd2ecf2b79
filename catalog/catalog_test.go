package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"html"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// dist, when set, keeps the examples bundle (with index.html) in that
// folder, to look at the catalog in a browser.
var dist = flag.String("dist", "", "write the examples bundle and its catalog to this folder")

// examples is the repository's example skills, relative to this package.
const examples = "../examples"

// bundle is a built bundle in a folder.
type bundle struct {
	dir     string
	skills  []Skill
	entries []layout.Entry // what a build writes to dir
}

// buildExamples packs the example skills, lays them out with layout.Plan
// and writes every entry of the plan to dir, as a build would.
func buildExamples(t *testing.T, dir string) *bundle {
	t.Helper()
	found, err := skill.Discover(examples)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatal("no example skills found")
	}
	b := &bundle{dir: dir}
	disk := map[string]string{}     // dist path of a skill file → source
	archives := map[string][]byte{} // dist path of an archive → bytes
	var ls []layout.Skill
	for _, s := range found {
		if s.Doc == nil || s.Doc.Problem != nil {
			t.Fatalf("%s: cannot parse: %v", s.EntryPath(), s.Err)
		}
		name, _ := s.Doc.String("name")
		desc, _ := s.Doc.String("description")
		license, _ := s.Doc.String("license")
		compat, _ := s.Doc.String("compatibility")
		fm, err := s.Doc.FrontmatterJSON()
		if err != nil {
			t.Fatal(err)
		}
		files, err := skill.Collect(s.Dir)
		if err != nil {
			t.Fatal(err)
		}
		var tgz, zip bytes.Buffer
		w := pack.NewWriter(&tgz, &zip, pack.Options{})
		var entries []pack.Member
		var lf []layout.File
		for _, f := range files.Files {
			data, err := os.ReadFile(f.Disk)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := w.Add(f.Path, f.Exec(), int64(len(data)), bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, pack.Member{Path: f.Path, Exec: f.Exec(), Size: int64(len(data)), Sum: sum})
			lf = append(lf, layout.File{Path: f.Path, Digest: layout.DigestOf(data), Size: int64(len(data)), Exec: f.Exec()})
			disk[layout.SkillFile(name, f.Path)] = f.Disk
			disk[layout.LegacyFile(name, f.Path)] = f.Disk
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		cd := pack.ContentDigest(entries)
		l := layout.Skill{
			Name: name, Description: desc, Frontmatter: fm, Files: lf,
			TarGz:         layout.Archive{Digest: layout.DigestOf(tgz.Bytes()), Size: int64(tgz.Len())},
			Zip:           layout.Archive{Digest: layout.DigestOf(zip.Bytes()), Size: int64(zip.Len())},
			ContentDigest: layout.SumDigest(cd[:]),
		}
		archives[layout.ArchivePath(name, l.TarGz.Digest, layout.TarGz)] = tgz.Bytes()
		archives[layout.ArchivePath(name, l.Zip.Digest, layout.Zip)] = zip.Bytes()
		ls = append(ls, l)
		b.skills = append(b.skills, Skill{Skill: l, License: license, Compatibility: compat, Body: body(string(s.Doc.Body))})
	}
	b.entries = plan(t, ls)
	for _, e := range b.entries {
		var data []byte
		switch e.Kind {
		case layout.KindDoc:
			var buf bytes.Buffer
			if err := e.Write(&buf); err != nil {
				t.Fatal(err)
			}
			data = buf.Bytes()
		case layout.KindArchive:
			data = archives[e.Path]
		case layout.KindFile:
			if data, err = os.ReadFile(disk[e.Path]); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(dir, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// plan returns the entries of the bundle layout.Plan lays out for skills:
// every file a build writes, which the catalog's links must name.
func plan(t *testing.T, skills []layout.Skill) []layout.Entry {
	t.Helper()
	b, err := layout.Plan(layout.List(skills), layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []layout.Entry
	for e, err := range b.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// attr matches every href and src the page has. Both the template and
// goldmark write attributes in double quotes, and raw HTML never reaches
// the page, so a scanner for that one form sees them all; attrCount checks
// that it does.
var (
	attr      = regexp.MustCompile(`\s(href|src)="([^"]*)"`)
	attrCount = regexp.MustCompile(`(?i)\s(href|src)\s*=`)
	idAttr    = regexp.MustCompile(`\sid="([^"]*)"`)
)

// links returns the href and src values of page, unescaped.
func links(t *testing.T, page []byte) []string {
	t.Helper()
	ms := attr.FindAllSubmatch(page, -1)
	if n := len(attrCount.FindAll(page, -1)); n != len(ms) {
		t.Fatalf("page has %d href/src attributes, the scanner understood %d", n, len(ms))
	}
	var out []string
	for _, m := range ms {
		out = append(out, html.UnescapeString(string(m[2])))
	}
	return out
}

// ids returns the id attributes of page.
func ids(page []byte) map[string]bool {
	out := map[string]bool{}
	for _, m := range idAttr.FindAllSubmatch(page, -1) {
		out[html.UnescapeString(string(m[1]))] = true
	}
	return out
}

// resolve checks that every link of page, a page at the dist path from,
// either names an element of the page, is an external http(s) link marked
// rel="nofollow noopener", or is relative and names a file in dir. It
// returns the dist paths linked.
func resolve(t *testing.T, page []byte, dir, from string) map[string]bool {
	t.Helper()
	idSet := ids(page)
	linked := map[string]bool{}
	for _, l := range links(t, page) {
		switch {
		case strings.HasPrefix(l, "#"):
			frag, err := url.PathUnescape(l[1:])
			if err != nil || !idSet[frag] {
				t.Errorf("link %q names no element of the page", l)
			}
		case strings.HasPrefix(l, "mailto:"):
		case strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://"):
			if !bytes.Contains(page, []byte(`href="`+html.EscapeString(l)+`" rel="nofollow noopener"`)) {
				t.Errorf("external link %q has no rel=\"nofollow noopener\"", l)
			}
		default:
			u, err := url.Parse(l)
			if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(u.Path, "/") {
				t.Errorf("link %q is not relative", l)
				continue
			}
			target := path.Join(path.Dir(from), u.Path)
			if path.Clean(u.Path) != u.Path || strings.HasPrefix(target, "../") {
				t.Errorf("link %q is not a clean path inside dist", l)
				continue
			}
			info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target)))
			if err != nil || !info.Mode().IsRegular() {
				t.Errorf("link %q resolves to no file in dist", l)
			}
			linked[target] = true
		}
	}
	return linked
}

// split renders the catalog of skills: the front page and the page of
// each skill, by name.
func split(t *testing.T, skills []Skill, o Options) (front []byte, pages map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, List(skills), o); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	pages = map[string][]byte{}
	err := Pages(List(skills), o, func(i int, page []byte) error {
		mu.Lock()
		defer mu.Unlock()
		pages[skills[i].Name] = bytes.Clone(page)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), pages
}

func TestRenderExamples(t *testing.T) {
	dir := *dist
	if dir == "" {
		dir = t.TempDir()
	}
	b := buildExamples(t, dir)
	front, pages := split(t, b.skills, Options{Generator: "skillpack test"})
	if err := os.WriteFile(filepath.Join(dir, layout.Catalog), front, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, layout.PagesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	page := slices.Clone(front)
	for name, p := range pages {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(layout.CatalogPage(name))), p, 0o644); err != nil {
			t.Fatal(err)
		}
		page = append(page, p...)
	}
	linked := resolve(t, front, dir, layout.Catalog)
	for name, p := range pages {
		maps.Copy(linked, resolve(t, p, dir, layout.CatalogPage(name)))
	}

	// Every skill file, every archive, every page and the indexes are
	// reachable.
	for _, s := range b.skills {
		if !linked[layout.CatalogPage(s.Name)] {
			t.Errorf("the catalog has no link to %s", layout.CatalogPage(s.Name))
		}
	}
	for _, e := range b.entries {
		want := e.Kind == layout.KindArchive ||
			e.Kind == layout.KindFile && strings.HasPrefix(e.Path, layout.SkillsDir+"/") ||
			e.Path == layout.V2Index || e.Path == layout.MCPSkills || e.Path == layout.Checksums
		if want && !linked[e.Path] {
			t.Errorf("the catalog has no link to %s", e.Path)
		}
	}
	for _, s := range b.skills {
		for _, want := range []string{
			`<section class="skill" id="` + s.Name + `">`,
			`<a href="skills/` + s.Name + `.html"><strong>` + s.Name + `</strong>`,
			"npx skills add https://YOUR-HOST --skill " + s.Name,
			"skill://" + s.Name + "/SKILL.md",
			`title="` + string(s.ContentDigest) + `"`,
			"echo &#39;" + s.TarGz.Digest.Hex() + "  " + layout.ArchiveName(s.Name, s.TarGz.Digest, layout.TarGz) + "&#39; | sha256sum -c",
			"curl -LO https://YOUR-HOST/" + layout.ArchivePath(s.Name, s.TarGz.Digest, layout.TarGz),
		} {
			if !bytes.Contains(page, []byte(want)) {
				t.Errorf("%s: the catalog lacks %s", s.Name, want)
			}
		}
	}
	// The examples' relative links point at their files.
	for _, want := range []string{
		`<a href="../.well-known/agent-skills/csv-profiler/references/REFERENCE.md">the reference</a>`,
		`<a href="../.well-known/agent-skills/repo-hygiene/scripts/check.sh">scripts/check.sh</a>`,
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the catalog lacks %s", want)
		}
	}
	if bytes.Contains(page, []byte(`class="dead"`)) {
		t.Errorf("an example has a link the catalog could not resolve")
	}
}

// demo is a hand-built skill whose body tries everything a hostile or
// careless SKILL.md can.
func demo() Skill {
	d := func(s string) layout.Digest { return layout.DigestOf([]byte(s)) }
	return Skill{
		Skill: layout.Skill{
			Name:        "demo",
			Description: `Tom & Jerry's "quotes" <b>bold</b>`,
			Files: []layout.File{
				{Path: "SKILL.md", Digest: d("skill"), Size: 2048},
				{Path: "scripts/run.sh", Digest: d("run"), Size: 300, Exec: true},
				{Path: "my file.md", Digest: d("space"), Size: 10},
				{Path: "assets/a.png", Digest: d("png"), Size: 5 << 20},
				{Path: "a&amp;b.md", Digest: d("amp"), Size: 1},
			},
			TarGz:         layout.Archive{Digest: d("tgz"), Size: 1500},
			Zip:           layout.Archive{Digest: d("zip"), Size: 1700},
			ContentDigest: d("content"),
		},
		License:       "MIT & <friends>",
		Compatibility: "Needs sh.",
		Body:          body(demoBody),
	}
}

// demoBody is the SKILL.md of demo.
const demoBody = `# Usage

<script>alert("body")</script>

Inline <img src=x onerror=alert(1)> html.

- [run](scripts/run.sh#L1 "the script")
- [run again](./scripts/../scripts/run.sh?x=1)
- [spaced](my%20file.md)
- [amp](a&amp;amp;b.md)
- [self](SKILL.md#usage)
- [top](#usage)
- [nowhere](#nothing)
- [outside](../other/SKILL.md)
- [rooted](/etc/passwd)
- [missing](missing.md)
- [js](javascript:alert(1))
- [JS](JaVaScRiPt:alert(2))
- [encoded](jav&#x61;script:alert(3))
- [vb](vbscript:msgbox)
- [data](data:text/html;base64,PHNjcmlwdD4=)
- [web](https://example.com/a?b=1&c=2)
- [mail](mailto:me@example.com)
- <javascript:alert(4)>
- <https://example.org/auto>
- www.example.net
- [ref][r]

![local](assets/a.png)
![remote](https://tracker.example/pixel.png)
![inline](data:image/png;base64,iVBORw0KGgo=)

[r]: javascript:alert(5)

## Usage
`

func TestRenderHostile(t *testing.T) {
	s := demo()
	page, err := render(List{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lower := bytes.ToLower(ownScriptCut(t, page))
	// The text of a dead link may still read "javascript:alert(4)"; what
	// matters is that no attribute holds such a URL.
	for _, bad := range []string{"<script", "=\"javascript:", "=\"vbscript:", "=\"jav", "=\"data:", "onerror", "<b>bold", "<img src=\"https://"} {
		if bytes.Contains(lower, []byte(bad)) {
			t.Errorf("output contains %q", bad)
		}
	}
	for _, want := range []string{
		// Escaping of frontmatter text.
		`<p class="desc">Tom &amp; Jerry&#39;s &#34;quotes&#34; &lt;b&gt;bold&lt;/b&gt;</p>`,
		`MIT &amp; &lt;friends&gt;`,
		// Links to the skill's files, fragments kept, queries dropped.
		`<a href="../.well-known/agent-skills/demo/scripts/run.sh#L1" title="the script">run</a>`,
		`<a href="../.well-known/agent-skills/demo/scripts/run.sh">run again</a>`,
		`<a href="../.well-known/agent-skills/demo/my%20file.md">spaced</a>`,
		`<a href="../.well-known/agent-skills/demo/a%26amp%3Bb.md">amp</a>`,
		`<img src="../.well-known/agent-skills/demo/assets/a.png" alt="local">`,
		// Headings: shifted under the section's h2, ids behind the name.
		`<h3 id="demo--usage">Usage</h3>`,
		`<h4 id="demo--usage-1">Usage</h4>`,
		`<a href="#demo--usage">self</a>`,
		`<a href="#demo--usage">top</a>`,
		// The web stays a link, marked; remote images become links.
		`<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener">web</a>`,
		`<a href="https://example.org/auto" rel="nofollow noopener">https://example.org/auto</a>`,
		`<a href="http://www.example.net" rel="nofollow noopener">www.example.net</a>`,
		`<a href="https://tracker.example/pixel.png" rel="nofollow noopener">remote</a>`,
		`<a href="mailto:me@example.com">mail</a>`,
		// Dead links keep their text.
		`<span class="dead" title="no such heading: #nothing">nowhere</span>`,
		`<span class="dead" title="outside this skill: ../other/SKILL.md">outside</span>`,
		`<span class="dead" title="outside this skill: /etc/passwd">rooted</span>`,
		`<span class="dead" title="not a file of this skill: missing.md">missing</span>`,
		`<span class="dead" title="URL scheme not allowed">js</span>`,
		`<span class="dead" title="URL scheme not allowed">JS</span>`,
		`<span class="dead" title="URL scheme not allowed">encoded</span>`,
		`<span class="dead" title="URL scheme not allowed">ref</span>`,
		`<span class="dead" title="image: URL scheme not allowed">inline</span>`,
		// Sizes for people, exact bytes and full digests on hover.
		`title="5242880 bytes">5.0 MiB</td>`,
		`title="2048 bytes">2.0 KiB</td>`,
		`title="300 bytes">300 B</td>`,
		`<code title="` + string(s.Files[1].Digest) + `">` + s.Files[1].Digest.Hex()[:12] + `…</code>`,
		`<span class="tag"`,
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("output lacks %s", want)
		}
	}
	dir := t.TempDir()
	front, pages := split(t, []Skill{s}, Options{})
	for _, e := range plan(t, []layout.Skill{withFrontmatter(s.Skill)}) {
		p := filepath.Join(dir, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range map[string][]byte{layout.Catalog: front, layout.CatalogPage(s.Name): pages[s.Name]} {
		if err := os.MkdirAll(filepath.Join(dir, path.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	resolve(t, front, dir, layout.Catalog)
	resolve(t, pages[s.Name], dir, layout.CatalogPage(s.Name))
}

// withFrontmatter gives a hand-built skill the frontmatter layout.Plan
// requires.
func withFrontmatter(s layout.Skill) layout.Skill {
	s.Frontmatter = fmt.Appendf(nil, `{"name":%q,"description":%q}`, s.Name, s.Description)
	return s
}

func TestRenderBaseURL(t *testing.T) {
	base := "https://cdn.example/skills/"
	page, err := render(List{demo()}, Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	external := map[string]bool{
		"https://example.com/a?b=1&c=2":     true,
		"https://example.org/auto":          true,
		"http://www.example.net":            true,
		"https://tracker.example/pixel.png": true,
	}
	n := 0
	for _, l := range links(t, page) {
		if strings.HasPrefix(l, base+layout.SkillsDir+"/") {
			n++
		}
		if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, base) && !external[l] && !strings.HasPrefix(l, "mailto:") {
			t.Errorf("link %q is not under %s", l, base)
		}
	}
	if n == 0 {
		t.Error("no link into the skills tree")
	}
	for _, want := range []string{
		"npx skills add https://cdn.example/skills --skill demo",
		"curl -LO https://cdn.example/skills/.well-known/agent-skills/demo-",
		"img-src &#39;self&#39; https://cdn.example;",
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("output lacks %s", want)
		}
	}
	if bytes.Contains(page, []byte("YOUR-HOST")) {
		t.Error("output shows the placeholder host though a base URL is set")
	}
}

func TestRenderDeterministic(t *testing.T) {
	a := demo()
	b := demo()
	b.Name, b.Description = "another", "Another skill."
	c := demo()
	c.Name = "zeta"
	first, err := render(List{a, b, c}, Options{Generator: "g", Title: "T"})
	if err != nil {
		t.Fatal(err)
	}
	// The same skills in another order, with files in another order.
	for i := range 3 {
		ss := []Skill{c, a, b}
		if i == 1 {
			ss = []Skill{b, c, a}
		}
		for j := range ss {
			ss[j].Files = slices.Clone(ss[j].Files)
			slices.Reverse(ss[j].Files)
		}
		again, err := render(List(ss), Options{Generator: "g", Title: "T"})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatalf("render %d differs from the first", i)
		}
	}
	// Sorted by name.
	ia := bytes.Index(first, []byte(`id="another"`))
	id := bytes.Index(first, []byte(`id="demo"`))
	iz := bytes.Index(first, []byte(`id="zeta"`))
	if !(0 <= ia && ia < id && id < iz) {
		t.Errorf("sections not sorted by name: another@%d demo@%d zeta@%d", ia, id, iz)
	}
	for _, bad := range [][]byte{[]byte("\r"), []byte("<script")} {
		if bytes.Contains(ownScriptCut(t, first), bad) {
			t.Errorf("output contains %q", bad)
		}
	}
}

// ownScriptCut returns page without its one script, the catalog's own
// filter.js at the end of the page, so that a test can check no other
// script got in. It fails t if that script is not there, exactly once.
func ownScriptCut(t testing.TB, page []byte) []byte {
	t.Helper()
	a, err := load()
	if err != nil {
		t.Fatal(err)
	}
	own := []byte("<script>" + a.js + "</script>\n</body>")
	if n := bytes.Count(page, own); n != 1 {
		t.Fatalf("the page has its script %d times; want once, before </body>", n)
	}
	return bytes.Replace(page, own, []byte("</body>"), 1)
}

// The inline stylesheet must match the hash the policy allows, or
// browsers would show the page unstyled.
func TestRenderPolicy(t *testing.T) {
	front, pages := split(t, []Skill{demo()}, Options{})
	for _, page := range [][]byte{front, pages["demo"]} {
		policy(t, page, bytes.Equal(page, front))
	}
}

// policy checks the policy of one page, which has its own script or none.
func policy(t *testing.T, page []byte, script bool) {
	t.Helper()
	m := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindSubmatch(page)
	if m == nil {
		t.Fatal("no <style> element")
	}
	p := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindSubmatch(page)
	if p == nil {
		t.Fatal("no Content-Security-Policy")
	}
	policy := html.UnescapeString(string(p[1]))
	sum := sha256.Sum256(m[1])
	want := "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "';"
	if !strings.Contains(policy, want) {
		t.Errorf("policy %s lacks %s", policy, want)
	}
	if !strings.HasPrefix(policy, "default-src 'none';") {
		t.Errorf("policy %s does not default to none", policy)
	}
	if n := bytes.Count(page, []byte("<style")); n != 1 {
		t.Errorf("%d style elements; the policy allows one", n)
	}
	if bytes.Contains(page, []byte(" style=")) {
		t.Error("a style attribute would be blocked by the policy")
	}
	js := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllSubmatch(page, -1)
	if !script {
		// A skill's page runs nothing: default-src 'none' covers scripts.
		if len(js) != 0 || strings.Contains(policy, "script-src") {
			t.Errorf("a skill's page has %d scripts and policy %s; want none", len(js), policy)
		}
		return
	}
	// The one script runs only if the policy names its exact bytes.
	if len(js) != 1 {
		t.Fatalf("%d script elements; the policy allows one", len(js))
	}
	sum = sha256.Sum256(js[0][1])
	if want := "script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "';"; !strings.Contains(policy, want) {
		t.Errorf("policy %s lacks %s", policy, want)
	}
	if got := regexp.MustCompile(`script-src [^;]*;`).FindAllString(policy, -1); len(got) != 1 || strings.Count(got[0], "'") != 2 {
		t.Errorf("policy %s: script-src must allow exactly one hash", policy)
	}
	if bytes.Contains(bytes.ToLower(page), []byte(" on")) && regexp.MustCompile(`(?i)<[^>]+\son[a-z]+=`).Match(page) {
		t.Error("an event handler attribute would be blocked by the policy")
	}
}

// The policy, stated: what the page may load and run. A change to it is
// a change to what the page promises (no trackers, nothing from elsewhere).
func TestRenderPolicyStated(t *testing.T) {
	a, err := load()
	if err != nil {
		t.Fatal(err)
	}
	got := csp(a.css, a.js, "https://cdn.example/skills")
	want := "default-src 'none'; style-src " + hash(a.css) + "; script-src " + hash(a.js) +
		"; img-src 'self' https://cdn.example; base-uri 'none'; form-action 'none'"
	if got != want {
		t.Errorf("policy\n got %s\nwant %s", got, want)
	}
	got = csp(a.css, "", "")
	want = "default-src 'none'; style-src " + hash(a.css) + "; img-src 'self'; base-uri 'none'; form-action 'none'"
	if got != want {
		t.Errorf("a skill page's policy\n got %s\nwant %s", got, want)
	}
}

func TestRenderErrors(t *testing.T) {
	good := demo()
	badName := demo()
	badName.Name = "Bad_Name"
	badDigest := demo()
	badDigest.TarGz.Digest = "sha256:XYZ"
	badFile := demo()
	badFile.Files = slices.Clone(badFile.Files)
	badFile.Files[1].Digest = "md5:00"
	noBody := demo()
	noBody.Name, noBody.Body = "no-body", nil
	for _, tc := range []struct {
		name   string
		skills []Skill
		o      Options
		want   string
	}{
		{"name", []Skill{badName}, Options{}, `skill "Bad_Name": name has 'B', '_', 'N'`},
		{"duplicate", []Skill{good, good}, Options{}, `skill "demo": two skills have this name`},
		{"archive", []Skill{badDigest}, Options{}, `archive digests "sha256:XYZ"`},
		{"file", []Skill{badFile}, Options{}, `file "scripts/run.sh": digest "md5:00"`},
		{"base", []Skill{good}, Options{BaseURL: "ftp://x"}, `base URL "ftp://x"`},
		{"base query", []Skill{good}, Options{BaseURL: "https://x/?a=b"}, `base URL "https://x/?a=b"`},
		{"no body", []Skill{good, noBody}, Options{}, `skill "no-body": no Body`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Render(&buf, List(tc.skills), tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %s", err, tc.want)
			}
			// A bad input is caught before the page starts.
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes", buf.Len())
			}
			err = Pages(List(tc.skills), tc.o, func(int, []byte) error {
				t.Error("Pages handed over a page")
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Pages: err = %v, want it to contain %s", err, tc.want)
			}
		})
	}
}

func TestRenderEmpty(t *testing.T) {
	page, err := render(List(nil), Options{Title: `A "B" & C`})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(`<title>A &#34;B&#34; &amp; C</title>`)) {
		t.Error("title not escaped")
	}
	if !bytes.Contains(page, []byte("0 skills")) {
		t.Error("an empty catalog does not say it has no skills")
	}
}

// FuzzRenderBody checks that no body makes the renderer fail or panic, or
// lets a script, an event handler or a javascript: URL through.
func FuzzRenderBody(f *testing.F) {
	f.Add([]byte(demoBody))
	f.Add([]byte("[x](<javascript:alert(1)>)\n"))
	f.Add([]byte("<a href=\"javascript:x\">y</a>\n\n<svg onload=alert(1)>"))
	f.Add([]byte("[a]: <java\nscript:x>\n[a]\n"))
	f.Fuzz(func(t *testing.T, md []byte) {
		s := demo()
		s.Body = func() ([]byte, error) { return md, nil }
		page, err := render(List{s}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		lower := bytes.ToLower(ownScriptCut(t, page))
		for _, bad := range []string{"<script", "<svg", "<iframe", "href=\"javascript:", "src=\"javascript:", "href=\"data:", "src=\"data:"} {
			if bytes.Contains(lower, []byte(bad)) {
				t.Fatalf("output contains %q", bad)
			}
		}
		// Text may say " href=", so the attribute count of links() does
		// not hold here; the scanner alone still sees every real one.
		for _, m := range attr.FindAllSubmatch(page, -1) {
			l := html.UnescapeString(string(m[2]))
			if u, err := url.Parse(l); err == nil && u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "mailto" {
				t.Fatalf("link %q has scheme %q", l, u.Scheme)
			}
		}
	})
}

// FuzzUnlinked checks that unlinked renders every plain body exactly as
// md does.
func FuzzUnlinked(f *testing.F) {
	f.Add([]byte(demoBody))
	f.Add([]byte("a b \nc  \nd*e* ~f~ (g) _h_ x\\\n[i](references/guide.md) `j k`\n\n| a | b |\n|---|---|\n| c | d |\n\n- [ ] t\n- [x] (u\n"))
	f.Add([]byte("# T\n\n* a\n\n  b ( c\n\n> q ~~s~~ **w** < e [x] y\r\nz\t\n"))
	f.Add([]byte("a b    \nc\t \nd \t\ne   "))
	f.Add([]byte("http and https, (ftp) *http*: HTTP://a.example Https://b.example ftp :http\n"))
	files := map[string]bool{"SKILL.md": true, "references/guide.md": true}
	href := func(p string) string { return "../" + p }
	f.Fuzz(func(t *testing.T, body []byte) {
		// Take out what starts an autolink rather than skip every body
		// that has one: the rest of the body is what this test is about.
		for _, r := range [][2]string{{"https:", "htxps:"}, {"http:", "htxp:"}, {"ftp:", "ftx:"}, {"www.", "wwx."}, {"@", "&"}} {
			body = bytes.ReplaceAll(body, []byte(r[0]), []byte(r[1]))
		}
		if !plain(body) {
			t.Skip("not plain")
		}
		var want, got bytes.Buffer
		if err := convert(&want, md, "demo", body, files, href); err != nil {
			t.Fatal(err)
		}
		if err := convert(&got, unlinked, "demo", body, files, href); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("without autolinks:\n%s\nwith them:\n%s", got.String(), want.String())
		}
	})
}

// Large and hostile bodies render in about linear time: a SKILL.md is
// untrusted, and one must not stall a build. A megabyte of the last six
// took goldmark minutes before skill's bounds; the test's own timeout is
// the assertion of that, and what is checked is how each was bounded.
func TestRenderLargeBody(t *testing.T) {
	const size = 1 << 20
	files := map[string]bool{"SKILL.md": true}
	href := func(p string) string { return "../" + p }
	for _, c := range []struct {
		unit string
		tag  string // a tag the body's HTML may hold at most most times
		most int
	}{
		{"# Same\n", "<h3", 1 << 20},
		{"[x](missing.md) [y](#same) ", "<span class=\"dead\"", 1 << 20},
		{"[", "<a ", 0},
		{">", "<blockquote>", skill.MaxNesting},
		{"> - ", "<blockquote>", skill.MaxNesting / 2},
		{"1. ", "<ol>", skill.MaxNesting},
		{"[a](", "<a ", 0},     // each "[" read to the end of the line
		{"*a _b", "<em>", 0},   // each closer looks back at every opener
		{"[a]: b\n", "<p>", 1}, // each definition copies the lines after it
	} {
		src := bytes.Repeat([]byte(c.unit), size/len(c.unit))
		var html bytes.Buffer
		if err := renderBody(&html, "demo", src, files, href); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(html.String(), c.tag); n > c.most {
			t.Errorf("%q × %d: %d %s, want at most %d", c.unit, size/len(c.unit), n, c.tag, c.most)
		}
	}
	s := demo()
	s.Body = body("# Same\n# Same\n# Same-1\n# Same\n")
	page, err := render(List{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"demo--same", "demo--same-1", "demo--same-1-1", "demo--same-2"} {
		if !bytes.Contains(page, []byte(`id="`+id+`"`)) {
			t.Errorf("no heading with id %s", id)
		}
	}
}

// TestWithHost checks that a server can put its own address into a page
// rendered without one: the install commands name it, the hint to replace
// the placeholder is gone, links stay relative, and a page rendered with a
// base URL is left alone.
func TestWithHost(t *testing.T) {
	front, pages := split(t, []Skill{demo()}, Options{})
	for _, page := range [][]byte{front, pages["demo"]} {
		withHost(t, page)
	}
	withBase, err := render(List{demo()}, Options{BaseURL: "https://cdn.example"})
	if err != nil {
		t.Fatal(err)
	}
	if got := WithHost(withBase, "http://127.0.0.1:8080"); !bytes.Equal(got, withBase) {
		t.Error("WithHost changed a page rendered with a base URL")
	}
}

// withHost checks WithHost on one page, the front page or a skill's.
func withHost(t *testing.T, page []byte) {
	t.Helper()
	front := bytes.Contains(page, []byte("Install every skill"))
	if !bytes.Contains(page, []byte(hostHint)) {
		t.Fatalf("the page lacks the hint WithHost removes:\n%s", hostHint)
	}
	got := WithHost(page, "http://127.0.0.1:8080")
	wants := []string{"npx skills add http://127.0.0.1:8080 --skill demo", "curl -LO http://127.0.0.1:8080/.well-known/agent-skills/demo-"}
	if front {
		wants = []string{"npx skills add http://127.0.0.1:8080</code>"}
	}
	for _, want := range wants {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("output lacks %s", want)
		}
	}
	if bytes.Contains(got, []byte("YOUR-HOST")) || bytes.Contains(got, []byte("Replace <code>")) {
		t.Error("output still shows the placeholder host or the hint to replace it")
	}
	if !slices.Equal(links(t, got), links(t, page)) {
		t.Error("WithHost changed the page's links")
	}
	// A host with a quote or a < never reaches the page raw.
	if got := WithHost(page, `http://a"b<c`); bytes.Contains(got, []byte(`a"b<c`)) {
		t.Error("WithHost put a quote and a < into the page raw")
	}
	// A host a shell would not take as one word keeps the placeholder.
	if got := WithHost(page, "http://[::1]:8080"); !bytes.Equal(got, page) {
		t.Error("WithHost put a host with [ ] into shell commands")
	}
}

// A link lint follows is a link on the page: both classify it with
// skill.ResolveLink, so ${CLAUDE_SKILL_DIR}/ names the skill's folder here
// too, and a plugin's folder is outside the skill.
func TestRenderSkillDirLinks(t *testing.T) {
	files := map[string]bool{"SKILL.md": true, "references/x.md": true}
	var html bytes.Buffer
	if err := renderBody(&html, "demo", []byte("[a](${CLAUDE_SKILL_DIR}/references/x.md) [b]({baseDir}/references/x.md#part) [c](${CLAUDE_PLUGIN_ROOT}/x.md)\n"),
		files, func(p string) string { return p }); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<a href=".well-known/agent-skills/demo/references/x.md">a</a>`,
		`<a href=".well-known/agent-skills/demo/references/x.md#part">b</a>`,
		`<span class="dead" title="outside this skill: ${CLAUDE_PLUGIN_ROOT}/x.md">c</span>`,
	} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("output lacks %s\n%s", want, html.String())
		}
	}
}
