package skill

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
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
	var pats []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		pats = append(pats, sc.Text())
	}
	return NewIgnore(pats)
}

// NewIgnore compiles patterns in gitignore syntax.
func NewIgnore(patterns []string) *Ignore {
	ig := &Ignore{}
	for _, p := range patterns {
		p = strings.TrimSuffix(p, "\r")
		if t := strings.TrimRight(p, " "); !strings.HasSuffix(t, `\`) {
			p = t // trailing spaces are ignored unless escaped
		}
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(p, "!") {
			r.negate, p = true, p[1:]
		} else if strings.HasPrefix(p, `\!`) || strings.HasPrefix(p, `\#`) {
			p = p[1:]
		}
		if strings.HasSuffix(p, "/") {
			r.dirOnly, p = true, strings.TrimRight(p, "/")
		}
		if p == "" {
			continue
		}
		anchored := strings.Contains(p, "/")
		p = strings.TrimPrefix(p, "/")
		expr := globRegexp(p)
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

// Match reports whether the slash-separated path, relative to the ignore
// file's folder, is ignored. Callers walking a tree skip an ignored folder
// whole, which gives git's rule that a file in an excluded folder cannot be
// re-included.
func (ig *Ignore) Match(path string, isDir bool) bool {
	if ig == nil {
		return false
	}
	matched := false
	for _, r := range ig.rules {
		if r.dirOnly && !isDir {
			continue
		}
		if r.re.MatchString(path) {
			matched = !r.negate
		}
	}
	return matched
}

// Empty reports whether there are no patterns.
func (ig *Ignore) Empty() bool { return ig == nil || len(ig.rules) == 0 }

func globRegexp(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '*' && strings.HasPrefix(p[i:], "**"):
			j := i + 2
			switch {
			case (i == 0 || p[i-1] == '/') && j < len(p) && p[j] == '/':
				b.WriteString("(?:.*/)?") // "**/" : zero or more folders
				i = j
			case (i == 0 || p[i-1] == '/') && j == len(p):
				b.WriteString(".*") // trailing "/**": everything inside
				i = j - 1
			default:
				b.WriteString("[^/]*")
				i = j - 1
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(string(p[i])))
		case c == '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := p[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}
