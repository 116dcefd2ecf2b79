package lint

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/skill"
)

// The portable-YAML rules hold frontmatter to the subset that every reader
// agrees on. The official MCP client SDK parses frontmatter with a YAML
// subset and its hosts drop a skill that uses anything outside it (errors);
// the rest are places where full YAML readers disagree with one another,
// YAML 1.1 against 1.2, or YAML against JSON (warnings).
var yamlRules = []*Rule{
	{
		ID:       "yaml-anchor",
		Title:    "frontmatter uses a YAML anchor or alias",
		Severity: Error,
		Explain: "Anchors (&name) and aliases (*name) let YAML repeat a value, but the YAML subset the official " +
			"MCP client SDK reads has neither, so hosts drop the skill, and an alias fan-out is the classic " +
			"YAML bomb that other readers refuse. Write the value out in full where it is used.",
		Bad:   "---\nname: pdf-tools\ndescription: &d Extract text and tables from PDF files.\nmetadata:\n  summary: *d\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  summary: Extract text and tables from PDF files.\n---\n",
		Check: eachItem(checkAnchors),
	},
	{
		ID:       "yaml-tag",
		Title:    "frontmatter uses an explicit YAML tag",
		Severity: Error,
		Explain: "Explicit tags such as !!str, !!binary or !custom are outside the YAML subset the official MCP " +
			"client SDK reads, so hosts drop the skill, and other readers resolve or reject custom tags " +
			"differently. Remove the tag; to keep a value a string, quote it instead.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  version: !!str 2.0\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  version: \"2.0\"\n---\n",
		Check: eachItem(checkTags),
	},
	{
		ID:       "yaml-complex-key",
		Title:    "frontmatter has a key that is not a plain string",
		Severity: Error,
		Publish:  true,
		Explain: "Frontmatter must become JSON, whose keys are strings. A mapping or list used as a key, an " +
			"explicit \"? \" key, a key YAML reads as a number, boolean, null or date (1:, true:, null:), and " +
			"the YAML 1.1 merge key << have no faithful JSON form, and the YAML subset the official MCP " +
			"client SDK reads rejects them, so hosts drop the skill. Use plain string keys; quote one that " +
			"looks like another type.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  1: first release\n  true: stable\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  \"1\": first release\n  \"true\": stable\n---\n",
		Check: eachItem(checkComplexKeys),
	},
	{
		ID:       "yaml-indent-indicator",
		Title:    "block scalar has an explicit indentation indicator",
		Severity: Warning,
		Explain: "A block scalar header may carry a digit that fixes the text's indentation (|2, >-2, |+1). " +
			"The YAML readers of the clients take it, but the YAML subset the official MCP SDK reads does " +
			"not, so MCP hosts drop the skill. Remove the digit and indent the text evenly; if the text must " +
			"start with spaces, use a quoted string instead. It is an error under the spec profile.",
		Bad:   "---\nname: pdf-tools\ndescription: |2\n    Extract text and tables from PDF files.\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: |\n  Extract text and tables from PDF files.\n---\n",
		Check: checkIndentIndicators,
	},
	{
		ID:       "yaml-key-in-block",
		Title:    "a frontmatter key is indented into a block's text",
		Severity: Warning,
		Explain: "A line of a block scalar (description: | or >) is text, however it reads: a key written " +
			"there, indented as the block's lines are, becomes the end of the description, and the client " +
			"never sees it (disable-model-invocation: true left the skill model-invoked). Unindent the key " +
			"to the left margin, after the block.",
		Bad:   "---\nname: pdf-tools\ndescription: |\n  Extract text and tables from PDF files.\n  disable-model-invocation: true\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: |\n  Extract text and tables from PDF files.\ndisable-model-invocation: true\n---\n",
		Check: checkKeyInBlock,
	},
	{
		ID:       "yaml-flow-mapping",
		Title:    "frontmatter has a flow mapping that MCP hosts cannot read",
		Severity: Warning,
		Explain: "The YAML reader of the official MCP SDK reads a flow mapping ({a: b}) that closes on the " +
			"line it opens (one that spans lines is yaml-flow-lines'), but neither a bare pair inside a flow " +
			"sequence ([a: b]) nor a key without a value ({a}): MCP hosts drop such a skill, and the build " +
			"leaves it out of the MCP documents, while the clients' YAML readers read it. Write the mapping " +
			"in block form, one \"key: value\" a line. Under the spec profile it is an error, and one-line " +
			"flow mappings (OpenClaw's metadata: {\"openclaw\": ...}) are reported too, since readers of " +
			"strict YAML subsets take no flow style.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata: {author: ana, reviewed}\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  author: ana\n  reviewed: \"yes\"\n---\n",
		Check: eachItem(checkFlowMappings),
	},
	{
		ID:       "yaml-flow-lines",
		Title:    "frontmatter has a flow collection over several lines",
		Severity: Warning,
		Explain: "A flow mapping or list ({...}, [...]) may go on over several lines, as OpenClaw's metadata " +
			"written as indented JSON does, and the clients' YAML readers take it, but the YAML reader of the " +
			"official MCP SDK does not: MCP hosts drop the skill, and the build leaves it out of the MCP " +
			"documents. Close it on the line it opens, or write it in block form, one \"key: value\" or " +
			"\"- item\" a line. It is an error under the spec profile.",
		Bad:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata: {author: ana,\n  version: \"1\"}\n---\n",
		Good: "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  author: ana\n  version: \"1\"\n---\n",
		// The list's syntax, seen as the cause MCP hosts refuse it for.
		Supersedes: []string{"yaml-flow-sequence"},
		Check:      eachItem(checkFlowLines),
	},
	{
		ID:       "yaml-deep-nesting",
		Title:    "frontmatter nests lists and mappings deeper than MCP hosts read",
		Severity: Warning,
		Explain: "The YAML reader of the official MCP SDK reads lists and mappings nested at most 32 deep, " +
			"and the clients' YAML readers deeper: MCP hosts drop a skill whose frontmatter nests more, and " +
			"the build leaves it out of the MCP documents. Flatten the value. It is an error under the spec " +
			"profile.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nx-deep: " + strings.Repeat("[", 33) + strings.Repeat("]", 33) + "\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nx-deep: [[]]\n---\n",
		Check: checkDeepNesting,
	},
	{
		ID:       "yaml-multiline-quote",
		Title:    "frontmatter has a quoted value over several lines",
		Severity: Warning,
		Explain: "A quoted value may go on over several lines, as PyYAML writes long strings, and the " +
			"clients' YAML readers take it, but the YAML reader of the official MCP SDK does not: MCP hosts " +
			"drop the skill, and the build leaves it out of the MCP documents. Write the value on one line " +
			"(lint --fix does), or as a folded block (>).",
		Bad:   "---\nname: pdf-tools\ndescription: 'Extract text and tables\n  from PDF files.'\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: 'Extract text and tables from PDF files.'\n---\n",
		Check: checkMultilineQuotes,
	},
	{
		ID:       "yaml-quote-indent",
		Title:    "quoted value goes on at a line indented no deeper than its key",
		Severity: Error,
		Explain: "A quoted value that goes on over several lines must indent its next lines deeper than the " +
			"key it is the value of. yaml.v3 and PyYAML take it less indented, but the YAML reader the Vercel " +
			"skills CLI and the official MCP SDK parse frontmatter with refuses the whole file (\"Missing " +
			"closing quote\"): the CLI silently skips the skill it installs from the bundle, and MCP hosts " +
			"drop it. Write the value on one line (skillpack lint --fix does), indent its lines, or use a " +
			"folded block (>).",
		Bad:        "---\nname: pdf-tools\ndescription: \"Extract text and tables\nfrom PDF files.\"\n---\n",
		Good:       "---\nname: pdf-tools\ndescription: \"Extract text and tables from PDF files.\"\n---\n",
		Supersedes: []string{"yaml-multiline-quote"},
		Check:      checkQuoteIndent,
	},
	{
		ID:       "yaml-tab-indent",
		Title:    "frontmatter line is indented with a tab",
		Severity: Error,
		Explain: "YAML forbids tabs in indentation. Most readers, yaml.v3 among them, then fail on the whole " +
			"frontmatter, and the YAML subset the official MCP client SDK reads rejects even the tabs that " +
			"full YAML tolerates, so hosts drop the skill. Indent with spaces.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n\tauthor: ana\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  author: ana\n---\n",
		Check: checkTabIndent,
	},
	{
		ID:       "yaml-duplicate-key",
		Title:    "frontmatter repeats a key",
		Severity: Error,
		Explain: "YAML forbids a key twice in one mapping, yet readers differ: some keep the first value, " +
			"some the last, and the YAML subset the official MCP client SDK reads rejects the file, so " +
			"hosts drop the skill. Keep one of the two.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text from PDF files.\ndescription: Extract text and tables from PDF files.\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\n---\n",
		Check: eachItem(checkDuplicateKeys),
	},
	{
		ID:       "yaml-proto-key",
		Title:    "frontmatter has a __proto__ key",
		Severity: Error,
		Explain: "JavaScript readers build frontmatter as plain objects, where a __proto__ key sets the " +
			"object's prototype instead of adding a field: the value is lost, or it changes what every " +
			"other key means. The official MCP client SDK refuses such frontmatter, so hosts drop the " +
			"skill. Rename the key.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  __proto__: admin\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  proto: admin\n---\n",
		Check: eachItem(checkProtoKeys),
	},
	{
		ID:       "yaml-special-float",
		Title:    "frontmatter has .inf or .nan",
		Severity: Error,
		Publish:  true,
		Explain: "YAML reads an unquoted .inf, -.inf or .nan (in any case variant it accepts) as infinity or " +
			"not-a-number, which JSON cannot carry: writers fail or write null, and the official MCP client " +
			"SDK rejects the frontmatter, so hosts drop the skill. Quote the value if it is text, or use a " +
			"finite number.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  max-pages: .inf\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  max-pages: \"unlimited\"\n---\n",
		Check: eachItem(checkSpecialFloats),
	},
	{
		ID:       "yaml-colon-space",
		Title:    "plain value holds \": \", a trailing \":\" or a \" #\" comment",
		Severity: Warning,
		Explain: "In an unquoted value, \": \" starts a mapping and \" #\" starts a comment. yaml.v3 still reads " +
			"some such values (a trailing \":\" inside a flow list, text cut short at \" #\"), but other " +
			"readers fail on them or read something else, and text after \" #\" is silently dropped. Quote " +
			"the value, or use a \">\" block.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files, see issue #42\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: \"Extract text and tables from PDF files, see issue #42\"\n---\n",
		Check: eachItem(checkColonSpace),
	},
	{
		ID:       "yaml-flow-sequence",
		Title:    "frontmatter uses a flow sequence",
		Severity: Warning,
		Explain: "A flow sequence ([a, b]) is full YAML, but line-based frontmatter readers and some YAML " +
			"subsets read it as one string \"[a, b]\". Write the list in block form, one \"- item\" a line. An " +
			"argument-hint written as Claude Code's documentation writes it (argument-hint: [file]) is meant as " +
			"text, which clients show: quote it (lint --fix does).",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nallowed-tools: [Read, Bash]\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nallowed-tools:\n  - Read\n  - Bash\n---\n",
		Check: eachItem(checkFlowSequences),
	},
	{
		ID:       "yaml-ambiguous-scalar",
		Title:    "unquoted value that YAML readers disagree on",
		Severity: Warning,
		Explain: "YAML 1.1 and 1.2 readers turn some unquoted values into different things: yes, no, on, off, " +
			"y and n are booleans to 1.1 and strings to 1.2; 010 is octal 8 to 1.1 and 10 to 1.2; 1:20 is " +
			"80 to 1.1; 2024-01-02 is a date to 1.1; 1e3 and 0o10 are numbers only to 1.2. And every " +
			"reader turns 1.0 or 1.10 into a number that loses its trailing zero. Hosts compare " +
			"frontmatter field by field, so quote such values to make them strings for everyone.",
		Bad:   "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  version: 1.10\n  beta: yes\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\nmetadata:\n  version: \"1.10\"\n  beta: \"yes\"\n---\n",
		Check: eachItem(checkAmbiguousScalars),
	},
}

// eachItem makes the check of a rule that looks at the frontmatter tree
// one node at a time: the YAML rules are this one walk with another test.
func eachItem(check func(p *Pass, t *yamlTree, it yamlItem)) func(*Pass) {
	return func(p *Pass) {
		t := frontTree(p)
		for _, it := range t.items {
			check(p, t, it)
		}
	}
}

// yamlItem is one node of the frontmatter tree with what the rules need to
// know about where it sits.
type yamlItem struct {
	n      *yaml.Node
	key    bool       // the node is a mapping key
	flow   *yaml.Node // the outermost flow collection around the node, if any
	inFMap bool       // some ancestor is a flow mapping
	// unread: the node is in the value of a top-level key the profile does
	// not know. unknown-key reports the key, and nobody reads its value, so
	// the YAML warnings leave the value alone; the errors do not, since a
	// reader that rejects the syntax drops the whole skill.
	unread bool
	depth  int // of collections around it: the frontmatter's mapping is at 0
}

// yamlTree is the frontmatter flattened once per skill and shared by the
// rules.
type yamlTree struct {
	items   []yamlItem
	flowMap map[*yaml.Node]bool // outermost flow collections that hold a mapping
	lines   []string            // FrontRaw split into lines, without terminators
	yaml    *skill.Lines        // the lines as YAML counts them, which nodes' positions index
}

// frontTree returns the flattened frontmatter; items is empty when the
// frontmatter did not parse, lines is set whenever there is frontmatter.
func frontTree(p *Pass) *yamlTree {
	return p.Memo("yaml:tree", func() any {
		t := &yamlTree{flowMap: map[*yaml.Node]bool{}}
		if p.Doc == nil {
			return t
		}
		t.lines, t.yaml = p.Doc.FileLines(), p.Doc.Lines()
		if p.Doc.Front == nil {
			return t
		}
		// An explicit stack, not recursion: yaml.v3 accepts nesting 10,000
		// deep. Aliases are leaves here (their targets are never entered),
		// so an alias fan-out costs one item an alias, not its expansion.
		stack := []yamlItem{{n: p.Doc.Front}}
		for len(stack) > 0 {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			t.items = append(t.items, it)
			n := it.n
			if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
				continue
			}
			flowStyle := n.Style&yaml.FlowStyle != 0
			if n.Kind == yaml.MappingNode && it.flow != nil {
				t.flowMap[it.flow] = true
			}
			child := yamlItem{flow: it.flow, inFMap: it.inFMap || n.Kind == yaml.MappingNode && flowStyle, unread: it.unread, depth: it.depth + 1}
			if child.flow == nil && flowStyle {
				child.flow = n
			}
			for i := len(n.Content) - 1; i >= 0; i-- {
				c := child
				c.n = n.Content[i]
				c.key = n.Kind == yaml.MappingNode && i%2 == 0
				if n == p.Doc.Front && !c.key {
					k := n.Content[i-1] // the value's key: what unknown-key reports is unread
					c.unread = k.Kind == yaml.ScalarNode && !knownKey(p, k.Value)
				}
				stack = append(stack, c)
			}
		}
		return t
	}).(*yamlTree)
}

// src is the source text from a node's position to the end of its line.
func (t *yamlTree) src(n *yaml.Node) string { return t.yaml.From(n) }

// tag returns a node's explicit tag as written, or "".
func (t *yamlTree) tag(n *yaml.Node) string {
	// A block collection starts where its first key or item does, whose
	// tag is not the collection's, so only a scalar is read from source
	// (to catch the non-specific tag "!", which yaml.v3 leaves out of Style).
	if n.Kind != yaml.ScalarNode && n.Style&yaml.TaggedStyle == 0 {
		return ""
	}
	s := t.src(n)
	for s != "" && (s[0] == '&' || s[0] == '!') {
		tok, rest := s, ""
		end := " \t,[]{}" // a flow indicator ends a tag or anchor
		if strings.HasPrefix(s, "!<") {
			end = ">" // a verbatim tag, which may hold them
		}
		if i := strings.IndexAny(s, end); i >= 0 {
			if end == ">" {
				i++
			}
			tok, rest = s[:i], s[i:]
		}
		if tok[0] == '!' {
			return tok
		}
		s = strings.TrimLeft(rest, " \t")
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return n.Tag
	}
	return ""
}

// plain reports whether n is an unquoted scalar without a tag, the only
// kind whose type YAML guesses from its text.
func (t *yamlTree) plain(n *yaml.Node) bool {
	const quoted = yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle
	return n.Kind == yaml.ScalarNode && n.Style&(quoted|yaml.TaggedStyle) == 0 && t.tag(n) == ""
}

// keyString is a mapping key as a JSON reader would name it, and whether it
// has such a name.
func keyString(k *yaml.Node) (string, bool) {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
		return "", false
	}
	return k.Value, true
}

func checkAnchors(p *Pass, t *yamlTree, it yamlItem) {
	n := it.n
	if n.Anchor != "" {
		p.ReportNode(n, "write the value out in full wherever it is used",
			"anchor \"&%s\" is outside the YAML subset MCP clients read", n.Anchor)
	}
	if n.Kind == yaml.AliasNode {
		where := ""
		if n.Alias != nil {
			line, _ := p.Doc.FilePos(n.Alias)
			where = fmt.Sprintf(" (its anchor is on line %d)", line)
		}
		p.ReportNode(n, "replace the alias with a copy of the value",
			"alias \"*%s\"%s is outside the YAML subset MCP clients read", n.Value, where)
	}
}

func checkTags(p *Pass, t *yamlTree, it yamlItem) {
	if tag := t.tag(it.n); tag != "" {
		p.ReportNode(it.n, "remove the tag; quote the value if it must stay text",
			"explicit tag %q is outside the YAML subset MCP clients read", tag)
	}
}

// keyKinds names what YAML reads a non-string scalar key as.
var keyKinds = map[string]string{
	"!!int": "a number", "!!float": "a number", "!!bool": "a boolean",
	"!!null": "null", "!!timestamp": "a date",
}

func checkComplexKeys(p *Pass, t *yamlTree, it yamlItem) {
	n := it.n
	// Aliases belong to yaml-anchor and tags to yaml-tag: one finding a problem.
	if !it.key || n.Kind == yaml.AliasNode || t.tag(n) != "" {
		return
	}
	switch {
	case n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode:
		what := "a mapping"
		if n.Kind == yaml.SequenceNode {
			what = "a list"
		}
		p.ReportNode(n, "use a plain string key",
			"%s is used as a key; JSON keys are strings and MCP clients' YAML subset rejects it", what)
	case t.explicitKey(n):
		p.ReportNode(n, fmt.Sprintf("write the key on one line as %s: value", quoteKey(n.Value)),
			"explicit \"? \" key %q is outside the YAML subset MCP clients read", n.Value)
	case n.Tag == "!!merge":
		p.ReportNode(n, "write the merged keys out in full",
			"\"<<\" is a merge key to YAML 1.1 readers and an ordinary \"<<\" key to others; MCP clients' YAML subset rejects it")
	case n.ShortTag() != "!!str":
		kind := cmp.Or(keyKinds[n.ShortTag()], "something other than a string")
		p.ReportNode(n, fmt.Sprintf("quote the key: %s:", strconv.Quote(n.Value)),
			"key %q is read as %s, not a string; JSON keys are strings and MCP clients' YAML subset rejects it",
			n.Value, kind)
	}
}

func quoteKey(s string) string {
	if s == "" || strings.ContainsAny(s, ":#\"'{}[],&*!|>%@`") {
		return strconv.Quote(s)
	}
	return s
}

// explicitKey reports whether a scalar key was introduced by "? ", which
// yaml.v3 does not record: the indicator is on the key's line before it,
// or alone on the line above.
func (t *yamlTree) explicitKey(n *yaml.Node) bool {
	before, _ := t.yaml.Cut(n.Line, n.Column)
	if s := strings.TrimRight(before, " \t"); s != "" {
		return isIndicator(s, '?')
	}
	if n.Line < 2 {
		return false
	}
	// "?" on a line of its own with the key below: the key is indented
	// deeper than the indicator.
	if !isIndicator(strings.TrimRight(t.yaml.Line(n.Line-1), " \t"), '?') {
		return false
	}
	_, at := t.yaml.Cut(n.Line-1, n.Column)
	return strings.TrimSpace(at) == "" // the "?" sits left of the key's column
}

// isIndicator reports whether s ends in the indicator c standing as a token
// of its own (after indentation, "- " or a flow bracket), not inside text.
func isIndicator(s string, c byte) bool {
	if s == "" || s[len(s)-1] != c {
		return false
	}
	s = s[:len(s)-1]
	return s == "" || strings.ContainsRune(" \t-,[{", rune(s[len(s)-1]))
}

func checkIndentIndicators(p *Pass) {
	if p.Doc == nil {
		return
	}
	for _, h := range p.Doc.IndentIndicators() {
		p.Reportf(p.Skill.File, h.Line, h.Col,
			"remove the digit and indent the text evenly; if the text must start with spaces, quote it instead",
			"block scalar header %q has an explicit indentation indicator, which the YAML reader of the official MCP SDK refuses; the build leaves the skill out of the MCP documents", h.Text)
	}
}

func checkFlowMappings(p *Pass, t *yamlTree, it yamlItem) {
	n := it.n
	// Only the outermost flow mapping: rewriting it in block form fixes
	// those inside it too.
	if n.Kind != yaml.MappingNode || n.Style&yaml.FlowStyle == 0 || it.inFMap || ownedFlow(p, it) {
		return
	}
	// The official MCP SDK reads flow collections that close on their
	// line, braces inside brackets included, but neither a collection
	// spanning lines nor a bare pair ([a: b]). What it reads, every
	// client's YAML reader reads too: only the spec profile, whose
	// strict readers take no flow style, reports it.
	outer := cmp.Or(it.flow, n)
	if outer == value(p, "argument-hint") && outer.Kind == yaml.SequenceNode {
		return // yaml-flow-sequence's, whose quotes end both
	}
	pair := it.flow != nil && !strings.HasPrefix(t.src(n), "{")
	spans := skill.FlowEnd(t.src(outer)) < 0
	switch {
	case pair:
		p.ReportNode(n, "write the list in block form, one \"- item\" a line, with the mapping's keys under its \"- \"",
			"key: value pair inside a flow sequence, which the YAML reader of the official MCP SDK refuses; %s", offMCP)
	case spans: // yaml-flow-lines'
	case emptyIn(n):
		p.ReportNode(n, "write each key: value with a space after the colon, or quote text that holds one",
			"flow mapping {...} has a key with no value, which the YAML reader of the official MCP SDK refuses; %s", offMCP)
	case p.Profile == nil || !p.Profile.Letter:
	case it.flow != nil:
		p.ReportNode(n, "write the list in block form, one \"- item\" a line, with the mapping's keys under its \"- \"",
			"mapping inside a flow sequence is outside the YAML subset strict readers take (profile spec)")
	default:
		p.ReportNode(n, "write the mapping in block form, one \"key: value\" a line",
			"flow mapping {...} is outside the YAML subset strict readers take (profile spec)")
	}
}

// ownedFlow reports whether a flow collection is, or is inside, a value
// that a field rule reports as not a string: flattening it into a string, as
// that rule asks, also ends the flow syntax.
func ownedFlow(p *Pass, it yamlItem) bool {
	owned := fieldOwned(p)
	return owned[it.n] || it.flow != nil && owned[it.flow]
}

// checkFlowLines reports the outermost flow collections that go on past
// their line, whoever reads the key: MCP hosts refuse the skill anyway.
func checkFlowLines(p *Pass, t *yamlTree, it yamlItem) {
	n := it.n
	if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode || n.Style&yaml.FlowStyle == 0 || it.flow != nil ||
		ownedFlow(p, it) || skill.FlowEnd(t.src(n)) >= 0 {
		return
	}
	what := "flow mapping {...}"
	if n.Kind == yaml.SequenceNode {
		what = "flow sequence [...]"
	}
	p.ReportNode(n, "close it on the line it opens, or write it in block form, one \"key: value\" or \"- item\" a line",
		"%s spans lines, which the YAML reader of the official MCP SDK refuses; %s", what, offMCP)
}

// checkDeepNesting reports the first list or mapping nested deeper than
// the MCP SDK reads (skill.MCPMaxDepth), as skill.CheckMCP finds it.
func checkDeepNesting(p *Pass) {
	for _, it := range frontTree(p).items {
		if it.depth > skill.MCPMaxDepth && (it.n.Kind == yaml.MappingNode || it.n.Kind == yaml.SequenceNode) {
			p.ReportNode(it.n, "flatten it", "lists and mappings are nested more than %d deep here, which the YAML reader of the official MCP SDK refuses; %s", skill.MCPMaxDepth, offMCP)
			return
		}
	}
}

// emptyIn reports whether a flow mapping, or one inside it, has a key
// with no value written ({a}, {a: }).
func emptyIn(n *yaml.Node) bool {
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 1 && c.Kind == yaml.ScalarNode && c.Style == 0 && c.Value == "" || emptyIn(c) {
			return true
		}
	}
	return false
}

func checkFlowSequences(p *Pass, t *yamlTree, it yamlItem) {
	n := it.n
	if n.Kind != yaml.SequenceNode || n.Style&yaml.FlowStyle == 0 || it.flow != nil || it.unread || ownedFlow(p, it) {
		return
	}
	if n == value(p, "argument-hint") {
		// Claude Code's documentation writes the hint so (argument-hint:
		// [file]), meaning the text: quoted, every reader reads it.
		fix := "quote the whole value"
		if start, end, ok := hintList(p.Doc.Raw, p.Doc); ok {
			fix = "quote the whole value: argument-hint: " + doubleQuote(string(p.Doc.Raw[start:end]))
		}
		msg := "argument-hint is a flow sequence, a list to YAML readers, where clients show the hint as text"
		if t.flowMap[n] { // [optional: a scope]
			msg += "; the YAML reader of the official MCP SDK refuses the key: value pair in it, and " + offMCP
		}
		p.ReportNode(n, fix, "%s", msg)
		return
	}
	if t.flowMap[n] { // one that holds a mapping is yaml-flow-mapping's
		return
	}
	p.ReportNode(n, "write the list in block form, one \"- item\" a line (or leave out an empty list)",
		"flow sequence [...] is read as one string by line-based frontmatter readers")
}

func checkMultilineQuotes(p *Pass) {
	if p.Doc == nil {
		return
	}
	for _, n := range p.Doc.MultilineQuoted() {
		p.ReportNode(n, "write it on one line (skillpack lint --fix does), or as a folded block (>)",
			"quoted value goes on over several lines, which the YAML reader of the official MCP SDK refuses; the build leaves the skill out of the MCP documents")
	}
}

func checkQuoteIndent(p *Pass) {
	if p.Doc == nil {
		return
	}
	for _, n := range p.Doc.UnderIndented() {
		p.ReportNode(n, "write it on one line (skillpack lint --fix does), or indent its next lines deeper than its key",
			"quoted value goes on at a line indented no deeper than its key, which the YAML reader of the Vercel skills CLI and of MCP hosts refuses: the CLI skips the skill")
	}
}

// leadingTab reports whether a line's leading whitespace holds a tab.
func leadingTab(l string) bool {
	return strings.ContainsRune(l[:len(l)-len(strings.TrimLeft(l, " \t"))], '\t')
}

// checkTabIndent works from the raw lines: tabs usually make yaml.v3 fail,
// leaving no tree.
func checkTabIndent(p *Pass) {
	t := frontTree(p)
	for i, l := range t.lines {
		if leadingTab(l) {
			p.Reportf(p.Skill.File, p.Doc.FrontLine+i, 1, "indent with spaces instead of tabs",
				"line is indented with a tab; YAML forbids tabs in indentation")
		}
	}
}

// tabBroke reports whether a document's YAML error is due to tab
// indentation, which yaml-tab-indent reports line by line, so that the
// generic YAML error can stay silent. yaml.v3 stops at its first error and
// names the tab's line or the one above it, so a tab indentation at or
// before the line after the error is the cause.
func tabBroke(d *skill.SkillMD) bool {
	if d == nil || d.Problem == nil || d.Problem.Kind != skill.BadYAML {
		return false
	}
	i := slices.IndexFunc(d.FileLines(), leadingTab) // the first line indented with a tab
	return i >= 0 && d.FrontLine+i <= d.Problem.Line+1
}

func checkDuplicateKeys(p *Pass, t *yamlTree, it yamlItem) {
	n := it.n
	if n.Kind != yaml.MappingNode {
		return
	}
	var first map[string]*yaml.Node
	for k := range skill.Pairs(n) {
		name, ok := keyString(k)
		if !ok {
			continue
		}
		if first == nil {
			first = make(map[string]*yaml.Node, len(n.Content)/2)
		}
		f, seen := first[name]
		if !seen {
			first[name] = k
			continue
		}
		line, _ := p.Doc.FilePos(f)
		p.ReportNode(k, "keep one of the two: readers disagree on which value wins",
			"key %q is repeated; it is first used on line %d", name, line)
	}
}

func checkProtoKeys(p *Pass, t *yamlTree, it yamlItem) {
	if name, ok := keyString(it.n); it.key && ok && name == "__proto__" {
		p.ReportNode(it.n, "rename the key",
			"key \"__proto__\" sets the object's prototype in JavaScript readers instead of adding a field")
	}
}

// specialFloat reports whether a plain scalar is a number JSON cannot
// carry: infinity, NaN, or one too large (1e999), as YAML 1.2 reads it.
func specialFloat(n *yaml.Node) bool {
	num, ok := skill.CoreNumber(n.Value)
	return n.Kind == yaml.ScalarNode && ok && num == ""
}

func checkSpecialFloats(p *Pass, t *yamlTree, it yamlItem) {
	// A key is yaml-complex-key's: it is not a string either.
	if it.key || !t.plain(it.n) || !specialFloat(it.n) {
		return
	}
	what := "infinity"
	if strings.Contains(strings.ToLower(it.n.Value), "nan") {
		what = "not-a-number"
	}
	p.ReportNode(it.n, fmt.Sprintf("quote it (%s) if it is text, or use a finite number", strconv.Quote(it.n.Value)),
		"%s is read as %s, which JSON cannot carry", it.n.Value, what)
}

func checkColonSpace(p *Pass, t *yamlTree, it yamlItem) {
	const fix = "quote the value, or use a \">\" block"
	n := it.n
	if it.key || it.unread || !t.plain(n) || n.ShortTag() != "!!str" {
		return
	}
	v := n.Value
	switch {
	case strings.Contains(v, ": ") || strings.Contains(v, ":\t"):
		p.ReportNode(n, fix, "unquoted value %q holds \": \", which other YAML readers take for a key", v)
	case strings.HasSuffix(v, ":"):
		p.ReportNode(n, fix, "unquoted value %q ends in \":\", which other YAML readers take for a key", v)
	case n.LineComment != "" && strings.ContainsAny(v, " \t"):
		p.ReportNode(n, fix, "unquoted value is cut at \" #\": it reads %q and drops %q as a comment",
			v, strings.TrimSpace(n.LineComment))
	}
}

func checkAmbiguousScalars(p *Pass, t *yamlTree, it yamlItem) {
	typed := fieldOwned(p)
	n := it.n
	// A key YAML does not read as a string is yaml-complex-key's; a
	// value of a field that must be a string is its field rule's.
	if !t.plain(n) || it.key && n.ShortTag() != "!!str" || typed[n] || it.unread {
		return
	}
	if how := ambiguous(n.Value, n.ShortTag()); how != "" {
		p.ReportNode(n, fmt.Sprintf("quote it: %s", strconv.Quote(n.Value)),
			"unquoted %s: %s; quote it", n.Value, how)
	}
}

// fieldOwned are the values that a spec field rule already reports for not
// being strings (name: 1.0, license: [MIT], metadata values such as
// version: 1.0 or tags: [a, b]), so that one value is reported once: the
// YAML rules skip these nodes, and the flow rules what is inside them.
func fieldOwned(p *Pass) map[*yaml.Node]bool {
	return p.Memo("yaml:owned", func() any {
		out := map[*yaml.Node]bool{}
		nonString := func(v *yaml.Node) bool {
			return v != nil && v.Kind != yaml.AliasNode && !(v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str")
		}
		for _, key := range []string{"name", "description", "license", "compatibility"} {
			if v := value(p, key); nonString(v) {
				out[v] = true
			}
		}
		for _, v := range skill.Pairs(metadataMap(p)) {
			if nonString(v) {
				out[v] = true
			}
		}
		return out
	}).(map[*yaml.Node]bool)
}

var (
	bool11    = map[string]bool{"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true, "n": false, "N": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false}
	octal12   = regexp.MustCompile(`^[-+]?0o[0-7]+$`)
	leadZero  = regexp.MustCompile(`^[-+]?0[0-9]+$`)
	binary11  = regexp.MustCompile(`^[-+]?0b[01_]+$`)
	under11   = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(\.[0-9_]*)?$`)
	sexInt11  = regexp.MustCompile(`^[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+$`)
	sexFlt11  = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*$`)
	date11    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	stamp11   = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?$`)
	float11   = regexp.MustCompile(`^[-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?$`)
	stampForm = []string{"2006-1-2", "2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999"}
)

// ambiguous says how YAML 1.1 and 1.2 readers (or YAML and JSON) read an
// unquoted scalar differently, or returns "" when they agree. tag is what
// yaml.v3 resolved it to.
func ambiguous(v, tag string) string {
	if b, ok := bool11[v]; ok {
		return fmt.Sprintf("YAML 1.1 readers see the boolean %t, YAML 1.2 readers the string %q", b, v)
	}
	neg, digits := strings.HasPrefix(v, "-"), strings.TrimLeft(v, "+-")
	sign := func(n uint64) string {
		if neg {
			return "-" + strconv.FormatUint(n, 10)
		}
		return strconv.FormatUint(n, 10)
	}
	switch {
	case octal12.MatchString(v):
		n, _ := strconv.ParseUint(digits[2:], 8, 64)
		return fmt.Sprintf("YAML 1.2 readers see the octal number %s, YAML 1.1 readers the string %q", sign(n), v)
	case leadZero.MatchString(v):
		dec, err := strconv.ParseUint(digits, 10, 64)
		if err != nil {
			return ""
		}
		if oct, err := strconv.ParseUint(digits, 8, 64); err == nil && oct != dec {
			return fmt.Sprintf("YAML 1.1 readers see the octal number %s, YAML 1.2 readers the decimal %s", sign(oct), sign(dec))
		}
		if strings.ContainsAny(digits, "89") {
			return fmt.Sprintf("YAML 1.1 readers see the string %q, YAML 1.2 readers the number %s", v, sign(dec))
		}
	case binary11.MatchString(v):
		n, err := strconv.ParseUint(strings.ReplaceAll(digits[2:], "_", ""), 2, 64)
		if err != nil {
			return ""
		}
		return fmt.Sprintf("YAML 1.1 readers see the binary number %s, YAML 1.2 readers the string %q", sign(n), v)
	case strings.Contains(v, "_") && under11.MatchString(v):
		return fmt.Sprintf("YAML 1.1 readers see the number %s, YAML 1.2 readers the string %q", strings.ReplaceAll(v, "_", ""), v)
	case sexInt11.MatchString(v) || sexFlt11.MatchString(v):
		return fmt.Sprintf("YAML 1.1 readers see the base-60 number %s, YAML 1.2 readers the string %q", base60(v), v)
	case date11.MatchString(v) || stamp11.MatchString(v) || tag == "!!timestamp":
		what := "a timestamp"
		for _, f := range stampForm {
			if ts, err := time.Parse(f, v); err == nil {
				what = "the timestamp " + ts.UTC().Format(time.RFC3339Nano)
				break
			}
		}
		return fmt.Sprintf("YAML 1.1 readers see %s, YAML 1.2 readers the string %q", what, v)
	case tag == "!!float":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return "" // .inf and .nan are yaml-special-float's
		}
		num := jsonNumber(f)
		if !float11.MatchString(v) {
			if !strings.ContainsAny(v, "eE") {
				return "" // a huge integer: a number to every reader
			}
			return fmt.Sprintf("YAML 1.2 readers see the number %s, YAML 1.1 readers the string %q", num, v)
		}
		if num != strings.TrimPrefix(v, "+") {
			return fmt.Sprintf("YAML 1.1 and 1.2 readers both see the number %s, not the text %q", num, v)
		}
	}
	return ""
}

// jsonNumber formats a float as JSON writers do: 1.10 becomes 1.1, 1.0 becomes 1.
func jsonNumber(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// base60 evaluates a YAML 1.1 sexagesimal number such as 1:20 (80).
func base60(v string) string {
	neg := strings.HasPrefix(v, "-")
	v = strings.ReplaceAll(strings.TrimLeft(v, "+-"), "_", "")
	whole, frac, _ := strings.Cut(v, ".")
	var n float64
	for _, part := range strings.Split(whole, ":") {
		d, _ := strconv.ParseFloat(part, 64)
		n = n*60 + d
	}
	if frac != "" {
		f, _ := strconv.ParseFloat("0."+frac, 64)
		n += f
	}
	if neg {
		n = -n
	}
	return jsonNumber(n)
}

// checkKeyInBlock reports a line of a top-level block scalar that is a
// frontmatter key some reader knows, with a value, where the mapping has
// no such key: one indented into the block by mistake.
func checkKeyInBlock(p *Pass) {
	if p.Doc == nil || p.Doc.Front == nil {
		return
	}
	lines := strings.Split(string(p.Doc.FrontRaw), "\n")
	for k, v := range skill.Pairs(p.Doc.Front) {
		if v.Kind != yaml.ScalarNode || v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
			continue
		}
		// The block's lines follow its header (k's line), each indented
		// deeper than k, up to the first that is not.
		for i := k.Line; i < len(lines); i++ {
			text := strings.TrimRight(lines[i], " \t\r")
			indent := len(text) - len(strings.TrimLeft(text, " \t"))
			if text != "" && indent < k.Column {
				break
			}
			key, val, ok := strings.Cut(strings.TrimSpace(text), ": ")
			if !ok || strings.TrimSpace(val) == "" || !slices.Contains(SpecKeys, key) && !slices.Contains(clientsKeys, key) {
				continue
			}
			if kk, _ := p.Doc.Lookup(key); kk != nil {
				continue // the key is there: this line is text about it
			}
			line, _ := p.Doc.FilePos(&yaml.Node{Line: i + 1, Column: 1})
			p.Reportf(p.Skill.File, line, indent+1, "unindent "+strconv.Quote(key+":")+" to the left margin, after the block",
				"%q is indented into the %s block, so it is the end of that text, not a key: clients never see %s", key+":", k.Value, key)
		}
	}
}
