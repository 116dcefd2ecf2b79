package lint

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// fieldRules check the six frontmatter fields the specification defines,
// and the keys it does not.
var fieldRules = []*Rule{
	{
		ID:       "name-missing",
		Title:    "The frontmatter has a name",
		Category: CatSpec,
		Severity: Error,
		Explain: "name is required. It identifies the skill in every index and install command and must " +
			"equal the skill's folder name.",
		Bad:   "---\ndescription: Fill and merge PDF forms.\n---",
		Good:  "---\nname: pdf-tools\ndescription: Fill and merge PDF forms.\n---",
		Check: func(p *Pass) { checkRequired(p, "name") },
	},
	{
		ID:       "name-format",
		Title:    "name is 1-64 characters of a-z, 0-9 and single hyphens",
		Category: CatSpec,
		Severity: Error,
		Explain: "name must be a string of 1 to 64 lowercase letters, digits and hyphens, not starting or " +
			"ending with a hyphen and without two hyphens in a row. Discovery indexes, URLs, archive names " +
			"and MCP URIs are built from it, and readers silently drop entries whose name breaks the pattern.",
		Bad:   "name: PDF_Tools--v2-",
		Good:  "name: pdf-tools-v2",
		Check: checkNameFormat,
	},
	{
		ID:       "name-non-ascii",
		Title:    "name uses ASCII letters only",
		Category: CatSpec,
		Severity: Error,
		Explain: "The specification's prose allows Unicode lowercase letters but its pattern lists a-z, and " +
			"the HTTP discovery format, URLs and almost every client accept only ASCII. A non-ASCII name " +
			"cannot be carried portably by any index, so spell it in ASCII. The relaxed profile lowers this " +
			"to a warning for registries whose clients all read Unicode.",
		Bad:   "name: café-notes",
		Good:  "name: cafe-notes",
		Check: checkNameASCII,
	},
	{
		ID:       "name-mismatch",
		Title:    "name equals the folder name",
		Category: CatSpec,
		Severity: Error,
		Explain: "The specification requires the name field to equal the name of the folder holding " +
			"SKILL.md. Clients that install by folder and clients that install by name would otherwise " +
			"disagree about what the skill is called. Rename the folder or the name.",
		Bad:   "skills/pdf/SKILL.md with name: pdf-tools",
		Good:  "skills/pdf-tools/SKILL.md with name: pdf-tools",
		Check: checkNameMismatch,
	},
	{
		ID:       "description-missing",
		Title:    "The frontmatter has a description",
		Category: CatSpec,
		Severity: Error,
		Explain: "description is required: it is all an agent reads when deciding whether to load the skill. " +
			"Say what the skill does and when to use it.",
		Bad:   "---\nname: pdf-tools\n---",
		Good:  "---\nname: pdf-tools\ndescription: Fill and merge PDF forms. Use when the user works with PDF files.\n---",
		Check: func(p *Pass) { checkRequired(p, "description") },
	},
	{
		ID:       "description-length",
		Title:    "description is a non-blank string of at most 1024 characters",
		Category: CatSpec,
		Severity: Error,
		Explain: "description must be a string of 1 to 1024 characters (characters, not bytes; the final " +
			"newline of a | block counts). Longer descriptions are rejected by the discovery schema and " +
			"by MCP hosts, which drop the skill.",
		Bad:   "description: \"\"",
		Good:  "description: Fill and merge PDF forms. Use when the user works with PDF files.",
		Check: checkDescriptionLength,
	},
	{
		ID:       "license-type",
		Title:    "license is a string",
		Category: CatSpec,
		Severity: Error,
		Explain: "license is optional; when present it is a string: an SPDX identifier or the name of a " +
			"license file bundled with the skill.",
		Bad:   "license:\n  - MIT\n  - Apache-2.0",
		Good:  "license: MIT OR Apache-2.0",
		Check: checkLicense,
	},
	{
		ID:       "compatibility-format",
		Title:    "compatibility is a string of 1-500 characters",
		Category: CatSpec,
		Severity: Error,
		Explain: "compatibility is optional; when present it is a string of 1 to 500 characters naming the " +
			"environment the skill needs (products, system packages, network access). An empty value is an " +
			"error too: MCP hosts reject it, although the reference validator lets it through.",
		Bad:   "compatibility: \"\"",
		Good:  "compatibility: Needs Python 3.10+ and network access",
		Check: checkCompatibility,
	},
	{
		ID:       "metadata-format",
		Title:    "metadata maps strings to strings",
		Category: CatSpec,
		Severity: Error,
		Explain: "metadata is optional; when present it is a mapping from string keys to string values. YAML " +
			"reads an unquoted version: 1.0 as the number 1 (and 1.10 as 1.1), so quote every value that " +
			"looks like a number, boolean or date.",
		Bad:   "metadata:\n  version: 1.0\n  tags: [pdf, forms]",
		Good:  "metadata:\n  version: \"1.0\"\n  tags: pdf forms",
		Check: checkMetadata,
	},
	{
		ID:       "allowed-tools-type",
		Title:    "allowed-tools is a string",
		Category: CatSpec,
		Severity: Error,
		Explain: "allowed-tools (experimental) is one space-separated string of tool names. A mapping, " +
			"number or boolean cannot be read by any client.",
		Bad:   "allowed-tools:\n  bash: true",
		Good:  "allowed-tools: Bash(git:*) Read",
		Check: checkAllowedToolsType,
	},
	{
		ID:       "allowed-tools-list",
		Title:    "allowed-tools is a string, not a YAML list",
		Category: CatSpec,
		Severity: Warning,
		Explain: "The specification defines allowed-tools as one space-separated string. Claude Code also " +
			"accepts a YAML list, but other clients read the field as a string and ignore a list.",
		Bad:   "allowed-tools:\n  - Read\n  - Bash",
		Good:  "allowed-tools: Read Bash",
		Check: checkAllowedToolsList,
	},
	{
		ID:       "unknown-key",
		Title:    "The frontmatter uses only keys the profile knows",
		Category: CatSpec,
		Severity: Warning,
		Explain: "The specification defines name, description, license, compatibility, metadata and " +
			"allowed-tools. Other keys are ignored by most clients and make some drop the skill; a typo such " +
			"as allowed_tools silently does nothing. Fix the spelling, move custom data under metadata, or " +
			"choose a profile that knows the key (profile: claude allows Claude Code's keys).",
		Bad:   "allowed_tools: Read\nauthor: Jane",
		Good:  "allowed-tools: Read\nmetadata:\n  author: Jane",
		Check: checkUnknownKeys,
	},
	{
		ID:       "description-short",
		Title:    "description says what the skill does and when to use it",
		Category: CatContent,
		Severity: Warning,
		Explain: "Agents choose skills by their description alone. One shorter than about 20 characters " +
			"rarely says both what the skill does and when to use it, so the skill is never picked.",
		Bad:   "description: PDF stuff",
		Good:  "description: Fill and merge PDF forms. Use when the user mentions PDFs or forms.",
		Check: checkDescriptionShort,
	},
	{
		ID:       "description-equals-name",
		Title:    "description is more than the name",
		Category: CatContent,
		Severity: Warning,
		Explain:  "A description that repeats the name tells an agent nothing about when to use the skill.",
		Bad:      "name: pdf-tools\ndescription: pdf tools",
		Good:     "name: pdf-tools\ndescription: Fill and merge PDF forms. Use when the user mentions PDFs.",
		Check:    checkDescriptionEqualsName,
	},
	{
		ID:       "description-angle-brackets",
		Title:    "description has no < or >",
		Category: CatContent,
		Severity: Warning,
		Explain: "Anthropic's skill upload rejects descriptions containing < or >, and hosts that render " +
			"descriptions as HTML may swallow them. Spell the placeholder out.",
		Bad:   "description: Convert <input> files to PDF.",
		Good:  "description: Convert input files (Word, HTML) to PDF.",
		Check: checkDescriptionAngles,
	},
}

var namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func checkRequired(p *Pass, key string) {
	if p.Doc == nil || p.Doc.Front == nil {
		return
	}
	if k, _ := p.Doc.Lookup(key); k == nil {
		p.Reportf(p.Skill.File, p.Doc.FrontLine-1, 1, fmt.Sprintf("add a %q line to the frontmatter", key+": ..."),
			"the frontmatter has no %s", key)
	}
}

// stringValue returns the value node of key when it is a string scalar; ok
// is false when the key is absent or holds something else.
func stringValue(p *Pass, key string) (v *yaml.Node, s string, ok bool) {
	if p.Doc == nil || p.Doc.Front == nil {
		return nil, "", false
	}
	_, v = p.Doc.Lookup(key)
	if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
		return v, "", false
	}
	return v, v.Value, true
}

// describe names what a node holds, for messages.
func describeNode(n *yaml.Node) string {
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
	}
	return "a " + strings.TrimPrefix(n.ShortTag(), "!!")
}

func checkNameFormat(p *Pass) {
	v, name, ok := stringValue(p, "name")
	if v == nil {
		return
	}
	if !ok {
		p.ReportNode(v, "write the name as a plain string such as \"pdf-tools\"", "name must be a string, not %s", describeNode(v))
		return
	}
	var problems []string
	n := utf8.RuneCountInString(name)
	switch {
	case strings.TrimSpace(name) == "":
		problems = append(problems, "is blank")
	case n > 64:
		problems = append(problems, fmt.Sprintf("is %d characters long (at most 64)", n))
	}
	if strings.TrimSpace(name) != "" {
		var bad []string
		for _, r := range name {
			if r < utf8.RuneSelf && !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				if s := fmt.Sprintf("%q", r); !contains(bad, s) {
					bad = append(bad, s)
				}
			}
		}
		if len(bad) > 0 {
			problems = append(problems, "contains "+strings.Join(bad, ", ")+" (only a-z, 0-9 and -)")
		}
		if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
			problems = append(problems, "starts or ends with a hyphen")
		}
		if strings.Contains(name, "--") {
			problems = append(problems, "contains two hyphens in a row")
		}
	}
	if len(problems) > 0 {
		p.ReportNode(v, "use lowercase letters, digits and single hyphens, e.g. "+strconvQuote(suggestName(name)),
			"name %q %s", name, strings.Join(problems, ", "))
	}
}

// suggestName turns an invalid name into the nearest valid one, for hints.
func suggestName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "-")
	}
	if out == "" {
		return "my-skill"
	}
	return out
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func checkNameASCII(p *Pass) {
	v, name, ok := stringValue(p, "name")
	if !ok {
		return
	}
	for _, r := range name {
		if r >= utf8.RuneSelf {
			p.ReportNode(v, "spell the name in ASCII, e.g. "+strconvQuote(suggestName(asciiFold(name))),
				"name %q contains the non-ASCII character %q; discovery indexes, URLs and most clients accept only a-z, 0-9 and -", name, r)
			return
		}
	}
}

// asciiFold drops diacritics crudely for a hint: é → e. Letters with no
// ASCII base are dropped.
func asciiFold(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case strings.ContainsRune("àáâãäå", unicode.ToLower(r)):
			b.WriteByte('a')
		case strings.ContainsRune("èéêë", unicode.ToLower(r)):
			b.WriteByte('e')
		case strings.ContainsRune("ìíîï", unicode.ToLower(r)):
			b.WriteByte('i')
		case strings.ContainsRune("òóôõöø", unicode.ToLower(r)):
			b.WriteByte('o')
		case strings.ContainsRune("ùúûü", unicode.ToLower(r)):
			b.WriteByte('u')
		case r == 'ñ':
			b.WriteByte('n')
		case r == 'ç':
			b.WriteByte('c')
		case r == 'ß':
			b.WriteString("ss")
		}
	}
	return b.String()
}

func checkNameMismatch(p *Pass) {
	v, name, ok := stringValue(p, "name")
	if !ok || !namePattern.MatchString(name) {
		return // name-format reports it; a mismatch only makes sense for a valid name
	}
	if folder := p.Skill.Name(); name != folder {
		p.ReportNode(v, fmt.Sprintf("rename the folder to %q or set name: %s", name, folder),
			"name %q does not match the folder name %q", name, folder)
	}
}

func checkDescriptionLength(p *Pass) {
	v, desc, ok := stringValue(p, "description")
	if v == nil {
		return
	}
	if !ok {
		p.ReportNode(v, "write the description as text; quote it if it looks like a number or date",
			"description must be a string, not %s", describeNode(v))
		return
	}
	switch n := utf8.RuneCountInString(desc); {
	case strings.TrimSpace(desc) == "":
		p.ReportNode(v, "say what the skill does and when to use it", "description is blank")
	case n > 1024:
		p.ReportNode(v, "shorten it and move detail into the body", "description is %d characters long (at most 1024)", n)
	}
}

func checkLicense(p *Pass) {
	v, _, ok := stringValue(p, "license")
	if v != nil && !ok {
		p.ReportNode(v, "write an SPDX expression such as \"MIT\" or a file name such as \"LICENSE.txt\"",
			"license must be a string, not %s", describeNode(v))
	}
}

func checkCompatibility(p *Pass) {
	v, s, ok := stringValue(p, "compatibility")
	switch {
	case v == nil:
	case !ok:
		p.ReportNode(v, "write it as one sentence of text", "compatibility must be a string, not %s", describeNode(v))
	case strings.TrimSpace(s) == "":
		p.ReportNode(v, "remove the key or say what the skill needs", "compatibility is empty")
	case utf8.RuneCountInString(s) > 500:
		p.ReportNode(v, "shorten it", "compatibility is %d characters long (at most 500)", utf8.RuneCountInString(s))
	}
}

func checkMetadata(p *Pass) {
	if p.Doc == nil {
		return
	}
	_, v := p.Doc.Lookup("metadata")
	if v == nil {
		return
	}
	if v.Kind != yaml.MappingNode {
		if v.ShortTag() == "!!null" {
			return // "metadata:" with nothing after it is harmless
		}
		p.ReportNode(v, "make it a mapping of keys to quoted strings", "metadata must be a mapping, not %s", describeNode(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			p.ReportNode(k, "quote the key", "metadata key %s is not a string", describeNode(k))
			continue
		}
		if val.Kind == yaml.ScalarNode && val.ShortTag() == "!!str" {
			continue
		}
		if val.Kind == yaml.ScalarNode {
			p.ReportNode(val, fmt.Sprintf("quote it: %s: %q", k.Value, val.Value),
				"metadata.%s is %s, not a string; quote it", k.Value, describeNode(val))
		} else {
			p.ReportNode(val, "flatten it into one string, or into several keys",
				"metadata.%s is %s; metadata values must be strings", k.Value, describeNode(val))
		}
	}
}

func checkAllowedToolsType(p *Pass) {
	if p.Doc == nil {
		return
	}
	_, v := p.Doc.Lookup("allowed-tools")
	if v == nil || v.Kind == yaml.SequenceNode || v.ShortTag() == "!!str" {
		return
	}
	p.ReportNode(v, "write the tools as one space-separated string, e.g. allowed-tools: Read Bash",
		"allowed-tools must be a space-separated string, not %s", describeNode(v))
}

func checkAllowedToolsList(p *Pass) {
	if p.Doc == nil {
		return
	}
	_, v := p.Doc.Lookup("allowed-tools")
	if v == nil || v.Kind != yaml.SequenceNode {
		return
	}
	var tools []string
	for _, t := range v.Content {
		tools = append(tools, t.Value)
	}
	p.ReportNode(v, "allowed-tools: "+strings.Join(tools, " "),
		"allowed-tools is a YAML list; the specification defines a space-separated string")
}

func checkUnknownKeys(p *Pass) {
	if p.Doc == nil || p.Doc.Front == nil {
		return
	}
	known := append(append([]string(nil), SpecKeys...), p.Profile.Keys...)
	for i := 0; i+1 < len(p.Doc.Front.Content); i += 2 {
		k := p.Doc.Front.Content[i]
		if k.Kind != yaml.ScalarNode || p.Profile.KnownKey(k.Value) {
			continue
		}
		fix := "move it under metadata, or choose a profile that knows it"
		if s := closestKey(k.Value, known); s != "" {
			fix = fmt.Sprintf("did you mean %q?", s)
		} else if p.Profile.Name == "spec" && contains(claudeKeys, k.Value) {
			fix = "it is a Claude Code key: set profile: claude in skillpack.yaml"
		}
		p.ReportNode(k, fix, "unknown frontmatter key %q (profile %s)", k.Value, p.Profile.Name)
	}
}

// closestKey finds a known key that a typo was probably meant to be:
// a case or separator variant, or one edit away.
func closestKey(key string, known []string) string {
	norm := func(s string) string { return strings.NewReplacer("_", "-", " ", "-").Replace(strings.ToLower(s)) }
	for _, k := range known {
		if norm(key) == norm(k) {
			return k
		}
	}
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(norm(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func checkDescriptionShort(p *Pass) {
	v, desc, ok := stringValue(p, "description")
	if !ok || strings.TrimSpace(desc) == "" {
		return
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(desc)); n < 20 {
		p.ReportNode(v, "say what the skill does and when an agent should use it",
			"description is only %d characters; agents choose skills by it", n)
	}
}

func checkDescriptionEqualsName(p *Pass) {
	v, desc, ok := stringValue(p, "description")
	_, name, okName := stringValue(p, "name")
	if !ok || !okName {
		return
	}
	norm := func(s string) string {
		return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}), " ")
	}
	if d := norm(desc); d != "" && d == norm(name) {
		p.ReportNode(v, "say what the skill does and when to use it", "description only repeats the name")
	}
}

func checkDescriptionAngles(p *Pass) {
	v, desc, ok := stringValue(p, "description")
	if ok && strings.ContainsAny(desc, "<>") {
		p.ReportNode(v, "spell placeholders out instead of using < and >",
			"description contains < or >, which Anthropic's upload rejects")
	}
}
