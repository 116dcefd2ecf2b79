package skill

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Plugins scope skill names: Claude Code, Codex and Cursor invoke the skill
// access of the plugin discord as /discord:access, so two plugins may each
// hold a skill of one name. A plugin is a folder holding one of these
// manifests: the Agent Plugins standard's plugin.json at the root, or a
// client's own under a dotted folder.
var pluginManifestDirs = map[string]bool{".claude-plugin": true, ".codex-plugin": true, ".cursor-plugin": true}

// PluginManifest is the Agent Plugins manifest, at a plugin's root; the
// clients' own manifests have the same name inside pluginManifestDirs.
const PluginManifest = "plugin.json"

// pluginIn reports whether a folder, given its listing, is a plugin's root.
// The listing answers for almost every folder; a stat is spent only on a
// folder that has a manifest folder.
func pluginIn(dir string, ents []fs.DirEntry) bool {
	for _, e := range ents {
		switch n := e.Name(); {
		case n == PluginManifest && !e.IsDir():
			return true
		case pluginManifestDirs[n]:
			if fileExists(filepath.Join(dir, n, PluginManifest)) {
				return true
			}
		}
	}
	return false
}

// isPluginRoot is pluginIn for a folder not listed yet.
func isPluginRoot(dir string) bool {
	if fileExists(filepath.Join(dir, PluginManifest)) {
		return true
	}
	for n := range pluginManifestDirs {
		if fileExists(filepath.Join(dir, n, PluginManifest)) {
			return true
		}
	}
	return false
}

// isRepoRoot reports whether dir is the root of a git work tree (.git is a
// folder there, or a file in a linked work tree or submodule). A plugin is
// never looked for above it: what lies beyond is not the repository's.
func isRepoRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// pluginOf returns the nearest folder at or above dir that is a plugin's
// root; "" when there is none. The answer is relative when dir is, as
// Enclosing's.
func pluginOf(dir string) string {
	if isPluginRoot(dir) {
		return dir
	}
	return pluginAbove(dir)
}

// pluginAbove returns the plugin holding the folder dir, not counting dir
// itself (whose listing the walk reads anyway). It looks no further up than
// the root of the git work tree holding dir, and outside any work tree not
// above dir at all: a stray plugin.json in a home or temporary folder must
// not make every skill below it one plugin's.
func pluginAbove(dir string) string {
	found := ""
	for d := dir; !isRepoRoot(d); {
		parent, ok := up(d)
		if !ok {
			return "" // no work tree holds dir
		}
		if found == "" && isPluginRoot(parent) {
			found = parent
		}
		d = parent
	}
	return found
}
