package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/skill"
)

// Lint says of a skill what the build does with it: a frontmatter that MCP
// hosts refuse (skill.CheckMCP, by which the build leaves the skill out of
// the MCP documents) draws a finding that says so, and one they take draws
// none that does.
func TestMCPFindingsAgreeWithCheckMCP(t *testing.T) {
	says := func(f Finding) bool {
		return strings.Contains(f.Message, "out of the MCP documents") || strings.Contains(f.Message, "refuses a whole skills/list")
	}
	for i, yaml := range []string{
		"metadata:\n",
		"metadata: ~\n",
		"metadata:\n  version: 1.0\n",
		"metadata:\n  count: 28\n",
		"metadata:\n  beta: true\n",
		"metadata:\n  none:\n",
		"metadata:\n  tags: [a, b]\n",
		"metadata:\n  openclaw:\n    emoji: x\n",
		"metadata: {\"openclaw\": {\"emoji\": \"x\"}}\n",
		"compatibility: \"\"\n",
		"compatibility: 3\n",
		"compatibility: " + strings.Repeat("x", 501) + "\n",
		"metadata:\n  summary: 'one\n    two'\n",
		"compatibility: \"Python 3,\n  and uv\"\n",
		"metadata:\n  summary: |2\n      indented\n",
		"description-extra: >-2\n    text\n",
		"allowed-tools: [Read,\n  Bash]\n",
		"x-tags: [a,\n  b]\n",
		"x-map: {a: b,\n  c: d}\n",
		"x-map: {a}\n",
		"x-map: {a: b, c: }\n",
		"x-list: [a: b]\n",
		"x-deep: " + strings.Repeat("[", 33) + strings.Repeat("]", 33) + "\n",
		// Taken:
		"x-deep: " + strings.Repeat("[", 32) + strings.Repeat("]", 32) + "\n",
		"allowed-tools: [Read, Bash]\n",
		"x-map: {a: b, c: [d, e]}\n",
		"x-map: {a: null}\n",
		"metadata:\n  summary: |\n    text\n",
		"metadata:\n  summary: 'it''s one line'\n",
		"metadata:\n  updated: 2026-02-06\n",
		"metadata:\n  version: \"1.0\"\n  mode: yes\n",
		"metadata: {}\n",
		"compatibility: \"   \"\n",
		"compatibility: 2026-02-06\n",
		"compatibility: " + strings.Repeat("é", 500) + "\n",
	} {
		dir := t.TempDir()
		name := fmt.Sprintf("case-%d", i)
		doc := "---\nname: " + name + "\ndescription: A test skill of one frontmatter case. Use it in tests.\n" + yaml + "---\n# Test\n\nUse it in tests.\n"
		must(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(doc), 0o644))
		res, err := Run([]string{dir}, Options{Base: dir})
		must(t, err)
		var said []string
		for _, f := range res.Findings {
			if says(f) {
				said = append(said, f.Rule+": "+f.Message)
			}
		}
		off := skill.Parse([]byte(doc)).CheckMCP(1, int64(len(doc)))
		switch {
		case off != nil && len(said) == 0:
			t.Errorf("%q: CheckMCP refuses it (%s), and no finding says so: %v", yaml, off.Reason, res.Findings)
		case off == nil && len(said) > 0:
			t.Errorf("%q: CheckMCP takes it, and findings say it is left out: %v", yaml, said)
		}
	}
}

// Past the Vercel skills CLI's 1000 files, which it skips without a word,
// a skill's file count is an error; past MCP's 512 a warning that the
// build leaves it out of the MCP documents.
func TestTooManyFilesForClients(t *testing.T) {
	s := &skill.Skill{Dir: t.TempDir(), File: "SKILL.md"}
	for _, c := range []struct {
		n    int
		sev  Severity // as the check reports it; 0 is the rule's own
		want string
	}{
		{512, 0, ""},
		{600, 0, "the skill publishes 600 files; MCP hosts accept at most 512 per skill, so the build leaves it out of the MCP documents"},
		{1000, 0, "the skill publishes 1000 files; MCP hosts accept"},
		{1001, Error, "the skill publishes 1001 files; the Vercel skills CLI, installing from the bundle's index, skips a skill of more than 1000 without a word"},
	} {
		files := &skill.Files{}
		for i := range c.n {
			files.Files = append(files.Files, skill.File{Path: fmt.Sprintf("f%04d.svg", i)})
		}
		got := testPass(t, "skill-too-many-files", s, files)
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%d files: %v", c.n, got)
		case c.want != "" && (len(got) != 1 || got[0].Severity != c.sev || !strings.Contains(got[0].Message, c.want)):
			t.Errorf("%d files: %+v, want one finding at %v with %q", c.n, got, c.sev, c.want)
		}
	}
}
