package verify

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/layout"
)

// foreignSite writes, under a new folder, a site with a discovery index
// that another tool wrote, as Giskard's docs site and Nuxt SEO's module
// write them: a skill-md entry, an archive made by `tar -czf` (GNU
// headers, folders, umask 002 modes, no digest in its name), and a
// skill-md entry at elsewhere+"/hosted/SKILL.md" (another origin). edit
// may change an entry before the index is written.
func foreignSite(t *testing.T, elsewhere string, edit func(dir string, entries []map[string]string)) string {
	t.Helper()
	dir := t.TempDir()
	const a = ".well-known/agent-skills/"
	md := []byte("---\nname: site-helper\ndescription: Helps agents use the site.\n---\n\n# Site helper\n")
	writeFile(t, dir, a+"site-helper/SKILL.md", md)
	kit := tarIn(t, tar.FormatGNU, file{name: "references/"}, file{name: "references/a.md", body: []byte("hi\n")},
		file{name: "SKILL.md", body: []byte("---\nname: pack-kit\ndescription: Packs kits.\n---\n")})
	writeFile(t, dir, a+"pack-kit.tar.gz", kit)
	hosted := []byte("---\nname: hosted\ndescription: Lives in a git host.\n---\n")
	digest := func(b []byte) string { return fmt.Sprintf("sha256:%x", sha256.Sum256(b)) }
	entries := []map[string]string{
		{"name": "site-helper", "type": "skill-md", "description": "Helps agents use the site.", "url": "site-helper/SKILL.md", "digest": digest(md)},
		{"name": "pack-kit", "type": "archive", "description": "Packs kits.", "url": "/" + a + "pack-kit.tar.gz", "digest": digest(kit)},
		{"name": "hosted", "type": "skill-md", "description": "Lives in a git host.", "url": elsewhere + "/hosted/SKILL.md", "digest": digest(hosted)},
	}
	if edit != nil {
		edit(dir, entries)
	}
	index, err := json.Marshal(map[string]any{"$schema": layout.Schema, "skills": entries})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, layout.V2Index, index)
	writeFile(t, dir, "llms.txt", []byte("# Site\n\n> Ours.\n\n## Docs\n\n- [Guide](https://example.com/guide.md): How to start.\n"))
	writeFile(t, dir, "index.html", []byte("<h1>Site</h1>"))
	return dir
}

// TestForeignIndex: a bundle another tool wrote is checked as clients
// read it (the skills CLI installs all three of these skills), not
// against skillpack's conventions; the same bytes claiming skillpack as
// their generator are held to them.
func TestForeignIndex(t *testing.T) {
	elsewhere := serve(t, t.TempDir(), map[string]http.HandlerFunc{"/hosted/SKILL.md": func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("---\nname: hosted\ndescription: Lives in a git host.\n---\n"))
	}})
	dir := foreignSite(t, elsewhere.URL, nil)
	rep := check(t, dir, Options{})
	wantOK(t, rep)
	if rep.Foreign != "none" || rep.Checked.Skills != 2 || rep.Checked.Archives != 1 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Message, "not in the folder") {
		t.Errorf("folder: foreign %q, checked %+v, warnings %v; want 2 skills, 1 archive and the other origin's url a warning", rep.Foreign, rep.Checked, rep.Warnings)
	}
	// From a folder, an absolute url on the layout's paths is the folder's
	// file when it holds one (the site's own origin), else another site's.
	abs := foreignSite(t, elsewhere.URL, func(_ string, e []map[string]string) {
		e[0]["url"] = "https://site.example/.well-known/agent-skills/site-helper/SKILL.md"
		e[2]["url"] = "https://elsewhere.example/.well-known/agent-skills/hosted/SKILL.md"
	})
	if rep := check(t, abs, Options{}); !rep.OK() || rep.Checked.Skills != 2 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Message, "elsewhere.example") {
		t.Errorf("absolute urls: checked %+v, warnings %v, problems:\n%s; want the site's file checked and the other's a warning", rep.Checked, rep.Warnings, problems(rep))
	}
	rep = fetch(t, serve(t, dir, nil).URL, Options{})
	wantOK(t, rep)
	if rep.Checked.Skills != 3 || rep.Checked.Files != 4 || len(rep.Warnings) != 0 || !strings.Contains(rep.Summary(), "not built by skillpack") {
		t.Errorf("URL: checked %+v, warnings %v, summary %q; want 3 skills and 4 files (the index, two SKILL.md, the archive)", rep.Checked, rep.Warnings, rep.Summary())
	}

	// What a client refuses is a problem still.
	for _, tc := range []struct {
		name string
		edit func(dir string, e []map[string]string)
		path string
		want string
	}{
		{"digest", func(_ string, e []map[string]string) { e[0]["digest"] = "sha256:" + strings.Repeat("0", 64) }, ".well-known/agent-skills/site-helper/SKILL.md", "digest is sha256:"},
		{"name", func(_ string, e []map[string]string) { e[0]["name"] = "Site_Helper" }, layout.V2Index, "readers drop this entry"},
		{"missing", func(_ string, e []map[string]string) { e[1]["url"] = "gone.tar.gz" }, ".well-known/agent-skills/gone.tar.gz", "missing"},
		{"not an archive", func(_ string, e []map[string]string) {
			e[1]["url"], e[1]["digest"] = "site-helper/SKILL.md", e[0]["digest"]
		}, ".well-known/agent-skills/site-helper/SKILL.md", "is not a gzip stream"},
		{"frontmatter", func(_ string, e []map[string]string) { e[0]["type"] = "archive"; e[1]["type"] = "skill-md" }, ".well-known/agent-skills/pack-kit.tar.gz", "frontmatter has no name that is text, so the skills CLI skips the skill"},
		{"archive's frontmatter", func(dir string, e []map[string]string) {
			kit := zipOf(t, file{name: "SKILL.md", body: []byte("---\nname: pack-kit\n---\n")})
			writeFile(t, dir, ".well-known/agent-skills/kit", kit)
			e[1]["url"], e[1]["digest"] = "kit", fmt.Sprintf("sha256:%x", sha256.Sum256(kit))
		}, ".well-known/agent-skills/kit", "frontmatter has no description that is text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantProblem(t, check(t, foreignSite(t, elsewhere.URL, tc.edit), Options{}), tc.path, tc.want)
		})
	}

	// A value of the wrong type drops its entry only, as readers do.
	dir = foreignSite(t, elsewhere.URL, nil)
	index := readFile(t, dir, layout.V2Index)
	first := regexp.MustCompile(`"digest":"sha256:[0-9a-f]{64}"`).FindIndex(index)
	writeFile(t, dir, layout.V2Index, slices.Concat(index[:first[0]], []byte(`"digest":{"sha256":"x"}`), index[first[1]:]))
	rep = check(t, dir, Options{})
	wantProblem(t, rep, layout.V2Index, "should be a JSON string, not object")
	if rep.Foreign != "none" || rep.Checked.Skills != 1 || rep.Checked.Archives != 1 {
		t.Errorf("wrong type: foreign %q, checked %+v; want the archive's skill checked still", rep.Foreign, rep.Checked)
	}

	// Claiming skillpack as its generator, the same site is held to the
	// build's conventions.
	dir = foreignSite(t, elsewhere.URL, nil)
	edit(t, dir, layout.V2Index, `"skills"`, `"generator":"skillpack 1.0","skills"`)
	rep = check(t, dir, Options{})
	wantProblem(t, rep, ".well-known/agent-skills/pack-kit.tar.gz", "name does not carry its own digest")
	wantProblem(t, rep, ".well-known/agent-skills/pack-kit.tar.gz", "GNU header")
	wantProblem(t, rep, layout.V2Index, "outside the bundle")
	if rep.Foreign != "" {
		t.Errorf("foreign %q for skillpack's generator", rep.Foreign)
	}

	// A skillpack bundle whose index was replaced by one naming no
	// generator is held to its checksums.txt and build record still; so
	// is a folder that holds only the record.
	dir = copyBuilt(t)
	edit(t, dir, layout.V2Index, `"generator"`, `"x-generator"`)
	rep = check(t, dir, Options{})
	wantProblem(t, rep, layout.V2Index, "digest is")
	if err := os.Remove(filepath.Join(dir, layout.Checksums)); err != nil {
		t.Fatal(err)
	}
	rep = check(t, dir, Options{})
	wantProblem(t, rep, layout.V2Index, "digest is")
	if rep.Foreign != "" {
		t.Errorf("foreign %q for a skillpack bundle with its index replaced", rep.Foreign)
	}
}

// TestForeignLegacyIndex: a site serving only the v0.1 index, or a v0.1
// index (no $schema, entries with files) where the v0.2 one goes, is read
// as the skills CLI reads it: every file it lists fetched from
// <dir>/<name>/, SKILL.md's frontmatter read.
func TestForeignLegacyIndex(t *testing.T) {
	md := []byte("---\nname: drop\ndescription: Drops files.\n---\n")
	site := func(t *testing.T, dir, index string) string {
		root := t.TempDir()
		writeFile(t, root, dir+"/drop/SKILL.md", md)
		writeFile(t, root, dir+"/drop/refs/a.md", []byte("a"))
		writeFile(t, root, dir+"/index.json", []byte(index))
		return root
	}
	const good = `{"skills":[{"name":"drop","description":"Drops files.","files":["SKILL.md","refs/a.md"]}]}`
	for _, dir := range []string{layout.LegacyDir, layout.SkillsDir} {
		root := site(t, dir, good)
		for _, rep := range []*Report{check(t, root, Options{}), fetch(t, serve(t, root, nil).URL, Options{})} {
			wantOK(t, rep)
			if rep.Foreign != "none" || rep.Checked.Skills != 1 || rep.Checked.Files != 3 {
				t.Errorf("%s: %s: foreign %q, checked %+v; want 1 skill and 3 files read", dir, rep.Source, rep.Foreign, rep.Checked)
			}
		}
	}
	for _, tc := range []struct{ index, path, want string }{
		{`{"skills":[{"name":"drop","description":"Drops files.","files":["SKILL.md","refs/b.md"]}]}`, layout.LegacyDir + "/drop/refs/b.md", "missing"},
		{`{"skills":[{"name":"drop","description":"Drops files.","files":["refs/a.md"]}]}`, layout.V1Index, "its files list no SKILL.md; the skills CLI refuses the whole index"},
		{`{"skills":[{"name":"drop","description":"Drops files.","files":["SKILL.md","../x"]}]}`, layout.V1Index, `file "../x" is not a safe relative path`},
		{`{"skills":[{"name":"other","description":"Drops files.","files":["SKILL.md"]}]}`, layout.LegacyDir + "/other/SKILL.md", "missing"},
	} {
		wantProblem(t, check(t, site(t, layout.LegacyDir, tc.index), Options{}), tc.path, tc.want)
	}
	// A SKILL.md without a description is skipped by the CLI.
	root := site(t, layout.LegacyDir, good)
	writeFile(t, root, layout.LegacyDir+"/drop/SKILL.md", []byte("---\nname: drop\n---\n"))
	wantProblem(t, check(t, root, Options{}), layout.LegacyDir+"/drop/SKILL.md", "frontmatter has no description that is text")
}
