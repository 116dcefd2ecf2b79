package lint

import (
	"strings"
	"testing"

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
