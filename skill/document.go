package skill

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FileName is the name the Agent Skills specification gives a skill's entry file.
const FileName = "SKILL.md"

// ProblemKind classifies what is structurally wrong with a SKILL.md, so that
// each kind maps to exactly one lint rule.
type ProblemKind int

const (
	NoProblem     ProblemKind = iota
	NoFrontmatter             // line 1 is not "---" and no fence follows
	BadOpening                // the opening fence is not alone on line 1: blank lines or spaces before it, or spaces after it
	Unclosed                  // the opening fence has no closing "---" line
	BadYAML                   // the frontmatter is not valid YAML
	NotMapping                // empty frontmatter, a list or a scalar
)

// Problem is a structural defect of a SKILL.md with its 1-based position in
// the file.
type Problem struct {
	Kind      ProblemKind
	Line, Col int
	Msg       string
}

// SkillMD is a parsed SKILL.md. Parsing never fails: what could not be
// understood is recorded in Problem (and BOM), and the rest filled in.
type SkillMD struct {
	Raw []byte // the bytes read (the whole file unless it was over the read limit), as UTF-8
	BOM bool   // the file starts with a UTF-8 byte order mark
	// UTF16 is a file in UTF-16 with its byte order mark, as Windows
	// PowerShell 5.1 writes text (Out-File, >): Raw is its text as UTF-8,
	// so that the rules see what it says, and lint reports the encoding.
	UTF16 bool

	Truncated bool // Raw is the first MaxRead bytes of a longer file

	// Front is the frontmatter's root node: a mapping when the document is
	// well formed, nil when there is no parseable frontmatter.
	Front     *yaml.Node
	FrontRaw  []byte // the YAML text between the fences
	FrontLine int    // 1-based file line of the first YAML line

	Body     []byte // the Markdown after the closing fence
	BodyLine int    // 1-based file line of the body's first line

	Problem *Problem
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// UTF16 reports whether data starts with a UTF-16 byte order mark.
func UTF16(data []byte) bool {
	return bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF})
}

// FromUTF16 is the text of data, UTF-16 with its byte order mark
// (UTF16), as UTF-8 without one; an odd last byte is dropped.
func FromUTF16(data []byte) []byte {
	order := binary.ByteOrder(binary.LittleEndian)
	if data[0] == 0xFE {
		order = binary.BigEndian
	}
	units := make([]uint16, 0, len(data)/2)
	for i := 2; i+1 < len(data); i += 2 {
		units = append(units, order.Uint16(data[i:]))
	}
	return []byte(string(utf16.Decode(units)))
}

// Parse splits a SKILL.md into frontmatter and body and parses the
// frontmatter as YAML, keeping node positions.
func Parse(data []byte) *SkillMD { return parse(data, false) }

// Body is the Markdown after the frontmatter, as Parse finds it, without
// parsing the frontmatter: what the catalog shows of a SKILL.md that lint
// parsed already.
func Body(data []byte) []byte {
	d, _ := split(data, false)
	return d.Body
}

// Head is a copy of data up to the Markdown after the frontmatter: all
// that Parse needs to read the frontmatter again.
func Head(data []byte) []byte {
	return bytes.Clone(data[:len(data)-len(Body(data))])
}

// parse is Parse of data that is the whole file, or, when truncated, its
// first MaxRead bytes (Skill.Read).
func parse(data []byte, truncated bool) *SkillMD {
	d, closed := split(data, truncated)
	if !closed {
		return d
	}

	var root yaml.Node
	if err := unmarshal(d.FrontRaw, &root); err != nil {
		line, msg := YAMLError(err)
		line, _ = fileLine(d.FrontRaw, max(line, 1))
		if slices.Contains(parserProblems, msg) {
			line = problemLine(d.FrontRaw, msg, line)
		}
		if d.Problem == nil {
			col, why := problemColumn(d.FrontRaw, line, msg)
			d.Problem = &Problem{Kind: BadYAML, Line: d.FrontLine + line - 1, Col: col,
				Msg: "invalid YAML in frontmatter: " + why}
		}
		return d
	}
	if i := docEnd.FindIndex(d.FrontRaw); i != nil && d.Problem == nil {
		line, _ := fileLine(d.FrontRaw, 1+bytes.Count(d.FrontRaw[:i[0]], []byte("\n")))
		d.Problem = &Problem{Kind: BadYAML, Line: d.FrontLine + line - 1, Col: 1,
			Msg: "invalid YAML in frontmatter: \"...\" ends the YAML document before the closing ---: YAML readers drop what follows it, and MCP hosts refuse the file"}
		return d
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		what, line := "empty", d.FrontLine
		if len(root.Content) > 0 {
			n := root.Content[0]
			line, _ = d.FilePos(n)
			switch n.Kind {
			case yaml.SequenceNode:
				what = "a list"
			case yaml.AliasNode:
				what = "an alias"
			default:
				what = "a single value"
			}
		}
		if d.Problem == nil {
			d.Problem = &Problem{Kind: NotMapping, Line: line, Col: 1,
				Msg: "frontmatter is " + what + "; it must be a mapping of keys such as \"name: ...\" and \"description: ...\""}
		}
		return d
	}
	d.Front = root.Content[0]
	return d
}

// split finds the frontmatter's fences and the body, and reports whether
// the frontmatter is closed: only then is there YAML to parse (FrontRaw).
// It reads lines only as far as the closing fence.
func split(data []byte, truncated bool) (d *SkillMD, closed bool) {
	utf16 := UTF16(data)
	if utf16 {
		data = FromUTF16(data)
	}
	d = &SkillMD{Raw: data, Truncated: truncated, UTF16: utf16}
	if bytes.HasPrefix(data, bom) {
		// Clients disagree on BOMs: report it, and read on.
		d.BOM = true
		data = data[len(bom):]
	}
	// open: the opening fence's line (0-based); n lines read, the last
	// ending at end; front: where the YAML starts.
	open, n, end, front := -1, 0, 0, 0
	comment, inComment := 0, false // the line of an HTML comment before the fence
	for l := range bytes.Lines(data) {
		text, start := lineText(l), end
		n, end = n+1, end+len(l)
		if open < 0 {
			// The opening fence: line 1, or after blank lines or an HTML
			// comment (a markdownlint directive), a problem reported but
			// still parsed so that later rules can run.
			t := bytes.TrimSpace(text)
			if inComment || bytes.HasPrefix(t, []byte("<!--")) {
				comment = cmp.Or(comment, n)
				inComment = !bytes.Contains(t, []byte("-->"))
				continue
			}
			if !isFence(text) {
				if len(t) != 0 {
					break
				}
				continue
			}
			switch {
			case comment > 0:
				d.Problem = &Problem{Kind: BadOpening, Line: comment, Col: 1,
					Msg: fmt.Sprintf("frontmatter must start with \"---\" on line 1, but an HTML comment comes first (line %d): clients see no frontmatter, so no skill", comment)}
			case n > 1 || startsWithSpace(text):
				d.Problem = &Problem{Kind: BadOpening, Line: 1, Col: 1,
					Msg: "frontmatter must start with \"---\" on line 1; remove the blank lines or spaces before it"}
			case len(text) > 3:
				// The MCP SDK and the Vercel skills CLI take "---" alone,
				// and see no frontmatter at all after "--- ".
				d.Problem = &Problem{Kind: BadOpening, Line: 1, Col: 4,
					Msg: "the opening \"---\" has blanks after it, where readers take \"---\" alone as the fence: the official MCP SDK and the Vercel skills CLI see no frontmatter"}
			}
			open, front = n-1, end
			continue
		}
		// The first fence in column 1 closes the block, even inside a block
		// scalar, as for every line-based reader (and for YAML, where it
		// starts a new document); an indented "  ---" is text to them all.
		if isFence(text) && !startsWithSpace(text) {
			// data[end:] is empty but not nil at the end of the file.
			d.FrontLine, d.FrontRaw, d.Body, d.BodyLine = open+2, data[front:start], data[end:], n+1
			return d, true
		}
	}
	if open < 0 {
		d.Problem = &Problem{Kind: NoFrontmatter, Line: 1, Col: 1,
			Msg: "SKILL.md has no YAML frontmatter; start the file with a \"---\" line, the name and description, and a closing \"---\" line"}
		if from, to := laterFront(data); from > 0 {
			// Below a title: a "---" added on line 1 would make two.
			d.Problem = &Problem{Kind: BadOpening, Line: from, Col: 1,
				Msg: fmt.Sprintf("the frontmatter is on lines %d to %d, below other text; clients read it only on line 1, so they see none, and no skill", from, to)}
		}
		d.Body, d.BodyLine = data, 1
		return d, false
	}
	d.FrontLine = open + 2
	msg := "the frontmatter opened here is never closed; add a \"---\" line after the last YAML line"
	if truncated {
		// Its closing line may well lie past the limit: the frontmatter
		// is too long to be read, which a "---" added here would not mend.
		msg = fmt.Sprintf("the frontmatter opened here is not closed within the first 1 MiB (%d bytes, to line %d) of the file, "+
			"the most of a SKILL.md that skillpack reads: it is too long, or its closing \"---\" line is missing",
			MaxRead, n)
	}
	d.Problem = &Problem{Kind: Unclosed, Line: open + 1, Col: 1, Msg: msg}
	return d, false
}

// laterFront finds frontmatter below the first line's text (a title): a
// fence in column 1 among the first 20 lines, before any code block (an
// example of frontmatter: kazuyaegusa/claude-skills), whose next line
// starts with name: or description:, and the fence closing it. It returns
// their 1-based lines, or zeros.
func laterFront(data []byte) (from, to int) {
	n, next := 0, false // next: the line after an opening fence
	for l := range bytes.Lines(data) {
		n++
		text := lineText(l)
		switch {
		case from == 0 && (n > 20 || bytes.HasPrefix(text, []byte("```")) || bytes.HasPrefix(text, []byte("~~~"))):
			return 0, 0
		case from > 0 && isFence(text) && !startsWithSpace(text):
			return from, n
		case next && (bytes.HasPrefix(text, []byte("name:")) || bytes.HasPrefix(text, []byte("description:"))):
			next = false
		case next:
			from, next = 0, false
		case from == 0 && isFence(text) && !startsWithSpace(text):
			from, next = n, true
		}
	}
	return 0, 0
}

// unmarshal is yaml.Unmarshal that turns a panic inside the YAML library
// into an error: a SKILL.md is untrusted input.
func unmarshal(data []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the YAML parser failed on this input (%v)", r)
		}
	}()
	return yaml.Unmarshal(data, n)
}

// docEnd matches a YAML document end marker, "..." at the start of a line.
var docEnd = regexp.MustCompile(`(?m)^\.\.\.(?:[ \t\r]|$)`)

// FilePos turns a frontmatter node's position into a 1-based file position.
func (d *SkillMD) FilePos(n *yaml.Node) (line, col int) {
	if n == nil {
		return d.FrontLine, 1
	}
	l, shift := fileLine(d.FrontRaw, n.Line)
	return d.FrontLine + l - 1, n.Column + shift
}

// fileLine turns a 1-based line of YAML's in raw into the file's, and the
// columns to add to YAML's column: a lone "\r" ends a line for YAML, and
// only "\n" does for the file (and for every editor that shows the line).
func fileLine(raw []byte, yamlLine int) (line, shift int) {
	if bytes.IndexByte(raw, '\r') < 0 {
		return yamlLine, 0
	}
	line, start, at := 1, 0, 0 // at: where YAML's line begins; start: the file's
	for i := 0; i < len(raw) && yamlLine > 1; i++ {
		switch c := raw[i]; {
		case c == '\n':
			line, start = line+1, i+1
		case c != '\r' || i+1 < len(raw) && raw[i+1] == '\n':
			continue
		}
		at, yamlLine = i+1, yamlLine-1
	}
	return line, utf8.RuneCount(raw[start:at])
}

// Lookup returns the key and value nodes of a top-level frontmatter key, or
// nils. When a key repeats, the first is returned (duplicates are a lint
// finding of their own).
func (d *SkillMD) Lookup(key string) (k, v *yaml.Node) {
	if d.Front == nil {
		return nil, nil
	}
	for k, v := range Pairs(d.Front) {
		if k.Kind == yaml.ScalarNode && k.Value == key {
			return k, v
		}
	}
	return nil, nil
}

// Pairs yields the keys and values of a mapping node, in order; none for
// nil or a node of another kind.
func Pairs(m *yaml.Node) iter.Seq2[*yaml.Node, *yaml.Node] {
	return func(yield func(k, v *yaml.Node) bool) {
		for i := 0; m != nil && m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
			if !yield(m.Content[i], m.Content[i+1]) {
				return
			}
		}
	}
}

// String returns the value of a top-level key when it is a plain string
// scalar (tag !!str), and whether it was.
func (d *SkillMD) String(key string) (string, bool) {
	_, v := d.Lookup(key)
	if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
		return "", false
	}
	return v.Value, true
}

// lineText is a line as bytes.Lines gives it without its terminator ("\n"
// or "\r\n").
func lineText(l []byte) []byte {
	return bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))
}

// lineAt returns the 1-based line n of raw, without its terminator, and
// the byte offset where it starts; past the end, an empty line at 0.
func lineAt(raw []byte, n int) (text []byte, start int) {
	for l := range bytes.Lines(raw) {
		if n--; n == 0 {
			return lineText(l), start
		}
		start += len(l)
	}
	return nil, 0
}

// isFence reports whether a line is a frontmatter fence: "---" with optional
// leading and trailing spaces or tabs (leading ones are reported separately).
func isFence(l []byte) bool {
	return string(bytes.Trim(l, " \t")) == "---"
}

func startsWithSpace(l []byte) bool {
	return len(l) > 0 && (l[0] == ' ' || l[0] == '\t')
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). For these the library prints the 0-based line of the mark, one
// less than the line meant, and no line at all for the first line.
var parserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// problemLine finds the line a yaml.v3 parser error is about. The library
// names the line where the enclosing construct began ("metadata:"), not the
// line that broke it, so this looks for the shortest run of leading lines,
// ending at or after that line, that fails with the same message. Each try
// parses again, within a budget of tries and bytes that depends only on
// the input; spent, it keeps line.
func problemLine(raw []byte, msg string, line int) int {
	const maxTries, maxBytes = 128, problemBytes
	spent, end, n := 0, 0, 0
	for l := range bytes.Lines(raw) {
		if end, n = end+len(l), n+1; n < line {
			continue
		}
		if spent += end; spent > maxBytes || n-line >= maxTries {
			return line
		}
		var root yaml.Node
		if err := unmarshal(raw[:end], &root); err != nil {
			if _, m := YAMLError(err); m == msg {
				return n
			}
		}
	}
	return line
}

// YAMLError splits a yaml.v3 error into the 1-based line it names (0 when it
// names none) and its message without the library's prefix.
func YAMLError(err error) (int, string) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if slices.Contains(parserProblems, msg) {
			n++
		}
		return n, msg
	}
	rest, ok := strings.CutPrefix(msg, "yaml: ")
	if ok && slices.Contains(parserProblems, rest) {
		return 1, rest
	}
	if e, isType := err.(*yaml.TypeError); isType && len(e.Errors) > 0 {
		return 0, e.Errors[0]
	}
	if ok && !strings.Contains(rest, "octet") && !strings.Contains(rest, "control characters") &&
		!strings.Contains(rest, "Unicode character") && !strings.HasPrefix(rest, "input error") {
		// yaml.v3 leaves the line out of a scanner's error on the first
		// line (it omits a line index of 0); the reader's errors above
		// name no place at all.
		return 1, rest
	}
	return 0, rest
}

// lastNonSpace is the last byte of b that is not a space, or 0.
func lastNonSpace(b []byte) byte {
	if b = bytes.TrimRight(b, " \t"); len(b) > 0 {
		return b[len(b)-1]
	}
	return 0
}

// problemColumn finds the 1-based column, in characters, of what broke the
// YAML on a line that yaml.v3 named without a column (else the line's
// first character's), and says what it is in words an author can act on,
// the library's message kept in parentheses.
func problemColumn(raw []byte, line int, msg string) (int, string) {
	text, start := lineAt(raw, line)
	col := func(i int) int { return utf8.RuneCount(text[:i]) + 1 }
	first := len(text) - len(bytes.TrimLeft(text, " ")) // a tab in the indentation is the fault itself
	switch msg {
	case "mapping values are not allowed in this context":
		if i := mappingColon(raw, start, text, line, msg); i >= 0 {
			return col(i), "\": \" inside an unquoted value, where YAML would start a new key (" + msg + ")"
		}
	case "found unexpected end of stream":
		// yaml.v3 names the line where a quoted value began and ran to
		// the end of the frontmatter without its closing quote.
		for i, c := range text {
			if (c == '"' || c == '\'') && (i == first || bytes.IndexByte([]byte(":-[{,"), lastNonSpace(text[:i])) >= 0) {
				return col(i), fmt.Sprintf("the %c quote opened here is never closed (%s)", c, msg)
			}
		}
	case "found character that cannot start any token":
		for i, c := range text {
			if (c == '@' || c == '`') && (i == 0 || bytes.IndexByte([]byte(" \t[{,:-?"), text[i-1]) >= 0) {
				return col(i), fmt.Sprintf("an unquoted value cannot start with %q (%s)", c, msg)
			}
		}
	case "did not find expected key", "did not find expected '-' indicator":
		// problemLine found the line that broke the enclosing block: most
		// often a key indented deeper or shallower than its neighbours.
		return col(first), "YAML cannot place this line in the block above it; check its indentation (" + msg + ")"
	case "found unknown escape character":
		if q := bytes.IndexByte(text, '"'); q >= 0 {
			for i := q + 1; i+1 < len(text); i++ {
				if text[i] != '\\' {
					continue
				}
				if !strings.ContainsRune("0abt\tnvfre \"/\\N_LPxuU", rune(text[i+1])) {
					r, _ := utf8.DecodeRune(text[i+1:]) // the character, not its first byte (。)
					return col(i), fmt.Sprintf("\"\\%c\" is no escape in a double-quoted value (%s)", r, msg)
				}
				i++ // a valid escape: skip the character it escapes
			}
		}
	}
	return col(first), msg
}

// mappingColon returns the byte offset, within text, of the ':' that made
// yaml.v3 fail with msg on line: of the colons followed by a blank or the
// end of the line, the first at which the YAML cut just after it fails the
// same way, so that no guess about YAML's grammar is needed. The tries are
// bounded as in problemLine; -1 when none is found within them.
func mappingColon(raw []byte, start int, text []byte, line int, msg string) int {
	const maxTries = 16
	tries := 0
	for i, c := range text {
		if c != ':' || i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\t' {
			continue
		}
		if tries++; tries > maxTries || start > problemBytes {
			return -1
		}
		cut := append(raw[:start+i+1:start+i+1], '\n')
		var root yaml.Node
		if err := unmarshal(cut, &root); err != nil {
			if l, m := YAMLError(err); m == msg && max(l, 1) == line {
				return i
			}
		}
	}
	return -1
}

// problemBytes bounds the YAML re-parsed to place an error: real frontmatter
// is far smaller, and hostile frontmatter then costs only the first parse.
const problemBytes = 256 << 10
