package layout

import (
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

	// BuildRecord lists every file a build wrote and what a later build
	// may reuse; it marks a folder as skillpack's output.
	BuildRecord = ".skillpack/build.json"
)

// Folders of the two discovery trees, relative to dist/.
const (
	SkillsDir = ".well-known/agent-skills"
	LegacyDir = ".well-known/skills"
)

// EntryFile is the file every skill has at its root.
const EntryFile = "SKILL.md"

// Archive formats, as the extensions of archive names.
const (
	TarGz = "tar.gz"
	Zip   = "zip"
)

// Schema is the exact $schema of a discovery v0.2.0 index. Readers match it
// as an opaque string: the Vercel CLI ignores an index with any other value
// and falls back to the unverified v0.1 tree.
const Schema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// IndexURI is the MCP resource that serves MCPIndex.
const IndexURI = "skill://index.json"

// SkillDir is the folder of a skill in the v0.2 tree.
func SkillDir(name string) string { return SkillsDir + "/" + name }

// SkillFile is where a skill's file is served in the v0.2 tree; path is
// relative to the skill folder.
func SkillFile(name, path string) string { return SkillDir(name) + "/" + path }

// LegacyFile is where a skill's file is served in the v0.1 tree, the path
// v0.1 readers derive from the index: /.well-known/skills/<name>/<path>.
func LegacyFile(name, path string) string { return LegacyDir + "/" + name + "/" + path }

// ArchiveName is the content-addressed file name of a skill's archive:
// "<name>-<first 16 hex digits of the archive's sha256>.<ext>". Because the
// name changes whenever the bytes do, an archive URL never changes meaning
// and a CDN may cache it forever; only index.json files are mutable.
func ArchiveName(name string, digest Digest, ext string) string {
	return name + "-" + digest.Short() + "." + ext
}

// ArchivePath is where a skill's archive is served: beside the skill
// folders, which cannot collide with it (skill names have no dots).
func ArchivePath(name string, digest Digest, ext string) string {
	return SkillsDir + "/" + ArchiveName(name, digest, ext)
}

// SkillURI is the MCP resource URI of a skill's file: skill://<name>/<path>.
// The skill path is the bare name, so its last segment equals the
// frontmatter name as the MCP Skills extension requires. Paths are not
// percent-encoded: hosts map URIs back to files by stripping the prefix.
func SkillURI(name, path string) string { return "skill://" + name + "/" + path }

// ArchiveURI is the MCP resource URI of a skill's archive.
func ArchiveURI(name string, digest Digest, ext string) string {
	return "skill://" + ArchiveName(name, digest, ext)
}

// relToV2 is a dist path as a URL relative to the v0.2 index, so that a
// bundle works under any prefix.
func relToV2(distPath string) string {
	return strings.TrimPrefix(distPath, SkillsDir+"/")
}

// SignatureSuffix names the Sigstore bundle that sits beside the artifact it
// signs. Signatures are never deterministic, so they are never inside an
// archive or a digest.
const SignatureSuffix = ".sigstore.json"

// Signature is the dist path of the signature of the artifact at path.
func Signature(path string) string { return path + SignatureSuffix }

// Signed reports whether a build signs the entry: every archive, the
// discovery and legacy MCP indexes, and mcp/skills.json, which carries the
// digest of every file an MCP server serves.
func Signed(e Entry) bool {
	if e.Kind == KindArchive {
		return true
	}
	switch e.Path {
	case V2Index, V1Index, MCPIndex, MCPSkills:
		return true
	}
	return false
}
