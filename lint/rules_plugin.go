package lint

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillpack/skillpack/internal/jsonenc"
	"github.com/skillpack/skillpack/internal/smallfile"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

// pluginRules check plugins: Agent Plugins 1.0 packages and the clients'
// plugin folders, as the build packs them.
var pluginRules = []*Rule{
	{
		ID:       "plugin-manifest-schema",
		Title:    "plugin.json conforms to the Agent Plugins 1.0.0 schema",
		Severity: Error,
		Explain: "An Agent Plugins client validates a plugin's root plugin.json against the 1.0.0 schema before " +
			"it reads anything else, and rejects the whole plugin when the manifest is no JSON object, lacks " +
			"\"$schema\" (exactly " + plugin.ManifestSchema + ") or \"name\", or has a field of the wrong type; " +
			"an unknown top-level field is reported and ignored. The name is 1-64 lowercase letters, digits, " +
			"'-' and '.', starting and ending with a letter or digit, without '--' or '..'. Client-specific " +
			"data (Claude Code's \"skills\", \"commands\", \"mcpServers\") belongs in the client's own manifest " +
			"(.claude-plugin/plugin.json) or under \"extensions\". A plugin.json whose \"$schema\" names no Agent " +
			"Plugins schema (Gemini CLI's, a client's own) is not checked.",
		Bad:      `{"$schema": "` + plugin.ManifestSchema + `", "name": "PDF Tools", "skills": "./skills"}`,
		Good:     `{"$schema": "` + plugin.ManifestSchema + `", "name": "pdf-tools"}`,
		CheckRun: checkManifestSchema,
	},
	{
		ID:       "plugin-manifest",
		Title:    "A client's plugin manifest is a JSON object, and the plugin's name one a bundle can carry",
		Severity: Error,
		Explain: "A client's own manifest (.claude-plugin/plugin.json, .codex-plugin/, .cursor-plugin/, " +
			".github/plugin/) that is not a JSON object, or whose \"name\" is not a string, makes the client " +
			"refuse the plugin. A bundle names the plugin's archives and its marketplace entry by the plugin's " +
			"name (the first manifest's, else its marketplace entry's, else its folder's), so the name must be one a file and a " +
			"URL can carry as it is: 1-64 ASCII letters, digits and " + nameMarks + ", not starting with '.' or '-'. Clients ask for " +
			"less (Claude Code: lowercase words joined by '-'). A plugin with this error is left out of the " +
			"bundle; its skills are not.",
		Bad:      `.claude-plugin/plugin.json: {"name": "acme/pdf tools"}`,
		Good:     `.claude-plugin/plugin.json: {"name": "pdf-tools"}`,
		CheckRun: checkClientManifests,
	},
	{
		ID:       "plugin-mcp-schema",
		Title:    "mcp.json conforms to the Agent Plugins 1.0.0 schema",
		Severity: Error,
		Explain: "A plugin's mcp.json holds \"$schema\" (exactly " + plugin.MCPSchema + ") and " +
			"\"mcpServers\", nothing else; each server is one of three closed forms chosen by \"type\": " +
			"\"stdio\" (command, args, env, cwd), \"streamable-http\" or \"sse\" (url, headers). A client " +
			"disables every server of a document that breaks the top level, and skips a server that breaks " +
			"its form. A cwd starts with ./, ${PLUGIN_ROOT} or ${PLUGIN_DATA}. An mcp.json whose \"$schema\" names no " +
			"Agent Plugins schema is another tool's, and is not checked.",
		Bad:      `{"$schema": "` + plugin.MCPSchema + `", "mcpServers": {"db": {"command": "./bin/db", "url": "https://db.example.com"}}}`,
		Good:     `{"$schema": "` + plugin.MCPSchema + `", "mcpServers": {"db": {"type": "stdio", "command": "./bin/db"}}}`,
		CheckRun: checkMCPSchema,
	},
	{
		ID:       "plugin-mcp-command",
		Title:    "An MCP server's command is one executable inside the plugin",
		Severity: Error,
		Explain: "Agent Plugins 1.0 launches a stdio server's command as one executable token, never through a " +
			"shell: \"npx -y server\" names an executable of that whole name, which does not exist, and a " +
			"shell string would run whatever its text says. Put the executable in \"command\" and each " +
			"argument in \"args\". The command is a bare name found on PATH, or a path inside the plugin " +
			"starting with ./; it and cwd must not lead out of the plugin's folder. --fix splits a command " +
			"of plain words into command and args.",
		Bad:      `"db": {"type": "stdio", "command": "npx -y @acme/db-server"}`,
		Good:     `"db": {"type": "stdio", "command": "npx", "args": ["-y", "@acme/db-server"]}`,
		CheckRun: checkMCPCommand,
	},
	{
		ID:       "plugin-skills",
		Title:    "A plugin's skills are inside its folder, where its manifests say",
		Severity: Warning,
		Explain: "A plugin's skills are the folders just below its skills/ folder that hold SKILL.md, and the " +
			"folders a client's manifest names in \"skills\" (Claude Code, Codex, Cursor). A path that names " +
			"nothing, a skills/ that holds no skill (when no manifest names the skills elsewhere, such as " +
			"skills/<category>/<name>) or is no folder, and a path that leads out of the plugin's folder " +
			"(by .. or an absolute path) give the clients no skill: they skip it and load the rest. A skill " +
			"linked from outside the folder is followed by some clients as they copy the plugin and not by " +
			"others, and the plugin's archives leave it out. Move the skill into the plugin, or correct the path.",
		Bad:      `.claude-plugin/plugin.json: {"name": "pdf", "skills": "../shared/skills"}`,
		Good:     `.claude-plugin/plugin.json: {"name": "pdf", "skills": "./skills"}, with skills/fill/SKILL.md`,
		CheckRun: checkPluginSkills,
	},
	{
		ID:       "plugin-name-duplicate",
		Title:    "Plugin names are unique",
		Severity: Error,
		Explain: "A marketplace installs a plugin by its name, and a bundle publishes each plugin's archives " +
			"under it, so two plugins of one name would replace each other. Rename one of them in its " +
			"manifest (a plugin without a name is named after its folder).",
		Bad:      "a/plugin.json and b/plugin.json, both \"name\": \"pdf-tools\"",
		Good:     "a/plugin.json \"name\": \"pdf-tools\" and b/plugin.json \"name\": \"pdf-forms\"",
		CheckRun: checkPluginNames,
	},
	{
		ID:       "marketplace-manifest",
		Title:    "A marketplace file is a JSON object",
		Severity: Error,
		Explain: "A marketplace file (.claude-plugin/marketplace.json, .agents/plugins/marketplace.json, " +
			".github/plugin/marketplace.json) that is not valid JSON, or not an object, or whose plugins are " +
			"no list, owner no object, or names, descriptions or versions no strings (a version of 1, " +
			"null), is refused by the client that adds the marketplace, and with it every plugin it " +
			"lists; skillpack cannot tell what it declares either. Mend the JSON at the place the finding names.",
		Bad:      `{"name": "acme", "plugins": [{"name": "pdf", "source": "./pdf"}`,
		Good:     `{"name": "acme", "plugins": [{"name": "pdf", "source": "./pdf"}]}`,
		CheckRun: checkMarketplaceJSON,
	},
	{
		ID:       "marketplace-plugin-duplicate",
		Title:    "A marketplace names each plugin once",
		Severity: Warning,
		Explain: "A client installs a marketplace's plugin by its name (claude plugin install NAME@MARKETPLACE), " +
			"so a second entry of one name is never installed, or makes the client refuse the whole " +
			"marketplace. Remove the second entry, or rename the plugin it stands for. (The marketplace a " +
			"build writes lists each plugin it built once; this is about the repository's own.)",
		Bad:      `{"name": "acme", "plugins": [{"name": "pdf", "source": "./pdf"}, {"name": "pdf", "source": "./pdf2"}]}`,
		Good:     `{"name": "acme", "plugins": [{"name": "pdf", "source": "./pdf"}, {"name": "pdf-forms", "source": "./pdf2"}]}`,
		CheckRun: checkMarketplaceNames,
	},
	{
		ID:       "marketplace-plugin-source",
		Title:    "A marketplace's relative plugin source is a folder inside the marketplace's root, and its skills paths name something",
		Severity: Warning,
		Explain: "A plugin entry's source may be a path (\"./plugins/pdf\", or Codex's {\"source\": \"local\", \"path\": ...}), " +
			"relative to the marketplace's root, the folder holding .claude-plugin/ (.agents/plugins/, .github/plugin/), " +
			"a bare one (\"pdf\") after metadata.pluginRoot; Claude Code and Codex do not put pluginRoot before a path " +
			"starting with ./ (Copilot CLI does). A path that names no folder there (a plugin moved or renamed, the entry left " +
			"behind) fails when the plugin is installed (Claude Code: \"Source path does not exist\"), and a path that " +
			"leads out of the root (by .. or an absolute path) is refused by the clients (claude plugin validate: " +
			"\"Path contains ..\") and left out of the build; the clients install the marketplace's other plugins. " +
			"Correct the path, or remove the entry. An entry's skills paths, relative to the plugin's folder, must " +
			"name a skill's folder or a folder of them there too: a client skips one that names nothing, or no skill. Only paths are checked: a github, " +
			"git or URL source is not fetched. A repository or URL written as a string (\"github:acme/pdf\") is a " +
			"path to the clients: write it as an object ({\"source\": \"github\", \"repo\": \"acme/pdf\"}). " +
			"An entry with no source, or a source neither a string nor an object (a number, null, a list), Claude Code " +
			"fails to install (\"This plugin's marketplace entry is invalid\").",
		Bad:      `{"name": "acme", "plugins": [{"name": "pdf", "source": "./plugins/pdf-old"}, {"name": "x", "source": "../.."}]}`,
		Good:     `{"name": "acme", "plugins": [{"name": "pdf", "source": "./plugins/pdf"}, {"name": "x", "source": {"source": "github", "repo": "acme/x"}}]}`,
		CheckRun: checkMarketplaceSources,
	},
}

// rootReader names the client that reads the marketplace file and takes a
// "./" source from the marketplace's root even where pluginRoot is set;
// "" for the others (Copilot CLI's file: it looks under pluginRoot).
func rootReader(file string) string {
	switch f := filepath.ToSlash(file); {
	case strings.HasSuffix("/"+f, "/"+layout.CopilotMarketplace):
		return ""
	case strings.HasSuffix("/"+f, "/"+layout.CodexMarketplace):
		return "Codex"
	case strings.HasSuffix("/"+f, "/"+layout.CursorMarketplace):
		return "Cursor"
	}
	return "Claude Code"
}

// checkMarketplaceSources reports each entry of a marketplace whose
// source is a path that leads out of the marketplace's root or names no
// folder in it, at the path. The marketplace is read as discovery reads
// it (skill.MarketplaceSources); one that cannot be read is the
// discovery's to report.
func checkMarketplaceSources(p *RunPass) {
	for _, file := range p.Marketplaces {
		data, err := p.marketplace(file)
		if err != nil {
			continue
		}
		srcs, elsewhere, err := skill.MarketplaceSources(data)
		if err != nil {
			continue
		}
		reportRemote(p, file, data, elsewhere)
		span := plugin.Spans(data)
		bad := map[int]bool{} // entries whose source is of no kind a client reads
		root := skill.MarketplaceRoot(file)
		// The root, as the user knows it: the folder holding .claude-plugin/.
		holding := "the folder holding "
		if r := p.Rel(root); r != "." {
			holding = r + ", " + holding
		}
		if rel, err := filepath.Rel(root, filepath.Dir(file)); err == nil {
			holding += filepath.ToSlash(rel) + "/"
		}
		for _, s := range slices.Concat(srcs, elsewhere) {
			ptr := fmt.Sprintf("/plugins/%d/source", s.Index)
			start, _, ok := span(ptr)
			if ok && strings.ContainsRune(`"{`, rune(data[start])) {
				continue
			}
			what := fmt.Sprintf("plugins[%d] (%s) has no source", s.Index, s.Name)
			if ok {
				what = fmt.Sprintf("plugins[%d] (%s): source is %s, where a path or an object belongs", s.Index, s.Name, kindOf(data[start]))
			} else {
				start, _, _ = span(fmt.Sprintf("/plugins/%d", s.Index))
			}
			line, col := jsonenc.LineCol(data, start)
			p.Reportf(file, line, col, fmt.Sprintf(`give it a path from the marketplace's root ("./plugins/%s"), or a github or URL source as an object`, cmp.Or(s.Name, "NAME")),
				"%s: Claude Code fails to install the plugin (\"This plugin's marketplace entry is invalid\")", what)
			bad[s.Index] = true
		}
		for _, s := range srcs {
			if bad[s.Index] {
				continue
			}
			ptr := fmt.Sprintf("/plugins/%d/source", s.Index)
			if s.Object {
				ptr += "/path"
			}
			start, _, _ := span(ptr)
			line, col := jsonenc.LineCol(data, start)
			where := fmt.Sprintf("plugins[%d] (%s): source %q", s.Index, s.Name, s.Source)
			if s.Path != s.Source && s.Path != path.Clean(s.Source) {
				where += fmt.Sprintf(" (%s under pluginRoot)", s.Path)
			}
			dir := filepath.Join(root, filepath.FromSlash(s.Path))
			if s.Path != "" && !filepath.IsLocal(filepath.FromSlash(s.Path)) {
				how := "leads out of"
				if path.IsAbs(s.Path) || filepath.IsAbs(s.Path) {
					how = "is an absolute path, not one relative to"
				}
				p.Reportf(file, line, col, "move the plugin below "+holding+" and name it by a path starting with ./, or give it a github or URL source",
					"%s %s the marketplace's root (%s)", where, how, holding)
				continue
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				what := "does not exist"
				if err == nil {
					what = "is a file"
				}
				if s.Under != "" && filepath.IsLocal(filepath.FromSlash(s.Under)) && skill.IsDir(filepath.Join(root, filepath.FromSlash(s.Under))) {
					// Copilot CLI (1.0.102) takes such a source under pluginRoot,
					// as the Vercel skills CLI does; Claude Code and Codex
					// (0.171.0) do not, nor, by Claude Code's format it follows,
					// Cursor (no command line here to check it).
					if reader := rootReader(file); reader != "" {
						p.Reportf(file, line, col, fmt.Sprintf("write the path from the marketplace's root: \"./%s\"", path.Clean(s.Under)),
							"%s names no folder from the marketplace's root (%s): %s resolves a source starting with ./ there, not under metadata.pluginRoot, and fails to install it",
							where, holding, reader)
					}
				} else {
					p.Reportf(file, line, col, "correct the path (relative to "+holding+"), or remove the entry",
						"%s names no folder: %s %s", where, p.Rel(dir), what)
				}
				continue
			}
			// The entry's skills, relative to its plugin's folder.
			for j, sk := range s.Skills {
				ptr := fmt.Sprintf("/plugins/%d/skills", s.Index)
				if _, _, list := span(ptr + "/0"); list {
					ptr += fmt.Sprintf("/%d", j)
				}
				disk := filepath.Join(dir, filepath.FromSlash(sk))
				_, err := os.Stat(disk)
				if err == nil && skill.HoldsSkill(disk) || !filepath.IsLocal(filepath.FromSlash(sk)) || p.dangling(disk) {
					continue // what leads out is the skills' own rules' (plugin-skills), a link leading nowhere skill-dangling's
				}
				start, _, _ := span(ptr)
				line, col := jsonenc.LineCol(data, start)
				if err == nil {
					// A folder of the repository's build scripts (mkobit/chezmoi-skills' ./scripts).
					p.Reportf(file, line, col, "correct the path to a skill's folder or a folder of them, or remove it",
						"plugins[%d] (%s): skills %q holds no skill: no SKILL.md in it or in a folder just below it", s.Index, s.Name, sk)
					continue
				}
				p.Reportf(file, line, col, "correct the path (relative to the plugin's folder, "+p.Rel(dir)+"), or remove it",
					"plugins[%d] (%s): skills %q names nothing in the plugin's folder", s.Index, s.Name, sk)
			}
		}
	}
}

// reportRemote reports the entries whose source is a repository or URL
// written as a string ("github:acme/pdf"), which the clients read as a
// path, with the object that says it; past maxPerFile, one finding says
// how many more.
func reportRemote(p *RunPass, file string, data []byte, elsewhere []skill.MarketplaceSource) {
	n := 0
	for k, e := range elsewhere {
		if e.Source == "" {
			continue
		}
		start, _, _ := plugin.Span(data, fmt.Sprintf("/plugins/%d/source", e.Index))
		line, col := jsonenc.LineCol(data, start)
		fix := fmt.Sprintf(`write it as {"source": "url", "url": %q}`, e.Source)
		if repo, ok := strings.CutPrefix(e.Source, "github:"); ok {
			fix = fmt.Sprintf(`write it as {"source": "github", "repo": %q}`, repo)
		}
		if n++; n > maxPerFile {
			more := 0
			for _, e := range elsewhere[k:] {
				more += min(len(e.Source), 1)
			}
			p.Reportf(file, line, col, "write each as an object, as above", "%d more entries from here on have a source like %q", more, e.Source)
			return
		}
		p.Reportf(file, line, col, fix, "plugins[%d] (%s): source %q is a repository written as a string, which the clients read as a path that names no folder, and fail to install", e.Index, e.Name, e.Source)
	}
}

// marketplaceNames is what checkMarketplaceNames reads of a marketplace.
type marketplaceNames struct {
	Plugins []struct {
		Name string `json:"name"`
	} `json:"plugins"`
}

// checkMarketplaceJSON reports a marketplace file that is not a JSON
// object, where the JSON goes wrong (plugin.Syntax, as for a manifest).
func checkMarketplaceJSON(p *RunPass) {
	for _, path := range p.Marketplaces {
		data, err := p.marketplace(path)
		if err != nil {
			cannotRead(p, path, err)
			continue
		}
		if pr, bad := plugin.Syntax(data); bad {
			p.Reportf(path, pr.Line, pr.Column, pr.Fix+": clients refuse the marketplace, and every plugin it lists", "the marketplace is %s", pr.Message)
		} else if text := bytes.TrimSpace(data); len(text) == 0 || text[0] != '{' {
			p.Reportf(path, 1, 1, "write the marketplace as a JSON object: {\"name\": ..., \"plugins\": [...]}", "the marketplace is not a JSON object")
		} else {
			// The shapes every client's loader insists on.
			span := plugin.Spans(data)
			for _, f := range []struct{ key, open, what, fix string }{
				{"plugins", "[", "a list", `a list of entries: "plugins": [{"name": ..., "source": ...}]`},
				{"owner", "{", "an object", `an object: "owner": {"name": ...}`},
			} {
				if start, _, ok := span("/" + f.key); ok && !bytes.HasPrefix(data[start:], []byte(f.open)) {
					line, col := jsonenc.LineCol(data, start)
					p.Reportf(path, line, col, "write \""+f.key+"\" as "+f.fix, "%q is not %s: clients refuse the marketplace, and every plugin it lists", f.key, f.what)
				}
			}
			// The text fields skillpack reads: another kind of value
			// there, even null, clients refuse (Claude Code 2.1.332: "expected
			// string"), and discovery reads no plugin of the file.
			check := func(field, ptr string) {
				if start, _, ok := span(ptr); ok && data[start] != '"' {
					line, col := jsonenc.LineCol(data, start)
					p.Reportf(path, line, col, "write it as a string (\"...\"), or leave the key out",
						"%s is %s, where a string belongs: clients refuse the marketplace, and every plugin it lists", field, kindOf(data[start]))
				}
			}
			for _, k := range []string{"name", "owner/name", "description", "metadata/description", "metadata/pluginRoot", "pluginRoot"} {
				check(strings.ReplaceAll(k, "/", "."), "/"+k)
			}
			for i := 0; ; i++ {
				if _, _, ok := span(fmt.Sprintf("/plugins/%d", i)); !ok {
					break
				}
				for _, k := range []string{"name", "description", "version"} {
					check(fmt.Sprintf("plugins[%d].%s", i, k), fmt.Sprintf("/plugins/%d/%s", i, k))
				}
			}
		}
	}
}

// kindOf names the kind of JSON value that starts with b.
func kindOf(b byte) string {
	return cmp.Or(map[byte]string{'n': "null", '[': "a list", '{': "an object", 't': "true", 'f': "false"}[b], "a number")
}

// checkMarketplaceNames reports each entry of a marketplace whose name an
// earlier entry has. A marketplace that cannot be read is
// checkMarketplaceJSON's to report.
func checkMarketplaceNames(p *RunPass) {
	for _, path := range p.Marketplaces {
		data, err := p.marketplace(path)
		var m marketplaceNames
		if err != nil || json.Unmarshal(data, &m) != nil {
			continue
		}
		first := map[string]int{}
		for i, e := range m.Plugins {
			j, seen := first[e.Name]
			if !seen {
				first[e.Name] = i
				continue
			}
			start, _, _ := plugin.Span(data, fmt.Sprintf("/plugins/%d/name", i))
			line, col := jsonenc.LineCol(data, start)
			p.Reportf(path, line, col, "remove the second entry, or rename the plugin it stands for",
				"plugins[%d] names plugin %q, as plugins[%d] does", i, e.Name, j)
		}
	}
}

// cannotRead reports a manifest or marketplace that cannot be read, with
// the fix for why.
func cannotRead(p *RunPass, path string, err error) {
	fix := "make the file readable"
	switch {
	case errors.Is(err, smallfile.ErrNotRegular):
		fix = "replace it with the JSON file it stands for"
	case errors.Is(err, smallfile.ErrTooLarge):
		fix = "shorten it: a manifest holds names, paths and short descriptions"
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		err = pe.Err
	}
	p.Reportf(path, 0, 0, fix, "cannot read it: %v", err)
}

// reportProblems reports a file's schema problems. A file whose
// "$schema" is not a string naming the Agent Plugins schemas is some
// other tool's (Gemini CLI's plugin.json, an editor's mcp.json): clients
// that read it do not hold it to these schemas, so neither does lint.
func reportProblems(p *RunPass, f *plugin.File, schema string) {
	if f.Err != nil && f.Data == nil {
		cannotRead(p, f.Path, f.Err)
		return
	}
	if id, _ := f.Fields()["$schema"].(string); f.Err == nil && !strings.HasPrefix(id, plugin.SchemaBase) {
		return
	}
	for _, pr := range plugin.Validate(schema, f.Data) {
		p.Reportf(f.Path, pr.Line, pr.Column, cmp.Or(pr.Fix, "change it to what the schema "+schema+" allows"), "%s", pr.Message)
	}
}

func checkManifestSchema(p *RunPass) {
	for _, pl := range p.Plugins {
		if len(pl.Manifests) > 0 && pl.Manifests[0].Client == "" {
			reportProblems(p, &pl.Manifests[0], plugin.ManifestSchema)
		}
	}
}

func checkClientManifests(p *RunPass) {
	for _, pl := range p.Plugins {
		named := false
		for i := range pl.Manifests {
			m := &pl.Manifests[i]
			named = named || m.Name == pl.Name
			if m.Client == "" {
				continue // the schema's (plugin-manifest-schema)
			}
			switch {
			case m.Err != nil && m.Data == nil:
				cannotRead(p, m.Path, m.Err)
			case m.Err != nil:
				if pr, ok := plugin.Syntax(m.Data); ok {
					p.Reportf(m.Path, pr.Line, pr.Column, pr.Fix, "%s", pr.Message)
				} else {
					p.Reportf(m.Path, 1, 1, "make it one JSON object, {\"name\": ...}", "it is no JSON object")
				}
			case m.Fields()["name"] != nil && m.Name == "":
				line, col := m.Pos("/name")
				p.Reportf(m.Path, line, col, "make it a string, such as \"name\": "+strconv.Quote(skill.SuggestName(pl.Name)),
					"\"name\" is not a string")
			case m.Name != "" && m.Name == pl.Name && bundleName(m.Name) != "":
				line, col := m.Pos("/name")
				p.Reportf(m.Path, line, col, "name it in letters, digits and '-', such as "+strconv.Quote(skill.SuggestName(m.Name)),
					"plugin name %q cannot name the plugin's archives in a bundle: %s", m.Name, bundleName(m.Name))
			}
		}
		why := bundleName(pl.Name)
		if named || why == "" {
			continue
		}
		if at := entryNamed(p, pl); at != "" {
			// Claude Code installs it by the entry's name, whatever a
			// manifest added later says: the entry is to be renamed. Said
			// at the plugin, which the build leaves out for it.
			p.Reportf(pl.Dir, 0, 0, "rename the entry, such as \"name\": "+strconv.Quote(skill.SuggestName(pl.Name)),
				"the plugin is named by its entry in %s, %q, which cannot name its archives in a bundle: %s", at, pl.Name, why)
		} else {
			p.Reportf(pl.Dir, 0, 0, "give it a \"name\" in its manifest, such as "+strconv.Quote(skill.SuggestName(pl.Name)),
				"the plugin is named after its folder, %q, which cannot name its archives in a bundle: %s", pl.Name, why)
		}
	}
}

// entryNamed is where the marketplace entry is that names a plugin's
// folder by the plugin's name (FILE:LINE), or "" for none: a plugin no
// manifest names takes its entry's name.
func entryNamed(p *RunPass, pl *plugin.Plugin) string {
	file, e, ok := skill.EntryNaming(p.Marketplaces, p.marketplace, pl.Dir)
	data, err := p.marketplace(file)
	if !ok || e.Name != pl.Name || err != nil {
		return ""
	}
	start, _, _ := plugin.Span(data, fmt.Sprintf("/plugins/%d/name", e.Index))
	line, _ := jsonenc.LineCol(data, start)
	return fmt.Sprintf("%s:%d", p.Rel(file), line)
}

// nameMarks are the marks a URL's path segment carries as they are
// (RFC 3986's unreserved and sub-delims, and '@') that Windows also
// allows in a file name.
const nameMarks = "-._~!$&'()+,;=@"

// bundleName says why a plugin name cannot name a file and a URL's path
// segment as it is, or "" when it can.
func bundleName(name string) string {
	bad := strings.IndexFunc(name, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(nameMarks, r))
	})
	switch {
	case name == "":
		return "it is empty"
	case len(name) > 64:
		return fmt.Sprintf("it is %d bytes long, over 64", len(name))
	case name[0] == '.' || name[0] == '-':
		return fmt.Sprintf("it starts with %q", name[:1])
	case bad >= 0:
		r, _ := utf8.DecodeRuneInString(name[bad:])
		return fmt.Sprintf("it holds %q", r)
	}
	return ""
}

func checkMCPSchema(p *RunPass) {
	for _, pl := range p.Plugins {
		if pl.MCP != nil {
			reportProblems(p, pl.MCP, plugin.MCPSchema)
		}
	}
}

// shellChars make a command a shell's to read.
const shellChars = " \t\n;&|<>$`'\"(){}*?~\\"

func checkMCPCommand(p *RunPass) {
	for _, pl := range p.Plugins {
		if pl.MCP == nil {
			continue
		}
		servers, _ := pl.MCP.Fields()["mcpServers"].(map[string]any) // when it is an object
		for _, name := range slices.Sorted(maps.Keys(servers)) {
			s, _ := servers[name].(map[string]any)
			at := "/mcpServers/" + name
			if cmd, ok := s["command"].(string); ok {
				line, col := pl.MCP.Pos(at + "/command")
				switch {
				case strings.ContainsAny(cmd, shellChars):
					fix := "name one executable in \"command\" and give each argument in \"args\""
					if _, ok := splitCommand(cmd); ok {
						fix = "split it: the first word in \"command\", the others in \"args\" (--fix)"
					}
					p.Reportf(pl.MCP.Path, line, col, fix, "server %q: command %q is a shell command string, not one executable", name, cmd)
				case strings.Contains(cmd, "/") && !strings.HasPrefix(cmd, "./"):
					p.Reportf(pl.MCP.Path, line, col, "start a path inside the plugin with ./ (./bin/server), or name an executable found on PATH",
						"server %q: command %q is a path that is not relative to the plugin", name, cmd)
				case strings.HasPrefix(cmd, "./") && !pl.Contains(cmd):
					p.Reportf(pl.MCP.Path, line, col, "ship the executable inside the plugin's folder",
						"server %q: command %q leads out of the plugin's folder", name, cmd)
				}
			}
			if cwd, ok := s["cwd"].(string); ok {
				rel, root := strings.CutPrefix(cwd, "${PLUGIN_ROOT}")
				if (root || strings.HasPrefix(cwd, "./")) && !pl.Contains("./"+strings.TrimPrefix(rel, "/")) {
					line, col := pl.MCP.Pos(at + "/cwd")
					p.Reportf(pl.MCP.Path, line, col, "use a folder inside the plugin, or ${PLUGIN_DATA}",
						"server %q: cwd %q leads out of the plugin's folder", name, cwd)
				}
			}
		}
	}
}

// splitCommand splits a command of plain words (no quotes, no shell
// syntax) into words; false when the shell would read it otherwise.
func splitCommand(cmd string) ([]string, bool) {
	words := strings.Fields(cmd)
	for _, w := range words {
		if strings.ContainsAny(w, shellChars) {
			return nil, false
		}
	}
	return words, len(words) > 1
}

func checkPluginSkills(p *RunPass) {
	for _, pl := range p.Plugins {
		skills := filepath.Join(pl.Dir, plugin.SkillsDir)
		switch {
		case pl.SkillsErr != "":
			p.Reportf(skills, 0, 0, "make skills/ a folder of skill folders", "%s", pl.SkillsErr)
		case len(pl.Skills) == 0 && pl.Exists(plugin.SkillsDir) && !slices.ContainsFunc(pl.Declared, func(d plugin.Declared) bool {
			return pl.Contains(d.Path) && pl.Exists(d.Path)
		}) && !slices.ContainsFunc(pl.Listed, func(d string) bool {
			return pl.Contains(d) && pl.Exists(d)
		}) && !slices.ContainsFunc(p.Skills, func(s Named) bool {
			r, err := filepath.Rel(skills, s.Dir)
			return err == nil && r != "." && filepath.IsLocal(r)
		}):
			// A manifest or a marketplace entry that names the skills
			// (skills/<category>/<name>, naoto24kawa/claude-plugins) is
			// where the clients find them: skills/ is their folder, not
			// the default one left empty.
			p.Reportf(skills, 0, 0, "put each skill in a folder just below skills/ (skills/<name>/SKILL.md)", "skills/ holds no skill: no folder just below it has a SKILL.md")
		}
		linked := map[string]bool{} // skills reported here, not again at the manifest
		for _, s := range pl.Skills {
			if !pl.Contains(path.Join(s, "SKILL.md")) {
				linked[s] = true
				p.Reportf(filepath.Join(pl.Dir, filepath.FromSlash(s), "SKILL.md"), 0, 0, "copy the skill into the plugin's folder instead of linking to it",
					"the skill %s leads out of the plugin's folder by a symbolic link, and the plugin's archives leave it out", s)
			}
		}
		for _, d := range pl.Declared {
			switch {
			case linked[path.Clean(d.Path)]:
			case !pl.Contains(d.Path):
				p.Reportf(d.By.Path, d.Line, 0, "move the skills into the plugin's folder and name them by a path inside it (./skills)",
					"skills path %q leads out of the plugin's folder", d.Path)
			case !pl.Exists(d.Path):
				disk := filepath.Join(pl.Dir, filepath.FromSlash(d.Path))
				if p.dangling(disk) {
					continue // skill-dangling's, at the link
				}
				if to, err := os.Readlink(disk); err == nil {
					p.Reportf(d.By.Path, d.Line, 0, "check out the submodule it names (git submodule update --init), or correct the link",
						"skills path %q is a symbolic link to %s, which does not exist", d.Path, to)
					continue
				}
				p.Reportf(d.By.Path, d.Line, 0, "correct the path, or remove it", "skills path %q names nothing in the plugin", d.Path)
			}
		}
	}
}

// client is the client's folder of the plugin's first manifest
// (".claude-plugin", ".plugin"), "" for the standard's plugin.json.
func client(pl *plugin.Plugin) string {
	if len(pl.Manifests) == 0 {
		return ""
	}
	return pl.Manifests[0].Client
}

func checkPluginNames(p *RunPass) {
	byName := map[string][]*plugin.Plugin{}
	for _, pl := range p.Plugins {
		byName[pl.Name] = append(byName[pl.Name], pl)
	}
	for name, ps := range byName {
		if len(ps) < 2 {
			continue
		}
		for _, pl := range ps {
			var others []string
			for _, o := range ps {
				if o != pl {
					others = append(others, p.Rel(o.Dir))
				}
			}
			where, line := pl.Dir, 0
			if i := slices.IndexFunc(pl.Manifests, func(m plugin.File) bool { return m.Name == name }); i >= 0 {
				where, line = pl.Manifests[i].Path, pl.Manifests[i].Line
			}
			this, that := p.Rel(pl.Dir), others[0]
			other := ps[slices.IndexFunc(ps, func(o *plugin.Plugin) bool { return o != pl })]
			thatDir := other.Dir
			fix := fmt.Sprintf("rename one of the plugins, or leave out the one you do not publish: %s leaves out that one, %s this one", p.Ignore(thatDir), p.Ignore(pl.Dir))
			if a, b := client(pl), client(other); a != b && a != "" && b != "" {
				// One plugin packaged for two clients (Azure/amg-skills:
				// .claude-plugin/ and .plugin/), which a bundle serves once.
				fix = fmt.Sprintf("if they are one plugin packaged for two clients (%s, %s), publish one: %s leaves out that one, %s this one; else rename one of them", b, a, p.Ignore(thatDir), p.Ignore(pl.Dir))
			}
			switch {
			case p.Ignore(thatDir) == "" || strings.HasPrefix(this, that+"/"): // ignoring that one would leave out this one too
				fix = fmt.Sprintf("rename one of the plugins, or leave this one, inside %s, out with %s", pluginAt(that), p.Ignore(pl.Dir))
			case p.Ignore(pl.Dir) == "" || strings.HasPrefix(that, this+"/"):
				// This one may be the stale copy: a repository's root
				// manifest that a marketplace's plugin inside it outgrew.
				fix = fmt.Sprintf("rename one of the plugins, remove this manifest if it is an old copy of %s's, or leave the one inside this one out with %s", that, p.Ignore(thatDir))
			}
			for i, o := range others {
				others[i] = pluginAt(o)
			}
			p.Reportf(where, line, 0, fix, "plugin name %q is also the name of %s", name, strings.Join(others, ", "))
		}
	}
}
