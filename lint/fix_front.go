package lint

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/skill"
)

// The frontmatter fixers edit bytes by the positions of yaml.v3's nodes,
// then parse the result and compare it with the tree they meant to make:
// the old tree with exactly the intended change. Anything else (a value
// that reads differently, a key gone, a body moved) drops the edit.

// fixEdit replaces data[start:end] with text.
type fixEdit struct {
	start, end int
	text       string
}

// frontFix is a set of edits and the change they must make to the tree.
type frontFix struct {
	edits []fixEdit
	// mutate applies the intended change to a fresh parse of the old bytes;
	// false when it cannot find what it changes.
	mutate func(d *skill.SkillMD) bool
}

func applyEdits(data []byte, edits []fixEdit) ([]byte, bool) {
	edits = slices.Clone(edits)
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b bytes.Buffer
	at := 0
	for _, e := range edits {
		if e.start < at || e.end < e.start || e.end > len(data) {
			return nil, false
		}
		b.Write(data[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(data[at:])
	return b.Bytes(), true
}

// applyFront applies the fixes whose result is the tree intended: all of
// them when they agree, else each that does on its own, in order.
func (f *fixFile) applyFront(fixes []frontFix) {
	try := func(set []frontFix) ([]byte, bool) {
		var edits []fixEdit
		old := skill.Parse(f.data)
		for _, fx := range set {
			if !fx.mutate(old) {
				return nil, false
			}
			edits = append(edits, fx.edits...)
		}
		data, ok := applyEdits(f.data, edits)
		if !ok {
			return nil, false
		}
		d := skill.Parse(data)
		if old.Front == nil || d.Front == nil || problemKind(old) != problemKind(d) ||
			!bytes.Equal(old.Body, d.Body) || !sameYAML(old.Front, d.Front, 0, "") {
			return nil, false
		}
		return data, true
	}
	var data []byte // what try made of the last set it took: the set kept
	kept := keepValid(fixes, len(fixes), func(set []frontFix) bool {
		d, ok := try(set)
		if ok {
			data = d
		}
		return ok
	})
	if len(kept) > 0 {
		f.data = data
	}
}

// keepValid returns items when valid takes them together, else those of
// the first limit that it takes one by one, each with those kept before it.
func keepValid[T any](items []T, limit int, valid func([]T) bool) []T {
	if valid(items) {
		return items
	}
	var kept []T
	for _, it := range items[:min(limit, len(items))] {
		if set := append(slices.Clone(kept), it); valid(set) {
			kept = set
		}
	}
	return kept
}

// sameYAML compares what readers see of two trees: kinds, tags, values
// (both without the text cut, when it is not "": b lacks one of a's runs
// of it, and the others are still in both) and the order of keys and
// items, not styles, comments or positions.
func sameYAML(a, b *yaml.Node, depth int, cut string) bool {
	av, bv := a.Value, b.Value
	if cut != "" {
		av, bv = strings.ReplaceAll(av, cut, ""), strings.ReplaceAll(bv, cut, "")
	}
	if a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || av != bv ||
		len(a.Content) != len(b.Content) || depth > 10000 {
		return false
	}
	if a.Kind == yaml.AliasNode {
		return true // the anchor's name is its Value; yaml-anchor reports it anyway
	}
	for i := range a.Content {
		if !sameYAML(a.Content[i], b.Content[i], depth+1, cut) {
			return false
		}
	}
	return true
}

// lineStart returns the byte offset at which 1-based file line n starts.
func lineStart(data []byte, n int) (int, bool) {
	off := 0
	for ; n > 1; n-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	return off, true
}

// lineEnd returns the offset of the end of the line holding off, before
// its "\r\n" or "\n".
func lineEnd(data []byte, off int) int {
	end := len(data)
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		end = off + i
	}
	if end > off && data[end-1] == '\r' {
		end--
	}
	return end
}

// nodeOffset turns a node's position into a byte offset in data, by the
// column converter the YAML rules use.
func nodeOffset(data []byte, d *skill.SkillMD, n *yaml.Node) (int, bool) {
	line, _ := d.FilePos(n)
	off, ok := lineStart(data, line)
	before, _ := d.Lines().Cut(n.Line, n.Column)
	return off + len(before), ok
}

// scalarSpan returns the bytes of a plain scalar written on one line: its
// value exactly as written, or false.
func scalarSpan(data []byte, d *skill.SkillMD, n *yaml.Node) (int, int, bool) {
	off, ok := nodeOffset(data, d, n)
	if !ok || n.Value == "" || !bytes.HasPrefix(data[off:], []byte(n.Value)) {
		return 0, 0, false
	}
	return off, off + len(n.Value), true
}

// doubleQuote writes s as a YAML double-quoted scalar that reads back as s.
func doubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 && r != '\t' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// yamlScalar writes s plain when every reader takes it for that string and
// no rule would object, else double-quoted.
func yamlScalar(s string) string {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte("k: "+s+"\n"), &root); err == nil && len(root.Content) == 1 &&
		len(root.Content[0].Content) == 2 {
		v := root.Content[0].Content[1]
		if v.Kind == yaml.ScalarNode && v.Style == 0 && v.ShortTag() == "!!str" && v.Value == s &&
			ambiguous(s, v.ShortTag()) == "" && !strings.Contains(s, ": ") && !strings.HasSuffix(s, ":") &&
			!strings.Contains(s, " #") {
			return s
		}
	}
	return doubleQuote(s)
}

// walkYAML calls fn on every node below n, keys before their values.
func walkYAML(n *yaml.Node, fn func(n *yaml.Node)) {
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fn(n)
		if n.Kind == yaml.AliasNode {
			continue
		}
		for i := len(n.Content) - 1; i >= 0; i-- {
			stack = append(stack, n.Content[i])
		}
	}
}

// fixQuoteScalars quotes the plain scalars that the findings point at: a
// value that YAML readers type differently (yes, 010, 2024-01-02), a
// metadata value that is not a string (count: 28), or one holding ": ".
// The quoted text is the text as written, so a YAML 1.2 reader gets the
// string it already read as a string, or the very characters it read as
// a number. A value cut short by " #" is left alone: whether the rest is a
// comment or text is the author's call.
func fixQuoteScalars(f *fixFile, at []Finding) {
	if !f.job.entry || !bytes.Equal(f.data, f.orig) {
		return // positions are the linted bytes'
	}
	type pos struct{ line, col int }
	want := map[pos]string{}
	for _, fd := range at {
		want[pos{fd.Line, fd.Column}] = fd.Rule
	}
	d := skill.Parse(f.data)
	if d.Front == nil {
		return
	}
	var fixes []frontFix
	walkYAML(d.Front, func(n *yaml.Node) {
		line, col := d.FilePos(n)
		rule, ok := want[pos{line, col}]
		if !ok || !quotable(n, rule) {
			return
		}
		start, end, ok := scalarSpan(f.data, d, n)
		if !ok {
			return
		}
		fixes = append(fixes, frontFix{
			edits: []fixEdit{{start, end, doubleQuote(n.Value)}},
			mutate: func(old *skill.SkillMD) bool {
				found := false
				walkYAML(old.Front, func(m *yaml.Node) {
					if l, c := old.FilePos(m); l == line && c == col && m.Kind == yaml.ScalarNode {
						m.Tag, found = "!!str", true
					}
				})
				return found
			},
		})
	})
	f.applyFront(fixes)
}

// quotable reports whether quoting n keeps its text and ends rule's finding.
func quotable(n *yaml.Node, rule string) bool {
	const styled = yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle | yaml.TaggedStyle
	if n.Kind != yaml.ScalarNode || n.Style&styled != 0 || n.Anchor != "" || specialFloat(n) {
		return false
	}
	switch n.ShortTag() {
	case "!!str", "!!int", "!!float", "!!bool", "!!timestamp":
	default:
		return false // null has no text to keep: "" or removing the key is the author's call
	}
	if rule == "yaml-colon-space" {
		return strings.Contains(n.Value, ": ") || strings.Contains(n.Value, ":\t") || strings.HasSuffix(n.Value, ":")
	}
	return true
}

// colonLine is a "key: value" line whose value may hold ": ".
var colonLine = regexp.MustCompile(`^( *(?:- +)?)([A-Za-z0-9_][A-Za-z0-9_.-]*) *: +(\S.*?)[ \t]*$`)

// keyLike is a line that starts with a one-word key.
var keyLike = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*:(\s|$)`)

// colonCause reports whether a plain value is invalid YAML for a reason
// that quoting ends without changing its text: a ": " inside it, a
// reserved indicator ("`" or "@") that no plain value may start with, or
// a flow list or mapping it starts with and goes on after, on its key's
// line (argument-hint: [a] [b]; see textAfterFlow). A value with " #" is
// not: the rest may be a comment or text.
func colonCause(v plainValue) bool {
	val := v.val
	if strings.Contains(val, " #") || strings.Contains(val, "\t#") {
		return false
	}
	if val[0] == '`' || val[0] == '@' {
		return true
	}
	if textAfterFlow(v.head) >= 0 {
		// allowed-tools is a list or tools' names: as a quoted string,
		// "[Read, Write] - Bash" would name the tools "[Read," and "Write]".
		return v.key != "allowed-tools"
	}
	return (strings.Contains(val, ": ") || strings.Contains(val, ":\t")) && !strings.ContainsAny(val[:1], "'\"[]{}>|*&!%#,?-") &&
		gluedKey(val) == "" // two lines joined: a person puts the break back
}

// fixColonLines quotes the plain value that made the frontmatter invalid
// (description: Use when: the user asks, argument-hint: [a] [b]; see
// colonCause), on one line or
// several, where yaml.v3 stops, while each quote moves the error on. The
// result must parse, and each quoted value read back as its text.
func fixColonLines(f *fixFile, _ []Finding) {
	if !f.job.entry {
		return
	}
	data := f.data
	var done []plainValue
	for {
		d := skill.Parse(data)
		if d.Problem == nil || d.Problem.Kind != skill.BadYAML {
			break
		}
		ln := d.Problem.Line
		if len(done) == 16 || ln < d.FrontLine ||
			slices.ContainsFunc(done, func(q plainValue) bool { return q.line == ln }) {
			return // no progress, or not this cause
		}
		span, ok := plainSpan(data, d, ln)
		if !ok || !colonCause(span) {
			return
		}
		// On one line: the official MCP SDK's YAML reader refuses a
		// quoted value over several (skill.MultilineQuoted).
		if data, ok = applyEdits(data, []fixEdit{{span.start, span.end, doubleQuote(span.val)}}); !ok {
			return
		}
		done = append(done, span)
	}
	d := skill.Parse(data)
	if d.Front == nil || len(done) == 0 {
		return
	}
	for _, q := range done {
		found := false
		walkYAML(d.Front, func(n *yaml.Node) {
			if n.Kind != yaml.MappingNode {
				return
			}
			for k, v := range skill.Pairs(n) {
				if l, _ := d.FilePos(v); l == q.line && k.Value == q.key && v.Value == q.val && v.ShortTag() == "!!str" {
					found = true
				}
			}
		})
		if !found {
			return
		}
	}
	f.data = data
}

// plainValue is a plain scalar value in the source: the bytes from its
// first character to the end of its last line, and the text YAML reads
// from them.
type plainValue struct {
	line       int // the file line of its key
	key, val   string
	head       string // its text on its key's line
	start, end int
}

// plainSpan finds the plain value that file line ln is part of: the value
// of a "key: value" line ln, or of the nearest line above that is indented
// less, when ln and the lines between continue its value. The value runs
// on over the following lines indented deeper than its key. A double-quoted
// scalar folds its lines as a plain one does (line breaks become spaces,
// the indentation goes), so the same bytes quoted read as the same text.
func plainSpan(data []byte, d *skill.SkillMD, ln int) (plainValue, bool) {
	text := func(n int) ([]byte, int, bool) {
		s, ok := lineStart(data, n)
		if !ok || n >= d.BodyLine-1 {
			return nil, 0, false
		}
		return data[s:lineEnd(data, s)], s, true
	}
	indent := func(l []byte) int { return len(l) - len(bytes.TrimLeft(l, " ")) }
	continues := func(l []byte, under int) bool {
		t := bytes.TrimSpace(l)
		// A line that reads as a key may be one indented wrongly: which
		// it is, is the author's call.
		return len(t) > 0 && indent(l) > under && t[0] != '#' && !bytes.HasPrefix(t, []byte("- ")) &&
			!bytes.Contains(l, []byte(" #")) && !bytes.Contains(l, []byte("\t#")) && !keyLike.Match(t)
	}
	l, _, ok := text(ln)
	if !ok {
		return plainValue{}, false
	}
	owner := ln
	for k := ln - 1; k >= d.FrontLine && indent(l) > 0; k-- {
		lk, _, ok := text(k)
		if !ok || len(bytes.TrimSpace(lk)) == 0 {
			break
		}
		if indent(lk) < indent(l) {
			if colonLine.Match(lk) {
				owner = k
			}
			break
		}
	}
	ol, start, _ := text(owner)
	m := colonLine.FindSubmatchIndex(ol)
	if m == nil {
		return plainValue{}, false
	}
	v := plainValue{line: owner, key: string(ol[m[4]:m[5]]), start: start + m[6], end: start + m[7]}
	v.head = string(ol[m[6]:m[7]])
	vals := []string{v.head}
	for k := owner + 1; ; k++ {
		lk, s, ok := text(k)
		if !ok || !continues(lk, indent(ol)) {
			if k <= ln {
				return plainValue{}, false // ln is not part of the value
			}
			break
		}
		vals = append(vals, string(bytes.TrimSpace(lk)))
		v.end = s + len(bytes.TrimRight(lk, " \t"))
	}
	v.val = strings.Join(vals, " ")
	return v, true
}

// fixAllowedTools writes an allowed-tools list, block or flow, as the one
// space-separated string the specification defines, when every item is
// one word of text and nothing in the list is a comment that would be lost.
func fixAllowedTools(f *fixFile, _ []Finding) {
	if !f.job.entry {
		return
	}
	d := skill.Parse(f.data)
	_, v := d.Lookup("allowed-tools")
	if v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return
	}
	var tools []string
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode || it.ShortTag() != "!!str" || it.Value == "" ||
			strings.ContainsAny(it.Value, " \t\n\r") || it.Anchor != "" {
			return
		}
		tools = append(tools, it.Value)
	}
	joined := strings.Join(tools, " ")
	colon, end, comment := toolsList(f.data, d)
	if end < 0 || comment != "" {
		return // a comment, which a one-line string cannot keep
	}
	f.applyFront([]frontFix{{
		edits:  []fixEdit{{colon, end, ": " + yamlScalar(joined)}},
		mutate: becomesString("allowed-tools", joined),
	}})
}

// becomesString is the mutation of a fix that makes a top-level key's
// value the string s.
func becomesString(key, s string) func(*skill.SkillMD) bool {
	return func(old *skill.SkillMD) bool {
		_, v := old.Lookup(key)
		if v == nil {
			return false
		}
		*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
		return true
	}
}

// fixHint quotes an argument-hint written as a flow sequence
// (argument-hint: [file]), which YAML reads as a list: the text as
// written becomes the string (see checkFlowSequences).
func fixHint(f *fixFile, _ []Finding) {
	if !f.job.entry {
		return
	}
	d := skill.Parse(f.data)
	start, end, ok := hintList(f.data, d)
	if !ok {
		return
	}
	text := string(f.data[start:end])
	f.applyFront([]frontFix{{
		edits:  []fixEdit{{start, end, doubleQuote(text)}},
		mutate: becomesString("argument-hint", text),
	}})
}

// fixMultilineQuotes writes each quoted value that goes on over several
// lines on one line, double-quoted: the same text, which the official MCP
// SDK's YAML reader takes (skill.MultilineQuoted).
func fixMultilineQuotes(f *fixFile, _ []Finding) {
	if !f.job.entry {
		return
	}
	d := skill.Parse(f.data)
	var fixes []frontFix
	for _, v := range d.MultilineQuoted() {
		start, ok := nodeOffset(f.data, d, v)
		if !ok || start >= len(f.data) {
			continue
		}
		n := skill.QuoteEnd(string(f.data[start:]))
		if n < 0 {
			continue
		}
		fixes = append(fixes, frontFix{
			edits:  []fixEdit{{start, start + n, doubleQuote(v.Value)}},
			mutate: func(*skill.SkillMD) bool { return true }, // the same text
		})
	}
	f.applyFront(fixes)
}

// fixFlowSequences writes each reported flow sequence of scalars that
// closes on its line ([a, b] after a mapping key) in block form, one
// "- item" a line, where the finding still points at it; argument-hint's,
// meant as text, is quoted instead (fixHint). An empty list is left.
func fixFlowSequences(f *fixFile, at []Finding) {
	if !f.job.entry {
		return
	}
	_, _, hinted := hintList(f.data, skill.Parse(f.data))
	fixHint(f, nil)
	d := skill.Parse(f.data)
	if d.Front == nil {
		return
	}
	reported := map[[2]int]bool{}
	for _, fd := range at {
		reported[[2]int{fd.Line, fd.Column}] = true
	}
	var fixes []frontFix
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for k, v := range skill.Pairs(n) {
			line, c := d.FilePos(v)
			if v.Kind == yaml.MappingNode {
				walk(v)
				continue
			}
			if v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 {
				// A block list's item ("- id: brew\n  bins: [x]") is a
				// mapping like any other: its key's column indents it.
				for _, item := range v.Content {
					if item.Kind == yaml.MappingNode {
						walk(item)
					}
				}
				continue
			}
			if v.Kind != yaml.SequenceNode || v.Style&yaml.FlowStyle == 0 || len(v.Content) == 0 || !reported[[2]int{line, c}] {
				continue
			}
			start, end, ok := flowList(f.data, d, v, false)
			if !ok {
				continue
			}
			var b strings.Builder
			indent := strings.Repeat(" ", k.Column+1)
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					b.Reset()
					break
				}
				text := item.Value
				if item.Style != 0 {
					text = doubleQuote(item.Value)
				}
				b.WriteString("\n" + indent + "- " + text)
			}
			if b.Len() > 0 { // from the blanks before the "["
				ws := len(bytes.TrimRight(f.data[:start], " "))
				fixes = append(fixes, frontFix{edits: []fixEdit{{ws, end, b.String()}},
					mutate: func(*skill.SkillMD) bool { return true }}) // the same values, in block style
			}
		}
	}
	walk(d.Front)
	// An empty list, and one holding more than scalars, are left to a
	// person: the dry run's count of what --fix repairs must not take them.
	f.left["yaml-flow-sequence"] = max(len(at)-len(fixes), 0)
	if hinted {
		f.left["yaml-flow-sequence"] = max(len(at)-len(fixes)-1, 0)
	}
	f.applyFront(fixes)
}

// hintList finds argument-hint's flow sequence in data (flowList). A
// comment after it stays where it is: quoting the list leaves it one.
func hintList(data []byte, d *skill.SkillMD) (start, end int, ok bool) {
	_, v := d.Lookup("argument-hint")
	if v == nil || v.Kind != yaml.SequenceNode || v.Style&yaml.FlowStyle == 0 {
		return 0, 0, false
	}
	return flowList(data, d, v, true)
}

// flowList finds the flow sequence v in data, SKILL.md's bytes as d
// parsed them: from its "[" to past its "]", when it closes on its line
// and nothing but blanks follows it there, or a comment when comment
// (where one goes when the list becomes a block is a person's call).
func flowList(data []byte, d *skill.SkillMD, v *yaml.Node, comment bool) (start, end int, ok bool) {
	start, ok = nodeOffset(data, d, v)
	if !ok || start >= len(data) || data[start] != '[' {
		return 0, 0, false
	}
	c := start + skill.FlowEnd(string(data[start:])) // below start: it does not close
	if c < start || bytes.IndexByte(data[start:c], '\n') >= 0 {
		return 0, 0, false
	}
	rest := bytes.TrimSpace(data[c+1 : lineEnd(data, c)])
	if len(rest) > 0 && !(comment && rest[0] == '#' && data[c+1] != '#') { // "#" after a blank
		return 0, 0, false
	}
	return start, c + 1, true
}

// toolsList finds the allowed-tools list in data, SKILL.md's bytes as d
// parsed them: from the colon after its key to the end of the list, with
// the first comment in it as written (" # why", to its line's end), or ""
// when there is none; end is -1 when the list cannot be found.
func toolsList(data []byte, d *skill.SkillMD) (colon, end int, comment string) {
	k, v := d.Lookup("allowed-tools")
	if v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return 0, -1, ""
	}
	koff, kend, ok := scalarSpan(data, d, k)
	if !ok || koff == kend {
		return 0, -1, ""
	}
	colon = len(data) - len(bytes.TrimLeft(data[kend:], " "))
	if !bytes.HasPrefix(data[colon:], []byte(":")) {
		return 0, -1, ""
	}
	if v.Style&yaml.FlowStyle != 0 {
		voff, ok := nodeOffset(data, d, v)
		if !ok || voff >= len(data) || data[voff] != '[' {
			return 0, -1, ""
		}
		if end = skill.FlowEnd(string(data[voff:])); end < 0 {
			return 0, -1, ""
		}
		end += voff + 1
	} else {
		last, ok := nodeOffset(data, d, v.Content[len(v.Content)-1])
		if !ok {
			return 0, -1, ""
		}
		end = lineEnd(data, last)
	}
	// A "#" starts a comment after a blank or a line break; C# is a name.
	for i := colon + 1; i < end; i++ {
		if data[i] == '#' && strings.IndexByte(" \t\n", data[i-1]) >= 0 {
			return colon, end, string(bytes.TrimSpace(data[i:lineEnd(data, i)]))
		}
	}
	return colon, end, ""
}

// fixInstalledMetadata deletes the metadata keys gh skill install wrote,
// line by line, and metadata itself when nothing else is left in it.
func fixInstalledMetadata(f *fixFile, _ []Finding) {
	if !f.job.entry {
		return
	}
	d := skill.Parse(f.data)
	if d.Front == nil {
		return
	}
	mi := -1
	for i := 0; i+1 < len(d.Front.Content); i += 2 {
		if d.Front.Content[i].Value == "metadata" {
			mi = i
			break
		}
	}
	if mi < 0 {
		return
	}
	m := d.Front.Content[mi+1]
	if m.Kind != yaml.MappingNode || m.Style&yaml.FlowStyle != 0 {
		return
	}
	// A key's lines run to the next key of its mapping, or of the mapping
	// above, less trailing blank and comment lines (the next key's).
	next := d.BodyLine - 1 // the closing fence
	if mi+2 < len(d.Front.Content) {
		next, _ = d.FilePos(d.Front.Content[mi+2])
	}
	lines := func(from, to int) (fixEdit, bool) {
		for ; to > from; to-- {
			s, _ := lineStart(f.data, to-1)
			if l := strings.TrimSpace(string(f.data[s:lineEnd(f.data, s)])); l != "" && !strings.HasPrefix(l, "#") {
				break
			}
		}
		s, ok1 := lineStart(f.data, from)
		e, ok2 := lineStart(f.data, to)
		if !ok1 || !ok2 || e <= s {
			return fixEdit{}, false
		}
		return fixEdit{start: s, end: e}, true
	}
	var edits []fixEdit
	var drop []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !slices.Contains(installedKeys, k.Value) {
			continue
		}
		// Only a key that starts its line, after its indentation.
		from, col := d.FilePos(k)
		s, ok := lineStart(f.data, from)
		if !ok {
			return
		}
		if line := f.data[s:lineEnd(f.data, s)]; col != len(line)-len(bytes.TrimLeft(line, " "))+1 {
			return
		}
		to := next
		if i+2 < len(m.Content) {
			to, _ = d.FilePos(m.Content[i+2])
		}
		e, ok := lines(from, to)
		if !ok {
			return
		}
		edits = append(edits, e)
		drop = append(drop, k.Value)
	}
	if len(drop) == 0 {
		return
	}
	all := len(drop) == len(m.Content)/2
	if all {
		from, _ := d.FilePos(d.Front.Content[mi])
		e, ok := lines(from, next)
		if !ok {
			return
		}
		edits = []fixEdit{e}
	}
	f.applyFront([]frontFix{{
		edits: edits,
		mutate: func(old *skill.SkillMD) bool {
			for i := 0; i+1 < len(old.Front.Content); i += 2 {
				if old.Front.Content[i].Value != "metadata" {
					continue
				}
				if all {
					old.Front.Content = slices.Delete(old.Front.Content, i, i+2)
					return true
				}
				m := old.Front.Content[i+1]
				for j := 0; j+1 < len(m.Content); {
					if slices.Contains(drop, m.Content[j].Value) {
						m.Content = slices.Delete(m.Content, j, j+2)
					} else {
						j += 2
					}
				}
				return true
			}
			return false
		},
	}})
}

// fixEmptyMetadata deletes a metadata key with no value (YAML null), with
// its line: it holds nothing, and MCP hosts refuse the skill for it
// (metadata-format). Only a key at the start of its line whose value is
// on that line, empty, "~" or "null", is deleted.
func fixEmptyMetadata(f *fixFile, _ []Finding) {
	if !f.job.entry {
		return
	}
	d := skill.Parse(f.data)
	k, v := d.Lookup("metadata")
	if k == nil || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!null" {
		return
	}
	line, col := d.FilePos(k)
	if vline, _ := d.FilePos(v); col != 1 || vline != line && v.Value != "" {
		return
	}
	s, ok1 := lineStart(f.data, line)
	e, ok2 := lineStart(f.data, line+1)
	if !ok1 || !ok2 || e <= s {
		return
	}
	f.applyFront([]frontFix{{
		edits: []fixEdit{{start: s, end: e}},
		mutate: func(old *skill.SkillMD) bool {
			for j := 0; j+1 < len(old.Front.Content); j += 2 {
				if old.Front.Content[j].Value == "metadata" {
					old.Front.Content = slices.Delete(old.Front.Content, j, j+2)
					return true
				}
			}
			return false
		},
	}})
}

// folderName is the name the name fixes give a skill's entry file: its
// folder's, when that is a valid name no other skill of the run has.
func (f *fixFile) folderName() (string, bool) {
	folder := filepath.Base(f.job.dir)
	return folder, f.job.entry && validName(folder) && !f.job.taken(folder)
}

// fixNameMissing adds the folder's name to a frontmatter that has none,
// the fix name-missing offers, when that is a valid name no other skill
// of the run has: as its first line, where the specification shows it.
func fixNameMissing(f *fixFile, _ []Finding) {
	folder, ok := f.folderName()
	if !ok {
		return
	}
	d := skill.Parse(f.data)
	if k, _ := d.Lookup("name"); k != nil || d.Front == nil || d.Front.Kind != yaml.MappingNode {
		return
	}
	at, ok := lineStart(f.data, d.FrontLine)
	if !ok {
		return
	}
	f.applyFront([]frontFix{{
		edits: []fixEdit{{at, at, "name: " + folder + "\n"}},
		mutate: func(old *skill.SkillMD) bool {
			old.Front.Content = append([]*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "name"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: folder}}, old.Front.Content...)
			return true
		},
	}})
}

// fixNameFormat sets a name no index can carry ("Conversation Export") to
// its folder's, the fix name-format offers, when that is a valid name no
// other skill of the run has: the specification wants the two equal. A
// name written plain or quoted on its line is replaced; anything else is
// left to a person.
func fixNameFormat(f *fixFile, _ []Finding) {
	folder, ok := f.folderName()
	if !ok {
		return
	}
	d := skill.Parse(f.data)
	_, v := d.Lookup("name")
	if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || validName(v.Value) {
		return
	}
	start, end, ok := scalarSpan(f.data, d, v)
	if q := map[yaml.Style]string{yaml.DoubleQuotedStyle: `"`, yaml.SingleQuotedStyle: "'"}[v.Style]; q != "" {
		start, ok = nodeOffset(f.data, d, v)
		end = start + len(q+v.Value+q)
		ok = ok && end <= len(f.data) && string(f.data[start:end]) == q+v.Value+q
	}
	if !ok {
		return
	}
	f.applyFront([]frontFix{{
		edits:  []fixEdit{{start, end, yamlScalar(folder)}},
		mutate: becomesString("name", folder),
	}})
}
