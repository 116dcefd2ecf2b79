package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/human"
)

// The document types, which this package writes and its decoders read.
// Field order is key order in the output, part of the format (see the
// golden files); each document's one streamed array stays its last field.
//
// A reader can tell a field a document lacks from one it gives as zero: a
// field whose zero value a writer may write (a size of 0) is a pointer,
// nil when absent; a missing array decodes as nil, an empty one as
// non-nil; and every other field's zero value is invalid in itself.

// IndexV2 is the discovery v0.2.0 index, the document at V2Index.
type IndexV2 struct {
	Schema    string    `json:"$schema"`
	Generator string    `json:"generator,omitempty"`
	Skills    []EntryV2 `json:"skills"`
}

// EntryV2 is one skill of the v0.2.0 index. ContentDigest is ours and
// Version agentskills PR #380's; clients ignore fields they do not know.
type EntryV2 struct {
	Name          string `json:"name"`
	Type          string `json:"type"` // TypeSkillMD or TypeArchive
	Description   string `json:"description"`
	Version       string `json:"version,omitempty"`
	URL           string `json:"url"`
	Digest        Digest `json:"digest"`
	ContentDigest Digest `json:"contentDigest"`
}

// The types of an index entry.
const (
	TypeSkillMD = "skill-md" // the url is the skill's SKILL.md
	TypeArchive = "archive"  // the url is the skill's .tar.gz
)

// IndexV1 is the legacy discovery v0.1.0 index, the document at V1Index:
// no $schema, no digests.
type IndexV1 struct {
	Generator string    `json:"generator,omitempty"`
	Skills    []EntryV1 `json:"skills"`
}

// EntryV1 is one skill of the v0.1.0 index; Files has SKILL.md first.
type EntryV1 struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Files       []string `json:"files"`
}

// SkillMCP is one skill of mcp/skills.json (MCPSkills), the Skill entry of
// a skills/list result.
type SkillMCP struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []FileMCP       `json:"resources"`
}

// FileMCP is one file of a SkillMCP.
type FileMCP struct {
	URI    string `json:"uri"`
	Digest Digest `json:"digest"`
	Size   *int64 `json:"size"`
}

// IndexMCP is the legacy skill://index.json body, the document at
// MCPIndex: the union of what older readers want, the April drafts'
// $schema, name, type and url (mcpc drops entries without name and url),
// and the June drafts' frontmatter, digest and archives.
type IndexMCP struct {
	Schema    string     `json:"$schema"`
	Generator string     `json:"generator,omitempty"`
	Skills    []EntryMCP `json:"skills"`
}

// EntryMCP is always type skill-md, with the archives beside it:
// April-era readers derive an archive entry's name by stripping ".tar.gz"
// from its URL, which breaks on content-addressed names.
type EntryMCP struct {
	Name          string          `json:"name"`
	Type          string          `json:"type"`
	Description   string          `json:"description"`
	URL           string          `json:"url"`
	Digest        Digest          `json:"digest"`
	Frontmatter   json.RawMessage `json:"frontmatter"`
	Archives      []ArchiveMCP    `json:"archives"`
	ContentDigest Digest          `json:"contentDigest"`
}

// ArchiveMCP is one packed form of a skill in the legacy MCP index.
type ArchiveMCP struct {
	URL      string `json:"url"`
	MimeType string `json:"mimeType"`
	Digest   Digest `json:"digest"`
}

// Resource is one MCP resource a thin server may serve, as listed in
// mcp/resources.json (MCPResources), with where its bytes are in dist/.
type Resource struct {
	URI      string `json:"uri"`
	Path     string `json:"path"`
	MimeType string `json:"mimeType"`
	Size     *int64 `json:"size"`
	Digest   Digest `json:"digest"`
}

// DecodeIndexV2 reads the v0.2.0 index. Like every decoder here it checks
// only the shape, ignoring unknown fields; errors wrap the encoding/json
// error, whose offsets are into data.
func DecodeIndexV2(data []byte) (*IndexV2, error) { return decode[IndexV2](V2Index, data) }

// DecodeIndexV1 reads the legacy v0.1.0 index.
func DecodeIndexV1(data []byte) (*IndexV1, error) { return decode[IndexV1](V1Index, data) }

// DecodeSkillsMCP reads mcp/skills.json.
func DecodeSkillsMCP(data []byte) ([]SkillMCP, error) {
	return decodeArray[SkillMCP](MCPSkills, data)
}

// DecodeIndexMCP reads mcp/index.json.
func DecodeIndexMCP(data []byte) (*IndexMCP, error) { return decode[IndexMCP](MCPIndex, data) }

// DecodeResources reads mcp/resources.json.
func DecodeResources(data []byte) ([]Resource, error) {
	return decodeArray[Resource](MCPResources, data)
}

// decode reads the document at path whole.
func decode[T any](path string, data []byte) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(data, v); err != nil {
		if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
			// The rest decoded: what a reader that drops the one value
			// sees, for the caller that reads on.
			return v, fmt.Errorf("%s: %w", path, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// decodeArray reads a document that is an array; null is none.
func decodeArray[T any](path string, data []byte) ([]T, error) {
	v, err := decode[[]T](path, data)
	if err != nil {
		return nil, err
	}
	return *v, nil
}

// v2 renders the v0.2.0 index, sorted by name: type "skill-md" for a skill
// of SKILL.md alone (the CLI installs nothing else of one), else "archive".
func (s *set) v2(w io.Writer) error {
	url := func(distPath string) string { return s.url(V2Index, distPath) }
	return stream(w, IndexV2{Schema: Schema, Generator: s.o.Generator, Skills: []EntryV2{}}, array{"skills", s.each(nil, func(r *row, sk Skill) (any, error) {
		e := EntryV2{Name: r.name, Type: TypeArchive, URL: url(ArchivePath(r.name, r.tgz.Digest, TarGz)), Digest: sk.IndexDigest()}
		e.Description, e.ContentDigest, e.Version = sk.Description, sk.ContentDigest, sk.Version
		if len(sk.Files) == 1 {
			e.Type, e.URL = TypeSkillMD, url(SkillFile(r.name, EntryFile))
		}
		return e, nil
	})})
}

// excluded are the skills left out of the v0.1 index, with why.
func (s *set) excluded() []Excluded {
	var left []Excluded
	for _, r := range s.rows {
		if r.left != "" {
			left = append(left, Excluded{Name: r.name, Reason: r.left})
		}
	}
	return left
}

// listed reports whether the MCP documents list the skill of r: not if MCP
// hosts refuse it (Skill.OffMCP), or the SDK refuses the whole listing.
func listed(r *row) bool { return r.offMCP == "" }

// v1 renders the legacy v0.1.0 index, sorted by name, SKILL.md first in
// each file list, without the skills whose paths break its rules: the
// skills CLI rejects the whole index for one.
func (s *set) v1(w io.Writer) error {
	return stream(w, IndexV1{Generator: s.o.Generator, Skills: []EntryV1{}}, array{"skills", s.each(func(r *row) bool { return r.left == "" }, func(_ *row, sk Skill) (any, error) {
		e := EntryV1{Name: sk.Name, Description: sk.Description, Files: []string{EntryFile}}
		for _, f := range sk.Files {
			if f.Path != EntryFile {
				e.Files = append(e.Files, f.Path)
			}
		}
		return e, nil
	})})
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
	// The reason is printed on every build and kept in the record: a skill
	// of a thousand non-ASCII names is told by its first few.
	more := human.UpTo(len(bad), 5, func(i int) string { return bad[i] }, "and %d more files")
	return strings.Join(more, "; ") + legacyRules
}

// mcpSkills renders mcp/skills.json, the skills array of a skills/list
// result, sorted by uri, each with its frontmatter and all its files, but
// the skills not listed. A server returns it inside
// {"resultType":"complete","skills":...,"ttlMs":N,"cacheScope":"public"}.
func (s *set) mcpSkills(w io.Writer) error {
	return stream(w, []SkillMCP{}, array{"", func(yield func(any, error) bool) {
		for _, i := range s.uris {
			if !listed(&s.rows[i]) {
				continue
			}
			sk, err := s.load(&s.rows[i])
			if err != nil {
				yield(nil, err)
				return
			}
			e := SkillMCP{URI: SkillURI(sk.Name, EntryFile), Frontmatter: sk.Frontmatter, Resources: []FileMCP{}}
			for _, f := range sk.Files {
				e.Resources = append(e.Resources, FileMCP{URI: SkillURI(sk.Name, f.Path), Digest: f.Digest, Size: new(f.Size)})
			}
			if !yield(e, nil) {
				return
			}
		}
	}})
}

// mcpIndex renders mcp/index.json, sorted by name: every listed skill,
// type "skill-md" pointing at SKILL.md, with its archives.
func (s *set) mcpIndex(w io.Writer) error {
	return stream(w, IndexMCP{Schema: Schema, Generator: s.o.Generator, Skills: []EntryMCP{}}, array{"skills", s.each(listed, func(r *row, sk Skill) (any, error) {
		e := EntryMCP{
			Name:          sk.Name,
			Type:          TypeSkillMD,
			Description:   sk.Description,
			URL:           SkillURI(sk.Name, EntryFile),
			Digest:        sk.entry().Digest,
			Frontmatter:   sk.Frontmatter,
			ContentDigest: sk.ContentDigest,
		}
		for _, a := range archives(r.tgz, r.zip) {
			e.Archives = append(e.Archives, ArchiveMCP{URL: ArchiveURI(r.name, a.a.Digest, a.ext), MimeType: MimeType("a." + a.ext), Digest: a.a.Digest})
		}
		return e, nil
	})})
}

// resources renders mcp/resources.json: every URI an MCP server may serve
// (each listed skill's files and archives, and skill://index.json, whose
// digest and size index is), sorted by uri, with the dist path of its
// bytes. Directory resources follow from the paths and are not listed.
func (s *set) resources(index Rendered) func(io.Writer) error {
	// The URIs of one skill do not sort together ("skill://a-b-<hex>.zip"
	// comes between "skill://a-<hex>.zip" and "skill://a/SKILL.md"), so
	// the runs and archives of all skills are sorted as parts.
	parts := []part{{kind: partFixed}}
	for i := range s.rows {
		if listed(&s.rows[i]) {
			parts = append(parts, part{partFiles, int32(i)}, part{partTarGz, int32(i)}, part{partZip, int32(i)})
		}
	}
	s.sortParts(parts, URIScheme, func(int32) string { return IndexURI })
	return func(w io.Writer) error {
		return stream(w, []Resource{}, array{"", func(yield func(any, error) bool) {
			for _, p := range parts {
				var run []Resource // the part's resources: one skill's files at most
				switch p.kind {
				case partFixed:
					run = []Resource{{URI: IndexURI, Path: MCPIndex, MimeType: MimeType(MCPIndex), Size: new(index.Size), Digest: index.Digest}}
				case partFiles:
					sk, err := s.load(&s.rows[p.i])
					if err != nil {
						yield(nil, err)
						return
					}
					for _, f := range sk.Files {
						run = append(run, Resource{URI: SkillURI(sk.Name, f.Path), Path: SkillFile(sk.Name, f.Path), MimeType: MimeType(f.Path), Size: new(f.Size), Digest: f.Digest})
					}
				default:
					e := s.archive(p)
					run = []Resource{{URI: ArchiveURI(e.Skill, e.Digest, e.Format), Path: e.Path, MimeType: MimeType(e.Path), Size: new(e.Size), Digest: e.Digest}}
				}
				for _, e := range run {
					if !yield(e, nil) {
						return
					}
				}
			}
		}})
	}
}

// Sum is one line of checksums.txt.
type Sum struct {
	Path   string // relative to dist/
	Digest Digest
}

// ChecksumsDoc is checksums.txt in `sha256sum -c` format, sorted by path,
// so that `cd dist && sha256sum -c checksums.txt` checks the listed files.
func ChecksumsDoc(sums []Sum) []byte {
	var doc []byte
	for _, s := range slices.SortedFunc(slices.Values(sums), func(a, b Sum) int { return strings.Compare(a.Path, b.Path) }) {
		doc = append(doc, checksumLine(s)...)
	}
	return doc
}

// checksumLine and ParseChecksums are the only spellers of a line of
// checksums.txt, "<hex>  <path>" in `sha256sum -c` format.
func checksumLine(s Sum) string { return s.Digest.Hex() + "  " + s.Path + "\n" }

// ParseChecksums reads checksums.txt as `sha256sum -c` would, for readers
// that trust nothing: every line must be "<64 lowercase hex>  <path>" (or
// "<hex> *<path>"), its path must pass CheckPath, and no path may be
// listed twice. sums[i] is line i+1; a line that cannot be read has a zero
// Sum there, and err joins a *LineError for each such line, so that a
// checker can report every bad line and still use the good ones. A reader
// that wants the exact bytes a build writes compares data with
// ChecksumsDoc(sums).
func ParseChecksums(data []byte) (sums []Sum, err error) {
	var bad []error
	fail := func(n int, err error) { bad = append(bad, &LineError{Doc: Checksums, Line: n, Err: err}) }
	seen := map[string]int{}
	if len(data) == 0 {
		return nil, nil
	}
	// Only parts of lines become strings, the digest only at its length:
	// a hostile document of one long line costs no copy of itself.
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		n := i + 1
		sums = append(sums, Sum{})
		hexb, pb, ok := bytes.Cut(line, []byte("  "))
		if !ok {
			hexb, pb, ok = bytes.Cut(line, []byte(" *"))
		}
		var d Digest
		if ok && len(hexb) == 64 {
			d = Digest("sha256:" + string(hexb))
		}
		if !d.Valid() {
			fail(n, errors.New(checksumForm))
			continue
		}
		switch p := string(pb); {
		case CheckPath(p) != nil:
			fail(n, fmt.Errorf("path %q: %w", p, CheckPath(p)))
		case seen[p] != 0:
			fail(n, fmt.Errorf("%s is listed again (first on line %d)", p, seen[p]))
		default:
			seen[p] = n
			sums[i] = Sum{Path: p, Digest: d}
		}
	}
	return sums, errors.Join(bad...)
}

// checksumForm says what a line of checksums.txt must be.
const checksumForm = `not "<64 lowercase hex digits>  <path>"`

// LineError is a line of a text document that cannot be read.
type LineError struct {
	Doc  string // the document's dist path
	Line int    // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s line %d: %v", e.Doc, e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }
