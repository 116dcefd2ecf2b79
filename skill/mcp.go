package skill

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/internal/smallfile"
)

// What the clients of the MCP Skills Extension (SEP-2640) take of a
// skill's entry: the official TypeScript SDK's entry rules
// (validateSkillEntry, which refuses a whole skills/list for one entry), a
// frontmatter identical to every host's own parse of SKILL.md (the SDK,
// @olaservo/ext-skills, the Inspector and the conformance suite refuse a
// skill whose entry differs), and the extension's per-skill limits. The
// build leaves a skill CheckMCP refuses out of the MCP documents, verify
// fails a bundle whose MCP documents list one, and lint says why.

// The per-skill limits of SEP-2640 (the TypeScript SDK's SKILL_LIMITS).
const (
	MCPMaxFiles = 512      // files of a skill, SKILL.md included
	MCPMaxBytes = 16 << 20 // bytes of a skill as resources/read serves them (ServedSize)
	// MCPMaxCompatibility is the most characters (code points, as the SDK
	// counts) of compatibility.
	MCPMaxCompatibility = 500
	// MCPMaxDepth is how deep the SDK's YAML reader nests collections.
	MCPMaxDepth = 32
)

// MCPRefusal is why MCP hosts refuse a skill's entry, and what the author
// can do about it. Each has as many parts as the skill has causes.
type MCPRefusal struct {
	Reason string
	Fix    string
}

func (r *MCPRefusal) Error() string { return r.Reason }

// CheckMCP returns why MCP hosts refuse the entry of the skill whose
// SKILL.md is d and whose files resources/read serves as served bytes
// (ServedSize of each), or nil when they take it:
//
//   - metadata, when present, maps keys to values YAML reads as strings:
//     the SDK refuses any other value, and one read as a number, a boolean
//     or null, listed as its text (FrontmatterJSON), differs from every
//     host's parse (version: 1.0 is the number 1). A date is text to the
//     YAML 1.2 readers hosts use.
//   - compatibility, when present, is a string of 1 to MCPMaxCompatibility
//     characters.
//   - the frontmatter keeps to the SDK's YAML subset where the clients'
//     readers go beyond it: no quoted value or flow collection goes on past
//     its line, a flow collection holds no bare pair ([a: b]) or empty
//     value ({a}), and no block scalar header has an indentation indicator.
//     What both sides refuse (anchors, tags, tabs, duplicate keys) is a
//     lint error, which keeps the skill out of the build.
//   - at most MCPMaxFiles files, and MCPMaxBytes served bytes.
//
// The rules of name and description are layout's, stricter than the SDK's.
func (d *SkillMD) CheckMCP(files int, served int64) *MCPRefusal {
	var why, fixes []string
	bad := func(fix, format string, args ...any) {
		why = append(why, fmt.Sprintf(format, args...))
		if fix != "" && !slices.Contains(fixes, fix) { // two keys refused alike take one fix
			fixes = append(fixes, fix)
		}
	}
	if _, v := d.Lookup("metadata"); v != nil {
		switch {
		case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
			bad("give it key: value lines, indented below it, or remove the empty metadata: line", "metadata has no value (YAML null), where MCP hosts take a mapping of strings")
		case v.Kind != yaml.MappingNode:
			bad("write metadata as key: value lines of quoted strings", "metadata is %s, where MCP hosts take a mapping of strings", Describe(v))
		}
		for k, val := range Pairs(v) {
			switch {
			case MCPString(val):
			case Internal(k, val): // the author's to keep: an internal skill is no MCP host's either
				bad("", "metadata.internal is true, the Vercel skills CLI's flag that hides the skill, where MCP hosts take only strings")
			case val.Kind == yaml.MappingNode || val.Kind == yaml.SequenceNode:
				bad("flatten it into one string, or into several keys, unless a client needs it nested", "metadata.%s is %s, where MCP hosts take only strings", k.Value, Describe(val))
			case val.Kind == yaml.ScalarNode && val.ShortTag() == "!!null":
				bad(fmt.Sprintf("write %s: \"\" or remove the key", k.Value), "metadata.%s has no value: YAML reads null, where MCP hosts take only strings", k.Value)
			case val.Kind == yaml.ScalarNode:
				bad(fmt.Sprintf("quote it: %s: %q", k.Value, val.Value), "metadata.%s is %s, where MCP hosts take only strings (quoted, it is the text %q)", k.Value, Describe(val), val.Value)
			default:
				bad("write the value out as a quoted string", "metadata.%s is %s, where MCP hosts take only strings", k.Value, Describe(val))
			}
		}
	}
	if ns := d.MultilineQuoted(); len(ns) > 0 {
		bad("write it on one line, or as a folded block (>)", "%s is a quoted value over several lines, which the YAML reader of the official MCP SDK refuses", d.keyPath(ns[0]))
	}
	if why, fix := d.subsetUnread(); why != "" {
		bad(fix, "%s, which the YAML reader of the official MCP SDK refuses", why)
	}
	if hs := d.IndentIndicators(); len(hs) > 0 {
		bad("remove the digit and indent the text evenly", "block scalar header %q on line %d has an indentation indicator, which the YAML reader of the official MCP SDK refuses", hs[0].Text, hs[0].Line)
	}
	if _, v := d.Lookup("compatibility"); v != nil {
		switch n := utf8.RuneCountInString(v.Value); {
		case !MCPString(v):
			bad("write it as one sentence of text", "compatibility is %s, where MCP hosts take a string", Describe(v))
		case n == 0:
			bad("remove the key or say what the skill needs", "compatibility is empty, where MCP hosts take 1 to %d characters", MCPMaxCompatibility)
		case n > MCPMaxCompatibility:
			bad(fmt.Sprintf("shorten compatibility to at most %d characters", MCPMaxCompatibility), "compatibility is %d characters long, where MCP hosts take at most %d", n, MCPMaxCompatibility)
		}
	}
	if files > MCPMaxFiles {
		bad("leave files out with "+IgnoreFile+", merge small files, or split the skill", "the skill has %d files, where MCP hosts take at most %d", files, MCPMaxFiles)
	}
	if served > MCPMaxBytes {
		bad("leave large files out with "+IgnoreFile+" and fetch them at run time, or split the skill",
			"the skill is %d bytes as MCP hosts receive it (binary files base64-encoded), where they take at most %d (16 MiB)", served, MCPMaxBytes)
	}
	if len(why) == 0 {
		return nil
	}
	return &MCPRefusal{Reason: strings.Join(why, "; "), Fix: strings.Join(fixes, "; ")}
}

// MultilineQuoted are the quoted values of the frontmatter that go on
// past the line they open on, as PyYAML writes long strings: every YAML
// reader takes them, but the official MCP SDK's YAML subset refuses the
// skill ("a quoted value must close on the same line").
func (d *SkillMD) MultilineQuoted() []*yaml.Node {
	var out []*yaml.Node
	d.quotedOver(func(n, _ *yaml.Node, _ *Lines) { out = append(out, n) })
	return out
}

// UnderIndented are the values of MultilineQuoted with a line after the
// first indented no deeper than the block collection that holds the
// value: the 'yaml' package the Vercel skills CLI and the MCP SDK parse
// with refuses the whole frontmatter for one, where yaml.v3 and PyYAML
// take it.
func (d *SkillMD) UnderIndented() []*yaml.Node {
	var out []*yaml.Node
	d.quotedOver(func(n, parent *yaml.Node, text *Lines) {
		if parent.Style&yaml.FlowStyle != 0 {
			return
		}
		src := text.From(n)
		for ln := n.Line + 1; QuoteEnd(src) < 0 && ln <= n.Line+len(text.lines); ln++ {
			l := text.Line(ln)
			if strings.TrimLeft(l, " ") != "" && len(l)-len(strings.TrimLeft(l, " ")) < parent.Column {
				out = append(out, n)
				return
			}
			src += "\n" + l
		}
	})
	return out
}

// quotedOver calls fn with each quoted value of the frontmatter that goes
// on past the line it opens on, the collection that holds it, and the
// frontmatter's lines.
func (d *SkillMD) quotedOver(fn func(n, parent *yaml.Node, text *Lines)) {
	if d.Front == nil {
		return
	}
	text := d.Lines()
	var walk func(n, parent *yaml.Node)
	walk = func(n, parent *yaml.Node) {
		for _, c := range n.Content {
			walk(c, n)
		}
		if n.Kind != yaml.ScalarNode || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
			return
		}
		if src := text.From(n); src != "" && QuoteEnd(src) < 0 {
			fn(n, parent, text)
		}
	}
	walk(d.Front, nil)
}

// subsetUnread says where the frontmatter leaves the official MCP SDK's
// YAML subset in a way the clients' YAML readers take, and what to do, or
// "": a flow collection over several lines, a bare key: value pair in a
// flow sequence, a key with no value in a flow mapping ({a}), or
// collections nested deeper than the SDK reads.
func (d *SkillMD) subsetUnread() (why, fix string) {
	if d.Front == nil {
		return "", ""
	}
	const block = "write it in block form, one \"key: value\" or \"- item\" a line, or on one line"
	text := d.Lines()
	var walk func(n, flow *yaml.Node, depth int) bool
	walk = func(n, flow *yaml.Node, depth int) bool {
		switch {
		case depth > MCPMaxDepth && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode):
			why, fix = fmt.Sprintf("%s nests lists and mappings more than %d deep", d.keyPath(n), MCPMaxDepth), "flatten it"
		case flow == nil && n.Style&yaml.FlowStyle != 0 && FlowEnd(text.From(n)) < 0:
			why, fix = d.keyPath(n)+" is a flow collection over several lines", block
		case flow != nil && flow.Kind == yaml.SequenceNode && n.Kind == yaml.MappingNode && !strings.HasPrefix(text.From(n), "{"):
			why, fix = d.keyPath(flow)+" holds a key: value pair inside a flow sequence", "write the pair in braces ([{key: value}]), or the list in block form"
			if d.keyPath(flow) == "argument-hint" { // [optional: a scope], meant as text
				fix = "quote the whole value"
			}
		case flow != nil && n.Kind == yaml.ScalarNode && n.Style == 0 && n.Value == "" && n.ShortTag() == "!!null":
			why, fix = d.keyPath(flow)+" has a key without a value inside a flow collection ({a}, or {a:1} without the space)", "write each key: value with a space after the colon, or quote text that holds one"
		}
		if why != "" {
			return false
		}
		if flow == nil && n.Style&yaml.FlowStyle != 0 {
			flow = n
		}
		for _, c := range n.Content {
			if !walk(c, flow, depth+1) {
				return false
			}
		}
		return true
	}
	walk(d.Front, nil, 0)
	return why, fix
}

// FlowEnd returns the offset of the "]" or "}" that closes the flow
// collection s starts with, or -1 when s ends first: brackets count
// outside quoted text and comments. A quote opens quoted text only where
// a value or key starts (don't, inside a plain value, is text); " #"
// starts a comment, to the end of its line.
func FlowEnd(s string) int {
	depth := 0
	prev := byte(0) // the last character that is no blank
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return i
			}
		case (c == '"' || c == '\'') && strings.IndexByte("{[,:", prev) >= 0:
			// A doubled '' inside single quotes ends the scan and starts
			// it again at once, which comes to the same.
			for i++; i < len(s) && s[i] != c; i++ {
				if c == '"' && s[i] == '\\' {
					i++
				}
			}
		case c == '#' && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t'):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		}
		if c != ' ' && c != '\t' {
			prev = c
		}
	}
	return -1
}

// Header is a block scalar header ("|2", ">-1") on a frontmatter line.
type Header struct {
	Line, Col int // 1-based: the file's line of the frontmatter, the column in characters
	Text      string
}

// blockHeader matches a block scalar header: "|" or ">", then chomping and
// indentation indicators in either order.
var blockHeader = regexp.MustCompile(`^[|>]([1-9][+-]?|[+-][1-9]?)?$`)

// IndentIndicators are the block scalar headers with an explicit
// indentation indicator, which the official MCP SDK's YAML subset
// refuses. It scans the lines, not the tree, so that it also finds them
// where an indicator made the YAML unreadable.
func (d *SkillMD) IndentIndicators() []Header {
	var out []Header
	block := -1 // indentation of the line that opened a block scalar, -1 outside one
	for i, l := range d.FileLines() {
		ind := len(l) - len(strings.TrimLeft(l, " "))
		if block >= 0 {
			if strings.TrimSpace(l) == "" || ind > block {
				continue // the block's text, which may hold anything
			}
			block = -1
		}
		col, header := findHeader(l)
		if col == 0 {
			continue
		}
		block = ind
		if strings.ContainsAny(header, "123456789") {
			out = append(out, Header{Line: d.FrontLine + i, Col: col, Text: header})
		}
	}
	return out
}

// findHeader finds a block scalar header ("|", ">-", "|2") on a line and
// returns its 1-based column and text, or 0.
func findHeader(l string) (int, string) {
	for i := 0; i < len(l); i++ {
		if l[i] != '|' && l[i] != '>' {
			continue
		}
		// The indicators, then nothing but blanks or a comment.
		j := i + 1
		for j < len(l) && j < i+3 && strings.IndexByte("123456789+-", l[j]) >= 0 {
			j++
		}
		rest := strings.TrimLeft(l[j:], " \t")
		if rest != "" && (rest[0] != '#' || len(rest) == len(l[j:])) {
			continue
		}
		if h := l[i:j]; blockHeader.MatchString(h) && headerContext(l[:i]) {
			return utf8.RuneCountInString(l[:i]) + 1, h
		}
	}
	return 0, ""
}

// headerContext reports whether a block scalar indicator may follow this
// start of a line: a key's ":", a "- " or "? ", or nothing, each optionally
// followed by a tag and an anchor.
func headerContext(prefix string) bool {
	if strings.HasPrefix(strings.TrimSpace(prefix), "#") || strings.Contains(prefix, " #") {
		return false // in a comment
	}
	if prefix != "" && !strings.ContainsRune(" \t", rune(prefix[len(prefix)-1])) {
		return false // inside a word, as in "a|b"
	}
	s := strings.TrimRight(prefix, " \t")
	for s != "" {
		j := strings.LastIndexAny(s, " \t")
		if tok := s[j+1:]; tok[0] != '!' && tok[0] != '&' {
			break
		}
		s = strings.TrimRight(s[:j+1], " \t")
	}
	return s == "" || strings.HasSuffix(s, ":") || strings.Trim(s, " \t-?") == ""
}

// FileLines are the frontmatter's lines as the file has them, without
// their "\n" or "\r\n": d.FrontLine+i is the file's line of the i-th.
func (d *SkillMD) FileLines() []string {
	var lines []string
	for l := range strings.Lines(string(d.FrontRaw)) {
		lines = append(lines, strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"))
	}
	return lines
}

// Lines are the frontmatter's lines as YAML counts them (a lone "\r" ends
// a line too), so that a node's Line and Column find its text. Each line's
// character offsets are found once: a YAML bomb puts thousands of nodes
// on one long line.
type Lines struct {
	lines  []string
	starts map[int][]int // a non-ASCII line's character offsets
}

// Lines are d's frontmatter lines.
func (d *SkillMD) Lines() *Lines {
	return &Lines{lines: strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(d.FrontRaw)), "\n")}
}

// Line is 1-based line ln, or "" past either end.
func (t *Lines) Line(ln int) string {
	if ln < 1 || ln > len(t.lines) {
		return ""
	}
	return t.lines[ln-1]
}

// Cut splits 1-based line ln before 1-based column col, counted in
// characters as yaml.v3 counts them.
func (t *Lines) Cut(ln, col int) (before, after string) {
	if ln < 1 || ln > len(t.lines) {
		return "", ""
	}
	l := t.lines[ln-1]
	s, ok := t.starts[ln]
	if !ok {
		if strings.ContainsFunc(l, func(r rune) bool { return r >= utf8.RuneSelf }) {
			for i := range l {
				s = append(s, i)
			}
		}
		if t.starts == nil {
			t.starts = map[int][]int{}
		}
		t.starts[ln] = s
	}
	i := col - 1
	if s != nil {
		if i = len(l); col-1 < len(s) {
			i = s[max(col-1, 0)]
		}
	}
	i = min(max(i, 0), len(l))
	return l[:i], l[i:]
}

// From is the text from node n's position to the end of its line; a
// node's position is that of its first property (tag or anchor), if any.
func (t *Lines) From(n *yaml.Node) string {
	_, after := t.Cut(n.Line, n.Column)
	return after
}

// QuoteEnd is the offset just past the quote that closes the quoted value
// s starts with, or -1 when s ends first: a double-quoted value closes at
// a quote no backslash escapes, a single-quoted one at a quote not doubled.
func QuoteEnd(s string) int {
	if s == "" || s[0] != '"' && s[0] != '\'' {
		return -1
	}
	for i := 1; i < len(s); i++ {
		switch {
		case s[0] == '"' && s[i] == '\\':
			i++
		case s[i] != s[0]:
		case s[0] == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		default:
			return i + 1
		}
	}
	return -1
}

// keyPath names the key whose value n is, dotted (metadata.summary), or
// "a value" when n is no mapping's value.
func (d *SkillMD) keyPath(n *yaml.Node) string {
	var find func(m *yaml.Node, at string) string
	find = func(m *yaml.Node, at string) string {
		for k, v := range Pairs(m) {
			p := strings.TrimPrefix(at+"."+k.Value, ".")
			if v == n {
				return p
			}
			if p := find(v, p); p != "" {
				return p
			}
		}
		return ""
	}
	return cmp.Or(find(d.Front, ""), "a value")
}

// MCPString reports whether MCP hosts read the YAML value n as a string: a
// scalar that YAML reads as one, or a date, which the YAML 1.2 readers of
// MCP hosts keep as the text written (and FrontmatterJSON publishes so).
func MCPString(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (Tag(n) == "!!str" || Tag(n) == "!!timestamp")
}

// Tag is the type MCP hosts' YAML 1.2 readers give the value n: yaml.v3's
// tag, but for a plain scalar typed by the core schema (CoreNumber): 010
// is the number 10, 0b1, 1_000 and << are text, and 1e999 a number.
func Tag(n *yaml.Node) string {
	t := n.ShortTag()
	if n.Kind != yaml.ScalarNode || n.Style != 0 {
		return t
	}
	_, num := CoreNumber(n.Value)
	switch {
	case num && t != "!!int" && t != "!!float":
		return "!!float"
	case !num && (t == "!!int" || t == "!!float" || t == "!!merge"):
		return "!!str"
	}
	return t
}

// Internal reports whether metadata's key k with value v is the Vercel
// skills CLI's `internal: true`, which hides the skill from its installs
// (unless INSTALL_INTERNAL_SKILLS=1). Its test is `=== true`: quoted, the
// flag is text, and the skill is shown.
func Internal(k, v *yaml.Node) bool {
	return k.Value == "internal" && v.Kind == yaml.ScalarNode && Tag(v) == "!!bool" && strings.EqualFold(v.Value, "true")
}

// Describe says what YAML reads n as, for messages: "a list", "the number
// 1.0", "null".
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch Tag(n) {
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!bool":
		return "the boolean " + n.Value
	case "!!null":
		return "null"
	case "!!timestamp":
		return "the date " + n.Value
	case "!!str":
		return "a string"
	}
	return "a " + strings.TrimPrefix(n.ShortTag(), "!!")
}

// ServedSize is how many bytes an MCP host receives of a file through
// resources/read: its size when text (IsText), else its base64 encoding's,
// which the MCP Inspector counts against MCPMaxBytes.
func ServedSize(size int64, text bool) int64 {
	if text {
		return size
	}
	return (size + 2) / 3 * 4
}

// IsText reports whether an MCP server sends data as text rather than as
// a base64 blob: it is not empty, and valid UTF-8 without a byte order
// mark. Serve reads resources by it, and ServedSize counts by it.
func IsText(data string) bool {
	var t TextCheck
	t.WriteString(data)
	return t.Text()
}

// TextCheck tells IsText of bytes written to it in pieces, as a file
// streams, holding at most a character at a time.
type TextCheck struct {
	size int64
	head [3]byte           // the first bytes, for the byte order mark
	part [utf8.UTFMax]byte // a character the last write cut off
	np   int
	bad  bool // not UTF-8
}

// Write takes the next bytes; it never fails.
func (t *TextCheck) Write(p []byte) (int, error) {
	n := len(p)
	if t.size < int64(len(t.head)) {
		copy(t.head[t.size:], p)
	}
	t.size += int64(n)
	if t.bad {
		return n, nil
	}
	// Finish the character the last write cut off.
	for t.np > 0 && len(p) > 0 {
		t.part[t.np] = p[0]
		t.np++
		p = p[1:]
		if utf8.FullRune(t.part[:t.np]) {
			if r, size := utf8.DecodeRune(t.part[:t.np]); r == utf8.RuneError && size == 1 {
				t.bad = true
				return n, nil
			}
			t.np = 0
		}
	}
	if t.np > 0 {
		return n, nil // p is used up, and the character still cut off
	}
	// Keep a character this write cuts off for the next one.
	end := len(p)
	for i := len(p) - 1; i >= 0 && i > len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				end = i
			}
			break
		}
	}
	if !utf8.Valid(p[:end]) {
		t.bad = true
		return n, nil
	}
	t.np = copy(t.part[:], p[end:])
	return n, nil
}

// WriteString is Write of a string, through a small buffer.
func (t *TextCheck) WriteString(s string) (int, error) {
	n := len(s)
	var buf [4096]byte
	for len(s) > 0 {
		k := copy(buf[:], s)
		t.Write(buf[:k])
		s = s[k:]
	}
	return n, nil
}

// Text reports whether the bytes written are served as text (IsText).
func (t *TextCheck) Text() bool {
	return !t.bad && t.np == 0 && t.size > 0 && !(t.size >= 3 && t.head == [3]byte{0xEF, 0xBB, 0xBF})
}

// ServedBytes is how many bytes MCP hosts receive of the files through
// resources/read (ServedSize of each), as far as limit needs to know:
// when the files could not pass limit even base64-encoded, none is read
// and that bound is returned; otherwise each file is read to tell text
// from binary. A result over limit is always exact.
func (f *Files) ServedBytes(limit int64) (int64, error) {
	var n int64
	for _, fl := range f.Files {
		n += ServedSize(fl.Size, false)
	}
	if n <= limit {
		return n, nil
	}
	n = 0
	for _, fl := range f.Files {
		var t TextCheck
		if r, ok := f.Kept(fl.Path); ok && int64(len(r.Data)) == fl.Size {
			t.Write(r.Data)
		} else if err := smallfile.Copy(&t, fl.Disk); err != nil {
			return 0, err
		}
		n += ServedSize(fl.Size, t.Text())
	}
	return n, nil
}
