package build

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/layout"
)

// With the marketplaces that name plugin folders asked for, each plugin's
// folder is served beside its archives, byte for byte as its source, and
// named by Codex's, Cursor's and Copilot's files; the bundle verifies, a
// second build is a no-op, and a plugin whose name those clients refuse
// is in none of them, with a note saying what to rename, and served as
// archives still.
func TestPluginFolders(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
	notes := filepath.Join(src, "plugins", "notes")
	for _, m := range []string{"plugin.json", filepath.Join(".claude-plugin", "plugin.json")} {
		data, _ := os.ReadFile(filepath.Join(notes, m))
		if err := os.WriteFile(filepath.Join(notes, m), bytes.Replace(data, []byte(`"notes"`), []byte(`"acme.notes"`), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "dist")
	var log bytes.Buffer
	o := Options{Out: out, Marketplaces: []string{"codex", "cursor", "copilot", "claude", "codex"}, Log: &log}
	mustBuild(t, []string{src}, o)
	if want := "plugins/notes) is left out of the Codex, Cursor and Copilot marketplaces, which take a kebab-case name " +
		"(name has '.'; use only a-z, 0-9 and '-'): rename it in plugin.json"; !strings.Contains(log.String(), "plugin acme.notes (") || !strings.Contains(log.String(), want) {
		t.Errorf("the build said:\n%s\nwant a line saying:\n%s", log.String(), want)
	}

	for _, name := range []string{"db-tools", "pdf-tools"} {
		dir := filepath.Join(src, "plugins", name)
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			want, _ := os.ReadFile(p)
			got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.PluginDir(name)), rel))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s/%s: not served byte for byte (%v)", name, filepath.ToSlash(rel), err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(layout.PluginDir("acme.notes")))); err == nil {
		t.Error("acme.notes is served as a folder")
	}
	for _, m := range []string{layout.CodexMarketplace, layout.CursorMarketplace, layout.CopilotMarketplace} {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(m)))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(data); !strings.Contains(s, `"./.well-known/agent-plugins/db-tools"`) || !strings.Contains(s, `"./.well-known/agent-plugins/pdf-tools"`) ||
			strings.Contains(s, "acme.notes") || !strings.Contains(s, `"name": "repo"`) {
			t.Errorf("%s:\n%s", m, s)
		}
	}
	verified(t, out)
	if res := mustBuild(t, []string{src}, o); !res.UpToDate {
		t.Error("a second build with the same marketplaces is not a no-op")
	}
	// Asking for the folders again after a build without them builds again.
	mustBuild(t, []string{src}, Options{Out: out, Marketplaces: []string{"claude"}})
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(layout.PluginDir("db-tools")))); err == nil {
		t.Error("a build without a folder marketplace still serves the plugins' folders")
	}
}
