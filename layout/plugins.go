package layout

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/jsonenc"
)

// PluginsDir holds a bundle's plugins (Options.Plugins): each one's
// content-addressed .tar.gz and .zip, and PluginsIndex, which lists them.
const (
	PluginsDir   = ".well-known/agent-plugins"
	PluginsIndex = PluginsDir + "/index.json"
)

// Plugin is a plugin the build packed: what PluginsIndex says of it, and
// its archives.
type Plugin struct {
	Name        string
	Version     string
	Description string
	Skills      []string // the names of its skills the bundle publishes (from this folder or, for an identical copy, another), sorted
	TarGz, Zip  PluginBytes
	// Files are the archives' entries, served as a folder at PluginDir
	// for a marketplace that names plugin folders (NamesFolders); nil for
	// none.
	Files []PluginFile
}

// PluginBytes is an archive or a file of a plugin, with Write, which
// writes its bytes (the same on every call).
type PluginBytes struct {
	Digest Digest
	Size   int64
	Write  func(io.Writer) error
}

// PluginFile is a file of a plugin served as a folder.
type PluginFile struct {
	Path string
	Exec bool // the source had an execute bit
	PluginBytes
}

// PluginDir is the dist path of a plugin's folder (Plugin.Files).
func PluginDir(name string) string { return PluginsDir + "/" + name }

// pluginFile reports whether a dist path is a file of a plugin's folder,
// whose name (CheckName) has no dot, as an archive's and index.json have.
func pluginFile(p string) bool {
	name, rest, ok := strings.Cut(strings.TrimPrefix(p, PluginsDir+"/"), "/")
	return ok && rest != "" && strings.HasPrefix(p, PluginsDir+"/") && CheckName(name) == nil && CheckPath(p) == nil
}

// PluginArchivePath is the dist path of a plugin's archive, named as a
// skill's (ArchiveName).
func PluginArchivePath(name string, digest Digest, ext string) string {
	return PluginsDir + "/" + archiveName(name, digest.Short(), ext)
}

// IndexPlugins is PluginsIndex: every plugin of the bundle, sorted by name.
type IndexPlugins struct {
	Generator string        `json:"generator,omitempty"`
	Plugins   []EntryPlugin `json:"plugins"`
}

// EntryPlugin is one plugin of PluginsIndex.
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

// PluginPath is the dist path of the plugin archive a URL of
// PluginsIndex names (relative to it, or absolute under any base URL).
func PluginPath(url string) (string, bool) {
	p := PluginsDir + "/" + url
	if strings.Contains(url, "://") {
		p = absPath(PluginsDir, url)
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
		for _, a := range []PluginBytes{p.TarGz, p.Zip} {
			if !a.Digest.Valid() || a.Size < 0 || a.Write == nil {
				return fmt.Errorf("layout: plugin %s: an archive has no digest, size or bytes", p.Name)
			}
		}
		if p.Files == nil {
			continue
		}
		// Served as a folder: its name must suit every client's grammar
		// (docs/plugins.md).
		if err := CheckName(p.Name); err != nil {
			return fmt.Errorf("layout: plugin %q cannot be served as a folder: %w", p.Name, err)
		}
		for _, f := range p.Files {
			if !pluginFile(PluginDir(p.Name)+"/"+f.Path) || !f.Digest.Valid() || f.Size < 0 || f.Write == nil {
				return fmt.Errorf("layout: plugin %s: file %q has no path, digest, size or bytes", p.Name, f.Path)
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
			a   PluginBytes
		}{{TarGz, p.TarGz}, {Zip, p.Zip}} {
			ap := PluginArchivePath(p.Name, a.a.Digest, a.ext)
			out = append(out, Entry{Path: ap, Kind: KindDoc, Write: a.a.Write, Digest: a.a.Digest, Size: a.a.Size})
			e.Archives = append(e.Archives, PluginArchiveE{URL: url(ap), MediaType: ContentType(ap), Digest: a.a.Digest, Size: a.a.Size})
		}
		for _, f := range p.Files {
			out = append(out, Entry{Path: PluginDir(p.Name) + "/" + f.Path, Kind: KindDoc, Write: f.Write, Digest: f.Digest, Size: f.Size, Exec: f.Exec})
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
