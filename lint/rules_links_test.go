package lint

import (
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/skill"
)

// FuzzCould checks that the text could passes over names nothing read
// would find: each file's verdict is the same whether read or not.
func FuzzCould(f *testing.F) {
	files := "references/a.md\nreferences/deep/b.md\nscripts/run.py\nscripts/run\nscripts/lib/util.js\nscripts/ooxml/__init__.py\nscripts/ooxml/validators.py\nassets/fonts/a.ttf"
	for _, c := range []struct{ rel, text string }{
		{"references/a.md", "See references/deep/b.md and deep/b.md."},
		{"scripts/run.py", "from ooxml import validators\nimport ooxml.validators as v\nopen(Path(__file__).parent / \"fonts\")"},
		{"scripts/main.js", "require('./lib/util') and './lib/util.js'"},
		{"references/a.md", "Run `python -m ooxml.validators` or -m ooxml, then assets/fonts/ and x.py."},
		{"scripts/x.sh", "cat 'fonts'"},
		{"references/a.md", "Nothing here names a file: the run, util and fonts are words."},
	} {
		f.Add(files, c.rel, c.text)
	}
	// Names only a module or code has: a package's __init__.py, a folder
	// named x.py, a folder in quotes; a folder by its name and "/".
	f.Add("scripts/ooxml/__init__.py\nscripts/ooxml/validators.py", "references/a.md", "python -m ooxml")
	f.Add("scripts/x/tool.py/run.txt", "references/a.md", "python -m x.tool")
	f.Add("assets/fonts/a.ttf", "scripts/x.py", "open(root / 'fonts')")
	f.Add("assets/fonts/x.ttf", "references/a.md", "see fonts/")
	// A file by its stem: as a module, and as JavaScript imports it.
	f.Add("scripts/unpack.py", "references/a.md", "python -m unpack")
	f.Add("scripts/util.js", "scripts/main.js", "require('./util')")
	f.Fuzz(func(t *testing.T, list, rel, text string) {
		var fs []skill.File
		for p := range strings.SplitSeq(list, "\n") {
			fs = append(fs, skill.File{Path: p})
		}
		read, maybe := newRefIndex(fs), newRefIndex(fs)
		read.entry, maybe.entry = "SKILL.md", "SKILL.md"
		read.read(rel, []byte(text))
		if maybe.could(rel, []byte(text)) {
			maybe.read(rel, []byte(text))
		}
		read.settled()
		maybe.settled()
		for i, f := range read.files {
			if read.referenced(i) != maybe.referenced(i) {
				t.Fatalf("%s: referenced %v when %s is read, %v when could says %v", f, read.referenced(i), rel, maybe.referenced(i), maybe.could(rel, []byte(text)))
			}
		}
	})
}

// A client's copy of a plugin's skill (codex-skills/, which the Codex
// manifest declares) is published only in the plugin's archives, which
// hold the twin's files it links to: no link-outside, where
// racecraft-lab's plugin had 48 ("needs skill coach installed beside it",
// said to coach). A link out of the plugin is still one.
func TestLinkOutsideClientCopy(t *testing.T) {
	dir := t.TempDir()
	md := "---\nname: coach\ndescription: Coaches spec-driven development step by step. Use when planning a feature.\n---\n"
	testtool.WriteTree(t, dir, map[string]string{
		".claude-plugin/marketplace.json":         `{"name":"m","owner":{"name":"x"},"plugins":[{"name":"pro","source":"./pro"}]}`,
		"pro/.claude-plugin/plugin.json":          `{"name":"pro"}`,
		"pro/.codex-plugin/plugin.json":           `{"name":"pro","skills":"./codex-skills/"}`,
		"pro/skills/coach/SKILL.md":               md + "Follow [the protocol](references/protocol.md).\n",
		"pro/skills/coach/references/protocol.md": "# Protocol\n",
		"pro/codex-skills/coach/SKILL.md":         md + "Follow [the protocol](../../skills/coach/references/protocol.md) and [the notes](../../../NOTES.md).\n",
		"NOTES.md":                                "# Notes\n",
	})
	var got []string
	for _, f := range lintDir(t, dir, Options{}).Findings {
		if f.Rule == "link-outside" {
			got = append(got, f.Path+": "+f.Message)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "pro/codex-skills/coach/SKILL.md") || !strings.Contains(got[0], "NOTES.md") {
		t.Errorf("link-outside findings %q; want the one to NOTES.md alone", got)
	}
}
