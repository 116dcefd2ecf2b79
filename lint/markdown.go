package lint

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/skillpack/skillpack/skill"
)

// markdown is one Markdown file parsed once per skill and shared by the
// body and link rules through Pass.Memo.
type markdown struct {
	lines               // src, and positions in it
	links   []mdLink    // link and image destinations, in source order
	fences  []int       // byte offsets of fenced code blocks that are never closed
	ends    []int       // where each of them ends: the document's end, or its list item's or quote's
	nested  []nested    // fences meant to open a block inside a block, which they end instead
	html    []swallowed // fence lines taken into an HTML block
	partial bool        // links were not parsed: see skill.InlineCostly
}

// mdLink is a link or image destination as written in the source.
type mdLink struct {
	dest string // backslash escapes and entities resolved, not yet URL-decoded
	off  int    // where to report it: the link's "[" or "![", or the reference definition it uses
}

// nested is a fence line inside a fenced code block, of the block's
// character and at least as long, with an info string (```bash inside a
// ``` block). CommonMark reads it as a line of code, since a closing fence
// carries nothing after its run, and the next fence line that could close
// the block closes it: the author meant a block inside the block, and every
// fence after it pairs up with the wrong one.
type nested struct {
	off   int    // the inner fence's first fence character
	fence string // the inner fence as written, run and info word: "```bash"
	outer int    // the outer block's opening fence
	close int    // the start of the line that closes the outer block
	want  int    // the fence length that would hold every line of the block
}

// swallowed is a fence line taken into an HTML block (a <Good> line
// right above it, with no blank line between): it opens no block, so the
// fence meant to close it opens one.
type swallowed struct {
	html, fence int // the HTML block's first line, and the fence line's first fence character
}

// closedFence marks fenced code blocks that met their closing line.
var closedFence = []byte("skillpack-closed")

// fenceParser is goldmark's fenced code block parser, made to remember which
// blocks met a closing fence: goldmark ends a block at the end of the
// document or of its container silently, exactly as at a closing line.
type fenceParser struct{ parser.BlockParser }

func (f fenceParser) Continue(n ast.Node, r text.Reader, pc parser.Context) parser.State {
	s := f.BlockParser.Continue(n, r, pc)
	if s&parser.Close != 0 {
		n.SetAttribute(closedFence, true)
	}
	return s
}

// linkless spares goldmark's inline pass the blocks that cannot hold a
// link: most paragraphs and headings of a document, whose text the pass
// would otherwise read a byte at a time and cut into nodes, for half the
// time of a parse. A link or image starts with "[" and lies inside one
// block, and reference definitions were taken out of paragraphs while
// blocks were parsed, so a block without "[" adds no link however it is
// read; its lines are emptied, and the inline pass finds nothing to read.
//
// goldmark parses every block before any inline and offers no hook in
// between; a CloseBlocker is called after each block's inline pass, the
// first time after the first block's, so it prunes then, once per parse.
type linkless struct{}

var linklessDone = parser.NewContextKey()

func (linkless) Trigger() []byte { return nil }

func (linkless) Parse(ast.Node, text.Reader, parser.Context) ast.Node { return nil }

func (linkless) CloseBlock(parsed ast.Node, r text.Reader, pc parser.Context) {
	if pc.Get(linklessDone) != nil {
		return
	}
	pc.Set(linklessDone, true)
	root := parsed
	for root.Parent() != nil {
		root = root.Parent()
	}
	src := r.Source()
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if n == parsed {
			return ast.WalkSkipChildren, nil // the only block with inlines yet
		}
		if entering && !n.IsRaw() && !bracketed(n.Lines(), src) {
			n.Lines().Clear()
		}
		return ast.WalkContinue, nil
	})
}

// bracketed reports whether a block's lines hold a "[".
func bracketed(lines *text.Segments, src []byte) bool {
	for i := range lines.Len() {
		if s := lines.At(i); bytes.IndexByte(src[s.Start:s.Stop], '[') >= 0 {
			return true
		}
	}
	return false
}

// definitions is goldmark's transformer that takes link reference
// definitions out of paragraphs, run only on paragraphs that hold a "[":
// a definition starts with one, and the transformer sets up a reader for
// every paragraph before it looks.
type definitions struct{ parser.ParagraphTransformer }

func (d definitions) Transform(n *ast.Paragraph, r text.Reader, pc parser.Context) {
	// A paragraph without lines is the transformer's to drop.
	if n.Lines().Len() == 0 || bracketed(n.Lines(), r.Source()) {
		d.ParagraphTransformer.Transform(n, r, pc)
	}
}

// newParser builds a plain CommonMark parser (the rules only need links,
// reference definitions and fences), or one that only finds blocks. A
// goldmark parser keeps no state between calls once built, so one serves
// every goroutine.
func newParser(inline bool) parser.Parser {
	opts := []parser.Option{parser.WithBlockParsers(blockParsers()...)}
	if inline {
		transformers := parser.DefaultParagraphTransformers()
		for i, t := range transformers {
			if t.Value == parser.LinkReferenceParagraphTransformer {
				transformers[i].Value = definitions{parser.LinkReferenceParagraphTransformer}
			}
		}
		opts = append(opts,
			parser.WithInlineParsers(append(parser.DefaultInlineParsers(), util.Prioritized(linkless{}, 0))...),
			parser.WithParagraphTransformers(transformers...))
	}
	return parser.NewParser(opts...)
}

// blockParsers are goldmark's, bounded as skill.MarkdownBlocks says, and
// made to mark closed fences.
func blockParsers() []util.PrioritizedValue {
	blocks := skill.MarkdownBlocks()
	for i, b := range blocks {
		if b.Value == parser.NewFencedCodeBlockParser() {
			blocks[i].Value = fenceParser{b.Value.(parser.BlockParser)}
		}
	}
	return blocks
}

var (
	mdParser    = newParser(true)
	blockParser = newParser(false)
)

// parseMarkdown parses src and keeps what the rules need of it, so that the
// tree itself can be dropped.
func parseMarkdown(src []byte) *markdown {
	m := &markdown{lines: lines{src: src}}
	p := mdParser
	if skill.InlineCostly(src) {
		p, m.partial = blockParser, true
	}
	root := p.Parse(text.NewReader(src))

	// A reference link takes its destination from a definition; a broken
	// definition is one mistake however many links use it, so it is
	// reported once, at the definition.
	defs := map[string]*ast.LinkReferenceDefinition{}
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if d, ok := n.(*ast.LinkReferenceDefinition); ok && entering {
			if k := util.ToLinkReference(d.Label); defs[k] == nil {
				defs[k] = d // the first definition wins, as in CommonMark
			}
		}
		return ast.WalkContinue, nil
	})
	used := map[*ast.LinkReferenceDefinition]bool{}
	add := func(n ast.Node, dest []byte, ref *ast.ReferenceLink) {
		off := n.Pos()
		if ref != nil {
			if d := defs[util.ToLinkReference(ref.Value)]; d != nil {
				if used[d] {
					return
				}
				used[d] = true
				off = d.Pos()
			}
		}
		m.links = append(m.links, mdLink{dest: unescape(dest), off: off})
	}
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			add(n, n.Destination, n.Reference)
		case *ast.Image:
			add(n, n.Destination, n.Reference)
		case *ast.HTMLBlock:
			lines := n.Lines()
			for i := 1; i < lines.Len(); i++ {
				seg := lines.At(i)
				line := src[seg.Start:seg.Stop]
				indent := len(line) - len(bytes.TrimLeft(line, " "))
				if indent <= 3 && indent < len(line) && (line[indent] == '`' || line[indent] == '~') && fenceRun(line[indent:]) >= 3 {
					m.html = append(m.html, swallowed{html: lines.At(0).Start, fence: seg.Start + indent})
					break
				}
			}
		case *ast.FencedCodeBlock:
			if _, ok := n.AttributeString(string(closedFence)); ok {
				if nf, ok := nestedFence(src, n); ok {
					m.nested = append(m.nested, nf)
				}
			} else {
				end := n.Pos() + max(bytes.IndexByte(src[n.Pos():], '\n'), 0) // its opening line
				if l := n.Lines(); l.Len() > 0 {
					end = l.At(l.Len() - 1).Stop
				}
				m.fences, m.ends = append(m.fences, n.Pos()), append(m.ends, end)
			}
		}
		return ast.WalkContinue, nil
	})
	return m
}

// nestedFence finds the first fence line inside a closed fenced code
// block that was meant to open a block inside it (see nested).
func nestedFence(src []byte, n *ast.FencedCodeBlock) (nested, bool) {
	lines := n.Lines()
	open := src[n.Pos():]
	c, size := open[0], fenceRun(open)
	var nf nested
	found := false
	for i := range lines.Len() {
		seg := lines.At(i)
		line := src[seg.Start:seg.Stop]
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		if indent > 3 || indent == len(line) || line[indent] != c {
			continue
		}
		run := fenceRun(line[indent:])
		if run < size {
			continue
		}
		nf.want = max(nf.want, run+1)
		info := bytes.TrimSpace(line[indent+run:])
		if found || len(info) == 0 || c == '`' && bytes.IndexByte(info, '`') >= 0 {
			continue
		}
		word, _, _ := bytes.Cut(info, []byte(" "))
		nf.off, nf.fence, nf.outer = seg.Start+indent, string(line[indent:indent+run])+string(word), n.Pos()
		nf.close = lines.At(lines.Len() - 1).Stop
		found = true
	}
	return nf, found
}

// fenceRun is how many times a fence line's first character repeats at
// its start.
func fenceRun(b []byte) int {
	n := 0
	for n < len(b) && b[n] == b[0] {
		n++
	}
	return n
}

// unescape resolves what CommonMark resolves in a destination before it
// becomes a URL: backslash escapes and character references.
func unescape(dest []byte) string {
	return string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(dest))))
}

// bodyMarkdown is the parsed body of the skill's SKILL.md, or nil when
// there is no readable body.
func bodyMarkdown(p *Pass) *markdown {
	if p.Doc == nil || p.Doc.Body == nil {
		return nil
	}
	return p.Memo("body:markdown", func() any { return parseMarkdown(p.Doc.Body) }).(*markdown)
}

// fileMarkdown is another Markdown file of the skill, parsed, or nil when it
// cannot be read.
func fileMarkdown(p *Pass, i int) *markdown {
	f := p.Files.Files[i]
	return p.Memo("markdown:"+f.Path, func() any {
		c := p.Content(f)
		if c.Err != nil {
			return (*markdown)(nil)
		}
		return parseMarkdown(c.Data)
	}).(*markdown)
}

// isMarkdown reports whether a path names a Markdown file.
func isMarkdown(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// skillLink is a link of SKILL.md, classified.
type skillLink struct {
	mdLink
	kind skill.LinkKind
	path string // for skill.LinkInside and skill.LinkOutside: the path relative to the skill folder
}

// skillLinks returns the classified links of SKILL.md's body, shared by the
// link rules.
func skillLinks(p *Pass) []skillLink {
	md := bodyMarkdown(p)
	if md == nil {
		return nil
	}
	return p.Memo("body:links", func() any {
		// SKILL.md sits at the top of the skill, so its links resolve from "".
		out := make([]skillLink, 0, len(md.links))
		for _, l := range md.links {
			k, t := resolveLink(p, "", l.dest)
			out = append(out, skillLink{mdLink: l, kind: k, path: t})
		}
		return out
	}).([]skillLink)
}

// resolveLink is resolve for a file of p's skill, with a link through
// ${CLAUDE_PLUGIN_ROOT} followed into the enclosing plugin: it is
// skill.LinkInside when it lands in the skill, skill.LinkNone when it names a file
// of the plugin or no plugin is found (lint cannot tell what the client
// will expand it to), and skill.LinkPlugin, with its path below the plugin,
// when the plugin has no such file.
func resolveLink(p *Pass, dir, dest string) (skill.LinkKind, string) {
	k, t := skill.ResolveLink(dir, dest)
	if k != skill.LinkPlugin {
		return k, t
	}
	// The plugin holding the skill, as discovery found it (skill.Skill.Plugin).
	root, err := filepath.Abs(p.Skill.Plugin)
	if p.Skill.Plugin == "" || err != nil {
		return skill.LinkNone, ""
	}
	disk := filepath.Join(root, filepath.FromSlash(t))
	skillDir, _ := filepath.Abs(p.Skill.Dir)
	if rel, err := filepath.Rel(skillDir, disk); err == nil && filepath.IsLocal(rel) {
		return skill.LinkInside, filepath.ToSlash(rel)
	}
	if _, err := os.Stat(disk); err == nil {
		return skill.LinkNone, ""
	}
	return skill.LinkPlugin, t
}

// reportAt reports a finding at a byte offset of SKILL.md's body.
func reportAt(p *Pass, md *markdown, off int, fix, format string, args ...any) {
	line, col := md.pos(off)
	p.Reportf(p.Skill.File, p.BodyPos(line), col, fix, format, args...)
}

// pathByte marks the bytes a file path, a module name or a command word
// is made of when written in prose or code: "scripts/x.py", "ooxml.validators",
// "python3". Any byte of a multi-byte character counts, for names in other
// scripts.
var pathByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 0x80 || isLetter(byte(c)) || c >= '0' && c <= '9' || strings.IndexByte("_-./@+~", byte(c)) >= 0
	}
	return t
}()

// eachWord calls fn with each run of pathBytes in src, in order, less
// the dots that end a sentence, with where it starts and whether a line
// ended since the word before. One pass, a table look-up a byte: it reads
// a skill's files to find the names they use, and most of them are text
// with nothing to find.
func eachWord(src []byte, fn func(w []byte, at int, newline bool)) {
	newline := true
	for i := 0; i < len(src); {
		if !pathByte[src[i]] {
			if src[i] == '\n' {
				newline = true
			}
			i++
			continue
		}
		if n := wideBreak(src[i:]); n > 0 {
			i += n
			continue
		}
		j := i + 1
		for j < len(src) && pathByte[src[j]] && wideBreak(src[j:]) == 0 {
			j++
		}
		w := src[i:j]
		for len(w) > 1 && w[len(w)-1] == '.' {
			w = w[:len(w)-1]
		}
		fn(w, i, newline)
		newline = false
		i = j
	}
}

// wideBreak is the length of the punctuation or space that src starts
// with, when it is a multi-byte one, else 0: Chinese and Japanese prose
// puts 。、（ right after a path ("见 references/details.md。"), which
// ends it as a space would.
func wideBreak(src []byte) int {
	if src[0] < utf8.RuneSelf {
		return 0
	}
	r, n := utf8.DecodeRune(src)
	if r == utf8.RuneError || !unicode.IsPunct(r) && !unicode.IsSpace(r) {
		return 0
	}
	return n
}

// resourceDirs are the folders the spec names for a skill's extra files.
var resourceDirs = []string{"references/", "scripts/", "assets/"}
