package layout

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The document types. Field order is key order in the output, so it is
// part of the format: change it only with the golden files. Each document
// streams its one array (see stream), which must stay its last field.

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
	return collect(v2Writer(ss, o))
}

// v2Writer renders V2IndexDoc from prepared skills.
func v2Writer(ss []Skill, o Options) func(io.Writer) error {
	url := func(distPath string) string {
		if o.BaseURL == "" {
			return relToV2(distPath)
		}
		return joinURL(o.BaseURL, distPath)
	}
	return func(w io.Writer) error {
		return stream(w, v2Index{Schema: Schema, Generator: o.Generator, Skills: []v2Entry{}}, len(ss), func(i int) any {
			s := &ss[i]
			e := v2Entry{Name: s.Name, Description: s.Description, ContentDigest: s.ContentDigest}
			if len(s.Files) == 1 {
				e.Type, e.URL, e.Digest = "skill-md", url(SkillFile(s.Name, EntryFile)), s.entry().Digest
			} else {
				e.Type, e.URL, e.Digest = "archive", url(ArchivePath(s.Name, s.TarGz.Digest, TarGz)), s.TarGz.Digest
			}
			return e
		})
	}
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
	write, left := v1Writer(ss, o)
	if doc, err = collect(write); err != nil {
		return nil, nil, err
	}
	return doc, left, nil
}

// v1Writer renders V1IndexDoc from prepared skills and returns the skills
// it leaves out.
func v1Writer(ss []Skill, o Options) (func(io.Writer) error, []Excluded) {
	var kept []int
	var left []Excluded
	for i, s := range ss {
		if reason := legacyReason(s); reason != "" {
			left = append(left, Excluded{Name: s.Name, Reason: reason})
			continue
		}
		kept = append(kept, i)
	}
	return func(w io.Writer) error {
		return stream(w, v1Index{Generator: o.Generator, Skills: []v1Entry{}}, len(kept), func(i int) any {
			s := &ss[kept[i]]
			e := v1Entry{Name: s.Name, Description: s.Description, Files: []string{EntryFile}}
			for _, f := range s.Files {
				if f.Path != EntryFile {
					e.Files = append(e.Files, f.Path)
				}
			}
			return e
		})
	}, left
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
	return collect(mcpSkillsWriter(ss))
}

// mcpSkillsWriter renders MCPSkillsDoc from prepared skills.
func mcpSkillsWriter(ss []Skill) func(io.Writer) error {
	// By uri, not name: "skill://a-b/" sorts before "skill://a/". Only the
	// order is kept; the elements are built as they are written.
	uris := make([]string, len(ss))
	order := make([]int, len(ss))
	for i, s := range ss {
		uris[i], order[i] = SkillURI(s.Name, EntryFile), i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(uris[a], uris[b]) })
	return func(w io.Writer) error {
		return stream(w, []mcpSkill{}, len(order), func(i int) any {
			s := &ss[order[i]]
			e := mcpSkill{URI: SkillURI(s.Name, EntryFile), Frontmatter: s.Frontmatter, Resources: []mcpResource{}}
			for _, f := range s.Files {
				e.Resources = append(e.Resources, mcpResource{URI: SkillURI(s.Name, f.Path), Digest: f.Digest, Size: f.Size})
			}
			return e
		})
	}
}

// MCPIndexDoc is mcp/index.json, the legacy skill://index.json body,
// sorted by name: every entry type "skill-md" pointing at SKILL.md, with
// its .tar.gz and .zip under archives.
func MCPIndexDoc(skills []Skill, o Options) ([]byte, error) {
	ss, err := prepare(skills, o)
	if err != nil {
		return nil, err
	}
	return collect(mcpIndexWriter(ss, o))
}

// mcpIndexWriter renders MCPIndexDoc from prepared skills.
func mcpIndexWriter(ss []Skill, o Options) func(io.Writer) error {
	return func(w io.Writer) error {
		return stream(w, mcpIndex{Schema: Schema, Generator: o.Generator, Skills: []mcpIndexEntry{}}, len(ss), func(i int) any {
			s := &ss[i]
			e := mcpIndexEntry{
				Name:          s.Name,
				Type:          "skill-md",
				Description:   s.Description,
				URL:           SkillURI(s.Name, EntryFile),
				Digest:        s.entry().Digest,
				Frontmatter:   s.Frontmatter,
				ContentDigest: s.ContentDigest,
			}
			for _, a := range s.archives() {
				e.Archives = append(e.Archives, mcpArchive{URL: ArchiveURI(s.Name, a.a.Digest, a.ext), MimeType: MimeType("a." + a.ext), Digest: a.a.Digest})
			}
			return e
		})
	}
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
	index, err := measure(mcpIndexWriter(ss, o))
	if err != nil {
		return nil, err
	}
	return collect(resourcesWriter(ss, index))
}

// resourcesWriter renders MCPResourcesDoc from prepared skills; index is
// the digest and size of mcp/index.json, served as skill://index.json.
func resourcesWriter(ss []Skill, index Rendered) func(io.Writer) error {
	order := resourceOrder(ss)
	return func(w io.Writer) error {
		return stream(w, []Resource{}, len(order), func(i int) any {
			k := order[i]
			if k.skill < 0 {
				return Resource{URI: IndexURI, Path: MCPIndex, MimeType: MimeType(MCPIndex), Size: index.Size, Digest: index.Digest}
			}
			s := &ss[k.skill]
			if j := int(k.item); j < len(s.Files) {
				f := s.Files[j]
				return Resource{URI: SkillURI(s.Name, f.Path), Path: SkillFile(s.Name, f.Path), MimeType: MimeType(f.Path), Size: f.Size, Digest: f.Digest}
			}
			a := s.archives()[int(k.item)-len(s.Files)]
			return Resource{
				URI:      ArchiveURI(s.Name, a.a.Digest, a.ext),
				Path:     ArchivePath(s.Name, a.a.Digest, a.ext),
				MimeType: MimeType("a." + a.ext),
				Size:     a.a.Size,
				Digest:   a.a.Digest,
			}
		})
	}
}

// resourceKey is one resource of mcp/resources.json by position: skill -1
// is skill://index.json; otherwise item indexes the skill's Files and then
// its archives. Two int32s keep the sorted table at eight bytes a
// resource, a small fraction of the document it orders.
type resourceKey struct{ skill, item int32 }

// resourceOrder is the resources of prepared skills, sorted by uri. The
// URIs of one skill do not sort together ("skill://a-b-<hex>.zip" comes
// between "skill://a-<hex>.zip" and "skill://a/SKILL.md", and
// "skill://index.json" between the archives and files of a skill named
// index), so positions are sorted across all skills, comparing each URI in
// two parts rather than building it.
func resourceOrder(ss []Skill) []resourceKey {
	type skillURIs struct {
		dir      string // SkillURI(name, ""), which every file URI extends
		archives [2]string
	}
	us := make([]skillURIs, len(ss))
	n := 1
	for i := range ss {
		s := &ss[i]
		us[i].dir = SkillURI(s.Name, "")
		for j, a := range s.archives() {
			us[i].archives[j] = ArchiveURI(s.Name, a.a.Digest, a.ext)
		}
		n += len(s.Files) + len(us[i].archives)
	}
	keys := make([]resourceKey, 0, n)
	keys = append(keys, resourceKey{skill: -1})
	for i := range ss {
		for j := range len(ss[i].Files) + len(us[i].archives) {
			keys = append(keys, resourceKey{int32(i), int32(j)})
		}
	}
	uri := func(k resourceKey) (string, string) {
		if k.skill < 0 {
			return IndexURI, ""
		}
		files := ss[k.skill].Files
		if j := int(k.item); j < len(files) {
			return us[k.skill].dir, files[j].Path
		}
		return us[k.skill].archives[int(k.item)-len(files)], ""
	}
	slices.SortFunc(keys, func(a, b resourceKey) int {
		a1, a2 := uri(a)
		b1, b2 := uri(b)
		return compareJoined(a1, a2, b1, b2)
	})
	return keys
}

// compareJoined compares a1+a2 with b1+b2 bytewise, as strings.Compare
// would, without building either.
func compareJoined(a1, a2, b1, b2 string) int {
	for {
		if a1 == "" {
			a1, a2 = a2, ""
		}
		if b1 == "" {
			b1, b2 = b2, ""
		}
		if a1 == "" || b1 == "" {
			return len(a1) - len(b1) // the one that ran out first sorts first
		}
		n := min(len(a1), len(b1))
		if c := strings.Compare(a1[:n], b1[:n]); c != 0 {
			return c
		}
		a1, b1 = a1[n:], b1[n:]
	}
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
	doc, _ := collect(checksumsWriter(sums)) // a bytes.Buffer takes every write
	return doc
}

// checksumsWriter renders ChecksumsDoc, sorting a copy of sums once.
func checksumsWriter(sums []Sum) func(io.Writer) error {
	sums = slices.Clone(sums)
	slices.SortFunc(sums, func(a, b Sum) int { return strings.Compare(a.Path, b.Path) })
	return func(w io.Writer) error {
		for _, s := range sums {
			if _, err := io.WriteString(w, strings.TrimPrefix(s.Digest, "sha256:")+"  "+s.Path+"\n"); err != nil {
				return err
			}
		}
		return nil
	}
}
