package lint

import (
	"bytes"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"golang.org/x/text/unicode/bidi"

	"github.com/skillpack/skillpack/skill"
)

// fixInvisible deletes the runs of invisible characters of its findings'
// rules that invisiblePlan says --fix deletes. Only Markdown is fixed.
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
	// invisible-unicode's finding of a line stands for its runs of both
	// rules, as Sort drops invisible-char's there (Supersedes): they go
	// together, or the next round finds the others and counts them fixed
	// where the user saw one finding go.
	lc := newLines(data)
	line := func(h invisibleHit) int { l, _ := lc.pos(h.off); return l }
	all, reported := findInvisible(data), map[int]bool{}
	for _, h := range all {
		if h.hiding && rules["invisible-unicode"] {
			reported[line(h)] = true
		}
	}
	var hits []invisibleHit
	for _, h := range all {
		if h.hiding && rules["invisible-unicode"] || !h.hiding && (rules["invisible-char"] || reported[line(h)]) {
			hits = append(hits, h)
		}
	}
	var cuts []fixEdit
	for _, fd := range at {
		if fd.Fix == deleteEscapes { // a person reads the value and deletes them
			f.left[fd.Rule]++
		}
	}
	plan := invisiblePlan(data, hits)
	held := map[int]bool{} // the lines invisible-unicode still reports
	for k, p := range plan {
		if hits[k].hiding && len(p.cuts) == 0 {
			held[line(hits[k])] = true
		}
	}
	for k, p := range plan {
		cuts = append(cuts, p.cuts...)
		// A run left on a line still reported is no finding (Supersedes).
		if len(p.cuts) == 0 && p.keep != keepRender && (hits[k].hiding || !held[line(hits[k])]) {
			rule := "invisible-char"
			if hits[k].hiding {
				rule = "invisible-unicode"
			}
			// As reportInvisible reports them: past maxPerFile, one more.
			f.left[rule] = min(f.left[rule]+1, maxPerFile+1)
		}
	}
	if len(cuts) > 0 {
		f.data, _ = applyEdits(data, cuts)
	}
}

// invisibleFix is what --fix does with one run of invisible characters
// of a Markdown file: the bytes it deletes, or why it keeps the run.
type invisibleFix struct {
	cuts []fixEdit
	keep invisibleKeep
	// hides is a run whose deletion shows text the rendered page hides
	// (one in a comment's "-->"): it is deleted, and reported as hiding.
	hides bool
}

// invisibleKeep is why --fix keeps a run of invisible characters.
type invisibleKeep uint8

const (
	keepNone   invisibleKeep = iota // deleted (or kept for now: the file is too large to render, or the run past those tried)
	keepShown                       // direction marks and controls: deleting one reorders the text on screen
	keepFence                       // the idiom for a fence inside a code block
	keepCode                        // inside a code block or span, where it is content
	keepRender                      // deleting it changes how the file renders
	keepYAML                        // in the frontmatter, deleting it changes what YAML reads: the value wants quotes
)

// yamlChanges reports whether deleting the run h of doc's frontmatter
// changes what YAML reads, beyond the run itself: a BOM before "| a | b |"
// keeps a plain value from being a block scalar, which YAML then refuses.
func yamlChanges(doc *skill.SkillMD, data []byte, h invisibleHit) bool {
	after := skill.Parse(slices.Concat(data[:h.off], data[h.end:])).Front
	return after == nil || !sameYAML(doc.Front, after, 0, string(data[h.off:h.end]))
}

// invisiblePlan decides, for --fix and for lint alike, what --fix does with
// each of hits, runs of invisible characters of Markdown data: it deletes
// what changes nothing a reader sees (tag characters, zero-width spaces
// and joiners, word joiners, stray byte order marks, and left-to-right
// marks in text without right-to-left script). It keeps bidirectional
// embeddings, overrides, isolates and right-to-left marks (which order was
// meant is for a person to say); a run before a code fence at the start of
// a line, the idiom for ``` inside a code block; anything inside a code
// block, whose text is the example, a run in a code span that hides no
// text (`mainRoad\u200bGrid` as the example of a break), and a run that
// is a table cell's whole text; and, unless it can hide text, a run whose
// deletion changes how the file renders (a zero-width space letting "**"
// close beside CJK punctuation). Lint reports no run kept for that last
// reason: the author has nothing to repair.
func invisiblePlan(data []byte, hits []invisibleHit) []invisibleFix {
	plan := make([]invisibleFix, len(hits))
	code := codeBlocks(data, false)
	spans := sync.OnceValue(func() [][2]int { return codeBlocks(data, true) })
	rtl := hasRTL(data)
	doc := skill.Parse(data)
	front := bytes.Index(data, doc.FrontRaw) // where the frontmatter's YAML starts, if any
	var runs, always []int                   // indexes into hits of the runs with cuts
	for k, h := range hits {
		switch {
		case fenceIdiom(data, h.off, h.end):
			plan[k].keep = keepFence
			continue
		case inCode(code, h.off) || cellAlone(data, h.off, h.end) || !h.hiding && inCode(spans(), h.off):
			plan[k].keep = keepCode
			continue
		case doc.Front != nil && h.off >= front && h.off < front+len(doc.FrontRaw) && yamlChanges(doc, data, h):
			plan[k].keep = keepYAML
			continue
		}
		for i := h.off; i < h.end; {
			r, n := utf8.DecodeRune(data[i:])
			if isTag(r) || r == 0x200E && !rtl || r != 0x200E && r != 0x200F && !isOverride(r) {
				plan[k].cuts = append(plan[k].cuts, fixEdit{start: i, end: i + n})
			}
			i += n
		}
		switch {
		case len(plan[k].cuts) == 0:
			plan[k].keep = keepShown
		case h.hiding || aloneOnLine(data, h.off, h.end):
			always = append(always, k)
		default:
			runs = append(runs, k)
		}
	}
	if len(runs) == 0 {
		return plan
	}
	apply := func(set []int) []byte {
		var cuts []fixEdit
		for _, k := range slices.Concat(always, set) {
			cuts = append(cuts, plan[k].cuts...)
		}
		out, _ := applyEdits(data, cuts)
		return out
	}
	// When some deletion changes the rendering, the runs that do not are
	// deleted, of the first 64 (enough renders for one file; another --fix
	// goes on). A run alone on its line is deleted whatever the rendering
	// says: the line looks blank to whoever reads the file, and renders as
	// blank once it is, where the invisible run kept two paragraphs together.
	// So is a run that can hide text: tag characters beside "**" may let it
	// close, but what they hide matters more than an emphasis. A run is
	// weighed against the file with those deleted. A file too
	// large or costly to render keeps its runs for now, as runs past the
	// first 64 do, and lint still reports them.
	want, ok := renderShown(apply(nil))
	if !ok {
		for _, k := range runs {
			plan[k].cuts = nil
		}
		return plan
	}
	valid := func(set []int) bool {
		got, ok := renderShown(apply(set))
		return ok && bytes.Equal(got, want)
	}
	kept := keepValid(runs, 64, valid)
	if len(kept) == len(runs) {
		return plan
	}
	deleted := map[int]bool{}
	for _, k := range kept {
		deleted[k] = true
	}
	// A run whose deletion shows more text is hiding it (a zero-width
	// space in a comment's "-->" keeps the lines after it in the comment):
	// it goes, and is reported, whatever else it changes.
	base := visibleText(apply(kept))
	hides := func(k int) bool { return visibleText(apply(append(slices.Clone(kept), k))) > base }
	for n, k := range runs {
		switch {
		case deleted[k]:
		case n < 64 && hides(k):
			plan[k].hides = true
		case n < 64:
			plan[k].keep, plan[k].cuts = keepRender, nil
		default:
			plan[k].cuts = nil
		}
	}
	return plan
}

// visibleText counts the letters and digits a reader sees of Markdown
// src rendered: outside its tags and its HTML comments, which close only
// at an exact "-->" as a browser's do; -1 for a file not rendered.
func visibleText(src []byte) int {
	var out bytes.Buffer
	if len(src) > maxRender || skill.InlineCostly(src) || fixMarkdown.Convert(src, &out) != nil {
		return -1
	}
	html, n := out.String(), 0
	for html != "" {
		switch {
		case strings.HasPrefix(html, "<!--"):
			_, html, _ = strings.Cut(html[4:], "-->")
		case html[0] == '<':
			_, html, _ = strings.Cut(html, ">")
		default:
			r, size := utf8.DecodeRuneInString(html)
			if unicode.IsLetter(r) || unicode.IsNumber(r) {
				n++
			}
			html = html[size:]
		}
	}
	return n
}

// codeBlocks returns the byte ranges of the lines of Markdown data's
// fenced and indented code blocks (a SKILL.md's frontmatter left out: it
// is YAML), in order; with spans, of its code spans (`x`) too, unless the
// file is too large or too costly to parse inline, where it has none.
func codeBlocks(data []byte, spans bool) [][2]int {
	body := skill.Body(data)
	at := len(data) - len(body)
	if at < 0 || !bytes.Equal(data[at:], body) {
		body, at = data, 0
	}
	p := blockParser
	if spans {
		if len(body) > maxRender || skill.InlineCostly(body) {
			return nil
		}
		p = spanParser
	}
	var out [][2]int
	ast.Walk(p.Parse(text.NewReader(body)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.Kind() {
		case ast.KindFencedCodeBlock, ast.KindCodeBlock:
			if entering && !spans {
				for i := range n.Lines().Len() {
					s := n.Lines().At(i)
					out = append(out, [2]int{at + s.Start, at + s.Stop})
				}
			}
			return ast.WalkSkipChildren, nil
		case ast.KindCodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					out = append(out, [2]int{at + t.Segment.Start, at + t.Segment.Stop})
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// inCode reports whether offset i falls in one of blocks' ranges.
func inCode(blocks [][2]int, i int) bool {
	k, _ := slices.BinarySearchFunc(blocks, i, func(b [2]int, i int) int {
		if b[1] <= i {
			return -1
		}
		if b[0] > i {
			return 1
		}
		return 0
	})
	return k < len(blocks) && blocks[k][0] <= i && i < blocks[k][1]
}

// aloneOnLine reports whether data[i:j] is all a line holds but blanks.
func aloneOnLine(data []byte, i, j int) bool {
	before, after := lineAround(data, i, j)
	return len(bytes.TrimSpace(before)) == 0 && len(bytes.TrimSpace(after)) == 0
}

// cellAlone reports whether data[i:j] is all a table cell holds but
// blanks: the table shows the character (a table of Unicode symbols,
// Typst's), as a code block's example does.
func cellAlone(data []byte, i, j int) bool {
	before, after := lineAround(data, i, j)
	before, after = bytes.TrimRight(before, " \t"), bytes.TrimLeft(after, " \t")
	return bytes.HasSuffix(before, []byte("|")) && bytes.HasPrefix(after, []byte("|"))
}

// fenceIdiom reports whether data[i:j] stands at the start of a line
// (after indentation) before a code fence.
func fenceIdiom(data []byte, i, j int) bool {
	before, after := lineAround(data, i, j)
	return len(bytes.TrimLeft(before, " \t")) == 0 && opensFence(bytes.TrimLeft(after, " \t"))
}

// spanParser is CommonMark's, for code spans: the rules' mdParser reads
// only what links need.
var spanParser = skill.MarkdownParser()

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

// renderShown renders Markdown src to HTML and takes out the characters
// fixInvisible deletes, and the blanks a browser does not show, at a line
// break or the edge of a paragraph, list item, heading or table cell:
// Markdown trims them there but for an invisible character that shields
// them ("\u200b 方式(i)" at the start of a line, a paste from a web page),
// so without it the rendering differs in them alone. It fails for a file
// too large or too costly to render (skill.InlineCostly).
func renderShown(src []byte) ([]byte, bool) {
	if len(src) > maxRender || skill.InlineCostly(src) {
		return nil, false
	}
	var out bytes.Buffer
	if err := fixMarkdown.Convert(src, &out); err != nil {
		return nil, false
	}
	shown := bytes.Map(func(r rune) rune {
		if isTag(r) || r == 0x200E || invisibleNames[r] != "" && r != 0x200F && !isOverride(r) {
			return -1
		}
		return r
	}, out.Bytes())
	return unshownBlanks.ReplaceAll(shown, []byte("$1")), true
}

// unshownBlanks are blanks beside a line break or a block's tag. The two
// renderings compared come from sources that differ only in invisible
// characters, so their blanks differ only where Markdown trims them (not
// in a code block, where they would show).
var unshownBlanks = regexp.MustCompile(`[ \t]*(\n|</?(?:p|li|h[1-6]|td|th)(?: [^>]*)?>)[ \t]*`)

// fixBOM strips the UTF-8 byte order marks a file starts with, and makes
// a SKILL.md in UTF-16 UTF-8 (another file in UTF-16 may be so for its
// reader: a Windows .reg file).
func fixBOM(f *fixFile, _ []Finding) {
	if f.job.entry && skill.UTF16(f.data) {
		f.data = skill.FromUTF16(f.data)
	}
	for bytes.HasPrefix(f.data, utf8BOM) {
		f.data = f.data[len(utf8BOM):]
	}
}

// fixCRLF turns a script's CRLF line ends into LF; a lone CR is kept.
func fixCRLF(f *fixFile, _ []Finding) {
	if crlfBreaks(f.job.rel, f.data) {
		f.data = bytes.ReplaceAll(f.data, crlfLine, []byte("\n"))
	}
}

// fixExec sets the execute bit of a script that starts with "#!": for its
// owner, and for group and others where they may read it, as chmod +x
// does under the usual umask. Windows has no execute bit to set: there
// the rule's fix names git's.
func fixExec(f *fixFile, _ []Finding) {
	if runtime.GOOS == "windows" || f.mode&0o111 != 0 || !bytes.HasPrefix(f.data, []byte("#!")) {
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

// fixBackslashLinks writes each destination of SKILL.md's body that
// separates folders with "\" (link-absolute's Windows paths, which
// Markdown and URLs do not read) with "/": references\guide.md becomes
// references/guide.md. A destination whose text holds another escape, or
// that cannot be found where its link starts, is left to a person, and
// the body must read back with those destinations alone changed.
func fixBackslashLinks(f *fixFile, at []Finding) {
	doc := skill.Parse(f.data)
	if !f.job.entry || doc.Body == nil || !bytes.HasSuffix(f.data, doc.Body) {
		return
	}
	body := len(f.data) - len(doc.Body) // the body is the end of the file
	old := parseMarkdown(doc.Body).links
	var edits []fixEdit
	var want []string // every destination, as it must read after
	for _, l := range old {
		want = append(want, l.dest)
		if k, _ := skill.ResolveLink("", l.dest); k != skill.LinkBackslash {
			continue
		}
		start, end, ok := rawDest(doc.Body, l.off)
		if !ok || unescapeDest(string(doc.Body[start:end])) != l.dest {
			continue
		}
		want[len(want)-1] = strings.ReplaceAll(l.dest, `\`, "/")
		edits = append(edits, fixEdit{body + start, body + end, want[len(want)-1]})
	}
	data, ok := applyEdits(f.data, edits)
	if len(edits) == 0 || !ok {
		return
	}
	var got []string
	for _, l := range parseMarkdown(skill.Parse(data).Body).links {
		got = append(got, l.dest)
	}
	if !slices.Equal(got, want) {
		return
	}
	f.data = data
	f.left["link-absolute"] = max(len(at)-len(edits), 0) // the absolute paths, for a person
}

// rawDest finds, in Markdown src, the destination text of the link or
// reference definition whose "[" (or "![") is at off: its start and end
// (inside the brackets of a <…> destination).
func rawDest(src []byte, off int) (start, end int, ok bool) {
	i := off
	if i < len(src) && src[i] == '!' {
		i++
	}
	if i >= len(src) || src[i] != '[' {
		return 0, 0, false
	}
	for depth := 0; i < len(src); i++ { // to the matching "]"
		switch src[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if i+1 >= len(src) || src[i+1] != '(' && src[i+1] != ':' {
		return 0, 0, false
	}
	i += 2
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i < len(src) && src[i] == '<' { // <a destination with spaces>, to its ">"
		for start = i + 1; i+1 < len(src) && src[i+1] != '>' && src[i+1] != '\n'; i++ {
			if src[i+1] == '\\' && i+2 < len(src) && src[i+2] != '\n' {
				i++
			}
		}
		return start, i + 1, i+1 < len(src) && src[i+1] == '>' && i+1 > start
	}
	start = i
	for i < len(src) && src[i] != ' ' && src[i] != '\t' && src[i] != '\n' && src[i] != '\r' && src[i] != ')' && src[i] != '<' {
		if src[i] == '\\' {
			i++
		}
		i++
	}
	return start, min(i, len(src)), i > start && i <= len(src)
}

// unescapeDest is a destination's text as CommonMark reads it, when its
// only escapes are "\\"; else "" (the text holds an escape the fix would
// have to keep).
func unescapeDest(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[]^_`{|}~", raw[i+1]) >= 0 {
			return ""
		}
		if raw[i] == '\\' && i+1 < len(raw) && raw[i+1] == '\\' {
			i++
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}
