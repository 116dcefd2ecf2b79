package skill

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Ignore is a list of gitignore-style patterns, as read from a .skillignore
// or the ignore list of skillpack.yaml. The last matching pattern wins, and
// "!" re-includes, as in git.
type Ignore struct {
	rules []ignoreRule
}

type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// ParseIgnore reads gitignore syntax: one pattern a line, "#" comments,
// "!" negation, a trailing "/" for folders only, a leading or inner "/"
// anchoring to the base, and "*", "?", "[...]" and "**" wildcards.
func ParseIgnore(data []byte) *Ignore {
	// Split rather than scan: a scanner stops at its first over-long line.
	// git skips a BOM here too; NewIgnore drops each line's "\r".
	return NewIgnore(strings.Split(string(bytes.TrimPrefix(data, bom)), "\n"))
}

// NewIgnore compiles patterns in gitignore syntax. A malformed pattern (an
// unclosed "[", a trailing lone "\") matches nothing, as in git.
func NewIgnore(patterns []string) *Ignore {
	ig := &Ignore{}
	for _, p := range patterns {
		r, p, anchored, ok := splitPattern(p)
		if !ok {
			continue
		}
		expr, ok := globRegexp(p, anchored)
		if !ok {
			continue
		}
		if !anchored {
			expr = "(?:.*/)?" + expr
		}
		re, err := regexp.Compile("^" + expr + "$")
		if err != nil {
			continue // an unmatchable pattern, as git treats a malformed one
		}
		r.re = re
		ig.rules = append(ig.rules, r)
	}
	return ig
}

// splitPattern reads one line of gitignore syntax: its "!" and trailing
// "/" into r, and the glob left, without its anchoring slash; anchored
// tells whether it had a slash. ok is false for a blank line, a comment,
// and a line that is only "!" or slashes.
func splitPattern(p string) (r ignoreRule, glob string, anchored, ok bool) {
	p = trimTrailingSpace(strings.TrimSuffix(p, "\r"))
	if p == "" || strings.HasPrefix(p, "#") {
		return r, "", false, false
	}
	p, r.negate = strings.CutPrefix(p, "!")
	if !r.negate && (strings.HasPrefix(p, `\!`) || strings.HasPrefix(p, `\#`)) {
		p = p[1:]
	}
	p, r.dirOnly = strings.CutSuffix(p, "/")
	if p == "" {
		return r, "", false, false
	}
	return r, strings.TrimPrefix(p, "/"), strings.Contains(p, "/"), true
}

// Outside reports why the gitignore-style pattern p names nothing below
// the folders it is relative to (bases), as what "this pattern" does, and
// the pattern that names what was meant, or "" when none can; why is ""
// for a pattern that may name something. A ".." never matches a path
// below the base, nor does an absolute path on disk, which gitignore
// reads as anchored at the base. A path counts as absolute only when it
// has two names or more, is there, below a base or in a system folder
// (/home/...), and the base holds no such path: "/build/" is the base's
// folder, whatever the system has.
func Outside(p string, bases ...string) (why, instead string) {
	r, glob, _, ok := splitPattern(p)
	if !ok {
		return "", ""
	}
	// The pattern rebuilt around a new glob, with its "!" and trailing "/";
	// anchored with a leading "/" when the glob has no slash of its own.
	rebuild := func(g string) string {
		if !strings.Contains(g, "/") {
			g = "/" + g
		}
		if r.negate {
			g = "!" + g
		}
		if r.dirOnly {
			g += "/"
		}
		return g
	}
	// inside is the pattern of target's path below one of bases, or "".
	inside := func(target func(base string) string) string {
		for _, b := range bases {
			if rel, ok := RelBelow(b, target(b)); ok && rel != "." {
				return rebuild(filepath.ToSlash(rel))
			}
		}
		return ""
	}
	if slices.Contains(strings.Split(glob, "/"), "..") {
		return "holds \"..\", which no path below it holds",
			inside(func(b string) string { return filepath.Join(b, filepath.FromSlash(glob)) })
	}
	abs := strings.TrimPrefix(strings.TrimPrefix(p, "!"), `\`)
	abs = strings.TrimRight(trimTrailingSpace(strings.TrimSuffix(abs, "\r")), "/")
	first, _, two := strings.Cut(strings.Trim(filepath.ToSlash(abs), "/"), "/")
	// On disk, below a base, or in a folder of the system's own (the
	// docs' /home/me/repo/skills/old, copied): meant as a path.
	if !filepath.IsAbs(abs) || !two || !exists(abs) && inside(func(string) string { return abs }) == "" && !systemDirs[first] {
		return "", ""
	}
	for _, b := range bases {
		if exists(filepath.Join(b, filepath.FromSlash(glob))) {
			return "", "" // the base's own folder of that name
		}
	}
	return "is an absolute path", inside(func(string) string { return abs })
}

// systemDirs are the top folders of Unix and macOS systems, which a
// repository's root seldom has: a path starting with one is meant as one.
var systemDirs = map[string]bool{"home": true, "Users": true, "tmp": true, "opt": true, "var": true, "usr": true, "mnt": true, "srv": true, "root": true, "private": true, "Volumes": true}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// trimTrailingSpace drops trailing spaces, except one escaped with "\".
func trimTrailingSpace(p string) string {
	t := strings.TrimRight(p, " ")
	if len(t) < len(p) && strings.HasSuffix(t, `\`) {
		return p[:len(t)+1]
	}
	return t
}

// Match reports whether the slash-separated path, relative to the ignore
// file's folder, is ignored. A path inside an ignored folder is ignored
// whatever later patterns say, as in git, whether or not the caller
// skips ignored folders while walking.
func (ig *Ignore) Match(path string, isDir bool) bool {
	_, ok := ig.decide(path, isDir)
	return ok
}

// decide is Match, with the path that decided it: path itself, or the
// first folder above it that is ignored.
func (ig *Ignore) decide(path string, isDir bool) (string, bool) {
	if ig.Empty() {
		return "", false
	}
	for i := 0; i < len(path); i++ {
		if path[i] == '/' && ig.match(path[:i], true) {
			return path[:i], true
		}
	}
	if ig.match(path, isDir) {
		return path, true
	}
	return "", false
}

// match applies the patterns to one path, the last matching one winning.
func (ig *Ignore) match(path string, isDir bool) bool {
	for _, r := range slices.Backward(ig.rules) {
		if (isDir || !r.dirOnly) && r.re.MatchString(path) {
			return !r.negate
		}
	}
	return false
}

// Empty reports whether there are no patterns.
func (ig *Ignore) Empty() bool { return ig == nil || len(ig.rules) == 0 }

// globRegexp translates a gitignore glob (without its anchoring slash) into a
// regular expression, or reports that the glob is malformed. git compares
// an anchored pattern's literal start (up to its first "*", "?", "[" or
// "\") as a string and matches the rest as a glob of its own, so a "**"
// right after that start counts as at the start: "a**/b" matches "ab".
// (git matches bytes, so "?" does not match an "é" there; here it does.)
func globRegexp(p string, anchored bool) (string, bool) {
	lit := -1
	if anchored {
		lit = strings.IndexAny(p, `*?[\`)
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '*' && strings.HasPrefix(p[i:], "**"):
			// A run of two stars or more is one "**", as in git's wildmatch.
			j := i + 2
			for j < len(p) && p[j] == '*' {
				j++
			}
			switch {
			case (i == 0 || i == lit || p[i-1] == '/') && j < len(p) && p[j] == '/':
				b.WriteString("(?:.*/)?") // "**/" : zero or more folders
				i = j
			case (i == 0 || i == lit || p[i-1] == '/') && j == len(p):
				b.WriteString(".*") // trailing "/**": everything inside
				i = j - 1
			default:
				// Elsewhere the run is ordinary stars, one [^/]* for all.
				b.WriteString("[^/]*")
				i = j - 1
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			class, n, ok := globClass(p[i:])
			if !ok {
				return "", false // git: an unclosed "[" makes the pattern match nothing
			}
			b.WriteString(class)
			i += n - 1
		case c == '\\':
			if i+1 == len(p) {
				return "", false // git: a trailing lone backslash never matches
			}
			i++ // the character it escapes is taken literally
			fallthrough
		default:
			r, n := utf8.DecodeRuneInString(p[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += n - 1
		}
	}
	return b.String(), true
}

// posixClasses are the "[:name:]" classes git's wildmatch knows, as ranges.
var posixClasses = map[string][][2]rune{
	"alnum":  {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}},
	"alpha":  {{'A', 'Z'}, {'a', 'z'}},
	"blank":  {{'\t', '\t'}, {' ', ' '}},
	"cntrl":  {{0, 0x1f}, {0x7f, 0x7f}},
	"digit":  {{'0', '9'}},
	"graph":  {{0x21, 0x7e}},
	"lower":  {{'a', 'z'}},
	"print":  {{0x20, 0x7e}},
	"punct":  {{0x21, 0x2f}, {0x3a, 0x40}, {0x5b, 0x60}, {0x7b, 0x7e}},
	"space":  {{'\t', '\r'}, {' ', ' '}},
	"upper":  {{'A', 'Z'}},
	"xdigit": {{'0', '9'}, {'A', 'F'}, {'a', 'f'}},
}

// globClass translates the bracket expression at the start of s into a
// regexp class and returns how many bytes it used. As in git, a class never
// matches "/", "]" right after "[" or "[!" is literal, "!" and "^" negate,
// and a reversed range matches nothing.
func globClass(s string) (string, int, bool) {
	j := 1
	neg := false
	if j < len(s) && (s[j] == '!' || s[j] == '^') {
		neg, j = true, j+1
	}
	var ranges [][2]rune
	for first := true; ; first = false {
		if j >= len(s) {
			return "", 0, false
		}
		if s[j] == ']' && !first {
			j++
			break
		}
		if strings.HasPrefix(s[j:], "[:") {
			end := strings.Index(s[j+2:], ":]")
			if end < 0 {
				return "", 0, false
			}
			rs, ok := posixClasses[s[j+2:j+2+end]]
			if !ok {
				return "", 0, false // git rejects an unknown class name
			}
			ranges = append(ranges, rs...)
			j += end + 4
			continue
		}
		lo, n := classChar(s[j:])
		if n == 0 {
			return "", 0, false
		}
		j += n
		hi := lo
		if j+1 < len(s) && s[j] == '-' && s[j+1] != ']' {
			h, n := classChar(s[j+1:])
			if n == 0 {
				return "", 0, false
			}
			hi, j = h, j+1+n
		}
		if lo <= hi {
			ranges = append(ranges, [2]rune{lo, hi})
		}
	}
	var b strings.Builder
	b.WriteByte('[')
	if neg {
		b.WriteString(`^/`)
	}
	for _, r := range ranges {
		if !neg && r[0] <= '/' && '/' <= r[1] {
			// Split the range around the slash it would otherwise match.
			if r[0] < '/' {
				writeRange(&b, r[0], '/'-1)
			}
			if r[1] > '/' {
				writeRange(&b, '/'+1, r[1])
			}
			continue
		}
		writeRange(&b, r[0], r[1])
	}
	if b.Len() == 1 {
		return `[^\x00-\x{10FFFF}]`, j, true // only "/" was named: matches nothing
	}
	b.WriteByte(']')
	return b.String(), j, true
}

// classChar reads one possibly escaped character of a bracket expression.
func classChar(s string) (rune, int) {
	n := 0
	if s[0] == '\\' {
		if len(s) == 1 {
			return 0, 0
		}
		n, s = 1, s[1:]
	}
	r, size := utf8.DecodeRuneInString(s)
	return r, n + size
}

func writeRange(b *strings.Builder, lo, hi rune) {
	fmt.Fprintf(b, `\x{%x}`, lo)
	if hi != lo {
		fmt.Fprintf(b, `-\x{%x}`, hi)
	}
}

// DefaultIgnore are the folders a build leaves out unless told otherwise:
// test fixtures and templates hold SKILL.md files that are not skills to
// publish. A folder named as a root is never left out by them, nor is
// anything above it.
var DefaultIgnore = []string{
	"test/", "tests/", "__tests__/", ".test/", ".tests/", "testdata/", "fixtures/", "__fixtures__/",
	"template/", "templates/", "Template/", "TEMPLATE/", "_template/", "_templates/", ".template/",
	"skill-template/", "template-skill/",
}

// Path reports whether the path p (a folder when isDir), a disk path at
// or below base, is ignored by patterns relative to base, and if so which
// path decided it: p itself or the nearest folder above it that is
// ignored, relative to base with "/". base itself is never ignored, nor is
// a path outside base.
func (ig *Ignore) Path(base, p string, isDir bool) (string, bool) {
	if ig.Empty() {
		return "", false
	}
	rel, ok := RelBelow(base, p)
	if !ok || rel == "." {
		return "", false
	}
	return ig.decide(filepath.ToSlash(rel), isDir)
}
