package layout

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// content is a skill's files as the build would read them.
type content map[string]string

// makeSkill builds a Skill the way the build would: digests and sizes from
// the bytes, archives stood in for by distinct fake bytes.
func makeSkill(name, desc string, files content, extra string) Skill {
	fm := fmt.Sprintf(`{"name":%q,"description":%q%s}`, name, desc, extra)
	s := Skill{Name: name, Description: desc, Frontmatter: json.RawMessage(fm), Version: VersionOf(json.RawMessage(fm), true)}
	for p, c := range files {
		s.Files = append(s.Files, File{Path: p, Digest: DigestOf([]byte(c)), Size: int64(len(c)), Exec: strings.HasSuffix(p, ".sh")})
	}
	tgz := []byte("tar.gz of " + name)
	zip := []byte("zip of " + name + " (longer)")
	s.TarGz = Archive{Digest: DigestOf(tgz), Size: int64(len(tgz))}
	s.Zip = Archive{Digest: DigestOf(zip), Size: int64(len(zip))}
	s.ContentDigest = DigestOf([]byte("manifest of " + name))
	return s
}

// twoSkills is the plan the golden files pin: one single-file skill and one
// with supporting files, frontmatter that needs no HTML escaping, and an
// extra metadata map that must pass through unchanged.
func twoSkills() []Skill {
	return []Skill{
		makeSkill("pdf-processing", "Extract, fill & merge PDF <forms>.", content{
			"SKILL.md":            "---\nname: pdf-processing\n---\n# PDF\n",
			"scripts/fill.sh":     "#!/bin/sh\necho fill\n",
			"references/FORMS.md": "# Forms\n",
			"assets/form.json":    "{}\n",
		}, `,"metadata":{"version":"2.1.0","z":"last","a":"first"}`),
		makeSkill("hello", "Say hello.", content{"SKILL.md": "---\nname: hello\n---\nHi\n"}, ""),
	}
}

// The reader checks below restate, field by field, what each reader in
// bundle.md's "Who reads the bundle" table requires. They decode documents
// generically, as those readers do, so a missing or misspelt field fails.

var (
	nameRE   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

func validName(v any) bool {
	s, ok := v.(string)
	return ok && len(s) >= 1 && len(s) <= 64 && nameRE.MatchString(s)
}

func validDescription(v any) bool {
	s, ok := v.(string)
	return ok && len(s) > 0 && len(utf16.Encode([]rune(s))) <= 1024
}

func validDigest(v any) bool {
	s, ok := v.(string)
	return ok && digestRE.MatchString(s)
}

// fetcher serves a bundle at a site URL, like a static host would.
type fetcher struct {
	site string // absolute URL at which dist/ is served, ending in "/"
	b    *Planned
}

// get serves a URL as a static host does: same origin, path under the
// site's, percent-encoding decoded.
func (f fetcher) get(u *url.URL) (Entry, bool) {
	site, err := url.Parse(f.site)
	if err != nil || u.Scheme != site.Scheme || u.Host != site.Host || u.RawQuery != "" {
		return Entry{}, false
	}
	rest, ok := strings.CutPrefix(u.Path, site.Path)
	if !ok {
		return Entry{}, false
	}
	return f.b.Lookup(rest)
}

// v2Reader reads a discovery v0.2.0 index like the Vercel CLI ≥1.5 and
// skilljack: an unknown $schema voids the index; an entry breaking a rule
// is silently dropped (returned in dropped so tests can insist on none);
// every url resolves against the index URL (RFC 3986) to an artifact whose
// digest matches.
func v2Reader(doc []byte, f fetcher) (names, dropped []string, err error) {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, nil, err
	}
	if m["$schema"] != Schema {
		return nil, nil, fmt.Errorf("$schema is %v, want %s", m["$schema"], Schema)
	}
	skills, ok := m["skills"].([]any)
	if !ok {
		return nil, nil, fmt.Errorf("skills is not an array")
	}
	base, _ := url.Parse(f.site + V2Index)
	for i, raw := range skills {
		e, _ := raw.(map[string]any)
		drop := func(why string) { dropped = append(dropped, fmt.Sprintf("entry %d %v: %s", i, e["name"], why)) }
		switch {
		case e == nil:
			drop("not an object")
			continue
		case !validName(e["name"]):
			drop("bad name")
			continue
		case e["type"] != "skill-md" && e["type"] != "archive":
			drop("bad type")
			continue
		case !validDescription(e["description"]):
			drop("bad description")
			continue
		case !validDigest(e["digest"]):
			drop("bad digest")
			continue
		}
		us, _ := e["url"].(string)
		if us == "" {
			drop("no url")
			continue
		}
		ref, err := url.Parse(us)
		if err != nil {
			drop("bad url")
			continue
		}
		got, ok := f.get(base.ResolveReference(ref))
		if !ok {
			drop("url " + us + " is not served")
			continue
		}
		if string(got.Digest) != e["digest"] {
			drop("digest does not match the served bytes")
			continue
		}
		if e["type"] == "skill-md" && got.File != EntryFile || e["type"] == "archive" && got.Format != TarGz {
			drop("url points at " + got.Path)
			continue
		}
		names = append(names, e["name"].(string))
	}
	return names, dropped, nil
}

// v1Reader reads a discovery v0.1.0 index like the older skills CLI: one
// bad entry rejects the whole index, then every file is fetched at
// /.well-known/skills/<name>/<path>.
func v1Reader(doc []byte, f fetcher) (names []string, err error) {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	if _, ok := m["$schema"]; ok {
		return nil, fmt.Errorf("a v0.1 index has no $schema")
	}
	skills, ok := m["skills"].([]any)
	if !ok {
		return nil, fmt.Errorf("skills is not an array")
	}
	for i, raw := range skills {
		e, _ := raw.(map[string]any)
		if e == nil {
			return nil, fmt.Errorf("entry %d is not an object", i)
		}
		name, _ := e["name"].(string)
		desc, _ := e["description"].(string)
		files, _ := e["files"].([]any)
		if !validName(name) || desc == "" || len(files) == 0 {
			return nil, fmt.Errorf("entry %d: bad name, description or files", i)
		}
		if files[0] != EntryFile {
			return nil, fmt.Errorf("%s: files[0] is %v, want SKILL.md", name, files[0])
		}
		for _, fv := range files {
			p, ok := fv.(string)
			if !ok || p == "" || p[0] == '/' || p[0] == '\\' || strings.Contains(p, "..") {
				return nil, fmt.Errorf("%s: bad file %v", name, fv)
			}
			for _, c := range []byte(p) {
				if c < 0x20 || c > 0x7e || strings.IndexByte(`\?#[]%`, c) >= 0 {
					return nil, fmt.Errorf("%s: bad file %q", name, p)
				}
			}
			// The CLI builds the file URL by concatenation; fetch() then
			// percent-encodes what needs it, as url.Parse does here.
			u, err := url.Parse(f.site + LegacyDir + "/" + name + "/" + p)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", name, p, err)
			}
			if _, ok := f.get(u); !ok {
				return nil, fmt.Errorf("%s: %s is not served", name, p)
			}
		}
		names = append(names, name)
	}
	return names, nil
}

// resourceTable decodes mcp/resources.json as a thin server does, checking
// its rules: sorted by uri, every field present, paths in the bundle with
// the same digest and size.
func resourceTable(doc []byte, b *Planned) (map[string]map[string]any, error) {
	var rs []map[string]any
	if err := json.Unmarshal(doc, &rs); err != nil {
		return nil, err
	}
	table := map[string]map[string]any{}
	prev := ""
	for _, r := range rs {
		uri, _ := r["uri"].(string)
		path, _ := r["path"].(string)
		mt, _ := r["mimeType"].(string)
		size, okSize := r["size"].(float64)
		if uri == "" || path == "" || mt == "" || !okSize || !validDigest(r["digest"]) {
			return nil, fmt.Errorf("resource %v lacks a field", r)
		}
		if uri <= prev {
			return nil, fmt.Errorf("resources not sorted by uri: %s after %s", uri, prev)
		}
		prev = uri
		e, ok := b.Lookup(path)
		if !ok || string(e.Digest) != r["digest"] || float64(e.Size) != size {
			return nil, fmt.Errorf("resource %s: path %s is not in the bundle with that digest and size", uri, path)
		}
		table[uri] = r
	}
	return table, nil
}

// mcpReader reads mcp/skills.json as a Skills-extension host (and the
// TypeScript SDK's SkillsClient.list, which fails every skill when one
// entry is bad): entries {uri, frontmatter, resources}; the last segment of
// the skill path equals frontmatter.name; resources is complete, includes
// SKILL.md, and every resource is served with that digest and size.
func mcpReader(skillsDoc []byte, table map[string]map[string]any) (names []string, err error) {
	var entries []map[string]any
	if err := json.Unmarshal(skillsDoc, &entries); err != nil {
		return nil, err
	}
	uriRE := regexp.MustCompile(`^skill://((?:[^/]+/)*([^/]+))/SKILL\.md$`)
	prev := ""
	for i, e := range entries {
		uri, _ := e["uri"].(string)
		mm := uriRE.FindStringSubmatch(uri)
		if mm == nil {
			return nil, fmt.Errorf("entry %d: uri %q", i, uri)
		}
		if uri <= prev {
			return nil, fmt.Errorf("skills not sorted by uri: %s after %s", uri, prev)
		}
		prev = uri
		fm, _ := e["frontmatter"].(map[string]any)
		if fm == nil || fm["name"] != mm[2] || !validName(fm["name"]) || !validDescription(fm["description"]) {
			return nil, fmt.Errorf("%s: frontmatter %v", uri, e["frontmatter"])
		}
		rs, ok := e["resources"].([]any)
		if !ok {
			return nil, fmt.Errorf("%s: resources is not an array", uri)
		}
		hasEntry := false
		for _, rv := range rs {
			r, _ := rv.(map[string]any)
			ru, _ := r["uri"].(string)
			size, okSize := r["size"].(float64)
			if !strings.HasPrefix(ru, "skill://"+mm[1]+"/") || !validDigest(r["digest"]) || !okSize || size < 0 {
				return nil, fmt.Errorf("%s: bad resource %v", uri, r)
			}
			served, ok := table[ru]
			if !ok || served["digest"] != r["digest"] || served["size"] != r["size"] {
				return nil, fmt.Errorf("%s: resource %s is not served as listed", uri, ru)
			}
			hasEntry = hasEntry || ru == uri
		}
		if !hasEntry {
			return nil, fmt.Errorf("%s: resources lack SKILL.md", uri)
		}
		names = append(names, mm[2])
	}
	return names, nil
}

// mcpcReader reads mcp/index.json like the legacy readers: mcpc drops any
// entry without a string name and url or with a type it does not know;
// June-2026 readers want frontmatter, url, digest and optional archives
// {url, mimeType, digest} with an archive media type.
func mcpcReader(indexDoc []byte, table map[string]map[string]any) (names []string, err error) {
	var m map[string]any
	if err := json.Unmarshal(indexDoc, &m); err != nil {
		return nil, err
	}
	skills, ok := m["skills"].([]any)
	if !ok {
		return nil, fmt.Errorf("skills is not an array")
	}
	for i, raw := range skills {
		e, _ := raw.(map[string]any)
		name, _ := e["name"].(string)
		u, _ := e["url"].(string)
		if name == "" || u == "" {
			return nil, fmt.Errorf("entry %d: mcpc drops it (no name or url)", i)
		}
		if e["type"] != "skill-md" {
			return nil, fmt.Errorf("%s: type %v; April-era readers need skill-md", name, e["type"])
		}
		fm, _ := e["frontmatter"].(map[string]any)
		if fm == nil || fm["name"] != name || !validDigest(e["digest"]) {
			return nil, fmt.Errorf("%s: June-era readers need frontmatter and digest", name)
		}
		if r, ok := table[u]; !ok || r["digest"] != e["digest"] {
			return nil, fmt.Errorf("%s: url %s is not served with that digest", name, u)
		}
		archives, _ := e["archives"].([]any)
		for _, av := range archives {
			a, _ := av.(map[string]any)
			au, _ := a["url"].(string)
			mt := a["mimeType"]
			if mt != "application/gzip" && mt != "application/zip" || !validDigest(a["digest"]) {
				return nil, fmt.Errorf("%s: bad archive %v", name, a)
			}
			if r, ok := table[au]; !ok || r["digest"] != a["digest"] || r["mimeType"] != mt {
				return nil, fmt.Errorf("%s: archive %s is not served as listed", name, au)
			}
		}
		names = append(names, name)
	}
	return names, nil
}

// entries lists every entry of b.
func entries(t testing.TB, b *Planned) []Entry {
	t.Helper()
	var es []Entry
	for e, err := range b.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	if len(es) != b.Len() {
		t.Fatalf("Entries yields %d entries, Len says %d", len(es), b.Len())
	}
	return es
}

// prepare is what reference encodes: the skills checked, sorted by name,
// each with its files sorted by path.
func prepare(skills []Skill, o Options) ([]Skill, error) {
	if _, err := newSet(List(skills), o); err != nil {
		return nil, err
	}
	ss := slices.Clone(skills)
	for i := range ss {
		ss[i].Files = slices.Clone(ss[i].Files)
		slices.SortFunc(ss[i].Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	}
	slices.SortFunc(ss, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return ss, nil
}
