package skill

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// What the clients of the MCP Skills Extension (SEP-2640) take of a
// skill's entry: the official TypeScript SDK's entry rules
// (validateSkillEntry, which refuses a whole skills/list holding one entry
// that breaks them), a frontmatter identical to every host's own parse of
// SKILL.md (the SDK, @olaservo/ext-skills, the Inspector and the
// conformance suite refuse a skill whose entry differs, as they refuse a
// digest mismatch), and the extension's per-skill limits, which the MCP
// Inspector fails a skill over. The build leaves a skill CheckMCP refuses
// out of the MCP documents, verify fails a bundle whose MCP documents list
// one, and lint's rule of each cause says so.

// The per-skill limits of SEP-2640 (the TypeScript SDK's SKILL_LIMITS):
// hosts must accept a skill up to them, and servers should not publish one
// over them.
const (
	MCPMaxFiles = 512      // files of a skill, SKILL.md included
	MCPMaxBytes = 16 << 20 // bytes of a skill as resources/read serves them (ServedSize)
	// MCPMaxCompatibility is the most characters (code points, as the SDK
	// counts) of compatibility.
	MCPMaxCompatibility = 500
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
//   - metadata, when present, maps keys to values YAML reads as strings.
//     The SDK refuses a listing holding any other value; and a value YAML
//     reads as a number, a boolean or null, listed as its text (FrontmatterJSON),
//     differs from every host's parse of SKILL.md (version: 1.0 is the
//     number 1), so no entry can satisfy both. A date is text to the YAML
//     1.2 readers hosts use.
//   - compatibility, when present, is a string of 1 to MCPMaxCompatibility
//     characters.
//   - no quoted value goes on past its line (MultilineQuoted), which
//     the SDK's YAML subset refuses.
//   - at most MCPMaxFiles files, and MCPMaxBytes served bytes.
//
// The rules of name and description are layout's (CheckName,
// CheckDescription), stricter than the SDK's, and a build refuses a skill
// that breaks them.
func (d *SkillMD) CheckMCP(files int, served int64) *MCPRefusal {
	var why, fixes []string
	bad := func(fix, format string, args ...any) {
		why = append(why, fmt.Sprintf(format, args...))
		if fix != "" {
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
		for i := 0; v.Kind == yaml.MappingNode && i+1 < len(v.Content); i += 2 {
			k, val := v.Content[i], v.Content[i+1]
			switch {
			case MCPString(val):
			case val.Kind == yaml.MappingNode || val.Kind == yaml.SequenceNode:
				bad("flatten it into one string, or into several keys", "metadata.%s is %s, where MCP hosts take only strings", k.Value, Describe(val))
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
	if d.Front == nil {
		return nil
	}
	// YAML's lines, as n.Line counts them: a lone "\r" ends one too.
	lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(d.FrontRaw)), "\n")
	var out []*yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range n.Content {
			walk(c)
		}
		if n.Kind != yaml.ScalarNode || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 || n.Line < 1 || n.Line > len(lines) {
			return
		}
		l := lines[n.Line-1]
		i := 0
		for range n.Column - 1 { // the column counts characters
			if _, size := utf8.DecodeRuneInString(l[i:]); i < len(l) {
				i += size
			}
		}
		if QuoteEnd(l[i:]) < 0 {
			out = append(out, n)
		}
	}
	walk(d.Front)
	return out
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
		for i := 0; m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
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
	if p := find(d.Front, ""); p != "" {
		return p
	}
	return "a value"
}

// MCPString reports whether MCP hosts read the YAML value n as a string: a
// scalar that YAML reads as one, or a date, which the YAML 1.2 readers of
// MCP hosts keep as the text written (and FrontmatterJSON publishes so).
func MCPString(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!str" || n.ShortTag() == "!!timestamp")
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
	switch n.ShortTag() {
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

// ServedSize is how many bytes an MCP host receives of a file of size
// bytes through resources/read: the bytes themselves when text (IsText),
// else their base64 encoding, 4 for every 3, which is what the MCP
// Inspector counts against MCPMaxBytes.
func ServedSize(size int64, text bool) int64 {
	if text {
		return size
	}
	return (size + 2) / 3 * 4
}

// IsText reports whether an MCP server sends data as text rather than as
// a base64 blob: it is not empty, and valid UTF-8 without a byte order
// mark, so that no byte is rewritten. It is the one decision: serve reads
// resources by it, and ServedSize counts by it.
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
// when the files could not pass limit even if every one were base64-encoded,
// none is read and that bound is returned; otherwise each file is read
// (the bytes kept of it, if any) to tell text from binary, and the count
// is exact. A result over limit is so always exact.
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
		} else if err := copyFile(&t, fl.Disk); err != nil {
			return 0, err
		}
		n += ServedSize(fl.Size, t.Text())
	}
	return n, nil
}

// copyFile writes the file at path to w.
func copyFile(w io.Writer, path string) error {
	in, err := OpenFile(path)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = io.Copy(w, in)
	return err
}
