package serve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// A skill the MCP documents leave out, which MCP hosts would refuse
// (OpenClaw's nested metadata), is served over HTTP as every other skill
// is, its files, legacy copies and archives, and over MCP not at all.
func TestServeSkillOffMCP(t *testing.T) {
	skills, _ := newSkills(t)
	dir := filepath.Join(skills, "weather")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: weather\ndescription: Get the weather of a city. Use when the user asks about weather.\n" +
		"metadata: {\"openclaw\": {\"emoji\": \"x\", \"requires\": {\"bins\": [\"curl\"]}}}\n---\n# Weather\n\nRun curl wttr.in.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	res, err := build.Run([]string{skills}, build.Options{Out: dist})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MCPExcluded) != 1 || res.MCPExcluded[0].Name != "weather" {
		t.Fatalf("MCPExcluded = %v", res.MCPExcluded)
	}
	b := open(t, dist)
	if got, want := b.Tally(), "6 skills, 1 of them not over MCP, whose hosts would refuse them"; got != want {
		t.Errorf("Tally() = %q, want %q", got, want)
	}
	for _, e := range b.skills {
		if e.uri == layout.SkillURI("weather", layout.EntryFile) {
			t.Error("skills/list offers the skill MCP hosts refuse")
		}
	}
	if b.resource(layout.SkillURI("weather", layout.EntryFile)) != nil {
		t.Error("resources/read serves the skill MCP hosts refuse")
	}
	base, _ := start(t, dist, Options{})
	paths := []string{layout.SkillFile("weather", layout.EntryFile), layout.LegacyFile("weather", layout.EntryFile)}
	data, _ := os.ReadFile(filepath.Join(dist, filepath.FromSlash(layout.BuildRecord)))
	rec, err := layout.DecodeRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rec.Skills {
		if s.Name == "weather" {
			a := s.Archives()
			paths = append(paths, a[0].Path, a[1].Path)
		}
	}
	for _, p := range paths {
		if resp, _ := get(t, base+"/"+p); resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", p, resp.StatusCode)
		}
	}
}
