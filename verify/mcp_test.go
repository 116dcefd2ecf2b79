package verify

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/skill"
)

// refusedTree writes the examples and a skill of each kind MCP hosts
// refuse (skill.CheckMCP) to a new folder: the skills' names, and the
// folder.
func refusedTree(t *testing.T) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skills")
	if err := os.CopyFS(dir, os.DirFS("../examples")); err != nil {
		t.Fatal(err)
	}
	write := func(rel string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	md := func(name, extra string) {
		write(name+"/SKILL.md", []byte("---\nname: "+name+"\ndescription: A skill MCP hosts refuse. Use it in tests.\n"+extra+"---\n# Test\n\nUse it in tests.\n"))
	}
	md("null-metadata", "metadata:\n")
	md("long-compat", "compatibility: "+strings.Repeat("x", 501)+"\n")
	md("nested", "metadata:\n  openclaw:\n    emoji: x\n")
	md("scalar", "metadata:\n  version: 1.0\n")
	md("many-files", "")
	for i := range skill.MCPMaxFiles {
		write(fmt.Sprintf("many-files/icons/%03d.svg", i), []byte("<svg/>\n"))
	}
	md("base64", "")
	bin := make([]byte, 12<<20+512<<10) // 12.5 MiB: 16.7 MiB as base64
	rand.Read(bin)
	write("base64/assets/photo.png", bin)
	return dir, []string{"base64", "long-compat", "many-files", "nested", "null-metadata", "scalar"}
}

// buildRefused builds refusedTree's skills with null metadata a warning,
// as a project may set it.
func buildRefused(t *testing.T, skills string) string {
	t.Helper()
	dist := filepath.Join(t.TempDir(), "dist")
	set := lint.Settings{Severity: map[string]lint.Severity{"metadata-format": lint.Warning}}
	if _, err := build.Run([]string{skills}, build.Options{Out: dist, Lint: lint.Options{Settings: set}}); err != nil {
		t.Fatal(err)
	}
	return dist
}

// listEveryone renders the MCP documents of the bundle in dir as a build
// did before it left out the skills MCP hosts refuse: every skill listed.
func listEveryone(t *testing.T, dir string) {
	t.Helper()
	rec, err := layout.DecodeRecord(readFile(t, dir, layout.BuildRecord))
	if err != nil {
		t.Fatal(err)
	}
	var skills layout.List
	for _, s := range rec.Skills {
		d := skill.Parse(readFile(t, dir, layout.SkillFile(s.Name, layout.EntryFile)))
		fm, err := d.FrontmatterJSON()
		if err != nil {
			t.Fatal(err)
		}
		desc, _ := d.String("description")
		skills = append(skills, layout.Skill{Name: s.Name, Description: desc, Frontmatter: fm, Files: s.Files,
			TarGz: s.TarGz, Zip: s.Zip, ContentDigest: s.ContentDigest})
	}
	mcp := map[string]bool{layout.MCPSkills: true, layout.MCPIndex: true, layout.MCPResources: true}
	_, err = layout.Plan(skills, layout.Options{Generator: build.Generator(), Render: func(p string, write func(io.Writer) error) (layout.Rendered, error) {
		if !mcp[p] {
			return layout.Render(io.Discard, write)
		}
		f, err := os.Create(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return layout.Rendered{}, err
		}
		defer f.Close()
		return layout.Render(f, write)
	}})
	if err != nil {
		t.Fatal(err)
	}
	reseal(t, dir)
}

// A bundle whose MCP documents list a skill MCP hosts refuse fails verify,
// which names the skill and why; the build leaves such skills out, and its
// bundle verifies. A skill MCP hosts take is still missed when left out.
func TestVerifyMCPRefusal(t *testing.T) {
	skills, refused := refusedTree(t)
	dist := buildRefused(t, skills)
	wantOK(t, check(t, dist, Options{}))

	old := filepath.Join(t.TempDir(), "old")
	if err := os.CopyFS(old, os.DirFS(dist)); err != nil {
		t.Fatal(err)
	}
	listEveryone(t, old)
	rep := check(t, old, Options{})
	for name, why := range map[string]string{
		"null-metadata": "metadata has no value (YAML null)",
		"long-compat":   "compatibility is 501 characters long",
		"nested":        "metadata.openclaw is a mapping",
		"scalar":        "metadata.version is the number 1.0",
		"many-files":    "the skill has 513 files",
		"base64":        "as MCP hosts receive it (binary files base64-encoded)",
	} {
		wantProblem(t, rep, layout.MCPSkills, fmt.Sprintf("skill %q: MCP hosts refuse its entry: ", name), why, "mcp/skills.json, mcp/index.json, mcp/resources.json list it")
	}
	if len(rep.Problems) != len(refused) {
		t.Errorf("%d problems, want one a skill:\n%s", len(rep.Problems), problems(rep))
	}

	// The MCP documents of the new build, with a skill that hosts take
	// taken out, lack it.
	edit(t, dist, layout.MCPIndex, `"name": "commit-messages"`, `"name": "gone"`)
	reseal(t, dist)
	rep = check(t, dist, Options{})
	wantProblem(t, rep, layout.MCPIndex, `skill "commit-messages" of .well-known/agent-skills/index.json is missing`)
}
