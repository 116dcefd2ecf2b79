package layout

import (
	"cmp"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// mimeTypes is the table behind MimeType, never the host's, so that every
// machine builds and serves the same types.
var mimeTypes = map[string]string{
	".md":        "text/markdown",
	".markdown":  "text/markdown",
	".txt":       "text/plain",
	".text":      "text/plain",
	".csv":       "text/csv",
	".tsv":       "text/tab-separated-values",
	".html":      "text/html",
	".htm":       "text/html",
	".css":       "text/css",
	".js":        "text/javascript",
	".mjs":       "text/javascript",
	".cjs":       "text/javascript",
	".ts":        "text/plain", // video/mp2t by registration; served as text, as it is read
	".tsx":       "text/plain",
	".jsx":       "text/javascript",
	".gitignore": "text/plain",
	".mplstyle":  "text/plain",
	".ini":       "text/plain",
	".log":       "text/plain",
	".rst":       "text/x-rst",
	".diff":      "text/x-diff",
	".patch":     "text/x-diff",
	".tex":       "text/x-tex",
	".sty":       "text/x-tex",
	".bib":       "text/x-bibtex",
	".dot":       "text/vnd.graphviz",
	".gv":        "text/vnd.graphviz",
	".py":        "text/x-python",
	".sh":        "text/x-shellscript",
	".bash":      "text/x-shellscript",
	".rb":        "text/x-ruby",
	".go":        "text/x-go",
	".rs":        "text/x-rust",
	".java":      "text/x-java",
	".c":         "text/x-c", // and C++, as Apache's table has them
	".h":         "text/x-c",
	".cc":        "text/x-c",
	".cpp":       "text/x-c",
	".cxx":       "text/x-c",
	".hpp":       "text/x-c",
	".cs":        "text/x-csharp",
	".kt":        "text/x-kotlin",
	".swift":     "text/x-swift",
	".php":       "text/x-php",
	".pl":        "text/x-perl",
	".lua":       "text/x-lua",
	".r":         "text/x-r",
	".ps1":       "text/plain",
	".sql":       "application/sql",
	".json":      "application/json",
	".xml":       "application/xml",
	".xsd":       "application/xml",
	".jsonl":     "application/jsonl",
	".ipynb":     "application/x-ipynb+json",
	".yaml":      "application/yaml",
	".yml":       "application/yaml",
	".toml":      "application/toml",
	".pdf":       "application/pdf",
	".gz":        "application/gzip",
	".tgz":       "application/gzip",
	".zip":       "application/zip",
	".wasm":      "application/wasm",
	".svg":       "image/svg+xml",
	".png":       "image/png",
	".jpg":       "image/jpeg",
	".jpeg":      "image/jpeg",
	".gif":       "image/gif",
	".webp":      "image/webp",
	".ico":       "image/vnd.microsoft.icon",
}

// MimeType is the media type of a file by its name (its extension, in any
// case), without parameters, as MCP resources carry it; unknown is
// application/octet-stream. A .tar.gz is application/gzip, never served
// with Content-Encoding, which would make clients unpack it.
func MimeType(name string) string {
	return cmp.Or(mimeTypes[strings.ToLower(path.Ext(name))], "application/octet-stream")
}

// Extensions are the extensions MimeType knows, for the tests of a host's
// configuration that must give the same types.
func Extensions() []string { return slices.Sorted(maps.Keys(mimeTypes)) }

// ContentType is the HTTP Content-Type of a file by its name: MimeType,
// with "; charset=utf-8" for text types so browsers and proxies do not
// guess an encoding; for AICatalog, the type its specification asks for.
func ContentType(name string) string {
	if name == AICatalog {
		return MediaAICatalog
	}
	t := MimeType(name)
	return cmp.Or(textTypes()[t], t)
}

// textTypes gives each text type of mimeTypes its Content-Type, made once:
// a server asks for one per file of a bundle.
var textTypes = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, t := range mimeTypes {
		if strings.HasPrefix(t, "text/") {
			m[t] = t + "; charset=utf-8"
		}
	}
	return m
})

// Immutable is the Cache-Control of anything named by its own digest:
// archives, and a publisher's copies of build records.
const Immutable = "public, max-age=31536000, immutable"

// Cache says how long clients and shared caches may keep each kind of file
// of a bundle. Archives are content-addressed: cached for a year, as
// immutable.
type Cache struct {
	// Index is the lifetime of the mutable entry points (the indexes,
	// mcp/*.json, checksums.txt, signatures, the catalog): a new release
	// shows within it.
	Index time.Duration
	Files time.Duration // a skill's own files, in either tree
}

// DefaultCache keeps indexes five minutes and skill files an hour, the
// least publishers are told to serve SKILL.md with.
var DefaultCache = Cache{Index: 5 * time.Minute, Files: time.Hour}

// Control is the Cache-Control value for a dist path.
func (c Cache) Control(p string) string {
	pp, ok := ParsePath(p)
	switch {
	case Addressed(p):
		return Immutable
	case ok && (pp.Kind == KindFile || pp.Kind == KindVersion):
		// A version's files keep their paths' meaning only as long as the
		// publisher builds with the guard (--previous): not immutable.
		return maxAge(c.Files)
	}
	return maxAge(c.Index)
}

// maxAge is a Cache-Control value that lets caches keep a response for d,
// then ask again; 0: every time.
func maxAge(d time.Duration) string {
	if d <= 0 {
		return "public, no-cache"
	}
	return "public, max-age=" + strconv.FormatInt(int64(d/time.Second), 10) + ", must-revalidate"
}

// ExposeHeaders are the response headers a page on another origin may
// read (CORS): the validator for its next If-None-Match, and what a
// ranged GET answers with. serve and _headers give the same.
const ExposeHeaders = "ETag, Content-Range, Accept-Ranges"

// HeadersDoc is the _headers file for Netlify and Cloudflare Pages, with
// rules for the optional documents among docs (other paths are ignored).
//
// Both hosts apply every matching rule and join repeated headers with a
// comma, so Content-Type and Cache-Control are set only by rules with
// disjoint patterns; skill files other than .md keep the host's defaults.
// Cloudflare allows one splat per pattern and 100 rules, and a splat
// matches across folders, so the archives' rules (*.tar.gz, *.zip) would
// also make a skill's own file of that name (Shadowed) immutable for a
// year at a path whose bytes change: where the bundle has one (shadowed),
// the archives keep the host's caching too.
func HeadersDoc(shadowed bool, docs ...string) []byte {
	var b strings.Builder
	b.WriteString("# Written by skillpack for Netlify and Cloudflare Pages; other hosts ignore it.\n")
	rule := func(pattern string, headers ...string) {
		b.WriteString("\n" + pattern + "\n")
		for i := 0; i+1 < len(headers); i += 2 {
			b.WriteString("  " + headers[i] + ": " + headers[i+1] + "\n")
		}
	}
	rule("/*",
		"Access-Control-Allow-Origin", "*",
		"Access-Control-Expose-Headers", ExposeHeaders,
		"X-Content-Type-Options", "nosniff")
	for _, p := range []string{"/" + V2Index, "/" + V1Index} {
		rule(p, "Content-Type", MimeType(p), "Cache-Control", maxAge(DefaultCache.Index))
	}
	rule("/mcp/*", "Content-Type", "application/json", "Cache-Control", maxAge(DefaultCache.Index))
	rule("/"+Checksums, "Content-Type", ContentType(Checksums), "Cache-Control", maxAge(DefaultCache.Index))
	// Exact paths, which no other rule setting these headers matches.
	for _, p := range append([]string{LLMsTxt, AICatalog, PluginsIndex}, marketplaces...) {
		if slices.Contains(docs, p) {
			rule("/"+p, "Content-Type", ContentType(p), "Cache-Control", maxAge(DefaultCache.Index))
		}
	}
	if slices.Contains(docs, PluginsIndex) && !shadowed {
		rule("/"+PluginsDir+"/*."+TarGz, "Content-Type", MimeType("a."+TarGz), "Cache-Control", Immutable)
		rule("/"+PluginsDir+"/*."+Zip, "Content-Type", MimeType("a."+Zip), "Cache-Control", Immutable)
	}
	if !shadowed {
		rule("/"+SkillsDir+"/*."+TarGz, "Content-Type", MimeType("a."+TarGz), "Cache-Control", Immutable)
		rule("/"+SkillsDir+"/*."+Zip, "Content-Type", MimeType("a."+Zip), "Cache-Control", Immutable)
	}
	rule("/"+SkillsDir+"/*.md", "Content-Type", ContentType("a.md"), "Cache-Control", maxAge(DefaultCache.Files))
	rule("/"+LegacyDir+"/*.md", "Content-Type", ContentType("a.md"), "Cache-Control", maxAge(DefaultCache.Files))
	return []byte(b.String())
}

// Shadowed reports whether the dist path p is a file the archives' rules
// of _headers would match though it is no archive: a file a skill or a
// plugin ships, served in the v0.2 tree or a plugin's folder, named
// *.tar.gz or *.zip (anthropics/skills' shadcn-components.tar.gz).
func Shadowed(p string) bool {
	pp, ok := ParsePath(p)
	served := ok && pp.Kind == KindFile && strings.HasPrefix(p, SkillsDir+"/") || pluginFile(p)
	return served && ArchiveFormat(p) != ""
}
