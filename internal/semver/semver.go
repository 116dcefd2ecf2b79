// Package semver reads Semantic Versioning 2.0.0 versions, strictly. A
// skill's version (metadata.version in its frontmatter, or a top-level
// version, which Claude Code reads) is one: registries pin a skill by it,
// and releases are to be ordered by it (build --previous, which will add
// the comparison). So it must be exactly SemVer: no leading "v", no
// leading zeros, three numbers. (golang.org/x/mod/semver takes "v1.2" for
// "v1.2.0", which a version here must not be.)
package semver

import (
	"regexp"
	"strconv"
	"strings"
)

// semverPattern is the expression semver.org gives for SemVer 2.0.0.
var semverPattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// Valid reports whether v is a SemVer 2.0.0 version.
func Valid(v string) bool { return semverPattern.MatchString(v) }

// Suggest returns the SemVer version a near miss stands for: a
// leading "v" dropped, missing minor and patch numbers added as zeros,
// leading zeros removed ("v1.2" is "1.2.0"). It returns "" when v is no
// near miss.
func Suggest(v string) string {
	s := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(v), "v"), "V")
	core, rest := s, ""
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		core, rest = s[:i], s[i:]
	}
	parts := strings.Split(core, ".")
	if len(parts) > 3 {
		return ""
	}
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return ""
		}
		parts[i] = strconv.FormatUint(n, 10)
	}
	if s := strings.Join(parts, ".") + rest; Valid(s) && s != v {
		return s
	}
	return ""
}
