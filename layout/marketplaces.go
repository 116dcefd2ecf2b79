package layout

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/jsonenc"
)

// The marketplace files a build writes when asked (Options.Marketplace):
// each client's catalog of the plugins built, where it looks in a folder
// or repository. None has a field for an archive (docs/plugins.md), so
// Claude Code's lists the served skills, and the others each plugin's
// folder (PluginDir), served only then.
const (
	ClaudeMarketplace  = ".claude-plugin/marketplace.json"
	CodexMarketplace   = ".agents/plugins/marketplace.json"
	CursorMarketplace  = ".cursor-plugin/marketplace.json"
	CopilotMarketplace = ".github/plugin/marketplace.json"
)

// claudeReserved are the marketplace names Claude Code (2.1.332) keeps
// for Anthropic's own: it adds a marketplace of one of these names only
// from a GitHub repository of the anthropics organization.
var claudeReserved = []string{"agent-skills", "anthropic-agent-skills", "anthropic-marketplace", "anthropic-plugin-directory",
	"anthropic-plugins", "claude-code-marketplace", "claude-code-plugins", "claude-community", "claude-for-financial-services",
	"claude-for-legal", "claude-plugin-directory", "claude-plugins-community", "claude-plugins-official", "claude-tag-plugins",
	"financial-services-plugins", "first-party-plugins", "knowledge-work-plugins", "life-sciences"}

// claudeOfficial is what Claude Code refuses as a name impersonating an
// official marketplace (its marketplace schema's check).
var claudeOfficial = regexp.MustCompile(`(?i)official[^a-z0-9]*(anthropic|claude)|(anthropic|claude)[^a-z0-9]*official|^(anthropic|claude)[^a-z0-9]*(marketplace|plugins|directory|directories)`)

// ClaudeRefuses says why Claude Code refuses to add a marketplace named
// name from a folder, a URL or another repository than Anthropic's; ""
// when it takes it.
func ClaudeRefuses(name string) string {
	switch {
	case slices.Contains(claudeReserved, strings.ToLower(name)):
		return "a name Claude Code keeps for Anthropic's own marketplaces, which it takes only from a GitHub repository of the anthropics organization"
	case claudeOfficial.MatchString(name):
		return "a name Claude Code refuses as one that impersonates an official Anthropic marketplace"
	}
	return ""
}

// ClaudeRefusesPlugin reports whether `claude plugin validate` (2.1.332)
// fails a marketplace that lists a plugin named name as passing for one of
// Anthropic's own: its words joined start with claude, anthropic(s) or
// cc-plugin, or are one of those or claude-code, claude-mods, or it puts
// official beside claude or anthropic (its marketplace schema's check).
// Installing it still works.
func ClaudeRefusesPlugin(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
	lead := ""
	for i, w := range words {
		if lead += w; i < len(words)-1 && slices.Contains([]string{"claude", "anthropic", "anthropics", "ccplugin"}, lead) {
			return true
		}
	}
	return slices.Contains([]string{"claude", "anthropic", "anthropics", "claudecode", "claudemods"}, lead) || claudeOfficial.MatchString(name)
}

// Listed is the plugins the marketplace file at path lists, of ps.
func (m Marketplace) Listed(path string, ps []Plugin) []Plugin {
	if path == ClaudeMarketplace && m.Claude != nil {
		ps = m.Claude
	}
	return slices.DeleteFunc(slices.Clone(ps), func(p Plugin) bool { ok, _ := Lists(path, p); return !ok })
}

// marketplaces are the marketplace files, in the order Plan writes them.
var marketplaces = []string{ClaudeMarketplace, CodexMarketplace, CursorMarketplace, CopilotMarketplace}

// Marketplace is what the marketplace files are asked for and named by:
// a name (kebab-case) and its owner's, and the files to write.
type Marketplace struct {
	Name, Owner string
	Title       string   // what Codex shows of the marketplace; Name when ""
	Description string   // metadata.description: the repository's marketplace's; "" for none
	Files       []string // the marketplace files to write
	// Claude, when not nil, are the plugins ClaudeMarketplace lists in
	// place of Options.Plugins: the entries of the repository's own Claude
	// Code marketplace (Name, Description, Version and Skills), so that a
	// plugin installs from the bundle by the name it has in the repository.
	Claude []Plugin
	// Codex are the entries of the repository's own Codex marketplace, by
	// plugin name, whose policy and category CodexMarketplace keeps.
	Codex map[string]CodexPlugin
}

// NamesFolders reports whether a marketplace file names plugins by their
// folders, served only then (Plugin.Files): all but Claude Code's.
func NamesFolders(file string) bool { return file != ClaudeMarketplace }

// readBy are the manifests each client looks for in a plugin's folder, as
// its documentation lists them, and for Codex also the Agent Plugins
// plugin.json, which its CLI installs (TestMarketplaceCLIs).
var readBy = map[string][]string{
	CodexMarketplace:   {".codex-plugin/plugin.json", "plugin.json"},
	CursorMarketplace:  {".cursor-plugin/plugin.json", "plugin.json"},
	CopilotMarketplace: {".plugin/plugin.json", "plugin.json", ".github/plugin/plugin.json", ".claude-plugin/plugin.json"},
}

// Lists reports whether the marketplace file lists p, and if not, why:
// one that names folders, a plugin served as a folder with a manifest its
// client reads; Claude Code's, a plugin with skills.
func Lists(file string, p Plugin) (ok bool, why string) {
	if !NamesFolders(file) {
		if len(p.Skills) > 0 {
			return true, ""
		}
		return false, "its entry there is made of the skills the bundle publishes of it, and there are none"
	}
	if p.Files == nil {
		return false, "it is not served as a folder"
	}
	for _, f := range p.Files {
		if slices.Contains(readBy[file], f.Path) {
			return true, ""
		}
	}
	m := readBy[file]
	return false, fmt.Sprintf("its folder holds no manifest the client reads (%s or %s); give it %s",
		strings.Join(m[:len(m)-1], ", "), m[len(m)-1], m[0])
}

// ClaudeMarketplaceDoc is ClaudeMarketplace. Claude Code's plugin sources
// are folders, so each plugin is its served skill folders: "strict": false
// (the entry is the whole plugin definition), its source the skills tree,
// its skills by path. Its archives are in PluginsIndex.
type ClaudeMarketplaceDoc struct {
	Name     string         `json:"name"`
	Owner    Owner          `json:"owner"`
	Metadata *Metadata      `json:"metadata,omitempty"`
	Plugins  []ClaudePlugin `json:"plugins"`
}

// Metadata is what a marketplace file says of itself (Claude Code's,
// Cursor's and Copilot's have it).
type Metadata struct {
	Description string `json:"description"`
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

// CodexMarketplaceDoc is CodexMarketplace (Codex's RawMarketplaceManifest):
// a source's path is relative to the folder holding .agents/.
type CodexMarketplaceDoc struct {
	Name      string `json:"name"`
	Interface struct {
		DisplayName string `json:"displayName"`
	} `json:"interface"`
	Plugins []CodexPlugin `json:"plugins"`
}

// CodexPlugin is one plugin of CodexMarketplaceDoc. Its policy and
// category are the repository's own file's (Marketplace.Codex), else
// Codex's default policy said outright: the build knows no other.
type CodexPlugin struct {
	Name     string          `json:"name"`
	Source   CodexSource     `json:"source"`
	Policy   json.RawMessage `json:"policy"`
	Category string          `json:"category,omitempty"`
}

// CodexSource is where Codex finds a plugin: an object in Codex's own
// marketplaces. A path string (AdaCore's "./plugins/x") is read as a local
// source, and any other value as none, so that one such entry does not
// cost every other its policy and category.
type CodexSource struct {
	Source string `json:"source"`
	Path   string `json:"path"`
}

func (s *CodexSource) UnmarshalJSON(data []byte) error {
	var path string
	if json.Unmarshal(data, &path) == nil {
		*s = CodexSource{Source: "local", Path: path}
		return nil
	}
	type object CodexSource // without this method
	if json.Unmarshal(data, (*object)(s)) != nil {
		*s = CodexSource{}
	}
	return nil
}

// codexPolicy is Codex's default policy.
var codexPolicy = json.RawMessage(`{"installation": "AVAILABLE", "authentication": "ON_INSTALL"}`)

// DecodeCodexMarketplace reads CodexMarketplace.
func DecodeCodexMarketplace(data []byte) (*CodexMarketplaceDoc, error) {
	return decode[CodexMarketplaceDoc](CodexMarketplace, data)
}

// folderMarketplace is CursorMarketplace and CopilotMarketplace, whose
// sources are relative to the folder holding the file's folder. Cursor's
// schema is closed: it has no version.
type folderMarketplace struct {
	Name     string         `json:"name"`
	Owner    Owner          `json:"owner"`
	Metadata *Metadata      `json:"metadata,omitempty"`
	Plugins  []folderPlugin `json:"plugins"`
}

type folderPlugin struct {
	Name        string `json:"name"`
	Source      string `json:"source"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
}

// maxCopilotDescription is the longest plugin description, in characters,
// Copilot's marketplace takes; a longer one is left out.
const maxCopilotDescription = 1024

// marketplaceDoc renders the marketplace file at path for the plugins it
// lists (Lists), sorted.
func marketplaceDoc(path string, ps []Plugin, m Marketplace) func(io.Writer) error {
	ps = m.Listed(path, ps)
	slices.SortFunc(ps, func(a, b Plugin) int { return strings.Compare(a.Name, b.Name) })
	var meta *Metadata
	if m.Description != "" {
		meta = &Metadata{Description: m.Description}
	}
	var doc any
	switch path {
	case ClaudeMarketplace:
		d := ClaudeMarketplaceDoc{Name: m.Name, Owner: Owner{Name: m.Owner}, Metadata: meta, Plugins: []ClaudePlugin{}}
		for _, p := range ps {
			e := ClaudePlugin{Name: p.Name, Description: p.Description, Version: p.Version, Source: "./" + SkillsDir, Skills: []string{}}
			for _, s := range p.Skills {
				e.Skills = append(e.Skills, "./"+s)
			}
			d.Plugins = append(d.Plugins, e)
		}
		doc = d
	case CodexMarketplace:
		d := CodexMarketplaceDoc{Name: m.Name, Plugins: []CodexPlugin{}}
		d.Interface.DisplayName = cmp.Or(m.Title, m.Name)
		for _, p := range ps {
			own := m.Codex[p.Name]
			e := CodexPlugin{Name: p.Name, Policy: own.Policy, Category: own.Category}
			if e.Policy == nil {
				e.Policy = codexPolicy
			}
			e.Source.Source, e.Source.Path = "local", "./"+PluginDir(p.Name)
			d.Plugins = append(d.Plugins, e)
		}
		doc = d
	default:
		d := folderMarketplace{Name: m.Name, Owner: Owner{Name: m.Owner}, Metadata: meta, Plugins: []folderPlugin{}}
		for _, p := range ps {
			e := folderPlugin{Name: p.Name, Source: "./" + PluginDir(p.Name), Description: p.Description}
			if path == CopilotMarketplace {
				e.Version = p.Version
				if utf8.RuneCountInString(e.Description) > maxCopilotDescription {
					e.Description = ""
				}
			}
			d.Plugins = append(d.Plugins, e)
		}
		doc = d
	}
	return func(w io.Writer) error { return jsonenc.Write(w, doc) }
}

// Marketplaces are the marketplace files a build can write, by the name
// build --marketplace and skillpack.yaml give them.
var Marketplaces = map[string]string{"claude": ClaudeMarketplace, "codex": CodexMarketplace,
	"cursor": CursorMarketplace, "copilot": CopilotMarketplace}

// CheckMarketplace says what is wrong with a marketplace's name, for the
// flag and skillpack.yaml alike.
func CheckMarketplace(m string) error {
	if _, ok := Marketplaces[m]; ok {
		return nil
	}
	known := slices.Sorted(maps.Keys(Marketplaces))
	return fmt.Errorf("unknown marketplace %q%s; skillpack writes %s", m, human.DidYouMean(m, known), strings.Join(known, ", "))
}
