package skill

import (
	"net/url"
	"path"
	"strings"
)

// LinkKind is what a link destination in a skill's Markdown names. Lint
// checks links by it and the catalog renders them by it, so that a link
// lint passes is never a dead link on the catalog page.
type LinkKind int

const (
	LinkNone      LinkKind = iota // a URL, a #fragment or nothing: not a file of the skill
	LinkAbsolute                  // an absolute filesystem path
	LinkBackslash                 // a relative path with "\" separators
	LinkOutside                   // a relative path that leaves the skill folder
	LinkInside                    // a relative path inside the skill folder
	LinkPlugin                    // a path below ${CLAUDE_PLUGIN_ROOT}, the enclosing plugin's folder
)

// Clients expand some placeholders in SKILL.md before the model reads it:
// Claude Code the skill's own folder (${CLAUDE_SKILL_DIR}, and {baseDir}
// in Claude's skill docs) and a plugin's (${CLAUDE_PLUGIN_ROOT}). A link
// through them names a file of the skill or its plugin, wherever the skill
// is installed.
var (
	skillDirVars  = []string{"${CLAUDE_SKILL_DIR}/", "$CLAUDE_SKILL_DIR/", "{baseDir}/"}
	pluginDirVars = []string{"${CLAUDE_PLUGIN_ROOT}/", "$CLAUDE_PLUGIN_ROOT/"}
)

// cutPrefixes cuts the first of prefixes that s starts with.
func cutPrefixes(s string, prefixes []string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest, true
		}
	}
	return s, false
}

// ResolveLink classifies a destination written in a file in folder dir
// ("" for the skill folder) and, for relative ones, returns the path it
// names relative to the skill folder, cleaned; for LinkPlugin, relative to
// the plugin's folder.
func ResolveLink(dir, dest string) (LinkKind, string) {
	dest = strings.TrimSpace(dest)
	if rest, ok := cutPrefixes(dest, skillDirVars); ok {
		dir, dest = "", rest
	} else if rest, ok := cutPrefixes(dest, pluginDirVars); ok {
		if k, p := ResolveLink("", rest); k == LinkInside {
			return LinkPlugin, p
		}
		return LinkNone, ""
	}
	switch {
	// Nothing, a #fragment, another client's variable (${CLAUDE_PLUGIN_DATA}),
	// a template's blank to fill in ({public reviews URL}) or a slash
	// command: nothing to follow.
	case dest == "", dest[0] == '#', dest[0] == '$', dest[0] == '{', slashCommand(dest):
		return LinkNone, ""
	case isAbsPath(dest):
		return LinkAbsolute, ""
	case hasScheme(dest):
		if strings.HasPrefix(strings.ToLower(dest), "file:") {
			return LinkAbsolute, ""
		}
		return LinkNone, ""
	case strings.HasPrefix(dest, "//"):
		return LinkNone, "" // a network-path reference: a URL without its scheme
	}
	if i := strings.IndexAny(dest, "?#"); i >= 0 {
		dest = dest[:i]
	}
	if u, err := url.PathUnescape(dest); err == nil {
		dest = u
	}
	switch {
	case dest == "":
		return LinkNone, ""
	case strings.Contains(dest, `\`):
		return LinkBackslash, ""
	}
	p := path.Join(dir, dest)
	if p == ".." || strings.HasPrefix(p, "../") {
		return LinkOutside, p
	}
	return LinkInside, p
}

// slashCommand reports whether a destination is a client's command, such
// as /hookify:writing-rules (a plugin's skill): a colon in its one path
// element, which no absolute path to a file of a skill has.
func slashCommand(s string) bool {
	name := s[1:]
	return s[0] == '/' && strings.IndexByte(name, ':') > 0 && !strings.ContainsAny(name, "/\\")
}

// isAbsPath reports whether a destination is an absolute path on some
// system: "/x", "\x", "C:\x", "C:/x", or "~/x".
func isAbsPath(s string) bool {
	switch {
	case strings.HasPrefix(s, "//"):
		return false
	case s[0] == '/', s[0] == '\\', strings.HasPrefix(s, "~/"):
		return true
	}
	return len(s) >= 3 && asciiLetter(s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/')
}

// hasScheme reports whether a destination starts with a URL scheme
// (RFC 3986: a letter, then letters, digits, "+", "-" or ".", then ":").
func hasScheme(s string) bool {
	for i, c := range []byte(s) {
		switch {
		case asciiLetter(c):
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

func asciiLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
