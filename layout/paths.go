package layout

import (
	"net/url"
	"slices"
	"strings"
)

// Paths of the bundle's documents, slash-separated and relative to dist/.
const (
	V2Index      = ".well-known/agent-skills/index.json" // discovery v0.2.0
	V1Index      = ".well-known/skills/index.json"       // discovery v0.1.0 (legacy)
	MCPSkills    = "mcp/skills.json"                     // the skills of a skills/list result
	MCPIndex     = "mcp/index.json"                      // body of the legacy skill://index.json
	MCPResources = "mcp/resources.json"                  // every MCP resource a server may serve
	Checksums    = "checksums.txt"                       // sha256sum -c format
	NoJekyll     = ".nojekyll"                           // GitHub Pages serves dot-folders only with it
	Headers      = "_headers"                            // Netlify and Cloudflare Pages response headers
	Catalog      = "index.html"                          // the human catalog

	LLMsTxt   = "llms.txt"                    // when Options.LLMsTxt asks for it
	AICatalog = ".well-known/ai-catalog.json" // when Options.AICatalog asks for it

	// BuildRecord lists every file a build wrote and what a later build
	// may reuse; it marks a folder as skillpack's output.
	BuildRecord = ".skillpack/build.json"
)

// Folders of the two discovery trees, relative to dist/.
const (
	SkillsDir = ".well-known/agent-skills"
	LegacyDir = ".well-known/skills"
)

// PagesDir holds the catalog's page of each skill, <name>.html (CatalogPage).
const (
	PagesDir = "skills"
	PageExt  = ".html"
)

// CatalogPage is the dist path of a skill's page in the catalog.
func CatalogPage(name string) string { return PagesDir + "/" + name + PageExt }

// EntryFile is the file every skill has at its root.
const EntryFile = "SKILL.md"

// Archive formats, as the extensions of archive names.
const (
	TarGz = "tar.gz"
	Zip   = "zip"
)

// Schema is the exact $schema of a discovery v0.2.0 index, matched as an
// opaque string: the Vercel CLI ignores an index with any other value.
const Schema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// IndexURI is the MCP resource that serves MCPIndex.
const IndexURI = URIScheme + "index.json"

// SkillDir is the folder of a skill in the v0.2 tree.
func SkillDir(name string) string { return SkillsDir + "/" + name }

// SkillFile is where a skill's file (path in the skill folder) is served
// in the v0.2 tree.
func SkillFile(name, path string) string { return SkillDir(name) + "/" + path }

// LegacyFile is where a skill's file is served in the v0.1 tree, as v0.1
// readers derive it from the index.
func LegacyFile(name, path string) string { return LegacyDir + "/" + name + "/" + path }

// ArchiveName is the content-addressed name of a skill's archive, which a
// CDN may cache forever: "<name>-<first 16 hex digits of its sha256>.<ext>".
func ArchiveName(name string, digest Digest, ext string) string {
	return archiveName(name, digest.Short(), ext)
}

// archiveName and ParseArchiveName are the only spellers of an archive's
// name.
func archiveName(name, short, ext string) string {
	p := archiveNameParts(name, short, ext)
	return strings.Join(p[:], "")
}

// archiveNameParts is archiveName in pieces, which sort as the name does
// (see set.key).
func archiveNameParts(name, short, ext string) [5]string {
	return [5]string{name, "-", short, ".", ext}
}

// ParseArchiveName takes apart an archive's file name as ArchiveName
// spells it (and no other): the skill's name, Digest.Short and the format.
func ParseArchiveName(file string) (name, short, ext string, ok bool) {
	ext = ArchiveFormat(file)
	if ext == "" {
		return "", "", "", false
	}
	rest := strings.TrimSuffix(file, "."+ext)
	// The hex has no '-', so the name is everything before the last one;
	// skill names may have their own.
	i := strings.LastIndexByte(rest, '-')
	if i < 0 || CheckName(rest[:i]) != nil || len(rest[i+1:]) != 16 || !isLowerHex(rest[i+1:]) {
		return "", "", "", false
	}
	return rest[:i], rest[i+1:], ext, true
}

// ArchiveFormat is the archive format a file name's extension says, TarGz
// or Zip, or "": the extension alone, unlike ParseArchiveName.
func ArchiveFormat(file string) string {
	for _, e := range []string{TarGz, Zip} {
		if strings.HasSuffix(file, "."+e) {
			return e
		}
	}
	return ""
}

// ArchivePath is where a skill's archive is served: beside the skill
// folders, which cannot collide with it (skill names have no dots).
func ArchivePath(name string, digest Digest, ext string) string {
	return archivePath(name, digest, ext).String()
}

func archivePath(name string, digest Digest, ext string) Path {
	return Path{Kind: KindArchive, Skill: name, Short: digest.Short(), Format: ext}
}

// URIScheme begins every MCP resource URI of a bundle.
const URIScheme = "skill://"

// SkillURI is the MCP resource URI of a skill's file: skill://<name>/<path>,
// whose skill segment is the frontmatter name, as the MCP Skills extension
// requires. Only "%", "#" and "?" are percent-encoded (the official SDK
// refuses a whole listing holding a URI with a fragment or query), so
// every URL parser reads it the same; UnescapeURI is the inverse.
func SkillURI(name, path string) string { return URIScheme + name + "/" + uriEscaper.Replace(path) }

var uriEscaper = strings.NewReplacer("%", "%25", "#", "%23", "?", "%3F")

// UnescapeURI is the path a part of a URI after URIScheme spells, as
// SkillURI spells it; false for any other spelling.
func UnescapeURI(s string) (string, bool) {
	if !strings.ContainsAny(s, "%#?") {
		return s, true
	}
	u, err := url.PathUnescape(s)
	return u, err == nil && uriEscaper.Replace(u) == s
}

// ArchiveURI is the MCP resource URI of a skill's archive.
func ArchiveURI(name string, digest Digest, ext string) string {
	return archivePath(name, digest, ext).URI()
}

// Path is a dist path taken apart: what ParsePath, ParseURI and
// ParseIndexURL return, and what String and URI spell again.
type Path struct {
	Kind    Kind   // KindFile, KindArchive, KindVersion, KindPage or KindDoc
	Legacy  bool   // KindFile: the copy in the v0.1 tree
	Skill   string // KindFile, KindArchive, KindVersion, KindPage: the skill's name
	Version string // KindVersion: the skill's version, the folder it is in (versions.go)
	File    string // KindFile, KindVersion: the path within the skill ("" for an archive)
	Short   string // KindArchive, KindVersion: the digest's part of its name (Digest.Short)
	Format  string // KindArchive, KindVersion: TarGz or Zip
	Doc     string // KindDoc: the document's path, one of the constants above or a Snapshot
	Release string // KindDoc: the release of a Snapshot
}

// docs are the documents a bundle may hold, as ParsePath knows them.
var docs = append([]string{V2Index, V1Index, MCPSkills, MCPIndex, MCPResources, Checksums, NoJekyll, Headers, Catalog, BuildRecord,
	VersionsIndex, LLMsTxt, AICatalog, PluginsIndex}, marketplaces...)

// ParsePath takes a dist path apart: a skill's file in either tree, an
// archive, a skill's page, a version's file or a document. ok is false
// for any path this package does not spell (signatures, a user's files).
func ParsePath(p string) (Path, bool) {
	if slices.Contains(docs, p) {
		return Path{Kind: KindDoc, Doc: p}, true
	}
	if pp, ok := parseSnapshot(p); ok {
		return pp, true
	}
	if CheckPath(p) != nil {
		return Path{}, false
	}
	if pluginArchive(p) || pluginFile(p) {
		return Path{Kind: KindDoc, Doc: p}, true // made by the build, as documents are (plugins.go)
	}
	if rest, ok := strings.CutPrefix(p, PagesDir+"/"); ok {
		name, ok := strings.CutSuffix(rest, PageExt)
		if !ok || CheckName(name) != nil {
			return Path{}, false
		}
		return Path{Kind: KindPage, Skill: name}, true
	}
	if rest, ok := strings.CutPrefix(p, LegacyDir+"/"); ok {
		pp, ok := skillFile(rest)
		pp.Legacy = true
		return pp, ok
	}
	rest, ok := strings.CutPrefix(p, SkillsDir+"/")
	if !ok {
		return Path{}, false
	}
	if pp, ok := versioned(rest); ok {
		return pp, true
	}
	if strings.Contains(rest, "/") {
		return skillFile(rest)
	}
	return archive(rest)
}

// ParseURI takes an MCP resource URI apart, as the Path of the file that
// holds its bytes: a skill's file, an archive, or IndexURI (MCPIndex).
func ParseURI(uri string) (Path, bool) {
	if uri == IndexURI {
		return Path{Kind: KindDoc, Doc: MCPIndex}, true
	}
	rest, ok := strings.CutPrefix(uri, URIScheme)
	if ok {
		rest, ok = UnescapeURI(rest)
	}
	if !ok || CheckPath(rest) != nil {
		return Path{}, false
	}
	if strings.Contains(rest, "/") {
		return skillFile(rest)
	}
	return archive(rest)
}

// ParseIndexURL is the Path a url of the v0.2 index (a string, not
// percent-encoded) leads to: relative to it, or under any base URL.
func ParseIndexURL(u string) (Path, bool) {
	d := SkillsDir + "/" + u
	if strings.Contains(u, "://") {
		d = absPath(SkillsDir, u)
	}
	p, ok := ParsePath(d)
	if !ok || p.Kind == KindDoc || p.Legacy {
		return Path{}, false // the index points at skills only
	}
	return p, true
}

// absPath is the dist path an absolute url leads to under any base URL:
// from its first "/<dir>/" on; "" when it has none, which no reader takes.
func absPath(dir, u string) string {
	if _, rest, ok := strings.Cut(u, "/"+dir+"/"); ok {
		return dir + "/" + rest
	}
	return ""
}

// skillFile parses "<name>/<path>".
func skillFile(s string) (Path, bool) {
	name, file, _ := strings.Cut(s, "/")
	if CheckName(name) != nil || CheckPath(file) != nil {
		return Path{}, false
	}
	return Path{Kind: KindFile, Skill: name, File: file}, true
}

func archive(s string) (Path, bool) {
	name, short, ext, ok := ParseArchiveName(s)
	if !ok {
		return Path{}, false
	}
	return Path{Kind: KindArchive, Skill: name, Short: short, Format: ext}, true
}

// String is the dist path.
func (p Path) String() string {
	switch p.Kind {
	case KindFile:
		if p.Legacy {
			return LegacyFile(p.Skill, p.File)
		}
		return SkillFile(p.Skill, p.File)
	case KindArchive:
		return SkillsDir + "/" + archiveName(p.Skill, p.Short, p.Format)
	case KindVersion:
		if p.File != "" {
			return VersionFile(p.Skill, p.Version, p.File)
		}
		return VersionDir(p.Skill, p.Version) + "/" + archiveName(p.Skill, p.Short, p.Format)
	case KindPage:
		return CatalogPage(p.Skill)
	}
	return p.Doc
}

// URI is the MCP resource URI that serves the path's bytes, or "" if no
// URI does (the v0.1 tree and every document but MCPIndex).
func (p Path) URI() string {
	switch {
	case p.Kind == KindFile && !p.Legacy:
		return SkillURI(p.Skill, p.File)
	case p.Kind == KindArchive:
		return URIScheme + archiveName(p.Skill, p.Short, p.Format)
	case p.Kind == KindDoc && p.Doc == MCPIndex:
		return IndexURI
	}
	return ""
}

// SignatureSuffix names the Sigstore bundle beside the artifact it signs.
// Signatures are not deterministic, so they are in no archive or digest.
const SignatureSuffix = ".sigstore.json"

// Signature is the dist path of the signature of the artifact at path.
func Signature(path string) string { return path + SignatureSuffix }

// SignedPath reports whether a build signs the artifact at the dist path
// p: every archive, and each document that carries digests of others (the
// indexes, mcp/skills.json, versions.json, which signs the carried
// versions through it, and the AI Catalog; not llms.txt). It is the one
// list of what is signed, for the build, verify and serve.
func SignedPath(p string) bool {
	switch p {
	case V2Index, V1Index, MCPIndex, MCPSkills, VersionsIndex, AICatalog, PluginsIndex:
		return true
	}
	pp, ok := ParsePath(p)
	return ok && (pp.Kind == KindArchive || pluginArchive(pp.Doc))
}

// Addressed reports whether a dist path is named by its content (an
// archive): cached for good, and published before anything names it.
func Addressed(p string) bool {
	pp, ok := ParsePath(p)
	return ok && (pp.Kind == KindArchive || pp.Kind == KindVersion && pp.Format != "") || pluginArchive(p)
}

// SignedArtifact is Signature's inverse, for an artifact the build signs.
func SignedArtifact(sig string) (artifact string, ok bool) {
	artifact, ok = strings.CutSuffix(sig, SignatureSuffix)
	if !ok || !SignedPath(artifact) {
		return "", false
	}
	return artifact, true
}

// FolderSignature is the dist path of a skill's folder signature (OMS):
// among its served files, where OMS verifiers look in a copy; in no
// archive and no index.
func FolderSignature(name string) string { return SkillFile(name, FolderSignatureFile) }

// ParseFolderSignature is FolderSignature's inverse.
func ParseFolderSignature(p string) (name string, ok bool) {
	if !strings.HasSuffix(p, "/"+FolderSignatureFile) {
		return "", false // most paths, without parsing them
	}
	pp, ok := ParsePath(p)
	if !ok || pp.Kind != KindFile || pp.Legacy || pp.File != FolderSignatureFile {
		return "", false
	}
	return pp.Skill, true
}

// IsSignature reports whether the dist path p is a signature a build
// writes (SignedArtifact, FolderSignature), which no document records.
func IsSignature(p string) bool {
	_, art := SignedArtifact(p)
	_, folder := ParseFolderSignature(p)
	return art || folder
}
