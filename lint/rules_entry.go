package lint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillpack/skillpack/skill"
)

// entryRules check that SKILL.md exists under its exact name and splits
// into frontmatter and body. Each structural problem of skill.Parse maps to
// exactly one rule, so a broken file is reported once, at the right line.
var entryRules = []*Rule{
	{
		ID:       "skill-md-name",
		Title:    "The entry file is named exactly SKILL.md",
		Severity: Error,
		Explain: "The specification names the entry file SKILL.md. The reference validator also accepts " +
			"skill.md, but Codex, Gemini CLI, the Vercel skills CLI and Anthropic's loaders look for the exact " +
			"upper-case name, so on a case-sensitive file system they do not see the skill at all, and the " +
			"build does not publish it. Rename the file. The spec profile makes this a warning in lint, as it " +
			"was; a build still refuses the skill (it stops, or with --skip-invalid leaves the skill out).",
		Bad:   "my-skill/skill.md",
		Good:  "my-skill/SKILL.md",
		Check: checkEntryName,
	},
	{
		ID:       "skill-md-unreadable",
		Title:    "SKILL.md can be read",
		Severity: Error,
		Explain: "skillpack could not open or read the skill's SKILL.md (permissions, a symbolic link that is " +
			"broken or leaves the skill folder, or not a regular file). Installers copy the skill folder and " +
			"the build publishes nothing outside it, so such a SKILL.md leaves no skill at all. Nothing else " +
			"about the skill can be checked until it can be read.",
		Bad:  "my-skill/SKILL.md -> ../../commands/my-skill.md, or a SKILL.md with mode 0000",
		Good: "my-skill/SKILL.md, a readable regular file inside the folder",
		// The file rules see the same link or file among the skill's
		// files: one cause, one finding.
		Supersedes: []string{"symlink-escape", "symlink", "file-not-regular", "file-unreadable"},
		Check:      checkEntryReadable,
	},
	problemRule(skill.NoFrontmatter, &Rule{
		ID:       "frontmatter-missing",
		Title:    "SKILL.md starts with YAML frontmatter",
		Severity: Error,
		Explain: "A SKILL.md starts with a line holding only \"---\", then YAML with at least name and " +
			"description, then a closing \"---\" line, then Markdown. Without frontmatter no client but Claude " +
			"Code can tell the skill's name or when to use it, and they skip the skill; Claude Code loads it, " +
			"with its folder's name and its first paragraph for a description, but an index needs a " +
			"description written for choosing the skill, so this is an error under every profile.",
		Bad:  "# PDF tools\nUse this skill to fill PDF forms.",
		Good: "---\nname: pdf-tools\ndescription: Fill and merge PDF forms. Use when the user works with PDFs.\n---\n# PDF tools",
	}),
	problemRule(skill.BadOpening, &Rule{
		ID:       "frontmatter-start",
		Title:    "The frontmatter fence is on line 1",
		Severity: Error,
		Explain: "The opening \"---\" must be the very first line, with nothing before it: not a blank line, " +
			"not a space, not a byte order mark; and nothing after it on its line, not even a space. Line-based " +
			"readers check line 1 only and treat the whole file as Markdown otherwise, silently dropping the skill.",
		Bad:  "\n---\nname: pdf-tools\n...",
		Good: "---\nname: pdf-tools\n...",
	}),
	problemRule(skill.Unclosed, &Rule{
		ID:       "frontmatter-unclosed",
		Title:    "The frontmatter has a closing fence",
		Severity: Error,
		Explain: "The frontmatter ends at the first line holding only \"---\". Without one, readers either " +
			"reject the file or read the whole Markdown body as YAML. skillpack reads the first 1 MiB of a " +
			"SKILL.md, so a frontmatter still open there is reported too: it is too long (frontmatter holds " +
			"the name, the description and a few short keys; long text belongs in the body or under " +
			"references/), or its closing line is missing.",
		Bad:  "---\nname: pdf-tools\ndescription: Fill PDF forms.\n# PDF tools",
		Good: "---\nname: pdf-tools\ndescription: Fill PDF forms.\n---\n# PDF tools",
	}),
	problemRule(skill.BadYAML, &Rule{
		ID:       "frontmatter-yaml",
		Title:    "The frontmatter is valid YAML",
		Severity: Error,
		Explain: "The frontmatter could not be parsed as YAML. The commonest cause is an unquoted \": \" inside " +
			"a value, such as a description that says \"Use when: ...\". Quote the value, or write it as a " +
			"folded block (description: >). A value that starts with [ or { and goes on after the closing " +
			"bracket, such as argument-hint: [file] [format] as Claude Code's documentation writes it, is read " +
			"as a list followed by stray text: quote the whole value.",
		Bad:  "description: Use when: the user asks for PDFs",
		Good: "description: \"Use when: the user asks for PDFs\"",
	}),
	problemRule(skill.NotMapping, &Rule{
		ID:       "frontmatter-not-mapping",
		Title:    "The frontmatter is a mapping of keys",
		Severity: Error,
		Explain: "The frontmatter must be a YAML mapping (key: value lines). An empty block, a list or a " +
			"single value has no name or description for a client to read.",
		Bad:  "---\n- pdf-tools\n---",
		Good: "---\nname: pdf-tools\ndescription: Fill and merge PDF forms.\n---",
	}),
	{
		ID:       "skill-md-encoding",
		Title:    "SKILL.md is UTF-8 without a byte order mark",
		Severity: Error,
		Explain: "Clients decode SKILL.md as UTF-8 text: the skills CLI strips a BOM and turns invalid bytes " +
			"into U+FFFD, YAML-subset readers fail on the BOM, and the MCP skills client needs SKILL.md as " +
			"text, which a server can only send for valid UTF-8. Save the file as UTF-8 without a BOM. " +
			"Windows PowerShell 5.1 writes UTF-16 (Out-File, >), in which no client finds the frontmatter: " +
			"lint reads it as its text says, and lint --fix makes it UTF-8.",
		Bad:   "SKILL.md saved as UTF-8 with BOM, or as Latin-1 (\"caf\\xe9\")",
		Good:  "SKILL.md saved as plain UTF-8 (\"café\")",
		Check: checkEntryEncoding,
	},
}

// problemRules are the rules problemRule made, by the kind each reports.
var problemRules = map[skill.ProblemKind]string{}

// ProblemRule is the rule that reports a SKILL.md's structural problem of
// kind k, for the build's refusal of one that lint's settings let by.
func ProblemRule(k skill.ProblemKind) string { return problemRules[k] }

// problemRule makes the rule that reports one kind of structural problem.
func problemRule(kind skill.ProblemKind, r *Rule) *Rule {
	problemRules[kind] = r.ID
	r.Check = func(p *Pass) {
		if p.Doc == nil || p.Doc.Problem == nil || p.Doc.Problem.Kind != kind {
			return
		}
		pr := p.Doc.Problem
		if kind == skill.BadYAML && tabBroke(p.Doc) {
			return // yaml-tab-indent reports the tab that broke it, with a better message
		}
		col, msg, fix := pr.Col, pr.Msg, ""
		switch kind {
		case skill.NoFrontmatter:
			name, rename := nameFor(p.Skill.Dir)
			fix = fmt.Sprintf("start the file with a line holding only \"---\", then name: %s and description: what the skill does "+
				"and when to use it, then a line holding only \"---\"%s", name, rename)
			if zeroed(p.Doc.Raw) {
				msg, fix = fmt.Sprintf("SKILL.md is %d NUL bytes and nothing else: its text was lost (an interrupted copy or sync, a disk fault)", len(p.Doc.Raw)), zeroedFix
			}
		case skill.NotMapping:
			name, rename := nameFor(p.Skill.Dir)
			fix = fmt.Sprintf("write one key a line between the \"---\" lines: name: %s, then description: what the skill does "+
				"and when to use it%s", name, rename)
		case skill.BadYAML:
			fix = yamlFix(p, pr)
			if fl, ok := flowText(frontLine(p, pr.Line)); ok {
				// yaml.v3 names the line, or the block it breaks; the
				// fault is the text after the list.
				col = fl.col
				msg = fmt.Sprintf("invalid YAML in frontmatter: the value of %s starts with %s, which YAML reads as a %s, "+
					"and the text after it breaks the value (%s)", fl.key, fl.list, fl.kind(), yamlReason(pr.Msg))
			}
		case skill.BadOpening:
			fix = "delete everything before the opening \"---\""
			if bytes.HasPrefix(bytes.TrimSpace(p.Doc.Raw), []byte("<!--")) {
				fix = "move the comment below the closing \"---\""
			}
			if pr.Col > 1 {
				fix = "delete the blanks after the opening \"---\""
			}
			if p.Doc.FrontRaw == nil { // below a title: not parsed, and nothing before it is to go
				fix = "move those lines, both \"---\" lines with them, to the top of the file, above the text now there"
			}
		case skill.Unclosed:
			fix = "add a line holding only \"---\" after the last frontmatter line"
			if p.Doc.Truncated {
				fix = "keep the frontmatter to the name, the description and a few short keys, and move long text " +
					"into the body or into files under references/; end it with a line holding only \"---\""
			}
		}
		p.Reportf(p.Skill.File, pr.Line, col, fix, "%s", msg)
	}
	return r
}

// nameFor is the name to give a skill whose SKILL.md declares none: its
// folder's, made valid (skill.SuggestName) and spelled as YAML reads it
// for a string (1 is a number: "1"), and if that changed it, the advice to
// rename the folder to match.
func nameFor(dir string) (name, rename string) {
	folder := filepath.Base(dir)
	if name = skill.SuggestName(folder); name != folder {
		rename = "; rename the folder to " + name + " too"
	}
	return yamlScalar(name), rename
}

// frontLine is the text of file line n, "" outside the frontmatter.
func frontLine(p *Pass, n int) string {
	if lines := frontTree(p).lines; n >= p.Doc.FrontLine && n-p.Doc.FrontLine < len(lines) {
		return lines[n-p.Doc.FrontLine]
	}
	return ""
}

// yamlReason is yaml.v3's own words in a SKILL.md problem's message: in
// the parentheses that end it, where the message puts them in words of
// its own, or else the message after its prefix.
func yamlReason(msg string) string {
	if i := strings.LastIndex(msg, " ("); i >= 0 && strings.HasSuffix(msg, ")") {
		return msg[i+2 : len(msg)-1]
	}
	return strings.TrimPrefix(msg, "invalid YAML in frontmatter: ")
}

// yamlFix says how to mend the YAML error pr, from the text of its line.
func yamlFix(p *Pass, pr *skill.Problem) string {
	const generic = "quote values that contain \": \" or start with a YAML indicator, or use a folded block (>)"
	line := func(n int) string { return frontLine(p, n) }
	text, prev := line(pr.Line), line(pr.Line-1)
	// The line above can be where the mistake is: the value YAML reads on
	// into this line started there.
	pm := keyLine.FindStringSubmatch(prev)
	m := keyLine.FindStringSubmatch(text)
	fl, flow := flowText(text)
	// An indented "Word: text" that is no key a client knows is text of
	// the plain value above it (description: …, then "  Keywords: a, b"),
	// which ": " breaks: quoting this line, or moving it to the margin,
	// would leave that value broken or cut short.
	if m != nil && m[1] != "" && strings.Contains(pr.Msg, "\": \" inside an unquoted value") && !knownKey(p, m[2]) {
		for n := pr.Line - 1; n >= p.Doc.FrontLine; n-- {
			above := line(n)
			if strings.TrimSpace(above) == "" || len(above)-len(strings.TrimLeft(above, " \t")) >= len(m[1]) {
				continue
			}
			if om := keyLine.FindStringSubmatch(above); om != nil && om[3] != "" && !blockStart.MatchString(om[3]) && !strings.ContainsAny(om[3][:1], `"'`) {
				return fmt.Sprintf("the value of %s goes on over several lines, and \": \" on line %d ends it there: write it as a "+
					"folded block (%s: >, its lines indented below), or put the whole value in double quotes", om[2], pr.Line, om[2])
			}
			break
		}
	}
	switch {
	case strings.HasPrefix(text, "..."):
		return "remove the \"...\" line: the frontmatter is one YAML document, which the closing --- ends"
	case pm == nil && noSpaceKey.MatchString(prev):
		k, v, _ := strings.Cut(strings.TrimSpace(prev), ":")
		return fmt.Sprintf("put a space after the colon on line %d (%s: %s): without one, YAML reads the line as text, "+
			"and this line as more of it", pr.Line-1, k, v)
	case m != nil && m[1] != "" && !strings.HasPrefix(strings.TrimSpace(m[1]), "-") && pm != nil && len(pm[1]) < len(m[1]) &&
		pm[3] != "" && !blockStart.MatchString(pm[3]):
		return fmt.Sprintf("start line %d at the margin, where %s: starts: indented, YAML reads it as more of the value of %s",
			pr.Line, pm[2], pm[2])
	case flow && fl.key == "allowed-tools":
		return fmt.Sprintf("write allowed-tools in one form: a list (%s) or the tools' names separated by spaces; the text after the list is neither", fl.list)
	case flow:
		if utf8.RuneCountInString(fl.value) <= 80 {
			return fmt.Sprintf("quote the whole value: %s: %s", fl.key, strconv.Quote(fl.value))
		}
		return fmt.Sprintf("put the whole value of %s in double quotes", fl.key)
	case pm != nil && blockStart.MatchString(pm[3]) && text != "" && text[0] != ' ' && text[0] != '\t':
		return fmt.Sprintf("indent the lines of the %s block by two spaces: a block's text is indented under its key", pm[2])
	}
	switch {
	case strings.Contains(pr.Msg, "UTF-8 octet") || strings.Contains(pr.Msg, "UTF-8 sequence"):
		return "save SKILL.md as UTF-8: YAML reads nothing else (skill-md-encoding names the first byte that is not)"
	case strings.Contains(pr.Msg, "\": \" inside an unquoted value"):
		m := keyLine.FindStringSubmatch(text)
		if m == nil || utf8.RuneCountInString(m[1]+m[2]) >= pr.Col {
			// The colon is the first on its line: the line continues the
			// value above, or was meant as a key and is indented too deep.
			return "quote the value this line continues, or use a folded block (>); " +
				"if the line is meant as a key, indent it as its neighbours"
		}
		key, value := m[2], strings.TrimRight(m[3], " \t")
		// The value goes on below (text that is no key): quoting this
		// line's part would leave the rest to break, or cut it short.
		isKey := func(l string) bool {
			// A blank after the line: "triggers:" opens a block, a key too.
			km := keyLine.FindStringSubmatch(strings.TrimRight(l, " \t") + " ")
			return km != nil && len(km[1]) <= len(m[1]) && !strings.ContainsAny(km[2], " \t")
		}
		last := pr.Line
		for next := line(last + 1); strings.TrimSpace(next) != "" && !isKey(next); next = line(last + 1) {
			last++
		}
		if last > pr.Line {
			return fmt.Sprintf("the value of %s goes on to line %d: write it as a folded block (%s: >, its lines indented "+
				"below), or put the whole value in double quotes, its lines after the first indented", key, last, key)
		}
		if next := gluedKey(value); next != "" {
			return fmt.Sprintf("put \"%s:\" on a line of its own: it reads as the next key, joined to the value of %s "+
				"where a line break was lost; if it is text, put the whole value in double quotes", next, key)
		}
		if utf8.RuneCountInString(value) <= 80 {
			return fmt.Sprintf("quote the value: %s: %s", key, strconv.Quote(value))
		}
		return fmt.Sprintf("put the whole value of %s in double quotes, or write it as a folded block (%s: >)", key, key)
	case strings.Contains(pr.Msg, "quote opened here is never closed"):
		return fmt.Sprintf("close the quote opened at %d:%d at the end of its value (a quote inside it is doubled in '...', escaped as \\\" in \"...\")", pr.Line, pr.Col)
	case strings.Contains(pr.Msg, "cannot start with"):
		return "quote the value"
	case strings.Contains(pr.Msg, "is no escape"):
		return "double the backslash (\\\\), or quote the value with single quotes, where \\ is plain text"
	}
	return generic
}

// gluedKey is the frontmatter key that the ": " of a plain value follows
// with no blank before it (description: … financing?version: 2.0.0), or
// "": such a value is two lines whose break was lost (mojibake eats line
// ends), and quoting it would swallow the key.
func gluedKey(value string) string {
	before, _, ok := strings.Cut(value, ": ")
	if !ok {
		return ""
	}
	i := len(before)
	for i > 0 && isKeyChar(before[i-1]) {
		i--
	}
	key := before[i:]
	if i == 0 || !slices.Contains(SpecKeys, key) && !slices.Contains(claudeKeys, key) {
		return ""
	}
	// Glued to a sentence's end or to text in another script (the
	// mojibake's); "(name: and description:)" is prose about keys.
	r, _ := utf8.DecodeLastRuneInString(before[:i])
	if !strings.ContainsRune("?.!;。？！；…", r) && (r < utf8.RuneSelf || !unicode.IsLetter(r) && !unicode.IsNumber(r)) {
		return ""
	}
	return key
}

func isKeyChar(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '-' || c == '_' }

// keyLine splits a "key: value" line (or "- key: value") into its
// indentation, key and value.
var keyLine = regexp.MustCompile(`^(\s*(?:- +)?)([^\s:#'"][^:#]*?):[ \t]+(.*)$`)

// flowLine is a "key: value" line whose plain value starts a flow list or
// mapping and goes on with text after it on the line: argument-hint:
// [a] [b], as Claude Code documents it, or [create|check] <request>. It is
// meant as text, but YAML reads the list and then fails at the text.
type flowLine struct {
	key, value string // the value without trailing blanks
	list       string // the list or mapping it starts with: "[a]"
	col        int    // 1-based, in characters, of the text after the list
}

// kind is what YAML reads the list as, in words.
func (fl flowLine) kind() string {
	if fl.list[0] == '{' {
		return "mapping"
	}
	return "list"
}

// flowText reads a flowLine from one line of frontmatter.
func flowText(line string) (flowLine, bool) {
	m := keyLine.FindStringSubmatchIndex(line)
	if m == nil {
		return flowLine{}, false
	}
	v := strings.TrimRight(line[m[6]:m[7]], " \t")
	at := textAfterFlow(v)
	if at < 0 {
		return flowLine{}, false
	}
	list := strings.TrimRight(v[:at], " \t")
	return flowLine{key: line[m[4]:m[5]], value: v, list: list, col: utf8.RuneCountInString(line[:m[6]+at]) + 1}, true
}

// textAfterFlow returns the offset in v of the text that follows, on the
// same line, the flow list or mapping v starts with ("[a] [b]": 4), or -1
// when v starts none, the list does not close on the line, or only a
// comment follows it ("[a, b] # tools"): a valid value.
func textAfterFlow(v string) int {
	if v == "" || v[0] != '[' && v[0] != '{' {
		return -1
	}
	end := skill.FlowEnd(v)
	if end < 0 {
		return -1
	}
	rest := strings.TrimLeft(v[end+1:], " \t")
	if rest == "" || rest[0] == '#' && len(rest) < len(v)-end-1 {
		return -1
	}
	return len(v) - len(rest)
}

// noSpaceKey is a "key:value" line: a key, as the spec's and clients'
// keys are spelt, with no space after its colon.
var noSpaceKey = regexp.MustCompile(`^[A-Za-z][\w-]*:[^\s:/]`)

// blockStart is the value that starts a literal or folded block.
var blockStart = regexp.MustCompile(`^[|>][+-]?[1-9]?[+-]?\s*(#.*)?$`)

func checkEntryName(p *Pass) {
	if p.Skill.File != skill.FileName {
		p.Reportf(p.Skill.File, 0, 0, "rename "+p.Skill.File+" to "+skill.FileName,
			"the entry file is named %q; most clients only look for %q", p.Skill.File, skill.FileName)
	}
}

func checkEntryReadable(p *Pass) {
	if r := brokenEntry(p); r != nil {
		target, _ := os.Readlink(p.Skill.EntryPath())
		p.Reportf(p.Skill.File, 0, 0, "point the link at an existing file inside the skill folder, or replace it with the file itself",
			"%s is a symbolic link to %q, which cannot be followed (%v); no client can read the skill",
			p.Skill.File, filepath.ToSlash(target), r.Err)
		return
	}
	if p.Skill.Err != nil {
		p.Reportf(p.Skill.File, 0, 0, "make it a regular file that the user running skillpack can read",
			"cannot read %s: %v", p.Skill.File, p.Skill.Err)
	}
}

// brokenEntry returns how the skill's files refused its entry file when it
// is a symbolic link that cannot be followed, or nil. A link that leaves the
// folder but resolves is read like any SKILL.md; symlink-escape reports it,
// or skill-mirror when it reaches another skill's SKILL.md.
func brokenEntry(p *Pass) *skill.Refused {
	if p.Files == nil {
		return nil
	}
	for i, r := range p.Files.Refused {
		if r.Path == p.Skill.File && r.Kind == skill.LinkBroken {
			return &p.Files.Refused[i]
		}
	}
	return nil
}

func checkEntryEncoding(p *Pass) {
	if p.Doc == nil {
		return
	}
	if p.Doc.UTF16 {
		p.Reportf(p.Skill.File, 1, 1, "save the file as UTF-8 (skillpack lint --fix converts it; in PowerShell, Out-File -Encoding utf8)",
			"SKILL.md is UTF-16 (it starts with a UTF-16 byte order mark, as Windows PowerShell 5.1 writes text); clients read it as UTF-8 and find no frontmatter")
		return
	}
	if p.Doc.BOM {
		p.Reportf(p.Skill.File, 1, 1, "save the file as UTF-8 without a byte order mark",
			"SKILL.md starts with a UTF-8 byte order mark")
	}
	raw := p.Doc.Raw
	// Raw stops at skill.MaxRead: a character cut off there is no fault.
	if i := firstBadUTF8(raw, len(raw) < skill.MaxRead); i >= 0 {
		line, col := newLines(raw).pos(i) // in characters, as every rule's
		p.Reportf(p.Skill.File, line, col, "save the file as UTF-8",
			"SKILL.md is not valid UTF-8 (byte 0x%02x); clients will show it as U+FFFD or reject it", raw[i])
	}
}
