package catalog

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// md renders every SKILL.md body: goldmark's safe mode (raw HTML omitted:
// a skill is untrusted) with GFM, bounded as skill.MarkdownBlocks says.
// The link rewriter's per-skill state travels in the parser context.
var md = newMarkdown(skill.MarkdownParser(), extension.GFM)

// unlinked is md without GFM's autolinks, for a body in which they would
// change nothing (plain), saving a fifth of the parse.
var unlinked = newMarkdown(skill.MarkdownParser(), extension.Table, extension.Strikethrough, extension.TaskList)

// blocks renders a body whose inline pass would take too long
// (skill.InlineCostly): its blocks only, their text as text.
var blocks = newMarkdown(parser.NewParser(parser.WithBlockParsers(skill.MarkdownBlocks()...)))

func newMarkdown(p parser.Parser, ext ...goldmark.Extender) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithParser(p),
		goldmark.WithExtensions(ext...),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(rewriter{}, 100)),
		),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(deadRenderer{}, 100)),
		),
	)
}

// plain reports whether unlinked renders body exactly as md does: nothing
// in it starts an autolink ("http:", "https:", "ftp:", "www." or "@"), and
// no line ends in more than one blank but a hard break's two spaces (the
// autolink parser cuts a line at every blank, and only its last piece is
// trimmed).
func plain(body []byte) bool {
	if scheme(body) || bytes.Contains(body, []byte("www.")) || bytes.IndexByte(body, '@') >= 0 {
		return false
	}
	for line := range bytes.Lines(body) {
		l := bytes.TrimSuffix(line, []byte("\n"))
		blanks := len(l) - len(bytes.TrimRight(l, " \t\r"))
		if blanks > 1 && (blanks > 2 || len(l) == len(line) || string(l[len(l)-2:]) != "  ") {
			return false
		}
	}
	return true
}

// scheme reports whether body holds "http:", "https:" or "ftp:", looking
// at the colons, which prose has few of.
func scheme(body []byte) bool {
	for {
		i := bytes.IndexByte(body, ':')
		if i < 0 {
			return false
		}
		if b := body[:i]; bytes.HasSuffix(b, []byte("http")) || bytes.HasSuffix(b, []byte("https")) || bytes.HasSuffix(b, []byte("ftp")) {
			return true
		}
		body = body[i+1:]
	}
}

// linkerKey holds the *linker of the skill being parsed.
var linkerKey = parser.NewContextKey()

// external is the rel of links that leave the bundle.
const external = "nofollow noopener"

// renderBody renders a SKILL.md body into w, its links and images
// resolved against the skill's files (linker.resolve), its heading ids
// prefixed with its name and its heading levels below the section's h2.
func renderBody(w *bytes.Buffer, name string, body []byte, files map[string]bool, href func(distPath string) string) error {
	switch {
	case skill.InlineCostly(body):
		return convert(w, blocks, name, body, files, href)
	case plain(body):
		return convert(w, unlinked, name, body, files, href)
	}
	return convert(w, md, name, body, files, href)
}

// convert writes HTML that is safe in HTML text: goldmark escapes text and
// omits raw HTML, and the rewriter vets every destination.
func convert(w *bytes.Buffer, m goldmark.Markdown, name string, body []byte, files map[string]bool, href func(distPath string) string) error {
	l := &linker{name: name, files: files, href: href}
	pc := parser.NewContext(parser.WithIDs(&headingIDs{prefix: name + "--", used: map[string]bool{}, next: map[string]int{}}))
	pc.Set(linkerKey, l)
	if err := m.Convert(body, direct{w}, parser.WithContext(pc)); err != nil {
		return fmt.Errorf("skill %q: rendering SKILL.md: %w", name, err)
	}
	return nil
}

// direct is a bytes.Buffer as goldmark's util.BufWriter, which it does not
// wrap in a bufio.Writer of 4 KB a body.
type direct struct{ *bytes.Buffer }

func (direct) Buffered() int { return 0 }
func (direct) Flush() error  { return nil }

// linker resolves one skill's link destinations.
type linker struct {
	name  string
	files map[string]bool // the skill's file paths
	href  func(distPath string) string
	doc   *ast.Document   // the body, set by the rewriter
	ids   map[string]bool // heading ids of doc, nil until a link needs them
}

// Kinds of destination.
const (
	deadLink  = iota // not rendered as a link
	localLink        // a file of the skill or a heading of its SKILL.md
	webLink          // http or https, leaving the bundle
	mailLink         // mailto:
)

// resolve classifies a raw Markdown destination and returns the href to
// write, or for deadLink the reason shown to the reader.
//
// A path is classified by skill.ResolveLink, as lint does, and must name a
// file of the skill: it becomes that file's URL, with any #fragment and
// without any ?query. A "#frag" must name a heading of the body. Any other
// path, and every scheme but http, https and mailto, is dead: the text
// stays, the link goes.
func (l *linker) resolve(raw []byte) (kind int, href string) {
	d := string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(raw))))
	d = strings.TrimSpace(d)
	if d == "" {
		return deadLink, "empty link"
	}
	if i := strings.IndexAny(d, ":/?#"); i > 0 && d[i] == ':' {
		switch strings.ToLower(d[:i]) {
		case "http", "https":
			if u, err := url.Parse(d); err == nil && u.Host != "" {
				return webLink, d
			}
			return deadLink, "malformed URL"
		case "mailto":
			return mailLink, d
		}
		return deadLink, "URL scheme not allowed"
	}
	before, frag, hasFrag := strings.Cut(d, "#")
	if p, _, _ := strings.Cut(before, "?"); p == "" {
		return l.heading(frag)
	}
	k, c := skill.ResolveLink("", d)
	switch {
	case k == skill.LinkOutside, k == skill.LinkAbsolute, k == skill.LinkPlugin, k == skill.LinkNone && d[0] == '/':
		return deadLink, "outside this skill: " + d
	case k != skill.LinkInside || !l.files[c]:
		return deadLink, "not a file of this skill: " + d
	}
	if c == layout.EntryFile && hasFrag {
		// A link to a heading of this very SKILL.md stays on the page.
		if k, h := l.heading(frag); k == localLink {
			return k, h
		}
	}
	href = l.href(layout.SkillFile(l.name, c))
	if hasFrag && frag != "" {
		href += "#" + escape(frag)
	}
	return localLink, href
}

// heading resolves "#frag" against the body's headings, whose ids are
// GitHub's slugs prefixed with the skill name.
func (l *linker) heading(frag string) (int, string) {
	if dec, err := url.PathUnescape(frag); err == nil {
		frag = dec
	}
	if l.ids == nil {
		l.ids = headingIDsOf(l.doc)
	}
	id := l.name + "--" + strings.ToLower(frag)
	if frag == "" || !l.ids[id] {
		return deadLink, "no such heading: #" + frag
	}
	return localLink, "#" + escape(id)
}

// escape percent-encodes everything but unreserved characters and '/',
// so that goldmark's renderer finds nothing in a destination to
// reinterpret. Most paths need none of it, and come back uncopied.
func escape(s string) string {
	i := 0
	for i < len(s) && unreserved(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if c := s[i]; unreserved(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// unreserved reports whether escape keeps c as it is.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/", c) >= 0
}

// rewriter is the AST transformer that applies linker.resolve to every
// link, image and autolink (on the AST, no destination can hide in an
// entity or escape), and moves headings below the section's h2.
type rewriter struct{}

// Transform implements parser.ASTTransformer.
func (rewriter) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	l, _ := pc.Get(linkerKey).(*linker)
	if l == nil {
		return
	}
	src := reader.Source()
	l.doc = doc
	var links []ast.Node
	// Collect first, replace after, not to derail the walk.
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			n.Level = min(n.Level+2, 6)
		case *ast.Link, *ast.Image, *ast.AutoLink:
			links = append(links, n)
		}
		return ast.WalkContinue, nil
	})
	for _, n := range links {
		switch n := n.(type) {
		case *ast.Link:
			kind, href := l.resolve(n.Destination)
			switch kind {
			case deadLink:
				replace(n, &dead{why: href})
			case webLink:
				n.SetAttributeString("rel", external)
			case localLink:
				n.Destination = []byte(href)
			}
		case *ast.Image:
			kind, href := l.resolve(n.Destination)
			switch kind {
			case localLink:
				n.Destination = []byte(href)
			case webLink:
				// An image from elsewhere would be fetched by every
				// visitor (a tracking pixel); link to it instead.
				a := ast.NewLink()
				a.Destination = n.Destination
				a.Title = n.Title
				a.SetAttributeString("rel", external)
				if n.ChildCount() == 0 {
					a.AppendChild(a, ast.NewString([]byte("image")))
				}
				replace(n, a)
			default:
				replace(n, &dead{why: "image: " + href})
			}
		case *ast.AutoLink:
			if n.AutoLinkType == ast.AutoLinkEmail {
				continue
			}
			kind, href := l.resolve(n.URL(src))
			switch kind {
			case webLink:
				n.SetAttributeString("rel", external)
			case mailLink:
			default:
				d := &dead{why: href}
				d.AppendChild(d, ast.NewString(n.Label(src)))
				n.Parent().ReplaceChild(n.Parent(), n, d)
			}
		}
	}
}

// headingIDsOf returns the ids of doc's headings, for the few bodies that
// link to a heading.
func headingIDsOf(doc *ast.Document) map[string]bool {
	ids := map[string]bool{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			if id, ok := h.AttributeString("id"); ok {
				if b, ok := id.([]byte); ok {
					ids[string(b)] = true
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return ids
}

// replace puts to in from's place and moves from's children (a link's
// text, an image's alt text) into it.
func replace(from, to ast.Node) {
	for c := from.FirstChild(); c != nil; {
		next := c.NextSibling()
		to.AppendChild(to, c)
		c = next
	}
	from.Parent().ReplaceChild(from.Parent(), from, to)
}

// kindDead is the node kind of a link the catalog will not render.
var kindDead = ast.NewNodeKind("CatalogDeadLink")

// dead is a link or image whose destination is unsafe or outside the
// skill: its text is kept, marked, with the reason in a tooltip.
type dead struct {
	ast.BaseInline
	why string
}

// Kind implements ast.Node.
func (n *dead) Kind() ast.NodeKind { return kindDead }

// Dump implements ast.Node.
func (n *dead) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Why": n.why}, nil)
}

// deadRenderer renders dead nodes as a span.
type deadRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (deadRenderer) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(kindDead, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(`<span class="dead" title="`)
			_, _ = w.Write(util.EscapeHTML([]byte(n.(*dead).why)))
			_, _ = w.WriteString(`">`)
		} else {
			_, _ = w.WriteString(`</span>`)
		}
		return ast.WalkContinue, nil
	})
}

// headingIDs gives headings GitHub's anchors (so links written for GitHub
// work here) behind a "<skill>--" prefix, which no skill name contains.
type headingIDs struct {
	prefix string
	used   map[string]bool
	next   map[string]int // the next suffix to try for a base; keeps a body of many equal headings linear
}

// Generate implements parser.IDs, making the id in the slice it returns.
func (s *headingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	id := appendSlug(append(make([]byte, 0, len(s.prefix)+len(value)+4), s.prefix...), value)
	if len(id) == len(s.prefix) {
		id = append(id, "section"...)
	}
	end := len(id) // of the base, which a suffix "-N" follows
	for s.used[string(id[len(s.prefix):])] {
		base := string(id[len(s.prefix):end])
		s.next[base]++
		id = strconv.AppendInt(append(id[:end], '-'), int64(s.next[base]), 10)
	}
	s.used[string(id[len(s.prefix):])] = true
	return id
}

// Put implements parser.IDs.
func (s *headingIDs) Put(value []byte) {
	s.used[strings.TrimPrefix(string(value), s.prefix)] = true
}

// appendSlug appends s as GitHub's heading anchor to b: lower case,
// letters, digits, '-' and '_', spaces as '-'.
func appendSlug(b, s []byte) []byte {
	for _, r := range string(bytes.TrimSpace(s)) {
		switch r = unicode.ToLower(r); {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b = utf8.AppendRune(b, r)
		case r == ' ':
			b = append(b, '-')
		}
	}
	return b
}
