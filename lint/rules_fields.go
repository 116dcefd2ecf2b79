package lint

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/semver"
	"github.com/skillpack/skillpack/internal/smallfile"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

// fieldRules check the six frontmatter fields the specification defines,
// and the keys it does not.
var fieldRules = []*Rule{
	{
		ID:       "name-missing",
		Title:    "The frontmatter has a name",
		Severity: Error,
		Publish:  true,
		Explain: "name is required. It identifies the skill in every index and install command and must " +
			"equal the skill's folder name. Claude Code alone takes the folder's name for a missing one, so " +
			"under the claude profile this is a warning, and the build publishes the skill under its folder's " +
			"name; the Vercel skills CLI and Codex skip such a skill.",
		Bad:   "---\ndescription: Fill and merge PDF forms.\n---",
		Good:  "---\nname: pdf-tools\ndescription: Fill and merge PDF forms.\n---",
		Check: func(p *Pass) { checkRequired(p, "name") },
	},
	{
		ID:       "name-format",
		Title:    "name is 1-64 characters of a-z, 0-9 and single hyphens",
		Severity: Error,
		Publish:  true,
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
		Severity: Error,
		Publish:  true,
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
		Severity: Warning,
		Explain: "The specification requires the name field to equal the name of the folder holding " +
			"SKILL.md. No client depends on it: Claude Code and Codex invoke a skill by its name, the " +
			"Vercel skills CLI installs it into a folder named after its name, and a bundle publishes it " +
			"under its name. A reader of the source tree that goes by folders still calls it otherwise, so " +
			"rename the folder or the name. It is an error under the spec profile, as in skills-ref. A " +
			"skill at the top of a git checkout (its folder holds .git) is not checked, under any profile: " +
			"its folder is named by whoever cloned it, not by the author. A copy without .git (a download, " +
			"a copied tree) cannot be told from a skill's own folder and is checked, and the fix says so.",
		Bad:   "skills/pdf/SKILL.md with name: pdf-tools",
		Good:  "skills/pdf-tools/SKILL.md with name: pdf-tools",
		Check: checkNameMismatch,
	},
	{
		ID:       "description-missing",
		Title:    "The frontmatter has a description",
		Severity: Error,
		Publish:  true,
		Explain: "description is required: it is all an agent reads when deciding whether to load the skill. " +
			"Say what the skill does and when to use it.",
		Bad:   "---\nname: pdf-tools\n---",
		Good:  "---\nname: pdf-tools\ndescription: Fill and merge PDF forms. Use when the user works with PDF files.\n---",
		Check: func(p *Pass) { checkRequired(p, "description") },
	},
	{
		ID:       "description-length",
		Title:    "description is a non-blank string of at most 1024 characters",
		Severity: Error,
		Publish:  true,
		Explain: "description must be a string of 1 to 1024 characters (characters, not bytes; the final " +
			"newline of a | block counts). Longer descriptions are rejected by the discovery schema and " +
			"by MCP hosts, which drop the skill. Characters are counted as JavaScript counts them, in UTF-16 " +
			"code units, where an emoji beyond the Basic Multilingual Plane counts 2: the Vercel skills CLI " +
			"drops an index entry whose description is longer so.",
		Bad:   "description: \"\"",
		Good:  "description: Fill and merge PDF forms. Use when the user works with PDF files.",
		Check: checkDescriptionLength,
	},
	{
		ID:       "license-type",
		Title:    "license is a string",
		Severity: Warning,
		Explain: "license is optional; when present it is a string: an SPDX identifier or the name of a " +
			"license file bundled with the skill. Clients do not read it, and the catalog shows only a " +
			"string license, so another value is lost rather than harmful; it is an error under the spec " +
			"profile.",
		Bad:  "license:\n  - MIT\n  - Apache-2.0",
		Good: "license: MIT OR Apache-2.0",
		Check: func(p *Pass) {
			stringField(p, "license", "write an SPDX expression such as \"MIT\" or a file name such as \"LICENSE.txt\"")
		},
	},
	{
		ID:       "compatibility-format",
		Title:    "compatibility is a string of 1-500 characters",
		Severity: Warning,
		Explain: "compatibility is optional; when present it is a string of 1 to 500 characters naming the " +
			"environment the skill needs (products, system packages, network access). The clients that " +
			"load skills do not read it, but the official MCP SDK checks it, and refuses a whole skills/list " +
			"that holds one entry whose compatibility is empty, too long or not a string: so the build leaves " +
			"such a skill out of the MCP documents (mcp/*.json), and MCP hosts do not offer it; the other " +
			"indexes keep it. It is an error under the spec profile (a blank value too, which skills-ref " +
			"and the SDK let through).",
		Bad:   "compatibility: \"\"",
		Good:  "compatibility: Needs Python 3.10+ and network access",
		Check: checkCompatibility,
	},
	{
		ID:       "metadata-format",
		Title:    "metadata is a mapping",
		Severity: Error,
		Explain: "metadata is optional; when present it is a mapping of keys to values. Codex refuses to load " +
			"a skill whose metadata is a string or a list, so write it as key: value lines. A metadata: line " +
			"with nothing after it is no mapping either but null, and the official MCP SDK refuses a whole " +
			"skills/list that holds one entry whose metadata is null (were this rule turned down, the build " +
			"would leave the skill out of the MCP documents): remove the line (lint --fix does), or give it " +
			"key: value lines.",
		Bad:   "metadata: pdf, forms",
		Good:  "metadata:\n  tags: pdf forms",
		Check: checkMetadata,
	},
	{
		ID:       "metadata-nested",
		Title:    "metadata values are strings, not lists or mappings",
		Severity: Warning,
		Explain: "The specification has metadata map strings to strings. Clients read nested values as " +
			"written: OpenClaw's documentation prescribes a metadata.openclaw block, Claude Code and " +
			"Codex ignore what they do not use, and the build publishes the files unchanged. MCP hosts " +
			"check the letter, and no entry can satisfy them: the official MCP SDK refuses a whole " +
			"skills/list that holds one entry whose metadata is not strings, and every host refuses a " +
			"skill whose entry differs from its own reading of SKILL.md. So the build leaves such a skill " +
			"out of the MCP documents (mcp/*.json; skillpack serve does not offer it over MCP) and keeps " +
			"it in every other index. Flatten the value into one string, or into several keys, where no " +
			"client needs the nesting. It is an error under the spec profile.",
		Bad:   "metadata:\n  tags: [pdf, forms]",
		Good:  "metadata:\n  tags: pdf forms",
		Check: checkMetadataNested,
	},
	{
		ID:       "metadata-scalar",
		Title:    "metadata values are quoted where YAML would read a number, boolean or date",
		Severity: Warning,
		Explain: "metadata values are strings, but YAML guesses a type for unquoted ones: count: 28 is a number, " +
			"version: 1.0 is the number 1, enabled: true a boolean, and YAML 1.1 readers such as js-yaml and " +
			"PyYAML turn updated: 2026-02-06 into a date object. A host that reads the frontmatter that way " +
			"sees something other than the text written. MCP hosts read it so (as YAML 1.2: a date stays " +
			"text there): they refuse a skill whose metadata holds a number, a boolean or null, since no " +
			"entry can both list strings, as the official MCP SDK requires, and equal their reading of " +
			"SKILL.md, so the build leaves such a skill out of the MCP documents. Quote the value. " +
			"One is meant as a boolean and left as it is: internal: true, the Vercel skills CLI's flag " +
			"that hides a skill from installs (quoted, the CLI would show it).",
		Bad:   "metadata:\n  version: 1.0\n  updated: 2026-02-06",
		Good:  "metadata:\n  version: \"1.0\"\n  updated: \"2026-02-06\"",
		Check: checkMetadataScalars,
	},
	{
		ID:       "version-semver",
		Title:    "A skill's version is a semantic version",
		Severity: Warning,
		Explain: "metadata.version (or version, under a profile that allows Claude Code's keys) names a " +
			"release of the skill. Registries pin skills by it, and skillpack orders releases by it " +
			"(build --previous refuses a version that went backwards), as Semantic Versioning 2.0.0: " +
			"MAJOR.MINOR.PATCH, with an optional -pre-release and +build, no leading v and no leading " +
			"zeros. 1.0 or v2 cannot be ordered against other versions. Write all three numbers, quoted.",
		Bad:  "metadata:\n  version: \"1.0\"",
		Good: "metadata:\n  version: \"1.0.0\"",
		// version: 1.10 unquoted is also a number, metadata-scalar's
		// finding (as yaml-ambiguous-scalar's at the top level): that one
		// says what readers see and --fix quotes it, which this one's fix
		// (another text) cannot.
		Check: checkVersion,
	},
	{
		ID:       "installed-metadata",
		Title:    "metadata has no install records of another repository",
		Category: CatContent,
		Severity: Warning,
		Explain: "gh skill install writes where it installed a skill from into its metadata (github-repo, " +
			"github-ref, github-path, github-tree-sha, github-pinned). A skill carrying them is a copy of " +
			"someone else's: republished as-is, it claims a source it no longer matches, and the next " +
			"gh skill update overwrites local changes with upstream. Remove the keys (skillpack lint --fix " +
			"strips them), or publish from the source repository.",
		Bad:   "metadata:\n  github-repo: https://github.com/acme/skills\n  github-tree-sha: 7a8633b2...",
		Good:  "metadata:\n  author: acme",
		Check: checkInstalledMetadata,
	},
	{
		ID:       "allowed-tools-type",
		Title:    "allowed-tools is a string",
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
		Severity: Warning,
		Explain: "The specification defines allowed-tools as one space-separated string. Claude Code also " +
			"accepts a YAML list, but other clients read the field as a string and ignore a list. The claude " +
			"and relaxed profiles make this informational. A list holding a tool with a space " +
			"(Bash(git add *)), which the string would split in two, is not reported: it has no other form.",
		Bad:  "allowed-tools:\n  - Read\n  - Bash",
		Good: "allowed-tools: Read Bash",
		// A flow list ([Read, Bash]) is the same cause seen as YAML syntax.
		Supersedes: []string{"yaml-flow-sequence"},
		Check:      checkAllowedToolsList,
	},
	{
		ID:       "unknown-key",
		Title:    "The frontmatter uses only keys the profile knows",
		Severity: Warning,
		Explain: "The specification defines name, description, license, compatibility, metadata and " +
			"allowed-tools. Other keys are ignored by most clients and make some drop the skill; a typo such " +
			"as allowed_tools silently does nothing. The default profile, clients, also knows the keys the " +
			"clients that load skills document (Claude Code's, Cursor's disable-model-invocation, OpenClaw's " +
			"homepage and command-dispatch), and the finding names the clients that read such a key; claude " +
			"knows Claude Code's, spec none. Fix the spelling, move custom data under metadata, or choose a " +
			"profile that knows the key. A skill of a Claude Code plugin (.claude-plugin/plugin.json) may use " +
			"Claude Code's keys under any profile.",
		Bad:  "allowed_tools: Read\nauthor: Jane",
		Good: "allowed-tools: Read\nmetadata:\n  author: Jane",
		// A key nobody reads makes the syntax of its value moot. The YAML
		// warnings also skip values of unknown keys below the key's line,
		// which the engine's same-line test does not reach.
		Supersedes: []string{"yaml-flow-sequence", "yaml-colon-space", "yaml-ambiguous-scalar"},
		Check:      checkUnknownKeys,
	},
	{
		ID:       "description-short",
		Title:    "description says what the skill does and when to use it",
		Category: CatContent,
		Severity: Warning,
		Explain: "Agents choose skills by their description alone. One shorter than about 20 characters " +
			"rarely says both what the skill does and when to use it, so the skill is never picked. Nor " +
			"does one that is mostly \"?\" or U+FFFD: its text was lost, saved in an encoding (a Windows " +
			"code page) that could not hold it.",
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
		// A name is short, so its echo usually is too: one finding, the
		// one that says what is wrong.
		Supersedes: []string{"description-short"},
		Check:      checkDescriptionEqualsName,
	},
	{
		ID:       "description-angle-brackets",
		Title:    "description has no < or >",
		Category: CatContent,
		Severity: Warning,
		Explain: "Anthropic's skill upload rejects descriptions containing < or >, and hosts that render " +
			"descriptions as HTML may swallow them. Spell a placeholder out, and write a comparison or an arrow in words.",
		Bad:   "description: Convert <input> files to PDF.",
		Good:  "description: Convert input files (Word, HTML) to PDF.",
		Check: checkDescriptionAngles,
	},
}

var namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// validName reports whether s is a name every index carries: namePattern,
// 64 characters at most.
func validName(s string) bool { return namePattern.MatchString(s) && len(s) <= 64 }

func checkRequired(p *Pass, key string) {
	if p.Doc == nil || p.Doc.Front == nil {
		return
	}
	if k, _ := p.Doc.Lookup(key); k == nil {
		fix := fmt.Sprintf("add a %q line to the frontmatter", key+": ...")
		if key == "name" {
			name, rename := nameFor(p.Skill.Dir)
			fix = fmt.Sprintf("add \"name: %s\", the folder's name, to the frontmatter%s", name, rename)
		}
		p.Reportf(p.Skill.File, p.Doc.FrontLine-1, 1, fix, "the frontmatter has no %s", key)
	}
}

// value is the value node of a top-level frontmatter key, or nil.
func value(p *Pass, key string) *yaml.Node {
	if p.Doc == nil {
		return nil
	}
	_, v := p.Doc.Lookup(key)
	return v
}

// stringValue returns the value node of key when it is a string scalar; ok
// is false when the key is absent or holds something else.
func stringValue(p *Pass, key string) (v *yaml.Node, s string, ok bool) {
	if v = value(p, key); v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
		return v, "", false
	}
	return v, v.Value, true
}

// stringField is stringValue for a field that must be a string: a value
// of another kind it reports, with fix, as "KEY must be a string".
func stringField(p *Pass, key, fix string) (v *yaml.Node, s string, ok bool) {
	v, s, ok = stringValue(p, key)
	if v != nil && !ok {
		p.ReportNode(v, fix, "%s must be a string, not %s", key, skill.Describe(v))
	}
	return v, s, ok
}

func checkNameFormat(p *Pass) {
	v, name, ok := stringField(p, "name", "write the name as a plain string such as \"pdf-tools\"")
	if !ok {
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
				if s := fmt.Sprintf("%q", r); !slices.Contains(bad, s) {
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
		lead := "use lowercase letters, digits and single hyphens"
		if len(problems) == 1 && n > 64 {
			lead = "shorten it to 64 characters"
		}
		fix := lead + ", in a name no other skill has, and rename the folder to match"
		switch offer, own := p.offeredName(skill.SuggestName(name)); {
		case own:
			fix = "set name: " + offer + ", the folder's name"
		case offer != "":
			fix = lead + ": name: " + offer + ", and rename the folder to match"
		}
		p.ReportNode(v, fix, "name %q %s; discovery indexes and install commands cannot carry it",
			name, strings.Join(problems, ", "))
	}
}

// offeredName is the name a fix offers a skill whose name no index can
// carry: the folder's, when it is a valid name no other skill of the run
// has (own; the specification wants the two equal); else suggest (the
// written name, spelled as a name), made the skill's own by its parent
// folder's name where another skill has it (j4flmao/agent-skills' second
// "Chaos Engineering" was offered the first's chaos-engineering, and its
// own folder's name, which it had); "" when none of those is free.
func (p *Pass) offeredName(suggest string) (name string, own bool) {
	folder := p.Skill.Name()
	if validName(folder) && !p.nameTaken(folder) {
		return folder, true
	}
	if validName(suggest) && !p.nameTaken(suggest) && suggest != folder {
		return suggest, false
	}
	abs, _ := filepath.Abs(p.Skill.Dir)
	if parent := filepath.Base(filepath.Dir(abs)) + "-" + suggest; validName(parent) && !p.nameTaken(parent) {
		return parent, false
	}
	return "", false
}

func checkNameASCII(p *Pass) {
	v, name, ok := stringValue(p, "name")
	i := strings.IndexFunc(name, nonASCII)
	if !ok || i < 0 {
		return
	}
	r, _ := utf8.DecodeRuneInString(name[i:])
	fix := "spell the name in ASCII, in a name no other skill has"
	switch offer, own := p.offeredName(skill.SuggestName(asciiFold(name))); {
	case own:
		fix = "set name: " + offer + ", the folder's name" // as name-format says
	case offer != "":
		fix = "spell the name in ASCII, e.g. " + strconv.Quote(offer)
	}
	p.ReportNode(v, fix,
		"name %q contains the non-ASCII character %q; discovery indexes, URLs and most clients accept only a-z, 0-9 and -", name, r)
}

// nonASCII reports whether r is not ASCII (a byte that is not UTF-8 is
// utf8.RuneError, which is not).
func nonASCII(r rune) bool { return r >= utf8.RuneSelf }

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
	// The top of a git work tree (a .git folder, or the .git file of a
	// worktree or submodule) is named by whoever cloned it (git clone URL
	// DIR, actions/checkout's path), so comparing the skill's name with it
	// says nothing about the skill. The folder lint was given, or runs in,
	// is no test: a pre-commit hook gives skills/pdf for a skill whose
	// folder name is the author's own choice.
	if skill.IsRepoRoot(p.Skill.Dir) {
		return
	}
	// A trailing "~" is Unity's mark of a folder it must not import as
	// assets (SkillsForUnity/unity-skills~, which its installer copies as
	// unity-skills): renaming it would have Unity import the skill.
	if folder := p.Skill.Name(); name != folder && name+"~" != folder {
		// The folder's name is offered only where it is a valid name
		// that no other skill of the run has, and so never by a skill
		// checked alone (the build's, whose verdict is kept apart from
		// the others': 82beye's backup/card-v2 was told card-v2).
		fix := fmt.Sprintf("rename the folder to %q", name)
		if m := manifestNaming(p.Skill); m != "" {
			fix += " and its path in the plugin's " + m // else the manifest names nothing (canva-skills)
		}
		if namePattern.MatchString(folder) && p.names.declared != nil && !p.nameTaken(folder) {
			fix += " or set name: " + yamlScalar(folder)
		}
		if folder == plugin.SkillsDir {
			// A plugin's skills/ holding SKILL.md itself (0gfoundation's
			// plugins): renaming it or naming the skill "skills" breaks
			// the plugin; clients load skills/<name>/SKILL.md.
			fix = fmt.Sprintf("move the skill's files into a folder of its own, skills/%s/", name)
		}
		if p.names.declared != nil && len(p.names.declared) <= 1 && !skill.InWorkTree(p.Skill.Dir) {
			// A copy of a repository that is this skill (a download,
			// a tree copied without .git) cannot be told from a skill's
			// own folder: say what a clone would have been spared. Only
			// in a lint run of this one skill: in a collection's folders
			// it is noise on every finding, and the build checks each
			// skill alone (names nil) whatever the collection.
			fix += " (this folder is in no git checkout: a skill at the top of one, which whoever cloned it named, is not checked)"
		}
		p.ReportNode(v, fix, "name %q does not match the folder name %q", name, folder)
	}
}

// manifestNaming is the manifest of s's plugin, relative to the plugin,
// that names s's folder by its path ("skills": ["./skills/brand-check"]),
// or "" for none.
func manifestNaming(s *skill.Skill) string {
	rel, err := filepath.Rel(s.Plugin, s.Dir)
	if s.Declared == "" || s.Plugin == "" || err != nil {
		return ""
	}
	rel = filepath.ToSlash(rel)
	data, err := smallfile.Read(s.Declared)
	if err != nil || !bytes.Contains(data, []byte(rel+`"`)) && !bytes.Contains(data, []byte(rel+`/"`)) {
		return ""
	}
	if m, err := filepath.Rel(s.Plugin, s.Declared); err == nil && filepath.IsLocal(m) {
		return filepath.ToSlash(m)
	}
	return ""
}

func checkDescriptionLength(p *Pass) {
	v, desc, ok := stringField(p, "description", "write the description as text; quote it if it looks like a number or date")
	if !ok {
		return
	}
	switch n := layout.DescriptionLength(desc); {
	case strings.TrimSpace(desc) == "":
		p.ReportNode(v, "say what the skill does and when to use it", "description is blank")
	case n > layout.MaxDescription && n != utf8.RuneCountInString(desc):
		p.ReportNode(v, "shorten it and move detail into the body",
			"description is %d UTF-16 code units long (%d characters, of which emoji beyond the BMP count 2), where the Vercel skills CLI drops an index entry over %d",
			n, utf8.RuneCountInString(desc), layout.MaxDescription)
	case n > layout.MaxDescription:
		p.ReportNode(v, "shorten it and move detail into the body", "description is %d characters long (at most %d)", n, layout.MaxDescription)
	}
}

// offMCP says what a finding whose cause MCP hosts refuse (skill.CheckMCP)
// means for the bundle.
const offMCP = "MCP hosts refuse the skill for it, so the build leaves it out of the MCP documents"

func checkCompatibility(p *Pass) {
	v, s, ok := stringValue(p, "compatibility")
	switch n := utf8.RuneCountInString(s); {
	case v == nil:
	case !ok && skill.MCPString(v): // a date: MCP hosts read its text
		p.ReportNode(v, "quote it, as one sentence of text", "compatibility must be a string, not %s", skill.Describe(v))
	case !ok:
		p.ReportNode(v, "write it as one sentence of text", "compatibility must be a string, not %s; %s", skill.Describe(v), offMCP)
	case s == "":
		p.ReportNode(v, "remove the key or say what the skill needs", "compatibility is empty; %s", offMCP)
	case strings.TrimSpace(s) == "":
		p.ReportNode(v, "remove the key or say what the skill needs", "compatibility is blank")
	case n > skill.MCPMaxCompatibility:
		p.ReportNode(v, "shorten it", "compatibility is %d characters long (at most %d); %s", n, skill.MCPMaxCompatibility, offMCP)
	}
}

// metadataMap returns the metadata mapping, or nil when there is none or it
// is something else (metadata-format reports that).
func metadataMap(p *Pass) *yaml.Node {
	if v := value(p, "metadata"); v != nil && v.Kind == yaml.MappingNode {
		return v
	}
	return nil
}

func checkMetadata(p *Pass) {
	v := value(p, "metadata")
	switch {
	case v == nil || v.Kind == yaml.MappingNode:
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		p.ReportNode(v, "give it key: value lines, indented below it, or remove the empty metadata: line (skillpack lint --fix does)",
			"metadata has no value: YAML readers see null, not a mapping, and the official MCP SDK refuses a whole skills/list holding the skill")
	default:
		p.ReportNode(v, "make it a mapping of keys to quoted strings",
			"metadata must be a mapping, not %s; Codex refuses to load the skill", skill.Describe(v))
	}
}

func checkMetadataNested(p *Pass) {
	// Keys that are not strings are yaml-complex-key's, aliases yaml-anchor's
	// and scalars of other types metadata-scalar's: one finding a cause.
	for k, val := range skill.Pairs(metadataMap(p)) {
		if val.Kind == yaml.MappingNode || val.Kind == yaml.SequenceNode {
			p.ReportNode(val, "flatten it into one string, or into several keys, unless a client needs it nested",
				"metadata.%s is %s, where the specification has a string; %s",
				k.Value, skill.Describe(val), offMCP)
		}
	}
}

func checkMetadataScalars(p *Pass) {
	t := frontTree(p)
	for k, v := range skill.Pairs(metadataMap(p)) {
		// A tagged value is yaml-tag's, .inf and .nan yaml-special-float's.
		// internal: true is meant as a boolean: the Vercel skills CLI hides
		// the skill only then, so quoting it would show the skill.
		if !t.plain(v) || v.ShortTag() == "!!str" || specialFloat(v) || skill.Internal(k, v) {
			continue
		}
		if v.ShortTag() == "!!null" {
			p.ReportNode(v, fmt.Sprintf("write %s: \"\" or remove the key", quoteKey(k.Value)),
				"metadata.%s has no value: YAML readers see null, not a string; %s", k.Value, offMCP)
			continue
		}
		also := "" // a date is text to MCP hosts
		if !skill.MCPString(v) {
			also = "; " + offMCP
		}
		p.ReportNode(v, fmt.Sprintf("quote it: %s: %s", quoteKey(k.Value), strconv.Quote(v.Value)),
			"metadata.%s is unquoted %s: %s; metadata values are strings, so quote it%s", k.Value, v.Value, scalarReading(v), also)
	}
}

// checkVersion checks metadata.version, and the top-level version where
// the profile knows the key (elsewhere unknown-key reports it).
func checkVersion(p *Pass) {
	for k, v := range skill.Pairs(metadataMap(p)) {
		if k.Value == "version" {
			checkVersionNode(p, "metadata.version", v)
		}
	}
	if v := value(p, "version"); v != nil && knownKey(p, "version") {
		checkVersionNode(p, "version", v)
	}
}

func checkVersionNode(p *Pass, key string, v *yaml.Node) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || semver.Valid(v.Value) {
		return // a list or mapping is metadata-nested's, no value metadata-scalar's
	}
	fix := "write MAJOR.MINOR.PATCH, such as \"1.0.0\""
	if s := semver.Suggest(v.Value); s != "" {
		fix = fmt.Sprintf("write %q", s)
	}
	p.ReportNode(v, fix, "%s %q is not a semantic version (SemVer 2.0.0)", key, v.Value)
}

// scalarReading says what YAML readers make of an unquoted scalar that is
// not a string, for metadata-scalar's message.
func scalarReading(v *yaml.Node) string {
	if how := ambiguous(v.Value, v.ShortTag()); how != "" {
		if v.ShortTag() == "!!timestamp" {
			// Name the readers: authors know them, and the YAML version less.
			how = strings.Replace(how, "YAML 1.1 readers", "YAML 1.1 readers (js-yaml, PyYAML)", 1)
		}
		return how
	}
	switch v.ShortTag() {
	case "!!bool":
		return "YAML readers see the boolean " + strings.ToLower(v.Value) + ", not text"
	case "!!int", "!!float":
		return "YAML readers see a number, not text"
	}
	return "YAML readers see " + skill.Describe(v) + ", not text"
}

// installedKeys are the metadata keys gh skill install writes to record
// where it copied a skill from (cli/cli's skill install, 2026).
var installedKeys = []string{"github-repo", "github-ref", "github-path", "github-tree-sha", "github-pinned"}

func checkInstalledMetadata(p *Pass) {
	var first *yaml.Node
	var keys []string
	repo := ""
	for k, v := range skill.Pairs(metadataMap(p)) {
		if !slices.Contains(installedKeys, k.Value) {
			continue
		}
		if first == nil {
			first = k
		}
		keys = append(keys, k.Value)
		if k.Value == "github-repo" && v.Kind == yaml.ScalarNode {
			repo = v.Value
		}
	}
	if first == nil {
		return
	}
	from := ""
	if repo != "" {
		from = " from " + repo
	}
	what := "metadata keys " + strings.Join(keys, ", ") + " were"
	if len(keys) == 1 {
		what = "metadata key " + keys[0] + " was"
	}
	p.ReportNode(first, "remove them (skillpack lint --fix strips them), or publish from the source repository",
		"%s written by gh skill install: this skill is a copy installed%s, "+
			"and republished as-is it claims a source it no longer matches", what, from)
}

func checkAllowedToolsType(p *Pass) {
	v := value(p, "allowed-tools")
	if v == nil || v.Kind == yaml.SequenceNode || v.ShortTag() == "!!str" {
		return
	}
	p.ReportNode(v, "write the tools as one space-separated string, e.g. allowed-tools: Read Bash",
		"allowed-tools must be a space-separated string, not %s", skill.Describe(v))
}

func checkAllowedToolsList(p *Pass) {
	v := value(p, "allowed-tools")
	if v == nil || v.Kind != yaml.SequenceNode {
		return
	}
	var tools []string
	for _, t := range v.Content {
		if strings.ContainsAny(t.Value, " \t\n") {
			// Joined, it would be two tools: the list is the only
			// faithful form, and the author has nothing to change.
			return
		}
		tools = append(tools, t.Value)
	}
	fix := ""
	if _, _, comment := toolsList(p.Doc.Raw, p.Doc); comment != "" {
		fix = fmt.Sprintf("move the comment %q above allowed-tools:, then write allowed-tools: %s "+
			"(skillpack lint --fix leaves a list holding a comment, which the one-line string cannot keep)", comment, strings.Join(tools, " "))
	}
	p.ReportNode(v, cmp.Or(fix, "allowed-tools: "+strings.Join(tools, " ")),
		"allowed-tools is a YAML list; the specification defines a space-separated string")
}

func checkUnknownKeys(p *Pass) {
	if p.Doc == nil || p.Doc.Front == nil {
		return
	}
	known := append(append([]string(nil), SpecKeys...), p.Profile.Keys...)
	// A typo is reported at its key, with the key it was meant to be; so
	// is a key under a suppression comment, which silences it there. The
	// other keys of the skill are one finding, at the first of them: a
	// collection whose skills each carry author, tags and version gets one
	// line a skill, not three.
	comments := parseInline(p.Doc.Raw)
	var rest []*yaml.Node
	nested := false // a value metadata cannot hold as it is: a list or a map
	for k, v := range skill.Pairs(p.Doc.Front) {
		if k.Kind != yaml.ScalarNode || knownKey(p, k.Value) {
			continue
		}
		line, _ := p.Doc.FilePos(k)
		if s := human.Closest(k.Value, known); s != "" {
			fix := fmt.Sprintf("did you mean %q?", s)
			// Beside the key it was meant to be, renaming it would give a
			// key twice, which no YAML reader takes (Name: above name:).
			if _, w := p.Doc.Lookup(s); w != nil && w.Kind == yaml.ScalarNode && v.Kind == yaml.ScalarNode && w.Value == v.Value {
				fix = fmt.Sprintf("remove it: %s already says %q", s, v.Value)
			} else if w != nil {
				fix = fmt.Sprintf("remove it, or move what it says into %s: (a key given twice is no YAML)", s)
			}
			p.ReportNode(k, fix, "unknown frontmatter key %q (profile %s)", k.Value, p.Profile.Name)
		} else if suppressed(comments, Finding{Rule: "unknown-key", Line: line}) {
			p.ReportNode(k, "", "unknown frontmatter key %q (profile %s)", k.Value, p.Profile.Name)
		} else {
			rest = append(rest, k)
			nested = nested || v.Kind != yaml.ScalarNode
		}
	}
	if len(rest) == 0 {
		return
	}
	var names, lines, read []string
	var clientKeys []string // the keys of rest some client reads
	for _, k := range rest {
		line, _ := p.Doc.FilePos(k)
		names = append(names, strconv.Quote(k.Value))
		lines = append(lines, strconv.Itoa(line))
		if r := readers(k.Value); len(r) > 0 {
			clientKeys = append(clientKeys, k.Value)
			read = append(read, k.Value+" ("+clientList(r)+")")
		}
	}
	fix := "move it under metadata, or choose a profile that knows it"
	if len(rest) > 1 {
		fix = "move them under metadata, or choose a profile that knows them"
	}
	if nested {
		// Moved as it is, a list is metadata-nested, which keeps the
		// skill out of the MCP documents (0999312/GodotPrompter).
		fix = strings.Replace(fix, "under metadata", "under metadata, a list or map written as one string (\"a, b\"), since metadata holds strings", 1)
	}
	// A key a client reads is named with its clients, and with the
	// profile that knows it (clients, unless this is it).
	knower := ""
	for _, q := range profiles {
		if q != p.Profile && len(clientKeys) > 0 && !slices.ContainsFunc(clientKeys, func(k string) bool { return !q.KnownKey(k) }) {
			knower = q.Name
			break
		}
	}
	switch {
	case knower == "":
	case len(clientKeys) == len(rest) && len(rest) == 1:
		fix = fmt.Sprintf("it is read by %s: set profile: %s in skillpack.yaml, which knows it", clientList(readers(rest[0].Value)), knower)
	case len(clientKeys) == len(rest):
		fix = fmt.Sprintf("clients read them, %s: set profile: %s in skillpack.yaml, which knows them", strings.Join(read, ", "), knower)
	default:
		fix += fmt.Sprintf("; profile %s knows %s", knower, strings.Join(read, ", "))
	}
	if len(rest) == 1 {
		p.ReportNode(rest[0], fix, "unknown frontmatter key %s (profile %s)", names[0], p.Profile.Name)
		return
	}
	p.ReportNode(rest[0], fix, "unknown frontmatter keys %s (lines %s; profile %s)",
		strings.Join(names, ", "), strings.Join(lines, ", "), p.Profile.Name)
}

// knownKey reports whether a top-level frontmatter key is one the skill
// may use: the profile knows it, or it is Claude Code's and the skill
// belongs to a Claude Code plugin, which is written for Claude Code
// whatever profile the tree is linted with.
func knownKey(p *Pass, key string) bool {
	if p.Profile == nil {
		return true // no profile, no unknown keys
	}
	return p.Profile.KnownKey(key) || (slices.Contains(claudeKeys, key) && inClaudePlugin(p.Skill))
}

// inClaudePlugin reports whether the skill belongs to a Claude Code plugin
// (its plugin folder has .claude-plugin/plugin.json).
func inClaudePlugin(s *skill.Skill) bool {
	if s.Plugin == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(s.Plugin, ".claude-plugin", "plugin.json"))
	return err == nil
}

func checkDescriptionShort(p *Pass) {
	v, desc, ok := stringValue(p, "description")
	if !ok || strings.TrimSpace(desc) == "" {
		return
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(desc)); n < 20 {
		p.ReportNode(v, "say what the skill does and when an agent should use it",
			"description is only %s; agents choose skills by it", human.Plural(n, "character"))
	}
	// Text saved through a code page that could not hold it (Chinese
	// through Windows-1252: bytemind's "??????Go???") says nothing either.
	lost, all := 0, 0
	for _, r := range desc {
		if !unicode.IsSpace(r) {
			all++
		}
		if r == '?' || r == utf8.RuneError {
			lost++
		}
	}
	if lost >= 5 && 2*lost >= all {
		p.ReportNode(v, "write the description again and save the file as UTF-8",
			"description is %d of %d characters \"?\" or U+FFFD: its text was lost, saved in an encoding that could not hold it; agents choose skills by it", lost, all)
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
	if !ok || !strings.ContainsAny(desc, "<>") {
		return
	}
	fix := "spell placeholders out instead of using < and >"
	if !tagLike.MatchString(desc) { // "p < 0.01", ">80%", "A -> B"
		fix = "write comparisons and arrows in words (\"below 0.01\", \"over 80%\", \"A to B\")"
	}
	p.ReportNode(v, fix, "description contains < or >, which Anthropic's upload rejects")
}

// tagLike matches what reads as a tag or placeholder: <input>, </b>.
var tagLike = regexp.MustCompile(`</?[A-Za-z][^<>]*>`)
