package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/layout"
)

// The documents' shapes, as far as verify reads them.

type v2Doc struct {
	Schema *string   `json:"$schema"`
	Skills []v2Entry `json:"skills"`
}

type v2Entry struct {
	Name          string `json:"name"`
	Type          string `json:"type"`
	Description   string `json:"description"`
	URL           string `json:"url"`
	Digest        string `json:"digest"`
	ContentDigest string `json:"contentDigest"`
}

type v1Doc struct {
	Skills []v1Entry `json:"skills"`
}

type v1Entry struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Files       []string `json:"files"`
}

type mcpSkill struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   *int64 `json:"size"`
	} `json:"resources"`
}

type mcpIndexDoc struct {
	Skills []struct {
		Name          string          `json:"name"`
		Type          string          `json:"type"`
		Description   string          `json:"description"`
		URL           string          `json:"url"`
		Digest        string          `json:"digest"`
		Frontmatter   json.RawMessage `json:"frontmatter"`
		ContentDigest string          `json:"contentDigest"`
		Archives      []struct {
			URL      string `json:"url"`
			MimeType string `json:"mimeType"`
			Digest   string `json:"digest"`
		} `json:"archives"`
	} `json:"skills"`
}

// v2 checks the discovery v0.2.0 index, the one document every bundle
// has. Over HTTP a bundle whose index cannot be fetched cannot be checked
// at all, so that is an error rather than a problem.
func (c *checker) v2() error {
	const p = layout.V2Index
	data, err := c.load(p, true)
	if err != nil {
		if _, folder := c.src.folder(); !folder {
			return fmt.Errorf("cannot read %s%s: %s", c.src, p, describe(err))
		}
		c.problem(p, "%s; every bundle has the discovery v0.2.0 index", describe(err))
		return nil
	}
	c.docs = append(c.docs, p)
	c.rep.Checked.Indexes++
	var doc v2Doc
	if !c.decode(p, data, &doc) {
		return nil
	}
	switch {
	case doc.Schema == nil:
		c.problem(p, "has no \"$schema\"; set it to %q, or readers ignore the whole index", layout.Schema)
	case *doc.Schema != layout.Schema:
		c.problem(p, "\"$schema\" is %q; readers accept exactly %q and ignore the whole index otherwise", *doc.Schema, layout.Schema)
	}
	if doc.Skills == nil {
		c.problem(p, "has no \"skills\" array")
	}
	for i, e := range doc.Skills {
		label := fmt.Sprintf("skills[%d] %q", i, e.Name)
		ok := true
		bad := func(format string, args ...any) {
			c.problem(p, label+": "+format+"; readers drop this entry", args...)
			ok = false
		}
		if err := layout.CheckName(e.Name); err != nil {
			bad("%v", err)
		} else if c.skills[e.Name] != nil {
			bad("a second entry with this name")
		}
		if e.Type != "skill-md" && e.Type != "archive" {
			bad("type is %q; use \"skill-md\" or \"archive\"", e.Type)
		}
		if err := layout.CheckDescription(e.Description); err != nil {
			bad("%v", err)
		}
		if e.URL == "" {
			bad("no url")
		}
		if !layout.Digest(e.Digest).Valid() {
			bad("digest %q is not \"sha256:\" and 64 lowercase hex digits", e.Digest)
		}
		if !ok {
			continue
		}
		loc, err := c.src.locate(e.URL)
		if err != nil {
			c.problem(p, "%s: %v", label, err)
			continue
		}
		s := &skillModel{name: e.Name, typ: e.Type, description: e.Description, digest: e.Digest,
			contentDigest: e.ContentDigest, loc: loc, served: map[string]*sum{}}
		c.skills[e.Name] = s
		c.names = append(c.names, e.Name)
		if e.Type == "archive" {
			if !isArchive(loc) {
				c.problem(p, "%s: type archive, but url %q is not a .tar.gz or .zip", label, e.URL)
				continue
			}
			c.archive(loc, e.Name, p, e.Digest, -1)
		} else {
			c.expect(loc, p, e.Digest, -1)
		}
	}
	slices.Sort(c.names)
	return nil
}

// archive records a claim about the archive at loc.
func (c *checker) archive(loc, skill, from, digest string, size int64) *archiveRef {
	a := c.archives[loc]
	if a == nil {
		ext := layout.Zip
		if strings.HasSuffix(loc, "."+layout.TarGz) {
			ext = layout.TarGz
		}
		a = &archiveRef{loc: loc, skill: skill, ext: ext}
		c.archives[loc] = a
		if s := c.skills[skill]; s != nil {
			s.archives = append(s.archives, a)
		}
	} else if a.skill != skill {
		c.problem(loc, "%s names it as an archive of skill %q, another document of skill %q", from, skill, a.skill)
	}
	a.claims = append(a.claims, claim{from: from, digest: digest, size: size})
	return a
}

// optionalIndex reads and decodes an index the bundle may leave out,
// counting it as checked; false means there is nothing more to check
// (absent, or a problem already reported).
func (c *checker) optionalIndex(p string, v any) bool {
	data := c.read(p, true)
	if data == nil {
		return false
	}
	c.docs = append(c.docs, p)
	c.rep.Checked.Indexes++
	return c.decode(p, data, v)
}

// v1Index checks the legacy discovery v0.1.0 index, if there is one.
func (c *checker) v1Index() {
	const p = layout.V1Index
	var doc v1Doc
	if !c.optionalIndex(p, &doc) {
		return
	}
	c.v1 = &doc
	const whole = "; the skills CLI rejects the whole legacy index for one bad entry"
	seen := map[string]bool{}
	for i, e := range doc.Skills {
		label := fmt.Sprintf("skills[%d] %q", i, e.Name)
		if err := layout.CheckName(e.Name); err != nil {
			c.problem(p, "%s: %v%s", label, err, whole)
			continue
		}
		if seen[e.Name] {
			c.problem(p, "%s: a second entry with this name%s", label, whole)
			continue
		}
		seen[e.Name] = true
		s := c.skills[e.Name]
		if s == nil {
			c.problem(p, "%s: not in %s; the two indexes must list the same skills", label, layout.V2Index)
			continue
		}
		if e.Description != s.description {
			c.problem(p, "%s: description differs from the one in %s", label, layout.V2Index)
		}
		if len(e.Files) == 0 || e.Files[0] != layout.EntryFile {
			c.problem(p, "%s: files must start with %s%s", label, layout.EntryFile, whole)
		}
		for _, f := range e.Files {
			if why := legacyProblem(f); why != "" {
				c.problem(p, "%s: file %q %s%s", label, f, why, whole)
			}
		}
	}
}

// legacyProblem returns why p breaks the v0.1 path rules, or "".
func legacyProblem(p string) string {
	if why := checkDistPath(p); why != "" {
		return why
	}
	if strings.Contains(p, "..") {
		return "contains \"..\""
	}
	for i := 0; i < len(p); i++ {
		if b := p[i]; b < 0x20 || b > 0x7e || strings.IndexByte(`\?#[]%`, b) >= 0 {
			return fmt.Sprintf("has %q; v0.1 paths are printable ASCII without \\ ? # [ ] %%", b)
		}
	}
	return ""
}

// skillURI splits skill://<name>/<path>; path is "" for a URI with no
// slash after the name (an archive, or skill://index.json).
func skillURI(uri string) (name, path string, ok bool) {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok {
		return "", "", false
	}
	name, path, _ = strings.Cut(rest, "/")
	return name, path, true
}

// mcpSkills checks mcp/skills.json, the skills of an MCP skills/list.
func (c *checker) mcpSkills() {
	const p = layout.MCPSkills
	var doc []mcpSkill
	if !c.optionalIndex(p, &doc) {
		return
	}
	seen := map[string]bool{}
	for i, e := range doc {
		label := fmt.Sprintf("[%d] %q", i, e.URI)
		name, path, ok := skillURI(e.URI)
		if !ok || path != layout.EntryFile || layout.CheckName(name) != nil {
			c.problem(p, "%s: uri must be skill://<name>/%s", label, layout.EntryFile)
			continue
		}
		if seen[name] {
			c.problem(p, "%s: a second entry for this skill", label)
			continue
		}
		seen[name] = true
		c.fmByURI[e.URI] = e.Frontmatter
		var fm map[string]any
		if err := json.Unmarshal(e.Frontmatter, &fm); err != nil || fm == nil {
			c.problem(p, "%s: frontmatter is not a JSON object", label)
		} else if fm["name"] != name {
			c.problem(p, "%s: frontmatter name is %q, but the uri names %q; MCP hosts require them equal", label, fm["name"], name)
		}
		s := c.skills[name]
		if s == nil {
			c.problem(p, "%s: skill %q is not in %s; the indexes must list the same skills", label, name, layout.V2Index)
			continue
		}
		if fm != nil && fm["description"] != s.description {
			c.problem(p, "%s: frontmatter description differs from the one in %s", label, layout.V2Index)
		}
		s.listed = map[string]claimedSum{}
		for _, r := range e.Resources {
			rn, rp, ok := skillURI(r.URI)
			switch {
			case !ok || rn != name || checkDistPath(rp) != "":
				c.problem(p, "%s: resource %q is not skill://%s/<path>", label, r.URI, name)
				continue
			case !layout.Digest(r.Digest).Valid() || r.Size == nil || *r.Size < 0:
				c.problem(p, "%s: resource %q needs a digest (\"sha256:\" and 64 lowercase hex digits) and a size", label, r.URI)
				continue
			case s.listed[rp] != claimedSum{}:
				c.problem(p, "%s: resource %q is listed twice", label, r.URI)
				continue
			}
			s.listed[rp] = claimedSum{r.Digest, *r.Size}
			s.files = append(s.files, rp)
		}
		s.filesFrom = p
		if _, ok := s.listed[layout.EntryFile]; !ok {
			c.problem(p, "%s: resources do not include %s; they must list every file of the skill", label, layout.EntryFile)
		}
	}
	for _, n := range c.names {
		if !seen[n] {
			c.problem(p, "skill %q of %s is missing; the indexes must list the same skills", n, layout.V2Index)
		}
	}
}

// mcpIndex checks mcp/index.json, the legacy skill://index.json body.
func (c *checker) mcpIndex() {
	const p = layout.MCPIndex
	var doc mcpIndexDoc
	if !c.optionalIndex(p, &doc) {
		return
	}
	seen := map[string]bool{}
	for i, e := range doc.Skills {
		label := fmt.Sprintf("skills[%d] %q", i, e.Name)
		if err := layout.CheckName(e.Name); err != nil || e.URL == "" {
			c.problem(p, "%s: needs a valid name and a url; mcpc drops entries without them", label)
			continue
		}
		if seen[e.Name] {
			c.problem(p, "%s: a second entry with this name", label)
			continue
		}
		seen[e.Name] = true
		s := c.skills[e.Name]
		if s == nil {
			c.problem(p, "%s: not in %s; the indexes must list the same skills", label, layout.V2Index)
			continue
		}
		uri := layout.SkillURI(e.Name, layout.EntryFile)
		if e.URL != uri {
			c.problem(p, "%s: url is %q, want %q", label, e.URL, uri)
		}
		if e.Description != s.description {
			c.problem(p, "%s: description differs from the one in %s", label, layout.V2Index)
		}
		if e.ContentDigest != s.contentDigest {
			c.problem(p, "%s: contentDigest %s differs from %s in %s", label, e.ContentDigest, s.contentDigest, layout.V2Index)
		}
		if fm, ok := c.fmByURI[uri]; ok && !sameJSON(fm, e.Frontmatter) {
			c.problem(p, "%s: frontmatter differs from the one in %s", label, layout.MCPSkills)
		}
		if layout.Digest(e.Digest).Valid() {
			c.expect(layout.SkillFile(e.Name, layout.EntryFile), p, e.Digest, -1)
		} else {
			c.problem(p, "%s: digest %q is not \"sha256:\" and 64 lowercase hex digits", label, e.Digest)
		}
		exts := map[string]bool{}
		for _, a := range e.Archives {
			an, ap, ok := skillURI(a.URL)
			if !ok || ap != "" || !isArchive(an) || !layout.Digest(a.Digest).Valid() {
				c.problem(p, "%s: archive %q needs a url skill://<archive name> and a digest", label, a.URL)
				continue
			}
			if a.MimeType != layout.MimeType(an) {
				c.problem(p, "%s: archive %q has mimeType %q, want %q", label, a.URL, a.MimeType, layout.MimeType(an))
			}
			ref := c.archive(layout.SkillsDir+"/"+an, e.Name, p, a.Digest, -1)
			exts[ref.ext] = true
			if ref.ext == layout.TarGz && s.typ == "archive" && a.Digest != s.digest {
				c.problem(p, "%s: archive %s differs from the one in %s (%s)", label, a.URL, layout.V2Index, s.loc)
			}
		}
		if !exts[layout.TarGz] || !exts[layout.Zip] {
			c.problem(p, "%s: archives must list the skill's .tar.gz and .zip", label)
		}
	}
	for _, n := range c.names {
		if !seen[n] {
			c.problem(p, "skill %q of %s is missing; the indexes must list the same skills", n, layout.V2Index)
		}
	}
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// mcpResources checks mcp/resources.json: every URI maps to the path the
// layout gives it, and every path holds the bytes its digest and size say.
func (c *checker) mcpResources() {
	const p = layout.MCPResources
	var doc []layout.Resource
	if !c.optionalIndex(p, &doc) {
		return
	}
	have := map[string]bool{}
	for i, r := range doc {
		label := fmt.Sprintf("[%d] %q", i, r.URI)
		if why := checkDistPath(r.Path); why != "" {
			c.problem(p, "%s: path %q: %s", label, r.Path, why)
			continue
		}
		if !layout.Digest(r.Digest).Valid() || r.Size == nil || *r.Size < 0 {
			c.problem(p, "%s: digest %q is not \"sha256:\" and 64 lowercase hex digits", label, r.Digest)
			continue
		}
		if have[r.URI] {
			c.problem(p, "%s: listed twice", label)
			continue
		}
		have[r.URI] = true
		if want := layout.MimeType(r.Path); r.MimeType != want {
			c.problem(p, "%s: mimeType is %q, want %q", label, r.MimeType, want)
		}
		name, path, ok := skillURI(r.URI)
		want := ""
		switch {
		case !ok:
		case r.URI == layout.IndexURI:
			want = layout.MCPIndex
		case path == "" && isArchive(name):
			want = layout.SkillsDir + "/" + name
		case path != "":
			want = layout.SkillFile(name, path)
			if s := c.skills[name]; s != nil && s.listed != nil {
				if _, ok := s.listed[path]; !ok {
					c.problem(p, "%s: not a file of skill %q in %s", label, name, layout.MCPSkills)
				}
			}
		}
		if want == "" || r.Path != want {
			c.problem(p, "%s: path is %q, want %q", label, r.Path, want)
			continue
		}
		if isArchive(r.Path) && path == "" {
			skill := name[:max(0, strings.LastIndexByte(name, '-'))]
			c.archive(r.Path, skill, p, string(r.Digest), *r.Size)
			continue
		}
		c.expect(r.Path, p, string(r.Digest), *r.Size)
	}
	if !have[layout.IndexURI] {
		c.problem(p, "no resource for %s", layout.IndexURI)
	}
	for _, s := range c.skills {
		for path := range s.listed {
			if uri := layout.SkillURI(s.name, path); !have[uri] {
				c.problem(p, "no resource for %s, a file of skill %q", uri, s.name)
			}
		}
	}
	for _, a := range c.archives {
		if uri := "skill://" + lastSegment(a.loc); !have[uri] && !strings.Contains(a.loc, "://") {
			c.problem(p, "no resource for %s, an archive of skill %q", uri, a.skill)
		}
	}
}

func lastSegment(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// checksums checks every line of checksums.txt and that it lists every
// archive and index.
func (c *checker) checksums() {
	const p = layout.Checksums
	data := c.read(p, true)
	if data == nil {
		return
	}
	listed := map[string]bool{}
	for i, ln := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if ln == "" && len(data) == 0 {
			break
		}
		hexSum, path, ok := strings.Cut(ln, "  ")
		if !ok {
			hexSum, path, ok = strings.Cut(ln, " *")
		}
		if !ok || !layout.Digest("sha256:"+hexSum).Valid() {
			c.problem(p, "line %d: not \"<64 lowercase hex digits>  <path>\"", i+1)
			continue
		}
		if why := checkDistPath(path); why != "" {
			c.problem(p, "line %d: path %q: %s", i+1, path, why)
			continue
		}
		listed[path] = true
		c.expect(path, fmt.Sprintf("%s line %d", p, i+1), "sha256:"+hexSum, -1)
	}
	for _, loc := range append(slices.Clone(c.docs), slices.Sorted(maps.Keys(c.archives))...) {
		if !listed[loc] && !strings.Contains(loc, "://") {
			c.problem(p, "does not list %s", loc)
		}
	}
}
