package lint

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/skillpack/skillpack/skill"
)

func TestMarkdownLinks(t *testing.T) {
	src := "# T\r\n" +
		"See [a](a.md) and ![i](i.png), [é](e.md).\r\n" + // CRLF, columns in characters
		"- item [l](l.md)\n" +
		"  1. [r][id] [id] [id][]\n" +
		"> [q](<q q.md> \"t\")\n" +
		"\n" +
		"   [id]: ref\\_x.md\n" +
		"[unused]: u.md\n" +
		"`[code](c.md)` <https://x.example/auto.md> [esc](x&amp;y.md)\n"
	m := parseMarkdown([]byte(src))
	var got []string
	for _, l := range m.links {
		line, col := m.pos(l.off)
		got = append(got, fmt.Sprintf("%d:%d %s", line, col, l.dest))
	}
	want := []string{
		"2:5 a.md", "2:19 i.png", "2:32 e.md",
		"3:8 l.md",
		"7:4 ref_x.md", // three uses of one definition: once, at the definition
		"5:3 q q.md",
		"9:44 x&y.md",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Positions asked for out of order still come out right.
	for _, c := range []struct{ off, line, col int }{{0, 1, 1}, {strings.Index(src, "[é]") + len("[é]"), 2, 35}, {strings.Index(src, "[a]"), 2, 5}, {len(src), 10, 1}} {
		if line, col := m.pos(c.off); line != c.line || col != c.col {
			t.Errorf("pos(%d) = %d:%d, want %d:%d", c.off, line, col, c.line, c.col)
		}
	}
}

func TestMarkdownFences(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []int // offsets of unclosed fences
	}{
		{"```\nx\n```\n", nil},
		{"```\nx\n", []int{0}},
		{"````\nx\n```\n", []int{0}},
		{"~~~\nx\n~~~~~\n", nil},
		{"- a\n\n  ```\n  x\nb\n", []int{7}},
		{"> ```\n> x\n> ```\n", nil},
		{"```x`y\n", nil}, // not a fence: backtick in the info string
		{"    ```\n", nil},
	} {
		m := parseMarkdown([]byte(c.src))
		if fmt.Sprint(m.fences) != fmt.Sprint(c.want) {
			t.Errorf("%q: unclosed fences at %v, want %v", c.src, m.fences, c.want)
		}
	}
}

func TestEachWord(t *testing.T) {
	var got []string
	eachWord([]byte("Run `python scripts/a.py`, then scripts/b.sh. See (assets/c.png) and\n"+
		"\"references/d.md\": ok; ${CLAUDE_SKILL_DIR}/e.md\n...\ncafé.md\n"+
		"见 references/详细.md。运行 scripts/x.py，然后（assets/y.png）"), func(w []byte, _ int, nl bool) {
		if nl {
			got = append(got, "|")
		}
		got = append(got, string(w))
	})
	want := "| Run python scripts/a.py then scripts/b.sh See assets/c.png and | references/d.md ok " +
		"CLAUDE_SKILL_DIR /e.md | . | café.md | 见 references/详细.md 运行 scripts/x.py 然后 assets/y.png"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestRefIndex(t *testing.T) {
	var files []skill.File
	for _, p := range []string{
		"scripts/run", "scripts/fill.py", "scripts/helpers.py", "scripts/ooxml/__init__.py",
		"scripts/ooxml/validators.py", "scripts/lib/util.js", "references/api/auth.md",
		"assets/templates/x.html", "assets/fonts/a.ttf", "assets/LICENSE", "notes.md", "scripts/.gitignore",
	} {
		files = append(files, skill.File{Path: p})
	}
	for _, c := range []struct {
		path, text string
		want       []string // the files referenced afterwards
	}{
		{"SKILL.md", "Run scripts/run and `fill.py`.", []string{"scripts/run", "scripts/fill.py"}},
		{"SKILL.md", "run and LICENSE and util and __init__.py", nil},
		{"SKILL.md", "see api/auth.md; fonts are in fonts/", []string{"references/api/auth.md", "assets/fonts/a.ttf"}},
		{"SKILL.md", "see the fonts folder", nil},
		{"scripts/fill.py", "import helpers\nfrom ooxml.validators import check\nopen('templates/x.html')",
			[]string{"scripts/helpers.py", "scripts/ooxml/validators.py", "scripts/ooxml/__init__.py", "assets/templates/x.html"}},
		{"scripts/fill.py", "from . import helpers", []string{"scripts/helpers.py"}},
		{"scripts/fill.py", "import ooxml", []string{"scripts/ooxml/__init__.py"}},
		{"SKILL.md", "python -m ooxml.validators", []string{"scripts/ooxml/validators.py", "scripts/ooxml/__init__.py"}},
		{"scripts/x.js", "const u = require('./lib/util')", []string{"scripts/lib/util.js"}},
		{"scripts/fill.py", "# fill.py fills forms", nil}, // naming itself
		{"SKILL.md", "examples are in assets/", []string{"assets/templates/x.html", "assets/fonts/a.ttf", "assets/LICENSE"}},
		{"SKILL.md", "the scripts folder", nil},
		{"SKILL.md", "python scripts/fill", []string{"scripts/fill.py"}}, // the extension forgotten
		{"scripts/fill.py", `d = Path(__file__).parent / "ooxml"`, []string{"scripts/ooxml/__init__.py", "scripts/ooxml/validators.py"}},
		{"SKILL.md", `the "ooxml" format`, nil}, // a folder in quotes counts in code only
	} {
		x := newRefIndex(files)
		x.entry = "SKILL.md"
		x.read(c.path, []byte(c.text))
		x.settled()
		var got []string
		for i, f := range x.files {
			if x.referenced(i) {
				got = append(got, f)
			}
		}
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q references %v, want %v", c.path, c.text, got, c.want)
		}
	}
}

// TestMarkdownHostile parses inputs on which goldmark's work grows faster
// than their size. Without skill's nesting limit and inline budget each
// would take minutes; the test's own timeout is the assertion that they
// do not, and the budget must leave a large real document fully parsed.
func TestMarkdownHostile(t *testing.T) {
	const size = 256 << 10
	for _, c := range []struct {
		unit    string
		partial bool
	}{
		{">", false},
		{"> - ", false},
		{"[a](x\n(", true},
		{"[a]: b\n", true},
		{"[", true},
		{"[x] *a _b", true},
	} {
		src := bytes.Repeat([]byte(c.unit), size/len(c.unit))
		if m := parseMarkdown(src); m.partial != c.partial {
			t.Errorf("%q: partial = %v, want %v", c.unit, m.partial, c.partial)
		}
	}
	var b strings.Builder
	var indent strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nText with [a link](references/a%d.md), `code` and [a ref][r%d].\n\n"+
			"- item ![img](assets/i.png)\n\n```sh\necho %d\n```\n\n[r%d]: references/r.md\n\n", i, i, i, i, i)
		if indent.Len() < size {
			indent.WriteString(strings.Repeat(" ", 2*i) + "- [x](x.md)\n")
		}
	}
	m := parseMarkdown([]byte(b.String()))
	if want := 3 * strings.Count(b.String(), "## Part"); m.partial || len(m.links) != want || len(m.fences) != 0 {
		t.Errorf("1 MiB document: partial %v, %d links, %d unclosed fences; want all %d links, no fences",
			m.partial, len(m.links), len(m.fences), want)
	}
	// Lists nested by indentation alone: deeper items are text, whose
	// links are still found.
	if m := parseMarkdown([]byte(indent.String())); len(m.links) != strings.Count(indent.String(), "[x]") {
		t.Errorf("deep list: %d links, want %d", len(m.links), strings.Count(indent.String(), "[x]"))
	}
}

// FuzzMarkdownShortcuts checks the parser's shortcuts (linkless and
// definitions) against goldmark without them: the same links, images,
// reference definitions and fences, at the same places.
func FuzzMarkdownShortcuts(f *testing.F) {
	full := parser.NewParser(parser.WithBlockParsers(blockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
	for _, s := range []string{
		"# T\n\nText.\n\n[a](a.md) ![i](i.png)\n",
		"Heading\n===\n[r]: x.md\n\n[r]\n",
		"[r]: x.md\n===\n- a\n- [b][r]\n\n> quote\n> [c](c.md)\nlazy [d](d.md)\n",
		"```\n[no](link)\n```\n\n    [code](c.md)\n\n<div>\n[html](h.md)\n</div>\n\n`[span](s.md)` [a\n](b)\n",
		"- ```\n  x\n\ntext [late](l.md)\n[ref]:\n  <y z.md>\n  \"title\"\n",
		"\\[not](a link) &#91;no](link) [a]\n(b)\n\n*[e](e.md)* <https://x/[y](z)>\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if got, want := markdownNodes(mdParser, src), markdownNodes(full, src); got != want {
			t.Fatalf("with shortcuts:\n%s\nwithout:\n%s", got, want)
		}
	})
}

// markdownNodes lists the nodes that parseMarkdown reads.
func markdownNodes(p parser.Parser, src []byte) string {
	var b strings.Builder
	ast.Walk(p.Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		ref := func(r *ast.ReferenceLink) string {
			if r == nil {
				return ""
			}
			return string(r.Value)
		}
		switch n := n.(type) {
		case *ast.Link:
			fmt.Fprintf(&b, "link %d %q %q\n", n.Pos(), n.Destination, ref(n.Reference))
		case *ast.Image:
			fmt.Fprintf(&b, "image %d %q %q\n", n.Pos(), n.Destination, ref(n.Reference))
		case *ast.LinkReferenceDefinition:
			fmt.Fprintf(&b, "definition %d %q %q\n", n.Pos(), n.Label, n.Destination)
		case *ast.FencedCodeBlock:
			_, closed := n.AttributeString(string(closedFence))
			fmt.Fprintf(&b, "fence %d %v\n", n.Pos(), closed)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// FuzzFences runs code-fence-unclosed on any body (fences inside HTML
// blocks, lists, quotes, nested): it never panics, and every finding is
// at a line of the file.
func FuzzFences(f *testing.F) {
	for _, s := range []string{
		"```\ncode\n",
		"<Good>\n```ts\nx\n\ny\n```\n</Good>\n\n```ts\nz\n```\n",
		"- ```\n  x\n> ~~~\n> y\n````md\n```bash\n```\n````\n",
		"<div>\n~~~\n\n~~~~\n```py\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append([]byte("---\nname: x\ndescription: y\n---\n"), body...)
		lines := bytes.Count(data, []byte("\n")) + 1
		p := &Pass{Skill: &skill.Skill{File: skill.FileName}, Doc: skill.Parse(data), rule: Lookup("code-fence-unclosed")}
		p.report = func(_ *Rule, fd Finding) {
			if fd.Line < 0 || fd.Line > lines || fd.Message == "" || fd.Fix == "" {
				t.Fatalf("finding at line %d of %d: %q (fix %q)", fd.Line, lines, fd.Message, fd.Fix)
			}
		}
		checkFences(p)
	})
}
