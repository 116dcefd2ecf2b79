package skill

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillpack/skillpack/internal/smallfile"
)

// Plugins scope skill names: Claude Code, Codex and Cursor invoke the skill
// access of the plugin discord as /discord:access, so two plugins may each
// hold a skill of one name. A plugin is a folder holding one of these
// manifests: the Agent Plugins standard's plugin.json at the root, a
// client's own under a dotted folder (.claude-plugin/plugin.json, and so
// for any client: .grok-plugin/), or Copilot's .plugin/plugin.json and
// .github/plugin/plugin.json; or a folder a marketplace names as a
// plugin's source (a plugin with "strict": false has no manifest).
//
// A per-platform variant folder (claude/skills/pdf beside codex/skills/pdf)
// scopes names as a plugin does, with a manifest or without.

// PluginManifest is the Agent Plugins manifest, at a plugin's root; the
// clients' own manifests have the same name inside their manifest folders.
const PluginManifest = "plugin.json"

// manifestDir reports whether a folder of a plugin's root holds a client's
// manifest or marketplace: ".<client>-plugin", Copilot's ".plugin" and
// ".github/plugin", and Codex's ".agents/plugins".
func manifestDir(name string) (sub string, ok bool) {
	switch {
	case name == ".github":
		return ".github/plugin", true
	case name == ".agents":
		return ".agents/plugins", true
	case name == ".plugin", len(name) > len(".-plugin") && name[0] == '.' && strings.HasSuffix(name, "-plugin"):
		return name, true
	}
	return "", false
}

// ManifestFolder returns the first folder between root and dir, dir
// included, that is a client's manifest folder (.claude-plugin, .plugin);
// "" for none. No client loads a skill from one.
func ManifestFolder(root, dir string) string {
	if !strings.Contains(dir, "plugin") { // every skill passes here: no syscall for most
		return ""
	}
	rel, ok := RelBelow(root, dir)
	if !ok {
		return ""
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, part := range parts {
		if sub, ok := manifestDir(part); ok && sub == part {
			return filepath.Join(root, filepath.FromSlash(strings.Join(parts[:i+1], "/")))
		}
	}
	return ""
}

// ManifestOf says what the file at path is to discovery: the manifest of
// the plugin in the folder plugin (a plugin.json at a plugin's root or in
// one of its manifest folders), or a marketplace; "" and false for
// neither. A pre-commit hook passes a changed manifest alone.
func ManifestOf(path string) (plugin string, market bool) {
	dir, up := filepath.Dir(path), filepath.Dir(filepath.Dir(path))
	in := "" // the plugin's folder when dir is one of its manifest folders
	switch sub, ok := manifestDir(filepath.Base(dir)); {
	case filepath.Base(dir) == "plugin" && filepath.Base(up) == ".github":
		in = filepath.Dir(up)
	case filepath.Base(dir) == "plugins" && filepath.Base(up) == ".agents":
		return "", filepath.Base(path) == "marketplace.json"
	case ok && sub == filepath.Base(dir):
		in = up
	}
	switch filepath.Base(path) {
	case PluginManifest:
		return cmp.Or(in, dir), false
	case "marketplace.json":
		return "", in != ""
	}
	return "", false
}

// manifestsIn returns the plugin manifests in a folder, given its listing,
// sorted.
func manifestsIn(dir string, ents []fs.DirEntry) []string {
	if _, ok := manifestDir(filepath.Base(dir)); ok || filepath.Base(dir) == "plugin" && filepath.Base(filepath.Dir(dir)) == ".github" {
		return nil // a manifest's own folder: its plugin.json is its plugin's
	}
	out := inManifestDirs(dir, ents, PluginManifest)
	if e := named(ents, PluginManifest); e != nil && !e.IsDir() {
		out = append(out, filepath.Join(dir, PluginManifest))
	}
	sort.Strings(out)
	return out
}

// inManifestDirs returns the files called name in the manifest folders
// (manifestDir) of a folder, given its listing; Codex's .agents/plugins
// holds a marketplace, never a plugin's manifest.
func inManifestDirs(dir string, ents []fs.DirEntry, name string) []string {
	var out []string
	for _, e := range ents {
		if sub, ok := manifestDir(e.Name()); ok && e.IsDir() && (name != PluginManifest || sub != ".agents/plugins") {
			if p := filepath.Join(dir, filepath.FromSlash(sub), name); fileExists(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// variantNames are the clients a per-platform variant folder is named
// after (claude/skills/pdf, codex/skills/pdf).
var variantNames = map[string]bool{
	"claude": true, "claude-code": true, "codex": true, "cursor": true, "gemini": true, "gemini-cli": true,
	"copilot": true, "github-copilot": true, "windsurf": true, "opencode": true, "goose": true, "amp": true,
	"kiro": true, "cline": true, "roo": true, "roo-code": true, "openclaw": true, "grok": true, "qwen": true,
	"qwen-code": true, "trae": true, "augment": true, "junie": true, "droid": true, "antigravity": true,
}

// ClientCopy returns, for a skill in a client's own folder of a plugin,
// that folder and the plugin whose skills it holds a copy of: a variant
// folder (plugin/codex holding skills/), or a folder outside skills/ that
// a client's own manifest declares (.codex-plugin/plugin.json's "skills":
// "./codex-skills/"), but not Claude Code's, which loads skills/ beside
// the folders its manifest adds; "" for any other skill.
func (s *Skill) ClientCopy() (folder, plugin string) {
	switch {
	case s.Plugin == "":
	case variantNames[strings.ToLower(filepath.Base(s.Plugin))]:
		if c := s.Carrier(); c != s.Plugin {
			return s.Plugin, c
		}
		return s.Plugin, filepath.Dir(s.Plugin)
	default:
		manifests := filepath.Dir(s.Declared)
		client, ok := strings.CutSuffix(strings.TrimPrefix(filepath.Base(manifests), "."), "-plugin")
		if ok && variantNames[client] && !strings.HasPrefix(client, "claude") &&
			filepath.Dir(manifests) == s.Plugin && !holds(filepath.Join(s.Plugin, "skills"), s.Dir) {
			return filepath.Dir(s.Dir), s.Plugin
		}
	}
	return "", ""
}

// Carrier is the folder of the plugin whose archives carry the skill: its
// Plugin, but for a client's variant folder with no manifest of its own
// the plugin holding it, also further up (kaiohenricunha/dotbabel's
// plugins/dotbabel/templates/claude); "" outside plugins.
func (s *Skill) Carrier() string {
	if !variantNames[strings.ToLower(filepath.Base(s.Plugin))] {
		return s.Plugin
	}
	if ents, err := os.ReadDir(s.Plugin); err == nil && len(manifestsIn(s.Plugin, ents)) > 0 {
		return s.Plugin
	}
	return cmp.Or((*Finder)(nil).pluginAbove(s.Plugin), s.Plugin)
}

// isVariant reports whether a folder, given its listing, is a per-platform
// variant folder: named after a client, and holding skills/ as a plugin does.
func isVariant(dir string, ents []fs.DirEntry) bool {
	e := named(ents, "skills")
	return variantNames[strings.ToLower(filepath.Base(dir))] && e != nil && e.IsDir()
}

// isPluginRoot reports whether a folder is a plugin's root.
func (f *Finder) isPluginRoot(dir string) bool {
	if f != nil {
		if is, ok := f.pluginRoots[dir]; ok {
			return is
		}
	}
	ents, err := os.ReadDir(dir)
	is := err == nil && (len(manifestsIn(dir, ents)) > 0 || isVariant(dir, ents))
	if f != nil {
		f.pluginRoots[dir] = is
	}
	return is
}

// IsRepoRoot reports whether dir is the root of a git work tree (.git is a
// folder there, or a file in a linked work tree or submodule). A plugin is
// never looked for above it: what lies beyond is not the repository's.
func IsRepoRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// InWorkTree reports whether dir is in a git work tree: it or a folder
// above it holds .git.
func InWorkTree(dir string) bool {
	_, ok := WorkTree(dir)
	return ok
}

// WorkTree returns the root of the git work tree holding dir.
func WorkTree(dir string) (string, bool) {
	for d := dir; ; {
		if IsRepoRoot(d) {
			return d, true
		}
		parent, ok := up(d)
		if !ok {
			return "", false
		}
		d = parent
	}
}

// GitDir returns the git directory of the work tree holding dir, "" when
// it is in none: its .git folder, or the folder a .git file names (a
// linked work tree, a submodule), found without running git.
func GitDir(dir string) string {
	root, ok := WorkTree(dir)
	if !ok {
		return ""
	}
	dotgit := filepath.Join(root, ".git")
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return dotgit // a folder (or unreadable: git would fail too)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if gitdir = strings.TrimSpace(gitdir); !ok || gitdir == "" {
		return ""
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(root, gitdir)
	}
	return gitdir
}

// PluginOf returns the nearest folder at or above dir that is a plugin's
// root; "" when there is none. The answer is relative when dir is, as
// Enclosing's.
func (f *Finder) PluginOf(dir string) string {
	f.ready()
	if f.isPluginRoot(dir) {
		return dir
	}
	return f.pluginAbove(dir)
}

// pluginAbove returns the plugin holding the folder dir, not counting dir
// itself. It looks no further up than the root of the git work tree
// holding dir; outside any work tree, no further up than the working
// folder, when that holds dir and is not the home folder (a tree unpacked
// from an archive is read alike from its top and from a skill's file),
// and else not above dir at all: a stray plugin.json in a home or
// temporary folder must not make every skill below it one plugin's.
func (f *Finder) pluginAbove(dir string) string {
	found := ""
	d := dir
	abs, _ := filepath.Abs(dir)
	cwd, _ := os.Getwd()
	if home, _ := os.UserHomeDir(); cwd == home {
		cwd = "" // run from home, a stray plugin.json there is still no bound
	}
	atCwd, foundAtCwd := "", "" // d and found where d was the working folder
	for !IsRepoRoot(d) {
		if abs == cwd {
			atCwd, foundAtCwd = d, found
		}
		parent, ok := up(d)
		if !ok {
			if atCwd == "" {
				return "" // no work tree holds dir, nor the working folder
			}
			d, found = atCwd, foundAtCwd
			break
		}
		if found == "" && f.isPluginRoot(parent) {
			found = parent
		}
		d, abs = parent, filepath.Dir(abs)
	}
	// A marketplace at the repository's root names plugins that may have
	// no manifest ("strict": false): the nearest of those holding dir, if
	// nearer than the manifest's, in the form of dir. They hold dir one
	// inside another, so the order they are met in makes no odds.
	for p := range f.MarketPlugins(d) {
		if !holds(dir, p) && holds(p, dir) && (found == "" || holds(found, p)) {
			found = p
			abs, _ := filepath.Abs(p)
			if cwd, err := os.Getwd(); err == nil && !filepath.IsAbs(dir) {
				if r, err := filepath.Rel(cwd, abs); err == nil {
					found = r
				}
			}
		}
	}
	return found
}

// MarketPlugins are the plugin folders the marketplaces at the folder d
// name, joined onto d, read once a Finder.
func (f *Finder) MarketPlugins(d string) map[string]bool {
	f.ready()
	if f != nil {
		if ps, ok := f.markets[d]; ok {
			return ps
		}
	}
	w := newWalker(d, d)
	for _, m := range Marketplaces(d) {
		w.readMarketplace(m)
	}
	if f != nil {
		f.markets[d] = w.plugins
	}
	return w.plugins
}

// EntryNaming finds, in the marketplace files, the first entry whose
// source is the folder dir (the same folder on disk), and its file; read
// reads a file (smallfile.Read, or a run's memo of what it read).
func EntryNaming(files []string, read func(string) ([]byte, error), dir string) (string, MarketplaceSource, bool) {
	at, err := os.Stat(dir)
	for _, file := range files {
		data, rerr := read(file)
		if err != nil || rerr != nil {
			continue
		}
		srcs, _, _ := MarketplaceSources(data)
		for _, s := range srcs {
			if d, ok := s.Dir(MarketplaceRoot(file)); ok {
				if info, err := os.Stat(d); err == nil && os.SameFile(info, at) {
					return file, s, true
				}
			}
		}
	}
	return "", MarketplaceSource{}, false
}

// EntryAbove is the entry of a marketplace in a folder above dir, the
// nearest, that names dir as its plugin's folder: a plugin built from its
// own folder (skillpack build plugins/b) has none in the walk. It climbs
// to the root of the git work tree holding dir, or of the file system
// when dir is in none (a tree from an archive).
func EntryAbove(dir string) (PluginEntry, bool) {
	top, inTree := WorkTree(dir)
	for d := dir; d != top || !inTree; {
		parent, ok := up(d)
		if !ok {
			break
		}
		d = parent
		if _, e, ok := EntryNaming(Marketplaces(d), smallfile.Read, dir); ok {
			return PluginEntry{Name: e.Name, Description: e.Description, Version: e.Version}, true
		}
	}
	return PluginEntry{}, false
}

// holds reports whether the folder dir is at or above p.
func holds(dir, p string) bool {
	_, ok := RelBelow(dir, p)
	return ok
}

// RelBelow is p relative to base, both made absolute, and whether p is
// base ("." is local) or below it.
func RelBelow(base, p string) (string, bool) {
	b, err1 := filepath.Abs(base)
	a, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(b, a)
	return rel, err == nil && filepath.IsLocal(rel)
}

// Declaring skills: a marketplace names its plugins and, for each, the
// skills it has; a plugin's manifest may name its skill folders in
// "skills"; and every plugin has the skills below its skills/ folder.
// This is how the Vercel skills CLI reads a repository (getPluginSkillPaths,
// 1.7.4): metadata.pluginRoot and plugins[].source (a path) of
// .claude-plugin/marketplace.json, plugins[].skills relative to the
// plugin's folder, and plugin.json's skills. The other clients'
// marketplaces and manifests have the same fields, and are read alike.

// declared is a folder a manifest declares skills in: a skill's folder, or
// a folder of skills.
type declared struct {
	dir    string // in the walk's form
	by     string // the manifest, in the form reported
	plugin string // the plugin's folder, in the walk's form
}

// marketplaceFile is what a marketplace says about where its plugins are.
type marketplaceFile struct {
	Name  string `json:"name"`
	Owner struct {
		Name string `json:"name"`
	} `json:"owner"`
	Description string `json:"description"`
	Metadata    struct {
		PluginRoot  string `json:"pluginRoot"`
		Description string `json:"description"`
	} `json:"metadata"`
	PluginRoot string `json:"pluginRoot"` // Codex spells it at the top
	Plugins    []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Version     string          `json:"version"`
		Source      json.RawMessage `json:"source"`
		Skills      json.RawMessage `json:"skills"`
		Commands    json.RawMessage `json:"commands"`
		Agents      json.RawMessage `json:"agents"`
		Hooks       json.RawMessage `json:"hooks"`
		MCPServers  json.RawMessage `json:"mcpServers"`
		LSPServers  json.RawMessage `json:"lspServers"`
	} `json:"plugins"`
}

// MarketplaceSource is a plugin entry of a marketplace whose source is a
// path (a string, or Codex's {"source": "local", "path": ...}): the only
// sources a repository can be checked against offline.
type MarketplaceSource struct {
	Index  int    // the entry's index in plugins
	Name   string // the entry's name
	Source string // the path as written; "" for an entry without a source, the marketplace's own root
	Object bool   // the path is at source/path (Codex's form), not source
	// Path is where the entry says its plugin is, with "/", relative to
	// the marketplace's root (MarketplaceRoot), not cleaned of a leading
	// "/" or "..": a "./" source as written, as Claude Code resolves it; a
	// bare one ("pdf") joined onto the marketplace's pluginRoot.
	Path string
	// Under is a "./" source joined onto pluginRoot, when there is one:
	// where the Vercel skills CLI looks for it, and the folder discovery
	// takes when Path names none.
	Under string
	// Skills are the skills paths the entry declares, relative to its
	// plugin's folder (nil for none).
	Skills []string
	// Description and Version are the entry's, which the plugin's
	// manifest takes precedence over (PluginEntry).
	Description, Version string
	// Parts are the entry's fields of commands, agents, hooks, mcpServers
	// and lspServers that it has.
	Parts []string
}

// sources are the marketplace's entries whose source is a path.
func (m *marketplaceFile) sources() []MarketplaceSource {
	base := cmp.Or(m.Metadata.PluginRoot, m.PluginRoot)
	var out []MarketplaceSource
	for i, p := range m.Plugins {
		src, ok := sourcePath(p.Source)
		if !ok {
			continue
		}
		e := MarketplaceSource{Index: i, Name: p.Name, Source: src, Object: len(p.Source) > 0 && p.Source[0] == '{',
			Path: filepath.ToSlash(src), Skills: skillPaths(p.Skills), Description: p.Description, Version: p.Version}
		for _, f := range []struct {
			name string
			raw  json.RawMessage
		}{{"commands", p.Commands}, {"agents", p.Agents}, {"hooks", p.Hooks}, {"mcpServers", p.MCPServers}, {"lspServers", p.LSPServers}} {
			if len(f.raw) > 0 && strings.ContainsRune(`"[{`, rune(f.raw[0])) { // not a count (vanman2024's "commands": 8)
				e.Parts = append(e.Parts, f.name)
			}
		}
		if under := path.Join(filepath.ToSlash(base), e.Path); base != "" && relative(e.Path) {
			e.Under = under
		} else if base != "" {
			e.Path = under
		}
		out = append(out, e)
	}
	return out
}

// Dir is the folder the entry names, given its marketplace's root
// (MarketplaceRoot): Path, or Under where only that names a folder; false
// when Path leads out of root.
func (e MarketplaceSource) Dir(root string) (string, bool) {
	w := walker{walk: root}
	dir, ok := w.inside(root, e.Path)
	if under, in := w.inside(root, e.Under); ok && e.Under != "" && in && !IsDir(dir) && IsDir(under) {
		return under, true
	}
	return dir, ok
}

// relative reports whether a source is written as a path from the
// marketplace's root: "./x", "." or none.
func relative(src string) bool {
	return src == "" || src == "." || strings.HasPrefix(src, "./")
}

// MarketplaceSources reads a marketplace file's bytes as discovery reads
// them, and returns its entries whose source is a path, and those whose
// source is none (a github, git or URL source): plugins that are no
// folder of the repository. Of those, Source is set only for a string
// (remoteSource), which the clients read as a path.
func MarketplaceSources(data []byte) (srcs []MarketplaceSource, elsewhere []MarketplaceSource, err error) {
	var m marketplaceFile
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, err
	}
	for i, p := range m.Plugins {
		if _, ok := sourcePath(p.Source); !ok {
			e := MarketplaceSource{Index: i, Name: p.Name}
			_ = json.Unmarshal(p.Source, &e.Source) // an object leaves it ""
			elsewhere = append(elsewhere, e)
		}
	}
	return m.sources(), elsewhere, nil
}

// remoteSource reports whether a string source is written as a repository or
// URL ("github:acme/pdf", "https://...", "git@host:x.git"), which no
// client reads from a string: to them a string source is a path.
func remoteSource(src string) bool {
	scheme, _, ok := strings.Cut(src, ":")
	return ok && len(scheme) > 1 && !strings.ContainsAny(scheme, `/\.`) || strings.HasPrefix(src, "git@")
}

// MarketplaceRoot is the folder whose marketplace the file at path is
// (Marketplaces), which its sources are relative to: the folder holding
// .claude-plugin/, .github/plugin/ or .agents/plugins/.
func MarketplaceRoot(file string) string {
	dir := filepath.Dir(file)
	if b, up := filepath.Base(dir), filepath.Base(filepath.Dir(dir)); b == "plugin" && up == ".github" || b == "plugins" && up == ".agents" {
		return filepath.Dir(filepath.Dir(dir))
	}
	return filepath.Dir(dir)
}

// Marketplaces returns the marketplace files at a folder (in the clients'
// folders: .claude-plugin/marketplace.json and the like), sorted.
func Marketplaces(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := inManifestDirs(dir, ents, "marketplace.json")
	sort.Strings(out)
	return out
}

// MarketplaceOf is the name, the owner's name and the description
// (Claude Code's metadata.description, else a top-level one) of the
// marketplace at a folder: each the first its marketplace files
// (Marketplaces) that read give; "" for none. Codex's file, first by
// name, has no owner or description: those come from Claude Code's.
func MarketplaceOf(dir string) (name, owner, description string) {
	for _, f := range Marketplaces(dir) {
		var m marketplaceFile
		if data, err := smallfile.Read(f); err == nil && json.Unmarshal(data, &m) == nil {
			name, owner = cmp.Or(name, m.Name), cmp.Or(owner, m.Owner.Name)
			description = cmp.Or(description, m.Metadata.Description, m.Description)
		}
	}
	return name, owner, description
}

// readMarketplace records the plugin folders a marketplace at root names,
// and the folders of skills it declares for each.
func (w *walker) readMarketplace(path string) {
	var m marketplaceFile
	if !w.readJSON(path, &m) {
		return
	}
	top := filepath.Clean(w.walk)
	for _, s := range m.sources() {
		dir, ok := s.Dir(top)
		if !ok {
			w.unread = append(w.unread, fmt.Errorf("%s: plugins[%d] (%s): its source %s is outside %s; it is not built", w.reported(path), s.Index, s.Name, s.Source, w.root))
			continue
		}
		w.plugins[dir] = true
		at := w.reported(dir)
		prev, seen := w.entries[at]
		of := prev.Of
		if seen && of == nil {
			of = []string{prev.Name}
		}
		switch {
		case !seen:
			w.entries[at] = PluginEntry{Name: s.Name, Description: s.Description, Version: s.Version, Skills: s.Skills}
		case !slices.Contains(of, s.Name): // else one plugin, in several clients' marketplaces
			// A folder several entries name (anthropics/skills: each a
			// list of the repository's skills) is none of them; the
			// marketplace's own folder is named after the marketplace,
			// not the checkout.
			e := PluginEntry{Of: append(of, s.Name), Skills: prev.Skills, Differ: prev.Differ || !slices.Equal(prev.Skills, s.Skills)}
			if dir == top {
				e.Name = m.Name
			}
			w.entries[at] = e
		}
		// Claude Code 2.1.332 loads, for an entry naming the
		// marketplace's own folder, only the skills it lists, not that
		// folder's skills/ too as for a plugin elsewhere or a manifest's
		// list: each entry of anthropics/skills is the skills it lists.
		listed := dir == top && len(s.Skills) > 0
		w.listsTop = w.listsTop || listed
		w.declare(path, dir, s.Skills, !listed)
	}
}

// PluginEntry is what a marketplace's entry says of the plugin it names,
// which a client merges with the plugin's manifest, if any.
type PluginEntry struct {
	Name, Description, Version string
	// Of are the names of the entries that name the folder, when several
	// do: then Name is the marketplace's for its own folder, else "".
	Of []string
	// Differ tells that entries of Of declare other skills: other
	// plugins (yigitkonur's 13 bundles of "./"), not one plugin's aliases.
	Differ bool
	// Skills are the first entry's skills paths, relative to the plugin's
	// folder: what a strict:false entry declares in the manifest's stead.
	Skills []string
}

// sourcePath is the folder a plugin's source names: a string, or Codex's
// {"source": "local", "path": ...}; false for any other source, null
// included. No source at all is the marketplace's own folder ("" is
// returned), as the Vercel skills CLI reads it; Claude Code refuses it.
func sourcePath(raw json.RawMessage) (string, bool) {
	switch string(raw) {
	case "":
		return "", true
	case "null":
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, !remoteSource(s)
	}
	var o struct {
		Source string `json:"source"`
		Path   string `json:"path"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Path != "" && (o.Source == "" || o.Source == "local") {
		return o.Path, true
	}
	return "", false
}

// pluginManifest is what a plugin's plugin.json says of its skills: a
// folder or a list of folders (Agent Plugins 1.0, Claude Code).
type pluginManifest struct {
	Skills json.RawMessage `json:"skills"`
}

// readManifest records what a plugin's manifest declares: its skills/
// folder, and the folders its skills field names.
func (w *walker) readManifest(path, plugin string) {
	var m pluginManifest
	if w.readJSON(path, &m) {
		w.declare(path, plugin, skillPaths(m.Skills), !w.listsTop || plugin != filepath.Clean(w.walk))
	}
}

// declare records the folders of skills of the plugin in dir: its skills/
// folder when dflt, and each path of skills (a string or a list of them,
// relative to the plugin's folder).
func (w *walker) declare(by, plugin string, skills []string, dflt bool) {
	by = w.reported(by)
	n := len(w.decl)
	if dflt {
		w.decl = append(w.decl, declared{dir: filepath.Join(plugin, "skills"), by: by, plugin: plugin})
	}
	defer func() {
		// Folders of skills the walk looks for broken links in (brokenIn).
		if w.declDirs == nil {
			w.declDirs = map[string]bool{}
		}
		for _, d := range w.decl[n:] {
			w.declDirs[filepath.Clean(d.dir)] = true
		}
	}()
	for _, p := range skills {
		if dir, ok := w.inside(plugin, p); ok && p != "" {
			w.decl = append(w.decl, declared{dir: dir, by: by, plugin: plugin})
		}
	}
}

// skillPaths are the paths a manifest's or a marketplace entry's skills
// field gives: a string or the strings of a list, as plugin.Read reads
// them (lint reports the rest); nil for none. A path to a SKILL.md names
// its folder, as Claude Code reads it.
func skillPaths(skills json.RawMessage) []string {
	var v any
	_ = json.Unmarshal(skills, &v)
	var paths []string
	switch v := v.(type) {
	case string:
		paths = []string{v}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				paths = append(paths, s)
			}
		}
	}
	for i, p := range paths {
		if path.Base(p) == FileName {
			paths[i] = path.Dir(p)
		}
	}
	return paths
}

// inside joins a manifest's relative path onto a folder of the walk, and
// reports whether the result stays inside the folder walked.
func (w *walker) inside(dir, rel string) (string, bool) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	return p, !filepath.IsAbs(rel) && !strings.HasPrefix(rel, "/") && holds(w.walk, p)
}

// readJSON reads a manifest. One that cannot be read or decoded declares
// nothing, without a word here: lint's manifest rules, which lint and the
// build both run, report it at its line, and a second note said it again
// in another parser's words.
func (w *walker) readJSON(path string, v any) bool {
	data, err := smallfile.Read(path)
	return err == nil && json.Unmarshal(data, v) == nil
}

// settleDeclared marks each skill found with the manifest that declares it,
// and puts a skill a plugin declares outside its own folder in that plugin.
func (w *walker) settleDeclared(out []*Skill) {
	if len(w.decl) == 0 {
		return
	}
	byDir := make(map[string]declared, len(w.decl))
	deep := map[string]bool{} // folders Codex's manifest declares: it loads every SKILL.md below one
	for _, d := range slices.Backward(w.decl) {
		byDir[d.dir] = d // the first manifest read declares it
		deep[d.dir] = deep[d.dir] || filepath.Base(filepath.Dir(d.by)) == ".codex-plugin"
	}
	top := filepath.Clean(w.walk)
	skills := make(map[string]bool, len(out))
	for _, f := range w.found[:len(out)] {
		skills[filepath.Clean(f.walked)] = true
	}
	for i, s := range out {
		// A skill is at most MaxDepth below the folder walked.
		dir := filepath.Clean(w.found[i].walked)
		for above := range MaxDepth + 1 {
			if d, ok := byDir[dir]; ok {
				s.Declared, s.Plugin = d.by, cmp.Or(s.Plugin, w.reported(d.plugin))
				// Claude Code 2.1.332 loads a declared folder holding a
				// SKILL.md as that one skill, its folders as its files;
				// else each folder just below it holding one. Codex walks
				// the folder to any depth, a skill's folders too
				// (codex-rs's skills loader; hashgraph-online's
				// skills/roles/architect).
				s.Loaded = above == 0 || above == 1 && !skills[dir] || deep[dir]
				break
			}
			if dir == top {
				break
			}
			dir = filepath.Dir(dir)
		}
	}
	// A plugin a marketplace names whose folder is a skill holding no
	// other skill found is that skill, as Claude Code 2.1.332 loads a
	// plugin of no skills field and no skills/ folder (PrunaAI/pruna-skills).
	sep := string(filepath.Separator)
	walked := slices.Sorted(maps.Keys(skills))
	for i, s := range out {
		dir := filepath.Clean(w.found[i].walked)
		if s.Declared != "" || !w.plugins[dir] {
			continue
		}
		if j, _ := slices.BinarySearch(walked, dir+sep); j < len(walked) && strings.HasPrefix(walked[j], dir+sep) {
			continue // its skills/ or skills field's skills are the plugin's
		}
		// Every plugin read declares its skills/ (declare): the first
		// manifest that does names the plugin.
		if d, ok := byDir[filepath.Join(dir, "skills")]; ok {
			s.Declared, s.Loaded, s.Plugin = d.by, true, cmp.Or(s.Plugin, w.reported(d.plugin))
		}
	}
}
