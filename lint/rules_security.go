package lint

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

var securityRules = []*Rule{
	{
		ID:       "secret",
		Title:    "private key or access token in a published file",
		Severity: Error,
		Explain: "Every file of a skill is published to anyone who can fetch the bundle, and so is every file " +
			"of a plugin's archives (a stray .env beside its manifest too); a published " +
			"secret cannot be recalled: mirrors, caches and installed copies keep it. Lint looks in " +
			"every published file, binary ones included, for private key blocks, AWS access key IDs " +
			"(AKIA... and ASIA..., then 16 characters of base32: A-Z and 2-7), GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), " +
			"Anthropic and OpenAI API keys (sk-ant-, sk-proj-, ...), Slack tokens (xoxb-, xoxp-, " +
			"xoxa-, xoxr-), Stripe live keys (sk_live_, rk_live_), Google API keys (AIza), Hugging Face " +
			"tokens (hf_), GitLab personal access tokens (glpat-) and npm access tokens (npm_). Obvious placeholders (AKIAIOSFODNN7EXAMPLE, anything with EXAMPLE, YOUR, " +
			"REPLACE or XXXX, a part opening with xxx, runs of characters in order such as abc123def456, A1B2C3D4 or " +
			"xyzxyz, a key body cut off with ... or …) are skipped. The message shows only the first four " +
			"characters. Revoke the secret at its issuer, remove it, and have scripts read credentials from " +
			"the environment. A made-up example the filter misses is silenced with the reason: an `" +
			Directive + " secret -- made-up example` comment on the line before it in Markdown, an `allow` " +
			"entry in skillpack.yaml elsewhere.",
		Bad:      "scripts/upload.py:\n  s3 = boto3.client(\"s3\", aws_access_key_id=\"AKIA...\")",
		Good:     "scripts/upload.py:\n  s3 = boto3.client(\"s3\")   # credentials from AWS_ACCESS_KEY_ID",
		Check:    checkSecret,
		CheckRun: checkPluginSecrets,
	},
	{
		ID:       "invisible-unicode",
		Title:    "invisible Unicode that can hide or reorder text",
		Severity: Error,
		Explain: "Unicode tag characters (U+E0000–U+E007F) spell ASCII text that renders as nothing but " +
			"that models read; bidirectional embeddings, overrides and isolates (U+202A–U+202E, " +
			"U+2066–U+2069) reorder what is displayed; a zero-width character inside a word (U+200B–" +
			"U+200F, U+2060, or U+FEFF after the start of a file, between two letters or digits) " +
			"splits it so that it reads the same but matches no search or filter. Between characters of " +
			"scripts written without spaces (Chinese, Japanese, Thai...) a zero-width space or word joiner " +
			"marks where a line may break, as a space would, and is allowed; beside one, it splits no word " +
			"(invisible-char's), and neither does a zero-width space between the parts of a camelCase name " +
			"(abandonmentEmail), where documentation sites let long names wrap. All of them let a " +
			"skill carry instructions a reviewer does not see. Lint looks in SKILL.md, frontmatter and " +
			"body, and in every other published text file, and reports a run of tag characters once " +
			"with the text it hides. Joiners inside emoji sequences, flag tag sequences and joiners " +
			"between letters of scripts that need them (Arabic, Persian, Indic) are allowed; " +
			"zero-width characters outside words are invisible-char's. A double-quoted frontmatter value " +
			"that writes them as escapes (\"\\U000E0049\", \"\\u202e\") is reported too: every reader decodes " +
			"them, and the index publishes the characters. Columns count characters from 1. Delete the characters.",
		Bad: "description: Fills PDF forms.<U+E0049 U+E0067 U+E006E ...>\n" +
			"  (invisible tag characters spelling \"Ignore previous instructions\")",
		Good:       "description: Fills PDF forms.",
		Supersedes: []string{"invisible-char"},
		Check: func(p *Pass) {
			reportInvisible(p, true)
			reportEscapedInvisible(p)
		},
	},
	{
		ID:       "invisible-char",
		Title:    "invisible character outside any word",
		Category: CatContent,
		Severity: Warning,
		Explain: "A zero-width space, joiner or word joiner (U+200B–U+200D, U+2060), a direction mark " +
			"(U+200E, U+200F) or a byte order mark after the start of a file (U+FEFF) that stands " +
			"outside any word hides no text: it sits before a code fence line (the usual trick to " +
			"show ``` inside a code block), alone on a blank line (left by a paste), or next to a " +
			"space. It is still invisible, and whoever copies the text copies it too. The message " +
			"names the character and where it is. To show a fence inside a code block, open the outer " +
			"block with a longer fence (````); otherwise delete the character. One that Markdown needs " +
			"is not reported: a zero-width space that lets ** open or close beside CJK punctuation, or " +
			"keeps a line from being a heading, changes what renders when deleted, and --fix keeps it. " +
			"In a code file, a Markdown code block or code span, or alone in a table cell the character " +
			"may be the value (a pattern that strips it, a diff that removes a byte order mark, a table " +
			"of symbols): --fix leaves it, and the fix offers an escape. Invisible characters that can hide or reorder text are invisible-unicode's, an error.",
		Bad:   "````md\n<U+200B>```sh\n````   (the zero-width space keeps ``` from closing the block)",
		Good:  "````md\n```sh\n```\n````   (a longer outer fence holds the inner one)",
		Check: func(p *Pass) { reportInvisible(p, false) },
	},
}

// maxPerFile bounds the findings of one rule in one file: a generated file
// full of matches needs one look, not a thousand lines of output.
const maxPerFile = 20

// scanFiles calls fn with the bytes of every published file. When the
// folder could not be collected, SKILL.md is still scanned.
func scanFiles(p *Pass, fn func(rel string, data []byte)) {
	if p.Files == nil {
		if p.Doc != nil {
			fn(p.Skill.File, p.Doc.Raw)
		}
		return
	}
	for _, f := range p.Files.Files {
		if c := p.Content(f); c.Err == nil {
			fn(f.Path, c.Data)
		}
	}
}

// secretPattern is one kind of credential. Matching starts where its
// anchor is found, which is far faster than running a regexp over every
// byte of every file. The anchor is looked for through its key, a literal
// that every match holds at a fixed offset and that text holds much less
// often than the anchor's first letter (an "s" or "g" in every other
// word): scanning for the few keys and checking the anchor around each
// one reads each file three times, not once per pattern.
type secretPattern struct {
	anchor string
	key    string // at offset at of every match: in the anchor, or (Slack) where the regexp requires a "-"
	at     int
	re     *regexp.Regexp // anchored at the start of the anchor
	what   string
}

var secretPatterns = []secretPattern{
	{"-----BEGIN ", "-", 0, regexp.MustCompile(`^-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`), "a private key"},
	{"AKIA", "IA", 2, regexp.MustCompile(`^AKIA[A-Z2-7]{16}`), "an AWS access key ID"},
	{"ASIA", "IA", 2, regexp.MustCompile(`^ASIA[A-Z2-7]{16}`), "an AWS temporary access key ID"},
	{"ghp_", "_", 3, regexp.MustCompile(`^ghp_[A-Za-z0-9]{36}`), "a GitHub personal access token"},
	{"gho_", "_", 3, regexp.MustCompile(`^gho_[A-Za-z0-9]{36}`), "a GitHub OAuth token"},
	{"ghu_", "_", 3, regexp.MustCompile(`^ghu_[A-Za-z0-9]{36}`), "a GitHub user access token"},
	{"ghs_", "_", 3, regexp.MustCompile(`^ghs_[A-Za-z0-9]{36}`), "a GitHub app installation token"},
	{"ghr_", "_", 3, regexp.MustCompile(`^ghr_[A-Za-z0-9]{36}`), "a GitHub refresh token"},
	{"github_pat_", "_", 6, regexp.MustCompile(`^github_pat_[A-Za-z0-9_]{22,}`), "a GitHub fine-grained access token"},
	// A kind and its version before the random part (api03, admin01,
	// oat01): a test's "sk-ant-conformance-anthropic" names none.
	{"sk-ant-", "-", 2, regexp.MustCompile(`^sk-ant-[a-z]+[0-9]{2}-[A-Za-z0-9_-]{32,}`), "an Anthropic API key"},
	{"sk-", "-", 2, regexp.MustCompile(`^sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})`), "an OpenAI API key"},
	{"xox", "-", 4, regexp.MustCompile(`^xox[abpr]-[0-9]+-[A-Za-z0-9-]{10,}`), "a Slack token"},
	{"sk_live_", "_live_", 2, regexp.MustCompile(`^sk_live_[0-9A-Za-z]{24,}`), "a Stripe live secret key"},
	{"rk_live_", "_live_", 2, regexp.MustCompile(`^rk_live_[0-9A-Za-z]{24,}`), "a Stripe live restricted key"},
	{"AIza", "AIza", 0, regexp.MustCompile(`^AIza[0-9A-Za-z_-]{35}`), "a Google API key"},
	{"hf_", "hf_", 0, regexp.MustCompile(`^hf_[A-Za-z0-9]{34}`), "a Hugging Face token"},
	{"glpat-", "glpat-", 0, regexp.MustCompile(`^glpat-[0-9A-Za-z_-]{20}`), "a GitLab personal access token"},
	{"npm_", "npm_", 0, regexp.MustCompile(`^npm_[A-Za-z0-9]{36}`), "an npm access token"},
}

// secretKeys are the patterns' distinct keys, each with its patterns.
var secretKeys = func() []secretKey {
	var keys []secretKey
	for i := range secretPatterns {
		sp := &secretPatterns[i]
		j := slices.IndexFunc(keys, func(k secretKey) bool { return k.key == sp.key })
		if j < 0 {
			j = len(keys)
			keys = append(keys, secretKey{key: sp.key})
		}
		keys[j].patterns = append(keys[j].patterns, sp)
	}
	return keys
}()

type secretKey struct {
	key      string
	patterns []*secretPattern
}

// secretHit is a credential found at a byte offset.
type secretHit struct {
	off  int
	what string
	text string // the matched text; never printed whole
}

// findSecrets returns the credentials in data, in file order.
func findSecrets(data []byte) []secretHit {
	var hits []secretHit
	for _, k := range secretKeys {
		for from := 0; ; {
			j := bytes.Index(data[from:], []byte(k.key))
			if j < 0 {
				break
			}
			j += from
			from = j + len(k.key)
			for _, sp := range k.patterns {
				if i := j - sp.at; i >= 0 && data[i] == sp.anchor[0] && bytes.HasPrefix(data[i:], []byte(sp.anchor)) {
					if h, ok := sp.match(data, i); ok {
						hits = append(hits, h)
					}
				}
			}
		}
	}
	slices.SortFunc(hits, func(a, b secretHit) int { return cmp.Compare(a.off, b.off) })
	// "sk-ant-..." is also tried as an OpenAI key; keep one hit per place.
	return slices.CompactFunc(hits, func(a, b secretHit) bool { return a.off == b.off })
}

// match tells whether the pattern's anchor at data[i:] starts a credential.
func (sp *secretPattern) match(data []byte, i int) (secretHit, bool) {
	// A token inside a longer word ("task-", "xAKIA...") is not one.
	if i > 0 && wordByte(data[i-1]) {
		return secretHit{}, false
	}
	m := sp.re.Find(data[i:min(len(data), i+512)])
	if m == nil || i+len(m) < len(data) && wordByte(data[i+len(m)]) {
		return secretHit{}, false
	}
	if sp.anchor == "-----BEGIN " {
		if !keyBody(data[i+len(m):]) {
			return secretHit{}, false
		}
	} else if placeholder(string(m[len(sp.anchor):])) {
		return secretHit{}, false
	}
	return secretHit{off: i, what: sp.what, text: string(m)}, true
}

func wordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// placeholders are words that real, random tokens practically never
// contain (a 36-character token holds "XXXX" with odds of about 1 in 30,000).
var placeholders = []string{"EXAMPLE", "XXXX", "SAMPLE", "DUMMY", "FAKE", "PLACEHOLDER", "REDACTED", "YOUR", "REPLACE", "CHANGEME", "NOTREAL", "DONOTUSE"}

// placeholder reports whether a matched token is made up for documentation:
// a placeholder word, "xxx" opening one of its parts ("sk-ant-api03-xxx…",
// where "xxx" inside a random part is too likely to count), a character
// repeated eight times ("ghp_0000..."), eight in alphabetical order
// ("ghp_abcdefgh..."), half of it in runs of three or more in order
// ("sk-proj-abc123def456ghi789...", "xyzxyzxyz": in a random token a
// character follows its predecessor in order once in 62), or too few
// distinct characters for a random string.
func placeholder(tok string) bool {
	up := strings.ToUpper(tok)
	if slices.ContainsFunc(placeholders, func(w string) bool { return strings.Contains(up, w) }) ||
		slices.ContainsFunc(strings.FieldsFunc(up, func(r rune) bool { return r == '-' || r == '_' }),
			func(part string) bool { return strings.HasPrefix(part, "XXX") }) {
		return true
	}
	var seen [256]bool
	distinct, run, ascent, ordered, twined := 0, 0, 0, 0, 0
	for i := 0; i < len(tok); i++ {
		if i > 1 && tok[i] == tok[i-2]+1 {
			twined++
			if twined >= 12 { // two runs in order, twined: "A1B2C3D4E5F6G7" (trailofbits' made-up Google key)
				return true
			}
		} else {
			twined = 0
		}
		if !seen[tok[i]] {
			seen[tok[i]] = true
			distinct++
		}
		if i > 0 && tok[i] == tok[i-1] {
			run++
			if run >= 7 {
				return true
			}
		} else {
			run = 0
		}
		if i > 0 && tok[i] == tok[i-1]+1 {
			ascent++
			if ascent >= 7 { // "abcdefgh", "12345678": typed, not drawn
				return true
			}
			if ascent == 2 {
				ordered += 3
			} else if ascent > 2 {
				ordered++
			}
		} else {
			ascent = 0
		}
	}
	return distinct < 6 || 2*ordered >= len(tok)
}

// keyBody reports whether a private key header is followed by key material:
// a run of 40 or more base64 characters of bytes (a digit, + or / among
// them) before the END line, on a line of its own or inside a string
// ("-----BEGIN PRIVATE KEY-----\nMIIEv..." in a JSON credentials file).
// The body follows the header: only blanks, quotes, a string's escapes and
// concatenation, an encrypted key's Proc-Type and DEK-Info lines and other
// body lines come between; other text ends the search (a test's string
// holding the header alone, then a 55-letter Go function name). A run cut
// off with "..." or "…" is no key: every RSA key's body starts with the
// same few dozen characters ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC..."),
// which documentation shows.
func keyBody(rest []byte) bool {
	rest = rest[:min(len(rest), 1024)]
	rest, _, _ = bytes.Cut(rest, []byte("-----END"))
	for len(rest) > 0 {
		if bytes.HasPrefix(rest, []byte("Proc-Type:")) || bytes.HasPrefix(rest, []byte("DEK-Info:")) {
			end := bytes.IndexAny(rest, "\\\n") // the line's end, or its escape
			if end < 0 {
				return false
			}
			rest = rest[end+1:]
			continue
		}
		n := 0
		for n < len(rest) && base64Byte(rest[n]) {
			n++
		}
		run := rest[:n]
		switch {
		case n >= 40 && bytes.ContainsAny(run, "0123456789+/") && !placeholder(string(run)) && !cutOff(rest[n:]):
			return true
		case n > 0:
			rest = rest[n:]
		case bytes.HasPrefix(rest, []byte("…")):
			rest = rest[len("…"):]
		case bytes.IndexByte([]byte(" \t\r\n\"'`+,.\\|>#*;"), rest[0]) >= 0:
			rest = rest[1:]
		default:
			return false
		}
	}
	return false
}

// cutOff reports whether text starts with an ellipsis, "..." or "…".
func cutOff(text []byte) bool {
	return bytes.HasPrefix(text, []byte("...")) || bytes.HasPrefix(text, []byte("…"))
}

func base64Byte(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '='
}

// redact shows as much of a secret as a message may: its first four characters.
func redact(s string) string {
	return s[:min(len(s), 4)] + "…"
}

func checkSecret(p *Pass) {
	scanFiles(p, func(rel string, data []byte) {
		reportSecrets(rel, data, "skill", p.Report)
	})
}

// checkPluginSecrets looks in the files of each plugin outside its
// skills' folders (manifests, hooks, commands, scripts, a stray .env): the
// plugin's archives publish them all. The skills' own files are checked
// with each skill.
func checkPluginSecrets(p *RunPass) {
	p.eachPlugin(func(pl *plugin.Plugin, files *skill.Files, skills map[string]bool) {
		for _, f := range files.Files {
			if inSkill(f.Path, skills) {
				continue
			}
			if c := readContent(f); c.Err == nil {
				reportSecrets(p.Rel(filepath.Join(pl.Dir, filepath.FromSlash(f.Path))), c.Data, "plugin", p.Report)
			}
		}
	})
}

// eachPlugin calls do with each plugin whose files can be collected (else
// the build says why it cannot pack it), its files, and the folders of
// its skills and of the plugins inside it, whose files are checked with
// each (a finding once, not once a plugin holding it).
func (p *RunPass) eachPlugin(do func(pl *plugin.Plugin, files *skill.Files, own map[string]bool)) {
	// Made absolute once (a marketplace of 2,000 plugins asked for the
	// working folder 8 million times), and sorted: the folders below a
	// plugin's are the run of those starting with its path.
	abs := make([]string, len(p.Plugins))
	for i, pl := range p.Plugins {
		abs[i], _ = filepath.Abs(pl.Dir)
	}
	sorted := slices.Sorted(slices.Values(abs))
	for i, pl := range p.Plugins {
		files, err := p.pluginFiles(pl.Dir)
		if err != nil {
			continue
		}
		own := skillDirs(files)
		for _, d := range pl.Plain {
			delete(own, d) // checked as the plugin's files
		}
		if prefix := abs[i] + string(filepath.Separator); abs[i] != "" {
			j, _ := slices.BinarySearch(sorted, prefix)
			for ; j < len(sorted) && strings.HasPrefix(sorted[j], prefix); j++ {
				own[filepath.ToSlash(sorted[j][len(prefix):])] = true
			}
		}
		do(pl, files, own)
	}
}

// skillDirs are the folders of a plugin's files that hold a SKILL.md.
func skillDirs(files *skill.Files) map[string]bool {
	dirs := map[string]bool{}
	for _, f := range files.Files {
		if path.Base(f.Path) == skill.FileName {
			dirs[path.Dir(f.Path)] = true
		}
	}
	return dirs
}

// inSkill reports whether the file at rel lies in one of the folders.
func inSkill(rel string, dirs map[string]bool) bool {
	for d := path.Dir(rel); ; d = path.Dir(d) {
		if dirs[d] {
			return true
		}
		if d == "." || d == "/" {
			return false
		}
	}
}

// reportSecrets reports each credential in data, the file at rel of a
// skill or a plugin (what), up to maxPerFile.
func reportSecrets(rel string, data []byte, what string, report func(Finding)) {
	// A made-up example that no filter recognizes is silenced where it
	// stands, with the reason: a comment in a skill's Markdown (the only
	// files whose comments lint reads), else an allow entry.
	say := "in skillpack.yaml: allow: [{rule: secret, path: ..., reason: made-up example}]"
	if isMarkdown(rel) && what == "skill" {
		say = "on the line before it: <!-- " + Directive + " secret -- made-up example -->"
	}
	fix := "revoke it at its issuer now, remove it, and have scripts read credentials from the environment; " +
		"if it is a made-up example, say so " + say
	hits := findSecrets(data)
	lc := newLines(data)
	for i, h := range hits {
		line, col := lc.pos(h.off)
		if i == maxPerFile {
			report(Finding{Path: rel, Line: line, Column: col, Fix: fix, Message: fmt.Sprintf("%d more secrets from here on in %s", len(hits)-i, rel)})
			return
		}
		shown := fmt.Sprintf("%q", redact(h.text))
		if strings.HasPrefix(h.text, "-----") {
			shown = fmt.Sprintf("%q", h.text) // the header names the kind of key, not the key
		}
		report(Finding{Path: rel, Line: line, Column: col, Fix: fix,
			Message: fmt.Sprintf("%s (%s) is published here; anyone who fetches the %s has it", h.what, shown, what)})
	}
}

// invisibleNames are the code points reported outside the tag block.
var invisibleNames = map[rune]string{
	0x200B: "ZERO WIDTH SPACE",
	0x200C: "ZERO WIDTH NON-JOINER",
	0x200D: "ZERO WIDTH JOINER",
	0x200E: "LEFT-TO-RIGHT MARK",
	0x200F: "RIGHT-TO-LEFT MARK",
	0x202A: "LEFT-TO-RIGHT EMBEDDING",
	0x202B: "RIGHT-TO-LEFT EMBEDDING",
	0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE",
	0x202E: "RIGHT-TO-LEFT OVERRIDE",
	0x2060: "WORD JOINER",
	0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE",
	0x2068: "FIRST STRONG ISOLATE",
	0x2069: "POP DIRECTIONAL ISOLATE",
	0xFEFF: "ZERO WIDTH NO-BREAK SPACE",
}

// isOverride reports the bidirectional controls that reorder text:
// embeddings, overrides and isolates. The marks U+200E and U+200F only
// set the direction of neutral characters next to them.
func isOverride(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

func isTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// invisibleHit is a run of invisible characters, data[off:end].
type invisibleHit struct {
	off    int
	end    int
	first  rune // the run's first character
	hiding bool // it can hide or reorder text: invisible-unicode's; else invisible-char's
	msg    string
	fix    string
}

// findInvisible returns the runs of invisible characters in data, in order.
func findInvisible(data []byte) []invisibleHit {
	var hits []invisibleHit
	// Most files are ASCII from start to end, and asciiPrefix crosses
	// that fast. Past the first other byte the loop below is as tight as
	// it gets: any test added to it slows down text in other scripts more
	// than it speeds up the rest.
	for i := asciiPrefix(data); i < len(data); {
		// Every code point looked for is encoded with one of these lead
		// bytes (U+2xxx: E2, U+FEFF: EF, U+E00xx: F3): skip the rest fast.
		if b := data[i]; b != 0xE2 && b != 0xEF && b != 0xF3 {
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case isTag(r):
			j, hidden, count := i, []byte{}, 0
			var last rune
			for j < len(data) {
				r2, n2 := utf8.DecodeRune(data[j:])
				if !isTag(r2) {
					break
				}
				if r2 >= 0xE0020 && r2 <= 0xE007E {
					hidden = append(hidden, byte(r2-0xE0000))
				}
				last, count, j = r2, count+1, j+n2
			}
			if !flagTags(data[:i], hidden, count, last) {
				hits = append(hits, invisibleHit{off: i, end: j, hiding: true, msg: tagMessage(hidden, count), fix: deleteInvisible})
			}
			i = j
		case invisibleNames[r] != "" && !(r == 0xFEFF && i == 0) && !joinerAllowed(data, i, r, n):
			if j, ok := breakHint(data, i); ok {
				i = j
				continue
			}
			j, count, reorders := i+n, 1, isOverride(r)
			for j < len(data) {
				r2, n2 := utf8.DecodeRune(data[j:])
				if invisibleNames[r2] == "" || joinerAllowed(data, j, r2, n2) {
					break
				}
				count, j, reorders = count+1, j+n2, reorders || isOverride(r2)
			}
			if count == 1 && !reorders && aloneInQuotes(data, i, j) {
				i = j // "\u200d" in an entity table, `\u200e` in a page about marks: the value itself
				continue
			}
			h := classifyInvisible(data, i, j, r, count, reorders)
			h.first = r
			hits = append(hits, h)
			i = j
		default:
			i += n
		}
	}
	return hits
}

// aloneInQuotes reports whether data[i:j] is all a string or code span holds:
// a quote or backtick on either side, the same one.
func aloneInQuotes(data []byte, i, j int) bool {
	return i > 0 && j < len(data) && data[i-1] == data[j] && (data[j] == '"' || data[j] == '\'' || data[j] == '`')
}

const deleteEscapes = "delete the escapes that write them"

const deleteInvisible = "delete the invisible characters (most editors find them by searching for the code point)"

// classifyInvisible describes the run data[i:j] of count invisible
// characters starting with r. Only some of them can mislead a reviewer:
// bidirectional embeddings, overrides and isolates, which reorder the
// text shown, and any of them inside a word, which then reads the same
// but matches no search and no filter. Elsewhere, between a space and a
// word or on a line of their own, they change nothing anyone reads; most
// are an idiom (a zero-width space before a fence line, to show ``` inside
// a code block) or left over from a paste, and are reported as such.
func classifyInvisible(data []byte, i, j int, r rune, count int, reorders bool) invisibleHit {
	what := fmt.Sprintf("%U %s", r, invisibleNames[r])
	control, splits := "is an invisible bidirectional control that reorders", "splits"
	if count > 1 {
		what = fmt.Sprintf("%d invisible characters in a row, starting with %s,", count, what)
		control, splits = "are invisible bidirectional controls that reorder", "split"
	}
	if reorders {
		return invisibleHit{off: i, end: j, hiding: true, fix: deleteInvisible, msg: fmt.Sprintf("%s %s how the text around "+
			"it is displayed; it can hide instructions from reviewers", what, control)}
	}
	prev, _ := utf8.DecodeLastRune(data[:i])
	next, _ := utf8.DecodeRune(data[j:])
	if r == 0x200B && count == 1 && unicode.IsLower(prev) && unicode.IsUpper(next) {
		// Documentation sites put one where a long camelCase name may
		// wrap ("abandonment\u200bEmail\u200bState"): a break, not a
		// split of a word that a filter would look for.
		return invisibleHit{off: i, end: j, fix: "delete it", msg: fmt.Sprintf("%s between the parts of a camelCase name, "+
			"where documentation sites put it so that the name may wrap; it hides no text there, but whoever copies the "+
			"name copies it too, and the copy no longer matches", what)}
	}
	// Beside a character of a script written without spaces the run is
	// at a word's edge ("name\u200c命名"), splitting no word.
	if wordRune(prev) && wordRune(next) && !spaceless(prev) && !spaceless(next) {
		return invisibleHit{off: i, end: j, hiding: true, fix: deleteInvisible, msg: fmt.Sprintf("%s inside the word %q %s it "+
			"invisibly: reviewers read the word, but searches, filters and tokenizers do not; it can hide instructions",
			what, wordAround(data, i, j), splits)}
	}
	before, after := lineAround(data, i, j)
	before, after = bytes.TrimSpace(before), bytes.TrimSpace(after)
	h := invisibleHit{off: i, end: j, fix: "delete it"}
	switch {
	case len(before) == 0 && opensFence(after):
		h.msg = fmt.Sprintf("%s before a code fence line, the usual trick to show a fence inside a code block; "+
			"it hides no text, but whoever copies the block copies an invisible character too", what)
		h.fix = "open the outer code block with a longer fence (````) so that the inner ``` needs no disguise, and delete it"
	case len(before) == 0 && len(after) == 0:
		h.msg = fmt.Sprintf("%s alone on an otherwise blank line, most likely left by a paste; it hides no text", what)
	case len(before) == 0:
		h.msg = fmt.Sprintf("%s at the start of a line, before %q; it hides no text there, but it is invisible and "+
			"breaks searching for what follows", what, shown(after))
	case len(after) == 0:
		h.msg = fmt.Sprintf("%s at the end of a line, after %q; it hides no text there, but it is invisible", what, shownEnd(before))
	default:
		h.msg = fmt.Sprintf("%s between %q and %q, outside any word; it hides no text there, but it is invisible and "+
			"breaks searching for the text around it", what, string(prev), string(next))
	}
	return h
}

// wordRune reports whether r is part of a word: a letter, digit or mark.
func wordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
}

// wordAround returns the word holding the invisible run data[i:j], for
// messages, at most a few characters either side.
func wordAround(data []byte, i, j int) string {
	from := i
	for k := 0; k < 12 && from > 0; k++ {
		r, n := utf8.DecodeLastRune(data[:from])
		if !wordRune(r) {
			break
		}
		from -= n
	}
	to := j
	for k := 0; k < 12 && to < len(data); k++ {
		r, n := utf8.DecodeRune(data[to:])
		if !wordRune(r) {
			break
		}
		to += n
	}
	return string(data[from:to])
}

// shown and shownEnd cut text for a message to its first or last 20 characters.
func shown(b []byte) string {
	if s := []rune(string(b)); len(s) > 20 {
		return string(s[:20]) + "…"
	}
	return string(b)
}

func shownEnd(b []byte) string {
	if s := []rune(string(b)); len(s) > 20 {
		return "…" + string(s[len(s)-20:])
	}
	return string(b)
}

// asciiPrefix returns the length of data's leading run of ASCII bytes,
// which it reads eight at a time.
func asciiPrefix(data []byte) int {
	i := 0
	for ; i+8 <= len(data); i += 8 {
		if binary.LittleEndian.Uint64(data[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(data) && data[i] < utf8.RuneSelf {
		i++
	}
	return i
}

func tagMessage(hidden []byte, n int) string {
	if len(hidden) == 0 {
		return fmt.Sprintf("%d invisible Unicode tag characters (U+E0000–U+E007F); they render as nothing "+
			"but models read them, so they can hide instructions from reviewers", n)
	}
	shown := string(hidden)
	if len(shown) > 12 {
		shown = shown[:12] + "…"
	}
	return fmt.Sprintf("%d invisible Unicode tag characters spell out hidden text: %q; models read it but "+
		"reviewers see nothing, so it can hide instructions", n, shown)
}

// flagTags reports whether a run of tag characters is an emoji tag sequence:
// U+1F3F4 WAVING BLACK FLAG, a subdivision code such as "gbsct", and U+E007F
// CANCEL TAG (the flags of England, Scotland and Wales). A code is at most
// seven characters, too few to carry instructions.
func flagTags(before []byte, hidden []byte, n int, last rune) bool {
	prev, _ := utf8.DecodeLastRune(before)
	return prev == 0x1F3F4 && last == 0xE007F && len(hidden) == n-1 && len(hidden) > 0 && len(hidden) <= 7 &&
		len(bytes.Trim(hidden, "abcdefghijklmnopqrstuvwxyz0123456789")) == 0 // each a letter or a digit
}

// joinerAllowed reports whether a zero-width (non-)joiner at data[i:i+n]
// does the job it exists for: joining emoji (👩‍💻), or shaping letters of
// scripts such as Persian and Devanagari.
func joinerAllowed(data []byte, i int, r rune, n int) bool {
	if r != 0x200C && r != 0x200D {
		return false
	}
	prev, _ := utf8.DecodeLastRune(data[:i])
	next, _ := utf8.DecodeRune(data[i+n:])
	return r == 0x200D && emojiLike(prev) && emojiLike(next) || complexScript(prev) && complexScript(next)
}

// breakHint reports whether data[i:] opens a run of zero-width spaces and
// word joiners between two characters of scripts written without spaces
// (Chinese, Japanese, Thai...), and where the run ends. There they are
// ordinary text, marking where a line may or may not break as a space
// would elsewhere (web pages copied into Markdown carry them), and no
// word is split.
func breakHint(data []byte, i int) (int, bool) {
	j := i
	for j < len(data) {
		r, n := utf8.DecodeRune(data[j:])
		if r != 0x200B && r != 0x2060 {
			break
		}
		j += n
	}
	prev, _ := utf8.DecodeLastRune(data[:i])
	next, _ := utf8.DecodeRune(data[j:])
	return j, j > i && spaceless(prev) && spaceless(next)
}

// spaceless reports the characters of scripts written without spaces
// between words, and their punctuation: Han, Hiragana, Katakana, Hangul
// (whose words are spaced, but whose text mixes with the others), Thai,
// Lao, Khmer, Myanmar, CJK punctuation and full-width forms; and the
// mathematical letters (𝑨, 𝒙) of a formula copied from a web page, which
// name variables, not words.
func spaceless(r rune) bool {
	return r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF || r >= 0x1D400 && r <= 0x1D7FF ||
		unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

func emojiLike(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r >= 0x2B00 && r <= 0x2BFF || r == 0xFE0F
}

// complexScript reports letters and marks from Hebrew (U+0590) on, where
// joiners shape text; Latin, Greek and Cyrillic never need them.
func complexScript(r rune) bool {
	return r >= 0x0590 && r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsMark(r))
}

// invisibleFile is a published text file's runs of invisible characters,
// with their lines and columns.
type invisibleFile struct {
	rel       string
	hits      []invisibleHit
	plan      []invisibleFix // what --fix does with each hit, in Markdown; nil elsewhere
	line, col []int
}

// invisibleFiles finds the runs of invisible characters in every published
// text file once, for the two rules that report them.
func invisibleFiles(p *Pass) []invisibleFile {
	return p.Memo("security:invisible", func() any {
		var all []invisibleFile
		scanFiles(p, func(rel string, data []byte) {
			if binaryData(data) {
				return
			}
			hits := findInvisible(data)
			if len(hits) == 0 {
				return
			}
			f := invisibleFile{rel: rel, hits: hits}
			if isMarkdown(rel) {
				f.plan = invisiblePlan(data, hits)
			}
			lc := newLines(data)
			for _, h := range hits {
				line, col := lc.pos(h.off)
				f.line, f.col = append(f.line, line), append(f.col, col)
			}
			all = append(all, f)
		})
		return all
	}).([]invisibleFile)
}

// reportEscapedInvisible reports what can hide text in a double-quoted
// frontmatter value written as escapes ("\U000E0049", "\u202E"): the file's
// bytes are ASCII, but every reader decodes them, and the index publishes
// the characters themselves.
func reportEscapedInvisible(p *Pass) {
	t := frontTree(p)
	for _, it := range t.items {
		n := it.n
		if n.Kind != yaml.ScalarNode || n.Style&yaml.DoubleQuotedStyle == 0 || !strings.Contains(t.src(n), `\`) {
			continue
		}
		for _, h := range findInvisible([]byte(n.Value)) {
			// A run the file holds as it is was reported with the file.
			if h.hiding && !strings.Contains(t.src(n), n.Value[h.off:h.end]) {
				p.ReportNode(n, deleteEscapes, "this value's YAML escapes, which every reader decodes, write them: %s", h.msg)
			}
		}
	}
}

// reportInvisible reports the runs that can hide text, or the others; not
// a run of Markdown that --fix keeps because deleting it changes how the
// file renders (invisiblePlan, which never keeps one that can hide text):
// it does a job no visible character does, and the author has nothing to
// repair.
func reportInvisible(p *Pass, hiding bool) {
	for _, f := range invisibleFiles(p) {
		var mine []int // the runs to report, by index
		for i, h := range f.hits {
			if h.hiding == hiding && (f.plan == nil || f.plan[i].keep != keepRender) {
				mine = append(mine, i)
			}
		}
		for n, i := range mine {
			if n == maxPerFile {
				fix := strings.Replace(f.hits[i].fix, "delete it", "delete them", 1)
				p.Reportf(f.rel, f.line[i], f.col[i], fix, "%s of invisible characters from here on in %s", human.Plural(len(mine)-n, "more run", "more runs"), f.rel)
				break
			}
			fix := f.hits[i].fix
			if fix == "delete it" && (f.plan == nil || f.plan[i].keep == keepCode) {
				// In code (a code file or a code block) or a table cell
				// of its own, it may be the value itself: a pattern
				// that strips zero-width text, a table of characters, a
				// diff that removes a byte order mark (--fix leaves it).
				fix = fmt.Sprintf("if the text needs the character, write it as an escape (\\u%04x in most languages), "+
					"which a reader can see; otherwise delete it", f.hits[i].first)
			}
			if f.plan != nil && f.plan[i].keep == keepYAML {
				fix = "put the value in double quotes, then delete it (--fix leaves it): without it YAML reads the value otherwise, or not at all"
			}
			msg := f.hits[i].msg
			if f.plan != nil && f.plan[i].hides {
				msg, _, _ = strings.Cut(msg, "; it hides no text there")
				msg += "; the page hides the text after it (a comment it keeps open), which an agent reads and a person does not see"
			}
			p.Reportf(f.rel, f.line[i], f.col[i], fix, "%s", msg)
		}
	}
}
