package layout

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/skillpack/skillpack/internal/semver"
)

// File is one file of a skill as the build publishes it.
type File struct {
	Path   string `json:"path"`   // slash-separated, relative to the skill folder
	Digest Digest `json:"digest"` // of the raw bytes
	Size   int64  `json:"size"`
	Exec   bool   `json:"exec"` // any execute bit in the source
}

// Archive is one content-addressed archive of a skill.
type Archive struct {
	Digest Digest `json:"digest"` // of the archive bytes
	Size   int64  `json:"size"`
}

// Skill is what the build knows about a skill once its files are collected
// and its archives packed.
type Skill struct {
	Name        string
	Description string
	// Frontmatter is the SKILL.md frontmatter as a JSON object, as the
	// build converted it, copied into the MCP documents unchanged (only
	// re-indented): hosts compare it field by field with their own parse.
	Frontmatter json.RawMessage
	Version     string // SemVer or "" (VersionOf)
	Files       []File // includes EntryFile; any order, sorted here
	TarGz, Zip  Archive
	// ContentDigest is the compressor-independent digest of the skill's
	// files, so a reader can check content without trusting deflate.
	ContentDigest Digest
	// Page is the digest and size of the skill's catalog page, which
	// package catalog renders and the caller writes; nil for none.
	Page *Rendered
	// OffMCP, when set, is why MCP hosts refuse the skill (skill.CheckMCP),
	// and OffMCPFix what the author can do: the MCP documents leave it out
	// (Planned.OffMCP), every other document keeps it.
	OffMCP, OffMCPFix string
}

// Options says how the bundle is addressed. The zero value means URLs
// relative to each index and the legacy tree included.
type Options struct {
	// BaseURL is the absolute URL at which dist/ is served, such as
	// https://example.com/skills; empty, URLs are relative to each index.
	BaseURL  string
	NoLegacy bool // leave out the v0.1 tree and index
	// Generator names the tool and compressor that made the archives,
	// recorded in the indexes because archive bytes depend on it.
	Generator string
	// Versioned, if set, also lays out every published version of every
	// skill, versions.json and a release's snapshot (versions.go).
	Versioned *Versioning
	// Catalog is the digest and size of index.html, or nil for none: the
	// caller renders and writes it, so its entry has no Write.
	Catalog *Rendered
	// LLMsTxt, if set, adds llms.txt: the bundle's own, or a copy of the
	// site's with the Agent Skills section merged in.
	LLMsTxt *LLMsOptions
	// AICatalog adds /.well-known/ai-catalog.json. It needs BaseURL.
	AICatalog bool
	// Plugins are the plugins the build packed: their archives and
	// PluginsIndex join the bundle (plugins.go).
	Plugins     []Plugin
	Marketplace *Marketplace // the marketplace files, listing Plugins
	// Signs and SignsFolders say that the build signs what SignedPath
	// names and each skill's folder, for the AI Catalog's Trust Manifests.
	Signs, SignsFolders bool
	// Render renders a document to learn its digest and size; nil renders
	// into nothing. A build's also writes it where it stages the bundle,
	// so that each document is rendered once. It is called from several
	// goroutines at once, for different paths.
	Render func(path string, write func(io.Writer) error) (Rendered, error)
}

// Rendered is the digest and size of a rendered document.
type Rendered struct {
	Digest Digest
	Size   int64
}

// Excluded is a skill left out of the v0.1 index and tree (Planned.Excluded)
// or of the MCP documents (Planned.OffMCP), with the reason.
type Excluded struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
	Fix    string `json:"fix,omitempty"` // what the author can do; none for the v0.1 index
}

// CheckName returns why name is not a valid skill name, 1–64 of [a-z0-9-]
// without a leading, trailing or double '-' (readers drop others), or nil.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case len(name) > 64:
		return fmt.Errorf("name is %d characters; the limit is 64", len(name))
	case name[0] == '-' || name[len(name)-1] == '-':
		return errors.New("name starts or ends with '-'")
	case strings.Contains(name, "--"):
		return errors.New("name contains \"--\"")
	}
	var bad []string // each character not allowed, once, as lint's name-format lists them
	for _, c := range name {
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' {
			continue // quoted only when bad: paths name a skill at every turn
		}
		if q := fmt.Sprintf("%q", c); !slices.Contains(bad, q) {
			bad = append(bad, q)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("name has %s; use only a-z, 0-9 and '-'", strings.Join(bad, ", "))
	}
	return nil
}

// MaxDescription is the most characters of a description, as
// DescriptionLength counts them.
const MaxDescription = 1024

// DescriptionLength is the length of a description in UTF-16 code units,
// as JavaScript counts it: the Vercel skills CLI, the strictest client,
// drops an entry whose description.length is over MaxDescription.
func DescriptionLength(d string) int {
	n := 0
	for _, r := range d {
		n += utf16.RuneLen(r)
	}
	return n
}

// CheckDescription returns why d is not a valid description, or nil.
func CheckDescription(d string) error {
	if !utf8.ValidString(d) {
		return errors.New("description is not valid UTF-8")
	}
	if strings.TrimSpace(d) == "" {
		return errors.New("description is empty")
	}
	if n := DescriptionLength(d); n > MaxDescription {
		return fmt.Errorf("description is %d characters (UTF-16 code units); the limit is %d", n, MaxDescription)
	}
	return nil
}

// CheckPath returns why p cannot be a dist path or a file's path within
// its skill, or nil: the one check the build makes before it writes a path
// and every reader before it opens one a document names ("../../etc/passwd"
// is refused, not followed). A path is non-empty UTF-8, relative,
// '/'-separated, without control characters or empty, "." or ".." segments.
func CheckPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case !utf8.ValidString(p):
		return errors.New("path is not valid UTF-8")
	case strings.HasPrefix(p, "/"):
		return errors.New("path is absolute")
	case len(p) > 1 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z'):
		// "C:x" is absolute, or relative to a drive, on Windows.
		return errors.New("path starts with a drive letter")
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("path has control character %U", r)
		}
		if r == '\\' {
			// A separator on Windows: the file would land elsewhere there.
			return errors.New("path has '\\'")
		}
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "":
			return errors.New("path has an empty segment")
		case ".", "..":
			return fmt.Errorf("path has a %q segment", seg)
		}
	}
	return nil
}

// CheckLegacyPath returns why p cannot be a file path in the v0.1 tree,
// or nil: CheckPath, and the stricter rules of the v0.1 readers.
func CheckLegacyPath(p string) error {
	if err := CheckPath(p); err != nil {
		return err
	}
	if why := legacyProblem(p); why != "" {
		return fmt.Errorf("path %s%s", why, legacyRules)
	}
	return nil
}

// legacyProblem returns why p breaks the v0.1 path rules, or "": ".." is
// refused anywhere ("v1..2.md"), as the skills CLI tests for the substring.
func legacyProblem(p string) string {
	if strings.Contains(p, "..") {
		return "contains \"..\""
	}
	for _, c := range []byte(p) {
		if c < 0x20 || c > 0x7e {
			return "is not printable ASCII"
		}
		if strings.IndexByte(`\?#[]%`, c) >= 0 {
			return fmt.Sprintf("contains %q", c)
		}
	}
	return ""
}

// legacyRules says what legacyProblem checks, for messages.
const legacyRules = " (v0.1 paths must be printable ASCII without \\ ? # [ ] % or \"..\")"

// CheckBaseURL returns why b cannot prefix the bundle's URLs, or nil; ""
// (relative URLs) is fine. Callers check it before any work, Plan again.
func CheckBaseURL(b string) error {
	if b == "" {
		return nil
	}
	u, err := url.Parse(b)
	if err != nil {
		return fmt.Errorf("base URL %q: %w", b, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("base URL %q: use an absolute http or https URL such as https://example.com/skills", b)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("base URL %q: remove the query, fragment or user info", b)
	}
	return nil
}

// joinURL prefixes a dist path with the base URL, with exactly one '/'
// between them.
func joinURL(base, distPath string) string {
	return strings.TrimRight(base, "/") + "/" + distPath
}

// checkSkill returns everything wrong with s, each naming the skill.
func checkSkill(s Skill) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("skill %q: "+format, append([]any{s.Name}, args...)...))
	}
	if err := CheckName(s.Name); err != nil {
		bad("%v", err)
	}
	if err := CheckDescription(s.Description); err != nil {
		bad("%v", err)
	}
	// MCP hosts check that the URI's last segment is frontmatter.name, and
	// the indexes must not contradict SKILL.md.
	name, desc, err := FrontmatterNames(s.Frontmatter)
	switch {
	case err != nil:
		bad("frontmatter: %v", err)
	case name != s.Name:
		bad("frontmatter: %q is %q, the skill's is %q", "name", name, s.Name)
	case desc != s.Description:
		bad("frontmatter: %q is %q, the skill's is %q", "description", desc, s.Description)
	}
	for _, a := range archives(s.TarGz, s.Zip) {
		if !a.a.Digest.Valid() {
			bad("%s archive digest %q is not \"sha256:\" and 64 lowercase hex digits", a.ext, a.a.Digest)
		}
		if a.a.Size <= 0 {
			bad("%s archive size %d is not positive", a.ext, a.a.Size)
		}
	}
	if !s.ContentDigest.Valid() {
		bad("content digest %q is not \"sha256:\" and 64 lowercase hex digits", s.ContentDigest)
	}
	for _, err := range CheckPaths(keys(s.Files, func(f File) string { return f.Path })) {
		bad("%v", err)
	}
	for _, f := range s.Files {
		if !f.Digest.Valid() {
			bad("file %q: digest %q is not \"sha256:\" and 64 lowercase hex digits", f.Path, f.Digest)
		}
		if f.Size < 0 {
			bad("file %q: negative size %d", f.Path, f.Size)
		}
	}
	if s.entry().Path == "" {
		bad("no %s among its files", EntryFile)
	}
	return errors.Join(errs...)
}

// CheckPaths returns what is wrong with the paths of the files an archive
// is to hold: CheckPath's, a path listed twice, two that differ only in
// case (macOS and Windows would unpack both to one place), and a file
// that is also a folder of others.
func CheckPaths(paths []string) []error {
	var errs []error
	folded := map[string]string{}
	seen := map[string]bool{}
	for _, p := range paths {
		if err := CheckPath(p); err != nil {
			errs = append(errs, fmt.Errorf("file %q: %w", p, err))
			continue
		}
		if seen[p] {
			errs = append(errs, fmt.Errorf("file %q is listed twice", p))
			continue
		}
		seen[p] = true
		if other, ok := folded[strings.ToLower(p)]; ok {
			errs = append(errs, fmt.Errorf("files %q and %q differ only in case; rename one", other, p))
		}
		folded[strings.ToLower(p)] = p
	}
	sorted := slices.Sorted(maps.Keys(seen))
	for _, p := range sorted {
		i, _ := slices.BinarySearch(sorted, p+"/")
		if i < len(sorted) && strings.HasPrefix(sorted[i], p+"/") {
			errs = append(errs, fmt.Errorf("file %q is also a folder of %q", p, sorted[i]))
		}
	}
	return errs
}

// FrontmatterNames reads the name and description, both strings, of a
// skill's frontmatter (JSON). Keys match exactly, as in MCP hosts.
func FrontmatterNames(fm json.RawMessage) (name, description string, err error) {
	fm = bytes.TrimSpace(fm)
	if !utf8.Valid(fm) || !json.Valid(fm) {
		return "", "", errors.New("not valid JSON")
	}
	if len(fm) == 0 || fm[0] != '{' {
		return "", "", errors.New("not a JSON object")
	}
	// A map, not a struct: encoding/json matches struct fields without
	// regard to case.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(fm, &m); err != nil {
		return "", "", err
	}
	got := [2]string{}
	for i, key := range []string{"name", "description"} {
		raw, ok := m[key]
		if !ok {
			return "", "", fmt.Errorf("no %q", key)
		}
		if err := json.Unmarshal(raw, &got[i]); err != nil {
			return "", "", fmt.Errorf("%q is not a string", key)
		}
	}
	return got[0], got[1], nil
}

// FrontmatterLicense is the license a skill's frontmatter (as JSON)
// gives, or "" when it gives none that is a string. Keys match exactly.
func FrontmatterLicense(fm json.RawMessage) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(fm, &top) != nil {
		return ""
	}
	return stringAt(top, "license")
}

// stringAt is the string m holds at key, or "" when it holds none.
func stringAt(m map[string]json.RawMessage, key string) string {
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return s
}

// VersionOf is a skill's version as the indexes carry it, from its
// frontmatter (JSON): metadata.version, where the specification keeps it,
// or, when topLevel, the top-level version Claude Code reads; "" unless
// SemVer, as no other can be ordered.
func VersionOf(fm json.RawMessage, topLevel bool) string {
	var top, metadata map[string]json.RawMessage
	if json.Unmarshal(fm, &top) != nil {
		return ""
	}
	version := ""
	if json.Unmarshal(top["metadata"], &metadata) == nil {
		version = stringAt(metadata, "version")
	}
	if version == "" && topLevel {
		version = stringAt(top, "version")
	}
	if !semver.Valid(version) {
		return ""
	}
	return version
}

// entry returns the skill's SKILL.md; checkSkill guarantees there is one.
func (s *Skill) entry() File {
	return *cmp.Or(find(s.Files, func(f *File) bool { return f.Path == EntryFile }), &File{})
}

// IndexDigest is the digest the v0.2 index gives the skill: its
// SKILL.md's when that is its only file, else its .tar.gz's.
func (s *Skill) IndexDigest() Digest {
	if len(s.Files) == 1 {
		return s.entry().Digest
	}
	return s.TarGz.Digest
}

// packed is one archive of a skill with its format.
type packed struct {
	ext string // TarGz or Zip
	a   Archive
}

// archives are a skill's archives in the order every document lists them:
// .tar.gz, then .zip.
func archives(tgz, zip Archive) [2]packed { return [2]packed{{TarGz, tgz}, {Zip, zip}} }
