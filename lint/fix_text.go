package lint

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	"golang.org/x/text/unicode/bidi"

	"github.com/skillpack/skillpack/skill"
)

// fixInvisible deletes invisible characters that change nothing a reader
// sees: tag characters, zero-width spaces and joiners, word joiners, stray
// byte order marks, and left-to-right marks in text without right-to-left
// script. It keeps what does show: bidirectional embeddings, overrides,
// isolates and right-to-left marks (removing one reorders the text on
// screen, so which order was meant is for a person to say), and a run at
// the start of a line before a code fence, the idiom for showing ``` inside
// a code block. Only Markdown is fixed, and no deletion that changes how
// it renders (an invisible character keeping "_" from closing emphasis, or
// a line from being a heading) is made.
func fixInvisible(f *fixFile, at []Finding) {
	if !isMarkdown(f.job.path) {
		// In code and data an invisible character can be the value
		// itself (a JavaScript entity table's zwj: "\u200d", MathML's
		// <mo>\u200b</mo>), and nothing says what a deletion changes:
		// a person decides.
		return
	}
	rules := map[string]bool{}
	for _, fd := range at {
		rules[fd.Rule] = true
	}
	data := f.data
	if binaryData(data) {
		return
	}
	rtl := hasRTL(data)
	var runs, alone [][]fixEdit
	for _, h := range findInvisible(data) {
		if h.hiding && !rules["invisible-unicode"] || !h.hiding && !rules["invisible-char"] {
			continue
		}
		if fenceIdiom(data, h.off, h.end) {
			continue
		}
		var cuts []fixEdit
		for i := h.off; i < h.end; {
			r, n := utf8.DecodeRune(data[i:])
			if isTag(r) || r == 0x200E && !rtl || r != 0x200E && r != 0x200F && !isOverride(r) {
				cuts = append(cuts, fixEdit{start: i, end: i + n})
			}
			i += n
		}
		switch {
		case len(cuts) == 0:
		case aloneOnLine(data, h.off, h.end):
			alone = append(alone, cuts)
		default:
			runs = append(runs, cuts)
		}
	}
	if len(runs)+len(alone) == 0 {
		return
	}
	apply := func(set [][]fixEdit) []byte {
		out, _ := applyEdits(data, slices.Concat(append(slices.Clone(alone), set...)...))
		return out
	}
	// When some deletion changes the rendering, the runs that do not are
	// kept, of the first 64 (enough renders for one file; another --fix
	// goes on). A run alone on its line is deleted whatever the rendering
	// says: the line looks blank to whoever reads the file, and renders as
	// blank once it is, where the invisible run kept two paragraphs together.
	f.data = apply(keepValid(runs, 64, func(set [][]fixEdit) bool { return sameRendering(data, apply(set)) }))
}

// aloneOnLine reports whether data[i:j] is all a line holds but blanks.
func aloneOnLine(data []byte, i, j int) bool {
	before, after := lineAround(data, i, j)
	return len(bytes.TrimSpace(before)) == 0 && len(bytes.TrimSpace(after)) == 0
}

// fenceIdiom reports whether data[i:j] stands at the start of a line
// (after indentation) before a code fence.
func fenceIdiom(data []byte, i, j int) bool {
	before, after := lineAround(data, i, j)
	return len(bytes.TrimLeft(before, " \t")) == 0 && opensFence(bytes.TrimLeft(after, " \t"))
}

// lineAround returns the rest of the line that data[i:j] stands on: the
// bytes before it and those after it, up to the line break.
func lineAround(data []byte, i, j int) (before, after []byte) {
	end := len(data)
	if k := bytes.IndexByte(data[j:], '\n'); k >= 0 {
		end = j + k
	}
	return data[bytes.LastIndexByte(data[:i], '\n')+1 : i], data[j:end]
}

// opensFence reports whether text starts with a code fence.
func opensFence(text []byte) bool {
	return bytes.HasPrefix(text, []byte("```")) || bytes.HasPrefix(text, []byte("~~~"))
}

// hasRTL reports whether text holds a right-to-left letter or control,
// next to which a left-to-right mark can change the display order.
func hasRTL(data []byte) bool {
	for i := asciiPrefix(data); i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		i += n
		if r < 0x0590 {
			continue
		}
		p, _ := bidi.LookupRune(r)
		switch p.Class() {
		case bidi.R, bidi.AL, bidi.AN, bidi.RLE, bidi.RLO, bidi.RLI, bidi.FSI:
			return true
		}
	}
	return false
}

// maxRender is the largest Markdown file rendered to check a deletion.
const maxRender = 1 << 20

var fixMarkdown = goldmark.New(goldmark.WithParser(skill.MarkdownParser()), goldmark.WithExtensions(extension.GFM),
	goldmark.WithRendererOptions(html.WithUnsafe()))

// sameRendering reports whether two versions of a Markdown file render to
// the same HTML once the characters fixInvisible deletes are taken out.
// It says no, and the deletion waits, for a file too large or too costly
// to render (skill.InlineCostly).
func sameRendering(a, b []byte) bool {
	if len(a) > maxRender || skill.InlineCostly(a) || skill.InlineCostly(b) {
		return false
	}
	render := func(src []byte) ([]byte, bool) {
		var out bytes.Buffer
		if err := fixMarkdown.Convert(src, &out); err != nil {
			return nil, false
		}
		return bytes.Map(func(r rune) rune {
			if isTag(r) || r == 0x200E || invisibleNames[r] != "" && r != 0x200F && !isOverride(r) {
				return -1
			}
			return r
		}, out.Bytes()), true
	}
	ra, ok1 := render(a)
	rb, ok2 := render(b)
	return ok1 && ok2 && bytes.Equal(ra, rb)
}

// fixBOM strips the UTF-8 byte order marks a file starts with.
func fixBOM(f *fixFile, _ []Finding) {
	for bytes.HasPrefix(f.data, utf8BOM) {
		f.data = f.data[len(utf8BOM):]
	}
}

// fixCRLF turns a script's CRLF line ends into LF; a lone CR is kept.
func fixCRLF(f *fixFile, _ []Finding) {
	if !crlfBreaks(f.job.rel, f.data) {
		return
	}
	f.data = bytes.ReplaceAll(f.data, crlfLine, []byte("\n"))
}

// fixExec sets the execute bit of a script that starts with "#!": for its
// owner, and for group and others where they may read it, as chmod +x
// does under the usual umask.
func fixExec(f *fixFile, _ []Finding) {
	if f.mode&0o111 != 0 || !bytes.HasPrefix(f.data, []byte("#!")) {
		return
	}
	f.mode |= 0o100 | f.mode&0o044>>2
}

// fixEntryName renames a case variant of SKILL.md to SKILL.md.
func fixEntryName(f *fixFile, _ []Finding) {
	if name := path.Base(f.job.path); f.job.entry && name != skill.FileName && strings.EqualFold(name, skill.FileName) {
		f.name = skill.FileName
	}
}
