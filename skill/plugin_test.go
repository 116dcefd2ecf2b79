package skill

import (
	"path/filepath"
	"reflect"
	"testing"
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
	writeTree(t, root, pluginTree)
	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"plugins/codex/skills/x":         "plugins/codex",
		"plugins/cursor/skills/x":        "plugins/cursor",
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
	writeTree(t, root, pluginTree)
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
	writeTree(t, outer, map[string]string{"plugin.json": "{}", "repo/.git": "gitdir: elsewhere", "repo/skills/a/SKILL.md": skillMD})
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
	writeTree(t, loose, map[string]string{"plugin.json": "{}", "skills/a/SKILL.md": skillMD})
	got, err := Discover(filepath.Join(loose, "skills"))
	if err != nil || len(got) != 1 || got[0].Plugin != "" {
		t.Errorf("Discover(skills) = %+v, %v; want one skill outside any plugin", got, err)
	}
	got, err = Discover(loose)
	if err != nil || len(got) != 1 || got[0].Plugin != loose {
		t.Errorf("Discover(%s) = %+v, %v; want one skill in the plugin %s", loose, got, err, loose)
	}
}
