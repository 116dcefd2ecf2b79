package layout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The document types. Field order is key order in the output, so it is
// part of the format: change it only with the golden files.

// v2Index is the discovery v0.2.0 index.
type v2Index struct {
	Schema    string    `json:"$schema"`
	Generator string    `json:"generator,omitempty"`
	Skills    []v2Entry `json:"skills"`
}

// v2Entry is one skill of the v0.2.0 index. ContentDigest is ours; the
// specification tells clients to ignore fields they do not know.
type v2Entry struct {
	Name          string `json:"name"`
	Type          string `json:"type"`
	Description   string `json:"description"`
	URL           string `json:"url"`
	Digest        string `json:"digest"`
	ContentDigest string `json:"contentDigest"`
}

// v1Index is the legacy discovery v0.1.0 index: no $schema, no digests.
type v1Index struct {
	Generator string    `json:"generator,omitempty"`
	Skills    []v1Entry `json:"skills"`
}

// v1Entry is one skill of the v0.1.0 index; Files has SKILL.md first.
type v1Entry struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Files       []string `json:"files"`
}

// mcpSkill is one Skill entry of a skills/list result.
type mcpSkill struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []mcpResource   `json:"resources"`
}

// mcpResource is one file of an mcpSkill.
type mcpResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// mcpIndex is the legacy skill://index.json body. It carries the union of
// what older readers want: the April drafts' $schema, name, type and url
// (mcpc drops entries without name and url), and the June drafts'
// frontmatter, digest and archives. Readers ignore the fields they do not
// know.
type mcpIndex struct {
	Schema    string          `json:"$schema"`
	Generator string          `json:"generator,omitempty"`
	Skills    []mcpIndexEntry `json:"skills"`
}

// mcpIndexEntry is always type skill-md, with the archives beside it:
// April-era readers derive an archive entry's name by stripping ".tar.gz"
// from its URL, which breaks on content-addressed names.
type mcpIndexEntry struct {
	Name          string          `json:"name"`
	Type          string          `json:"type"`
	Description   string          `json:"description"`
	URL           string          `json:"url"`
	Digest        string          `json:"digest"`
	Frontmatter   json.RawMessage `json:"frontmatter"`
	Archives      []mcpArchive    `json:"archives"`
	ContentDigest string          `json:"contentDigest"`
}

// mcpArchive is one packed form of a skill in the legacy index.
type mcpArchive struct {
	URL      string `json:"url"`
	MimeType string `json:"mimeType"`
	Digest   string `json:"digest"`
}

// Resource is one MCP resource a thin server may serve, as listed in
// mcp/resources.json: its URI, where its bytes are in dist/, and what to
// say about them.
type Resource struct {
	URI      string `json:"uri"`
	Path     string `json:"path"`
	MimeType string `json:"mimeType"`
	Size     int64  `json:"size"`
	Digest   string `json:"digest"`
}

// encode is the one JSON encoding of every document: two-space indent,
// "\n" line endings and a final newline, and no HTML escaping, so that
// descriptions read as written ("<" rather than "\u003c").
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// V2IndexDoc is the discovery v0.2.0 index, sorted by name. A skill with
// only SKILL.md is type "skill-md" (url and digest of SKILL.md); any other
// is type "archive" (url and digest of its .tar.gz), because the skills CLI
// installs nothing but SKILL.md for a skill-md entry. URLs are relative to
// the index unless o.BaseURL is set.
func V2IndexDoc(skills []Skill, o Options) ([]byte, error) {
	ss, err := prepare(skills, o)
	if err != nil {
		return nil, err
	}
	return v2Doc(ss, o)
}

func v2Doc(ss []Skill, o Options) ([]byte, error) {
	url := func(distPath string) string {
		if o.BaseURL == "" {
			return relToV2(distPath)
		}
		return joinURL(o.BaseURL, distPath)
	}
	doc := v2Index{Schema: Schema, Generator: o.Generator, Skills: []v2Entry{}}
	for _, s := range ss {
		e := v2Entry{Name: s.Name, Description: s.Description, ContentDigest: s.ContentDigest}
		if len(s.Files) == 1 {
			e.Type, e.URL, e.Digest = "skill-md", url(SkillFile(s.Name, EntryFile)), s.entry().Digest
		} else {
			e.Type, e.URL, e.Digest = "archive", url(ArchivePath(s.Name, s.TarGz.Digest, TarGz)), s.TarGz.Digest
		}
		doc.Skills = append(doc.Skills, e)
	}
	return encode(doc)
}

// V1IndexDoc is the legacy discovery v0.1.0 index, sorted by name, with
// SKILL.md first in each file list and the rest sorted. A skill with a path
// that breaks the v0.1 rules is left out and returned in left, because the
// skills CLI rejects the whole legacy index for one bad entry.
func V1IndexDoc(skills []Skill, o Options) (doc []byte, left []Excluded, err error) {
	ss, err := prepare(skills, o)
	if err != nil {
		return nil, nil, err
	}
	doc, left, err = v1Doc(ss, o)
	return doc, left, err
}

func v1Doc(ss []Skill, o Options) ([]byte, []Excluded, error) {
	doc := v1Index{Generator: o.Generator, Skills: []v1Entry{}}
	var left []Excluded
	for _, s := range ss {
		if reason := legacyReason(s); reason != "" {
			left = append(left, Excluded{Name: s.Name, Reason: reason})
			continue
		}
		e := v1Entry{Name: s.Name, Description: s.Description, Files: []string{EntryFile}}
		for _, f := range s.Files {
			if f.Path != EntryFile {
				e.Files = append(e.Files, f.Path)
			}
		}
		doc.Skills = append(doc.Skills, e)
	}
	b, err := encode(doc)
	return b, left, err
}

// legacyReason says why s cannot be in the v0.1 index, or "".
func legacyReason(s Skill) string {
	var bad []string
	for _, f := range s.Files {
		if p := legacyProblem(f.Path); p != "" {
			bad = append(bad, fmt.Sprintf("file %q %s", f.Path, p))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return strings.Join(bad, "; ") + " (v0.1 paths must be printable ASCII without \\ ? # [ ] % or \"..\")"
}

// MCPSkillsDoc is mcp/skills.json: the skills array of a skills/list
// result, sorted by uri, each with its frontmatter unchanged and the
// complete list of its files, SKILL.md included. A server returns it inside
// {"resultType":"complete","skills":...,"ttlMs":N,"cacheScope":"public"}.
func MCPSkillsDoc(skills []Skill) ([]byte, error) {
	ss, err := prepare(skills, Options{})
	if err != nil {
		return nil, err
	}
	return mcpSkillsDoc(ss)
}

func mcpSkillsDoc(ss []Skill) ([]byte, error) {
	doc := []mcpSkill{}
	for _, s := range ss {
		e := mcpSkill{URI: SkillURI(s.Name, EntryFile), Frontmatter: s.Frontmatter, Resources: []mcpResource{}}
		for _, f := range s.Files {
			e.Resources = append(e.Resources, mcpResource{URI: SkillURI(s.Name, f.Path), Digest: f.Digest, Size: f.Size})
		}
		doc = append(doc, e)
	}
	// By uri, not name: "skill://a-b/" sorts before "skill://a/".
	slices.SortFunc(doc, func(a, b mcpSkill) int { return strings.Compare(a.URI, b.URI) })
	return encode(doc)
}

// MCPIndexDoc is mcp/index.json, the legacy skill://index.json body,
// sorted by name: every entry type "skill-md" pointing at SKILL.md, with
// its .tar.gz and .zip under archives.
func MCPIndexDoc(skills []Skill, o Options) ([]byte, error) {
	ss, err := prepare(skills, o)
	if err != nil {
		return nil, err
	}
	return mcpIndexDoc(ss, o)
}

func mcpIndexDoc(ss []Skill, o Options) ([]byte, error) {
	doc := mcpIndex{Schema: Schema, Generator: o.Generator, Skills: []mcpIndexEntry{}}
	for _, s := range ss {
		doc.Skills = append(doc.Skills, mcpIndexEntry{
			Name:        s.Name,
			Type:        "skill-md",
			Description: s.Description,
			URL:         SkillURI(s.Name, EntryFile),
			Digest:      s.entry().Digest,
			Frontmatter: s.Frontmatter,
			Archives: []mcpArchive{
				{URL: ArchiveURI(s.Name, s.TarGz.Digest, TarGz), MimeType: MimeType("a." + TarGz), Digest: s.TarGz.Digest},
				{URL: ArchiveURI(s.Name, s.Zip.Digest, Zip), MimeType: MimeType("a." + Zip), Digest: s.Zip.Digest},
			},
			ContentDigest: s.ContentDigest,
		})
	}
	return encode(doc)
}

// MCPResourcesDoc is mcp/resources.json: every URI an MCP server may serve
// (each skill file, each archive, and skill://index.json), sorted by uri,
// with the dist path of its bytes. Directory resources follow from the
// paths and are not listed.
func MCPResourcesDoc(skills []Skill, o Options) ([]byte, error) {
	ss, err := prepare(skills, o)
	if err != nil {
		return nil, err
	}
	index, err := mcpIndexDoc(ss, o)
	if err != nil {
		return nil, err
	}
	return mcpResourcesDoc(ss, index)
}

func mcpResourcesDoc(ss []Skill, index []byte) ([]byte, error) {
	return encode(resources(ss, index))
}

// resources lists the MCP resources of prepared skills; index is the
// mcp/index.json bytes served as skill://index.json.
func resources(skills []Skill, index []byte) []Resource {
	rs := []Resource{{URI: IndexURI, Path: MCPIndex, MimeType: MimeType(MCPIndex), Size: int64(len(index)), Digest: Digest(index)}}
	for _, s := range skills {
		for _, f := range s.Files {
			rs = append(rs, Resource{URI: SkillURI(s.Name, f.Path), Path: SkillFile(s.Name, f.Path), MimeType: MimeType(f.Path), Size: f.Size, Digest: f.Digest})
		}
		for _, a := range []struct {
			ext string
			a   Archive
		}{{TarGz, s.TarGz}, {Zip, s.Zip}} {
			rs = append(rs, Resource{
				URI:      ArchiveURI(s.Name, a.a.Digest, a.ext),
				Path:     ArchivePath(s.Name, a.a.Digest, a.ext),
				MimeType: MimeType("a." + a.ext),
				Size:     a.a.Size,
				Digest:   a.a.Digest,
			})
		}
	}
	slices.SortFunc(rs, func(a, b Resource) int { return strings.Compare(a.URI, b.URI) })
	return rs
}

// Sum is one line of checksums.txt.
type Sum struct {
	Path   string // relative to dist/
	Digest string // "sha256:<hex>"
}

// ChecksumsDoc is checksums.txt in `sha256sum -c` format, "<hex>  <path>"
// per line, sorted by path, so that `cd dist && sha256sum -c checksums.txt`
// checks the listed files.
func ChecksumsDoc(sums []Sum) []byte {
	sums = slices.Clone(sums)
	slices.SortFunc(sums, func(a, b Sum) int { return strings.Compare(a.Path, b.Path) })
	var b strings.Builder
	for _, s := range sums {
		b.WriteString(strings.TrimPrefix(s.Digest, "sha256:") + "  " + s.Path + "\n")
	}
	return []byte(b.String())
}
