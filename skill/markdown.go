package skill

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A skill's Markdown is untrusted, and on some of it goldmark's work grows
// far faster than its size: a megabyte would take it minutes. Lint and the
// catalog parse it with the bounds here, so that neither hangs a build.

// MaxNesting bounds how deep quotes and lists nest: goldmark's work per
// line grows with the depth, so a line of a million ">" would take
// minutes. Deeper markers are read as text.
const MaxNesting = 32

// MarkdownBlocks returns goldmark's block parsers, with quotes and lists
// that open no deeper than MaxNesting.
func MarkdownBlocks() []util.PrioritizedValue {
	blocks := parser.DefaultBlockParsers()
	for i, b := range blocks {
		switch b.Value {
		case parser.NewBlockquoteParser(), parser.NewListParser():
			blocks[i].Value = shallow{b.Value.(parser.BlockParser)}
		}
	}
	return blocks
}

// MarkdownParser returns goldmark's CommonMark parser with MarkdownBlocks
// for its blocks; extensions (GFM) add to it as to goldmark's own.
func MarkdownParser() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(MarkdownBlocks()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
}

// shallow is a container parser that refuses to open beyond MaxNesting.
type shallow struct{ parser.BlockParser }

func (s shallow) Open(parent ast.Node, r text.Reader, pc parser.Context) (ast.Node, parser.State) {
	d := 0
	for n := parent; n != nil; n = n.Parent() {
		if d++; d > MaxNesting {
			return nil, parser.NoChildren
		}
	}
	return s.BlockParser.Open(parent, r, pc)
}

// inlineBudget bounds the work of goldmark's inline pass on hostile input.
// goldmark scans from each "[", "*", "_" or "~" to the start or end of its
// paragraph in the worst case, and takes reference definitions out of a
// paragraph one at a time, copying the lines after each; so a paragraph
// of "[a](" or "[a]: b\n" a hundred thousand times would take minutes.
// Real documents stay far below the budget.
const inlineBudget = 1 << 30

// InlineCostly reports whether src's inline pass (links, emphasis,
// reference definitions) would exceed the budget; a caller then parses
// only its blocks. It counts runs of non-blank lines as paragraphs (a
// paragraph never spans a blank line).
func InlineCostly(src []byte) bool {
	cost, start, openers, lines, defs, i := 0, 0, 0, 0, 0, 0
	for l := range bytes.Lines(src) {
		line := bytes.TrimSuffix(l, []byte("\n"))
		if t := bytes.TrimLeft(line, " \t"); len(bytes.TrimSpace(t)) == 0 {
			cost += openers*(i-start) + defs*lines
			start, openers, lines, defs = i+len(l), 0, 0, 0
		} else {
			for _, c := range []byte("[*_~") {
				openers += bytes.Count(line, []byte{c})
			}
			lines++
			if t[0] == '[' {
				defs++
			}
		}
		if cost > inlineBudget {
			return true
		}
		i += len(l)
	}
	return cost+openers*(len(src)-start)+defs*lines > inlineBudget
}
