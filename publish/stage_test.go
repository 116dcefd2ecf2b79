package publish

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// Every document goes out in a later stage than every file and archive it
// names (layout.Names, prune's reading of it), so that a run stopped
// between stages leaves no document naming a file that is not there: the
// plugin index its archives, the MCP documents the skills' files.
// (Documents name documents of their own stage, mcp/resources.json
// mcp/index.json and checksums.txt all, versions.json the releases'
// snapshots; the record, last, says a release is whole.)
func TestStageAfterNamed(t *testing.T) {
	dist := filepath.Join(t.TempDir(), "dist")
	o := build.Options{Out: dist, Marketplaces: []string{"claude", "codex"}, Versioned: true, Release: "1.0.0"}
	if _, err := build.Run([]string{filepath.Join("..", "build", "testdata", "plugins")}, o); err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, doc := range layout.Naming {
		data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		paths, err := layout.Names(doc, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			// Documents name documents of their own stage; a skill's page
			// is no document (checksums.txt went out before the pages it
			// lists, which a stopped run left missing).
			if pp, _ := layout.ParsePath(p); slices.Contains(layout.Naming, p) || pp.Kind == layout.KindDoc && StageOf(p) == Indexes && (doc == layout.Checksums || doc == layout.VersionsIndex) {
				continue
			}
			named++
			if StageOf(p) >= StageOf(doc) {
				t.Errorf("%s (stage %s) names %s, of stage %s", doc, StageOf(doc), p, StageOf(p))
			}
		}
	}
	if named == 0 {
		t.Fatal("the documents name nothing")
	}
	// Codex's marketplace names the plugins' folders, served beside their
	// archives: every file in them goes out before it.
	folder := filepath.Join(dist, filepath.FromSlash(layout.PluginDir("pdf-tools")))
	err := filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dist, p)
		if path := filepath.ToSlash(rel); StageOf(path) >= StageOf(layout.CodexMarketplace) {
			t.Errorf("%s names the folder of %s, of stage %s, in stage %s", layout.CodexMarketplace, path, StageOf(path), StageOf(layout.CodexMarketplace))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
