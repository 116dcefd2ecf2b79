package layout

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/jsonenc"
)

// PluginsDir holds a bundle's plugins: each plugin's .tar.gz and .zip,
// content-addressed as a skill's are, and PluginsIndex, which lists them.
// A bundle has them only when the build found plugins (Options.Plugins).
const (
	PluginsDir   = ".well-known/agent-plugins"
	PluginsIndex = PluginsDir + "/index.json"
)

// Plugin is a plugin the build packed: what PluginsIndex says of it, and
// its archives, whose bytes the build hands over with Write.
type Plugin struct {
	Name        string
	Version     string
	Description string
	Skills      []string // the names of its skills the bundle publishes, sorted
	TarGz, Zip  PluginArchive
}

// PluginArchive is one of a plugin's archives: its digest and size, and
// Write, which writes its bytes (the same on every call).
type PluginArchive struct {
	Digest Digest
	Size   int64
	Write  func(io.Writer) error
}

// PluginArchivePath is the dist path of a plugin's archive (TarGz or Zip):
// "<name>-<first 16 hex digits of its sha256>.<ext>" in PluginsDir.
func PluginArchivePath(name string, digest Digest, ext string) string {
	return PluginsDir + "/" + archiveName(name, digest.Short(), ext)
}

// IndexPlugins is PluginsIndex: every plugin of the bundle, sorted by name.
type IndexPlugins struct {
	Generator string        `json:"generator,omitempty"`
	Plugins   []EntryPlugin `json:"plugins"`
}

// EntryPlugin is one plugin of PluginsIndex. Its archives' URLs are
// relative to the index unless the bundle has a base URL.
type EntryPlugin struct {
	Name        string           `json:"name"`
	Version     string           `json:"version,omitempty"`
	Description string           `json:"description,omitempty"`
	Skills      []string         `json:"skills"`
	Archives    []PluginArchiveE `json:"archives"`
}

// PluginArchiveE is an archive of EntryPlugin.
type PluginArchiveE struct {
	URL       string `json:"url"`
	MediaType string `json:"mediaType"`
	Digest    Digest `json:"digest"`
	Size      int64  `json:"size"`
}

// DecodePlugins reads PluginsIndex.
func DecodePlugins(data []byte) (*IndexPlugins, error) {
	return decode[IndexPlugins](PluginsIndex, data)
}

// PluginPath is the dist path an archive's URL in PluginsIndex names:
// relative to the index, or absolute under the bundle's base URL; false
// for a URL that names no plugin archive.
func PluginPath(url string) (string, bool) {
	p := PluginsDir + "/" + url
	if strings.Contains(url, "://") {
		i := strings.Index(url, "/"+PluginsDir+"/")
		if i < 0 {
			return "", false
		}
		p = url[i+1:]
	}
	if !pluginArchive(p) || CheckPath(p) != nil {
		return "", false
	}
	return p, true
}

// checkPlugins refuses plugins Plan cannot lay out: two of one name, a
// name a path cannot carry, an archive without its digest or bytes.
func checkPlugins(ps []Plugin) error {
	seen := map[string]bool{}
	for _, p := range ps {
		if p.Name == "" || strings.ContainsAny(p.Name, "/\\") || CheckPath(PluginsDir+"/"+p.Name) != nil {
			return fmt.Errorf("layout: plugin name %q cannot name a file", p.Name)
		}
		if seen[p.Name] {
			return fmt.Errorf("layout: two plugins are named %q", p.Name)
		}
		seen[p.Name] = true
		for _, a := range []PluginArchive{p.TarGz, p.Zip} {
			if !a.Digest.Valid() || a.Size < 0 || a.Write == nil {
				return fmt.Errorf("layout: plugin %s: an archive has no digest, size or bytes", p.Name)
			}
		}
	}
	return nil
}

// pluginDocs are the entries of the plugins' archives and PluginsIndex.
func pluginDocs(ps []Plugin, o Options) []Entry {
	if len(ps) == 0 {
		return nil
	}
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b Plugin) int { return strings.Compare(a.Name, b.Name) })
	url := func(p string) string {
		if o.BaseURL == "" {
			return strings.TrimPrefix(p, PluginsDir+"/")
		}
		return joinURL(o.BaseURL, p)
	}
	idx := IndexPlugins{Generator: o.Generator, Plugins: []EntryPlugin{}}
	var out []Entry
	for _, p := range ps {
		e := EntryPlugin{Name: p.Name, Version: p.Version, Description: p.Description, Skills: p.Skills, Archives: []PluginArchiveE{}}
		if e.Skills == nil {
			e.Skills = []string{}
		}
		for _, a := range []struct {
			ext string
			a   PluginArchive
		}{{TarGz, p.TarGz}, {Zip, p.Zip}} {
			ap := PluginArchivePath(p.Name, a.a.Digest, a.ext)
			out = append(out, Entry{Path: ap, Kind: KindDoc, Write: a.a.Write, Digest: a.a.Digest, Size: a.a.Size})
			e.Archives = append(e.Archives, PluginArchiveE{URL: url(ap), MediaType: ContentType(ap), Digest: a.a.Digest, Size: a.a.Size})
		}
		idx.Plugins = append(idx.Plugins, e)
	}
	doc := func(w io.Writer) error { return jsonenc.Write(w, idx) }
	return append(out, Entry{Path: PluginsIndex, Kind: KindDoc, Write: doc})
}

// pluginArchive reports whether a dist path is a plugin's archive.
func pluginArchive(p string) bool {
	return path.Dir(p) == PluginsDir && ArchiveFormat(p) != ""
}

// ClaudeMarketplace is Claude Code's marketplace file, at the bundle's
// root, written when the build is asked for it (Options.Marketplace): the
// Vercel skills CLI reads it too, from a folder holding the bundle.
const ClaudeMarketplace = ".claude-plugin/marketplace.json"

// Marketplace is what names a marketplace file: its name (kebab-case) and
// its owner's.
type Marketplace struct {
	Name, Owner string
}

// ClaudeMarketplaceDoc is ClaudeMarketplace. Claude Code's plugin sources
// are folders (a relative path, a git repository, an npm package), with no
// field for an archive or its digest, so each plugin is the bundle's
// served skill folders it holds: "strict": false (the entry is the whole
// plugin definition), its source the skills tree, its skills by path. The
// plugin's archives, with their digests, are in PluginsIndex.
type ClaudeMarketplaceDoc struct {
	Name    string         `json:"name"`
	Owner   Owner          `json:"owner"`
	Plugins []ClaudePlugin `json:"plugins"`
}

// Owner is a marketplace's owner.
type Owner struct {
	Name string `json:"name"`
}

// ClaudePlugin is one plugin of ClaudeMarketplaceDoc.
type ClaudePlugin struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Version     string   `json:"version,omitempty"`
	Source      string   `json:"source"`
	Strict      bool     `json:"strict"`
	Skills      []string `json:"skills"`
}

// DecodeClaudeMarketplace reads ClaudeMarketplace.
func DecodeClaudeMarketplace(data []byte) (*ClaudeMarketplaceDoc, error) {
	return decode[ClaudeMarketplaceDoc](ClaudeMarketplace, data)
}

// claudeMarketplace renders ClaudeMarketplace for the plugins, sorted.
func claudeMarketplace(ps []Plugin, m Marketplace) func(io.Writer) error {
	doc := ClaudeMarketplaceDoc{Name: m.Name, Owner: Owner{Name: m.Owner}, Plugins: []ClaudePlugin{}}
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b Plugin) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range ps {
		e := ClaudePlugin{Name: p.Name, Description: p.Description, Version: p.Version, Source: "./" + SkillsDir, Skills: []string{}}
		for _, s := range p.Skills {
			e.Skills = append(e.Skills, "./"+s)
		}
		doc.Plugins = append(doc.Plugins, e)
	}
	return func(w io.Writer) error { return jsonenc.Write(w, doc) }
}
