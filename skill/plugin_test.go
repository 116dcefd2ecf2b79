package skill

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/plugin"
)

// The shapes of the plugin marketplaces in the wild: Claude Code's
// .claude-plugin/plugin.json, the Agent Plugins plugin.json at the root,
// Codex's and Cursor's own manifests, a marketplace that is a plugin
// itself, and skills outside any plugin.
var pluginTree = map[string]string{
	".git/HEAD":                                      "",
	".claude-plugin/marketplace.json":                "{}", // a marketplace is no plugin
	"plugins/discord/.claude-plugin/plugin.json":     "{}",
	"plugins/discord/skills/access/SKILL.md":         skillMD,
	"plugins/discord/skills/access/scripts/a/x.sh":   "",
	"plugins/telegram/plugin.json":                   "{}",
	"plugins/telegram/skills/access/SKILL.md":        skillMD,
	"plugins/codex/.codex-plugin/plugin.json":        "{}",
	"plugins/codex/skills/x/SKILL.md":                skillMD,
	"plugins/cursor/.cursor-plugin/plugin.json":      "{}",
	"plugins/cursor/skills/x/SKILL.md":               skillMD,
	"plugins/kit/.plugin/plugin.json":                "{}", // Copilot's: .plugin is its manifest folder, no plugin
	"plugins/kit/skills/x/SKILL.md":                  skillMD,
	"plugins/empty/.claude-plugin/README.md":         "", // a manifest folder without a manifest
	"plugins/empty/skills/x/SKILL.md":                skillMD,
	"plugins/outer/.claude-plugin/plugin.json":       "{}",
	"plugins/outer/inner/.claude-plugin/plugin.json": "{}",
	"plugins/outer/inner/skills/x/SKILL.md":          skillMD,
	"plugins/outer/skills/x/SKILL.md":                skillMD,
	"skills/access/SKILL.md":                         skillMD,
}

func TestDiscoverPlugin(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, pluginTree)
	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"plugins/codex/skills/x":         "plugins/codex",
		"plugins/cursor/skills/x":        "plugins/cursor",
		"plugins/kit/skills/x":           "plugins/kit",
		"plugins/discord/skills/access":  "plugins/discord",
		"plugins/empty/skills/x":         "",
		"plugins/outer/inner/skills/x":   "plugins/outer/inner", // the nearest plugin
		"plugins/outer/skills/x":         "plugins/outer",
		"plugins/telegram/skills/access": "plugins/telegram",
		"skills/access":                  "",
	}
	if have := relFolders(root, got, func(s *Skill) string { return s.Plugin }); !reflect.DeepEqual(have, want) {
		t.Errorf("plugins = %q\nwant      %q", have, want)
	}
}

// A plugin above the folder named is still found, in the form of Dir; and
// the search stops at the repository's root.
func TestDiscoverPluginAbove(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, pluginTree)
	t.Chdir(filepath.Join(root, "plugins", "discord", "skills"))
	for _, path := range []string{".", "access", "access/SKILL.md", "access/scripts/a/x.sh"} {
		got, err := Discover(path)
		if err != nil || len(got) != 1 {
			t.Fatalf("Discover(%s) = %v, %v", path, got, err)
		}
		if p, _ := filepath.Abs(got[0].Plugin); p != filepath.Join(root, "plugins", "discord") || filepath.IsAbs(got[0].Plugin) {
			t.Errorf("Discover(%s): Plugin = %q, want the relative path of plugins/discord", path, got[0].Plugin)
		}
	}
	if s := Load("access"); s.Plugin != ".." {
		t.Errorf("Load(access).Plugin = %q, want ..", s.Plugin)
	}

	// A plugin.json above the repository is not the repository's.
	outer := t.TempDir()
	testtool.WriteTree(t, outer, map[string]string{"plugin.json": "{}", "repo/.git": "gitdir: elsewhere", "repo/skills/a/SKILL.md": skillMD})
	for _, path := range []string{filepath.Join(outer, "repo"), filepath.Join(outer, "repo", "skills"), filepath.Join(outer, "repo", "skills", "a")} {
		got, err := Discover(path)
		if err != nil || len(got) != 1 || got[0].Plugin != "" {
			t.Errorf("Discover(%s) = %+v, %v; want one skill outside any plugin", path, got, err)
		}
	}
	// Outside any repository nothing above the folder named counts: a
	// stray plugin.json in a home or temporary folder is no plugin of the
	// skills below it. The folder named may be a plugin itself.
	loose := t.TempDir()
	testtool.WriteTree(t, loose, map[string]string{"plugin.json": "{}", "skills/a/SKILL.md": skillMD})
	got, err := Discover(filepath.Join(loose, "skills"))
	if err != nil || len(got) != 1 || got[0].Plugin != "" {
		t.Errorf("Discover(skills) = %+v, %v; want one skill outside any plugin", got, err)
	}
	got, err = Discover(loose)
	if err != nil || len(got) != 1 || got[0].Plugin != loose {
		t.Errorf("Discover(%s) = %+v, %v; want one skill in the plugin %s", loose, got, err, loose)
	}
	// Unless that folder is home, where a stray plugin.json is no plugin
	// of everything below it.
	t.Setenv("HOME", loose)
	t.Chdir(loose)
	if got, err := Discover("skills"); err != nil || len(got) != 1 || got[0].Plugin != "" {
		t.Errorf("Discover(skills) from home = %+v, %v; want one skill outside any plugin", got, err)
	}
	t.Setenv("HOME", t.TempDir())
	// Run from that folder, the plugin is the working folder's, as lint .
	// there finds: a skill's folder or file named inside gets it too.
	for _, path := range []string{"skills", "skills/a", "skills/a/SKILL.md"} {
		got, err := Discover(path)
		if err != nil || len(got) != 1 || got[0].Plugin != "." {
			t.Errorf("Discover(%s) from the plugin's folder = %+v, %v; want one skill in the plugin .", path, got, err)
		}
	}
}

// Every manifest a client reads makes a plugin: any client's
// .<client>-plugin/plugin.json, Copilot's .github/plugin/plugin.json, a
// folder a marketplace names as a plugin's source (strict: false, no
// manifest), and a per-platform variant folder laid out as a plugin
// (claude/skills/x beside codex/skills/x) without any.
func TestDiscoverPluginScopes(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		".git/HEAD":                             "",
		".claude-plugin/marketplace.json":       `{"plugins": [{"name": "loose", "source": "./plugins/loose"}, {"name": "remote", "source": {"source": "github", "repo": "o/r"}}]}`,
		"plugins/grok/.grok-plugin/plugin.json": "{}",
		"plugins/grok/skills/x/SKILL.md":        skillMD,
		"plugins/gh/.github/plugin/plugin.json": "{}",
		"plugins/gh/skills/x/SKILL.md":          skillMD,
		"plugins/loose/skills/x/SKILL.md":       skillMD,
		"variants/claude/skills/x/SKILL.md":     skillMD,
		"variants/Codex/skills/x/SKILL.md":      skillMD,
		"variants/claude-ish/skills/x/SKILL.md": skillMD, // no client's name
		"variants/cursor/x/SKILL.md":            skillMD, // no skills/ folder: not a plugin's layout
		"other/.github/workflows/ci.yml":        "",
		"other/skills/x/SKILL.md":               skillMD,
	})
	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"plugins/gh/skills/x":          "plugins/gh",
		"plugins/grok/skills/x":        "plugins/grok",
		"plugins/loose/skills/x":       "plugins/loose",
		"variants/Codex/skills/x":      "variants/Codex",
		"variants/claude/skills/x":     "variants/claude",
		"variants/claude-ish/skills/x": "",
		"variants/cursor/x":            "",
		"other/skills/x":               "",
	}
	if have := relFolders(root, got, func(s *Skill) string { return s.Plugin }); !reflect.DeepEqual(have, want) {
		t.Errorf("plugins = %q\nwant      %q", have, want)
	}
	// A plugin above the folder named counts with any client's manifest.
	if s := Load(filepath.Join(root, "plugins", "grok", "skills", "x")); s.Plugin != filepath.Join(root, "plugins", "grok") {
		t.Errorf("Load: Plugin = %q", s.Plugin)
	}
}

// A manifest in the folder of a skill of another plugin, or inside a
// skill's folder, is a file of that skill (Prometheus-AGS' skills/evolver,
// a plugin copied in as a skill): it declares nothing and makes no plugin;
// a marketplace naming the folder makes it a plugin again, and a skill's
// folder that is a plugin of its own is one.
func TestFindTreeManifestInSkill(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		"pack/.claude-plugin/plugin.json":                         `{"name": "pack", "skills": ["./skills/evolver"]}`,
		"pack/skills/evolver/SKILL.md":                            skillMD,
		"pack/skills/evolver/.claude-plugin/plugin.json":          `{"name": "evolver", "skills": ["./skills/plan"]}`,
		"pack/skills/evolver/skills/plan/SKILL.md":                skillMD,
		"pack/skills/evolver/vendor/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"own/SKILL.md":                   skillMD,
		"own/.claude-plugin/plugin.json": `{"name": "own", "skills": ["./"]}`,
	})
	tree, err := FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(root, "own"), filepath.Join(root, "pack")}; !reflect.DeepEqual(tree.Plugins, want) {
		t.Errorf("Plugins = %q, want %q", tree.Plugins, want)
	}
	for _, s := range tree.Skills {
		if strings.HasSuffix(s.Dir, "plan") && (s.Loaded || strings.Contains(s.Declared, "evolver")) {
			t.Errorf("%s declared by %s (loaded %v), want a file of evolver", s.Dir, s.Declared, s.Loaded)
		}
	}

	// Named by the repository's marketplace, the folder is a plugin.
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "pack", "source": "./pack"}, {"name": "evolver", "source": "./pack/skills/evolver"}]}`,
	})
	if tree, err = FindTree(root); err != nil || !slices.Contains(tree.Plugins, filepath.Join(root, "pack", "skills", "evolver")) {
		t.Errorf("Plugins = %q (%v), want the listed evolver among them", tree.Plugins, err)
	}
}

// A declared folder holding a SKILL.md is that one skill, its folders its
// files, as Claude Code 2.1.332 loads it; a declared folder without one is
// a folder of skills, each just below it loaded (Prometheus-AGS'
// prometheus-entity-skills and its six entity-graph-* folders).
func TestFindTreeDeclaredSkillFolder(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/plugin.json":                 `{"name": "p", "skills": ["./skills/react/entity", "./skills/process"]}`,
		"skills/react/entity/SKILL.md":               skillMD,
		"skills/react/entity/crud/SKILL.md":          skillMD,
		"skills/process/evolver/SKILL.md":            skillMD,
		"skills/process/evolver/references/SKILL.md": skillMD,
	})
	tree, err := FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	loaded := map[string]bool{}
	for _, s := range tree.Skills {
		rel, _ := filepath.Rel(root, s.Dir)
		loaded[filepath.ToSlash(rel)] = s.Loaded
	}
	want := map[string]bool{"skills/react/entity": true, "skills/react/entity/crud": false, "skills/process/evolver": true, "skills/process/evolver/references": false}
	if !reflect.DeepEqual(loaded, want) {
		t.Errorf("loaded = %v, want %v", loaded, want)
	}
}

// What a repository declares, read as the Vercel skills CLI reads it: the
// marketplace's plugins (pluginRoot, source, skills), each plugin's
// skills/ folder, and a manifest's skills field (a string or a list, "./"
// or not). The shape is anthropics/skills': two plugins with source "./"
// listing skills/<name>, and a template/ no plugin names.
func TestFindTreeDeclared(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "metadata": {"pluginRoot": "./"}, "plugins": [
			{"name": "document-skills", "source": "./", "strict": false, "skills": ["./skills/pdf"]},
			{"name": "example-skills", "source": "./", "strict": false, "skills": ["./extra/art"]},
			{"name": "codex", "source": {"source": "local", "path": "./plugins/codex"}},
			{"name": "escapes", "source": "./../elsewhere"}]}`,
		"skills/pdf/SKILL.md":                         skillMD,
		"skills/xlsx/SKILL.md":                        skillMD, // in skills/, but each entry of "./" lists its own
		"extra/art/SKILL.md":                          skillMD,
		"extra/other/SKILL.md":                        skillMD, // beside a declared skill, not declared
		"template/SKILL.md":                           skillMD,
		".claude/skills/dev/SKILL.md":                 skillMD,
		"plugins/codex/skills/x/SKILL.md":             skillMD,
		"plugins/own/.claude-plugin/plugin.json":      `{"name": "own", "skills": "./more"}`,
		"plugins/own/more/y/SKILL.md":                 skillMD,
		"plugins/own/tests/z/SKILL.md":                skillMD,
		"plugins/cop/plugin.json":                     `{"name": "cop", "skills": ["lib/", "./nope/../lib2"]}`,
		"plugins/cop/lib/a/SKILL.md":                  skillMD,
		"plugins/cop/lib2/b/SKILL.md":                 skillMD,
		"plugins/bad/.cursor-plugin/plugin.json":      "{\n  \"name\": \"bad\",\n  \"skills\": [\"x\",]\n}",
		"plugins/bad/skills/c/SKILL.md":               skillMD,
		"plugins/bad/.cursor-plugin/marketplace.json": "{}", // not at the root: no marketplace of this tree
	})
	tree, err := FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(root, ".claude-plugin", "marketplace.json")
	own := filepath.Join(root, "plugins", "own", ".claude-plugin", "plugin.json")
	cop := filepath.Join(root, "plugins", "cop", "plugin.json")
	want := map[string]string{
		"skills/pdf":             mp,
		"skills/xlsx":            "", // Claude Code 2.1.332 loads only what a "./" entry lists
		"extra/art":              mp,
		"extra/other":            "",
		"template":               "",
		".claude/skills/dev":     "",
		"plugins/codex/skills/x": mp,
		"plugins/own/more/y":     own,
		"plugins/own/tests/z":    "",
		"plugins/cop/lib/a":      cop,
		"plugins/cop/lib2/b":     cop,
		"plugins/bad/skills/c":   "", // its manifest cannot be read: it declares nothing
	}
	have := map[string]string{}
	for _, s := range tree.Skills {
		rel, _ := filepath.Rel(root, s.Dir)
		have[filepath.ToSlash(rel)] = s.Declared
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("declared =\n%q\nwant\n%q", have, want)
	}
	if want := []string{mp}; !reflect.DeepEqual(tree.Declares, want) {
		t.Errorf("Declares = %q, want %q", tree.Declares, want)
	}
	var unread []string
	for _, e := range tree.Unread {
		unread = append(unread, e.Error())
	}
	// The bad manifest is lint's to report (plugin-manifest), once.
	if len(unread) != 1 || !strings.Contains(unread[0], "plugins[3] (escapes)") || !strings.Contains(unread[0], "outside") {
		t.Errorf("Unread = %q, want the escaping source alone", unread)
	}

	// A plugin manifest at the root declares too; a root without any
	// declares nothing, and its skills' Declared name their plugin's.
	sub, err := FindTree(filepath.Join(root, "plugins", "own"))
	if err != nil || len(sub.Declares) != 1 || sub.Declares[0] != own {
		t.Errorf("FindTree(plugins/own).Declares = %v, %v", sub.Declares, err)
	}
	sub, err = FindTree(filepath.Join(root, "plugins"))
	if err != nil || len(sub.Declares) != 0 {
		t.Errorf("FindTree(plugins).Declares = %v, %v", sub.Declares, err)
	}
}

// A plugin a marketplace names, with no manifest of its own, scopes its
// skills when a folder inside it is named too.
func TestDiscoverMarketplacePluginAbove(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		".git/HEAD":                       "",
		".claude-plugin/marketplace.json": `{"plugins": [{"name": "loose", "source": "./plugins/loose"}]}`,
		"plugins/loose/skills/x/SKILL.md": skillMD,
		"plugins/other/skills/y/SKILL.md": skillMD,
	})
	t.Chdir(filepath.Join(root, "plugins"))
	for path, want := range map[string]string{"loose/skills": "loose", "loose/skills/x": "loose", "other": "", "loose": "loose"} {
		got, err := Discover(path)
		if err != nil || len(got) != 1 || got[0].Plugin != want {
			t.Errorf("Discover(%s) = %+v, %v; want Plugin %q", path, got, err, want)
		}
	}
}

// ManifestOf knows a plugin's manifests, in each client's folder, and the
// marketplaces, from the path alone.
func TestManifestOf(t *testing.T) {
	for path, want := range map[string]struct {
		plugin string
		market bool
	}{
		"p/.claude-plugin/plugin.json":       {"p", false},
		"p/.cursor-plugin/plugin.json":       {"p", false},
		"p/.github/plugin/plugin.json":       {"p", false},
		"p/.plugin/plugin.json":              {"p", false},
		"p/plugin.json":                      {"p", false},
		"r/.claude-plugin/marketplace.json":  {"", true},
		"r/.github/plugin/marketplace.json":  {"", true},
		"r/.agents/plugins/marketplace.json": {"", true},
		"r/.agents/plugins/plugin.json":      {"", false},
		"r/skills/a/SKILL.md":                {"", false},
		"r/marketplace.json":                 {"", false},
	} {
		p, m := ManifestOf(filepath.FromSlash(path))
		if filepath.ToSlash(p) != want.plugin || m != want.market {
			t.Errorf("ManifestOf(%s) = %q, %t; want %q, %t", path, p, m, want.plugin, want.market)
		}
	}
}

// A marketplace's pluginRoot comes before a bare source; a ./ source is
// from the marketplace's root, as Claude Code resolves it, or, when that
// names no folder, under pluginRoot, where the Vercel skills CLI looks;
// but not a source that leads out of the root.
func TestMarketplacePluginRoot(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "metadata": {"pluginRoot": "./plugins"}, "plugins": [
			{"name": "a", "source": "./plugins/a"}, {"name": "b", "source": "b"}, {"name": "c", "source": "./c"},
			{"name": "d", "source": "./../d"}]}`,
		"d/skills/q/SKILL.md":         skillMD, // ./../d leads out, whatever pluginRoot would make of it
		"plugins/a/skills/x/SKILL.md": skillMD,
		"plugins/b/skills/y/SKILL.md": skillMD,
		"plugins/c/skills/z/SKILL.md": skillMD,
		"other/skills/w/SKILL.md":     skillMD,
	})
	tree, err := FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, s := range tree.Skills {
		if s.Declared != "" {
			rel, _ := filepath.Rel(root, s.Dir)
			declared = append(declared, filepath.ToSlash(rel))
		}
	}
	if want := []string{"plugins/a/skills/x", "plugins/b/skills/y", "plugins/c/skills/z"}; !reflect.DeepEqual(declared, want) {
		t.Errorf("declared %q, want %q", declared, want)
	}
	srcs, elsewhere, err := MarketplaceSources([]byte(`{"metadata": {"pluginRoot": "./plugins"}, "plugins": [{"source": "./a"}, {"name": "gh", "source": {"source": "github", "repo": "o/r"}}, {"source": "b"}, {"source": "./"}, {"name": "sh", "source": "github:o/s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []MarketplaceSource{{Index: 1, Name: "gh"}, {Index: 4, Name: "sh", Source: "github:o/s"}}; !reflect.DeepEqual(elsewhere, want) {
		t.Errorf("elsewhere = %+v, want %+v", elsewhere, want)
	}
	var got []string
	for _, s := range srcs {
		got = append(got, s.Path+"|"+s.Under)
	}
	if want := []string{"./a|plugins/a", "plugins/b|", "./|plugins"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Path|Under = %q, want %q", got, want)
	}
	// An entry's parts are the fields that name some; a count is none
	// (vanman2024's older entries: "commands": 8).
	srcs, _, err = MarketplaceSources([]byte(`{"plugins": [{"source": "./a", "commands": 8, "agents": ["./agents/x.md"], "hooks": {"Stop": []}, "mcpServers": "./mcp.json", "lspServers": null}]}`))
	if err != nil || len(srcs) != 1 || !reflect.DeepEqual(srcs[0].Parts, []string{"agents", "hooks", "mcpServers"}) {
		t.Errorf("the entry's parts are %+v (%v); want agents, hooks, mcpServers", srcs, err)
	}
}

// A folder several marketplace entries name is none of them: it lists
// them, and the marketplace's own folder takes the marketplace's name (the
// folder's own is the checkout's). One plugin listed by two clients'
// marketplaces is still its entry.
func TestMarketplaceEntries(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "acme", "plugins": [
			{"name": "tools", "source": "./", "skills": ["./tools/a"]}, {"name": "docs", "source": "./", "skills": ["./docs/b"]},
			{"name": "x", "source": "./shared"}, {"name": "y", "source": "./shared"}, {"name": "one", "source": "./one"}]}`,
		".cursor-plugin/marketplace.json": `{"name": "acme", "plugins": [{"name": "one", "source": "./one"}, {"name": "tools", "source": "./"}]}`,
		"tools/a/SKILL.md":                skillMD,
		"docs/b/SKILL.md":                 skillMD,
		"shared/skills/c/SKILL.md":        skillMD,
		"one/skills/d/SKILL.md":           skillMD,
	})
	tree, err := FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]PluginEntry{}
	for dir, e := range tree.Entries {
		rel, _ := filepath.Rel(root, dir)
		e.Skills = nil // the first entry's, to tell Differ
		got[filepath.ToSlash(rel)] = e
	}
	want := map[string]PluginEntry{
		".":      {Name: "acme", Of: []string{"tools", "docs"}, Differ: true},
		"shared": {Of: []string{"x", "y"}},
		"one":    {Name: "one"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Entries = %+v\nwant      %+v", got, want)
	}
}

// GitDir finds the git dir as git does: .git a folder, or a file naming
// it, absolute (a linked work tree) or relative to the work tree (a
// submodule).
func TestGitDir(t *testing.T) {
	root := t.TempDir()
	abs := filepath.Join(root, "main", ".git", "worktrees", "w")
	testtool.WriteTree(t, root, map[string]string{
		"main/.git/HEAD": "",
		"main/skills/a/": "",
		"linked/.git":    "gitdir: " + abs + "\n",
		"linked/skills/": "",
		"main/sub/.git":  "gitdir: ../.git/modules/sub\n",
		"main/sub/deep/": "",
		"broken/.git":    "not a gitdir line\n",
		"broken/skills/": "",
	})
	for dir, want := range map[string]string{
		"main/skills/a": filepath.Join(root, "main", ".git"),
		"linked/skills": abs,
		"main/sub/deep": filepath.Join(root, "main", ".git", "modules", "sub"),
		"broken/skills": "",
	} {
		if got := GitDir(filepath.Join(root, dir)); got != want {
			t.Errorf("GitDir(%s) = %q, want %q", dir, got, want)
		}
	}
}

// Discovery reads a manifest's skills field as plugin.Read does (lint's
// checks): a string, or the strings of a list past anything else.
func TestSkillPathsAgree(t *testing.T) {
	for _, field := range []string{`"./a"`, `["./a", "./b"]`, `["./a", 3, "./b"]`, `3`, `{"a": 1}`, `[]`} {
		dir := t.TempDir()
		testtool.WriteTree(t, dir, map[string]string{".claude-plugin/plugin.json": `{"name": "p", "skills": ` + field + `}`})
		p, err := plugin.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, d := range p.Declared {
			want = append(want, d.Path)
		}
		if got := skillPaths(json.RawMessage(field)); !slices.Equal(got, want) {
			t.Errorf("skills %s: discovery %q, plugin.Read %q", field, got, want)
		}
	}
}
