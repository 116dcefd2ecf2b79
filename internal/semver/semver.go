// Package semver reads and orders Semantic Versioning 2.0.0 versions,
// strictly. A skill's version (metadata.version in its frontmatter, or a
// top-level version, which Claude Code reads) is one: registries pin a
// skill by it, and build --previous orders a skill's versions and a
// bundle's releases by it (a version may only go up). So it must be
// exactly SemVer: no leading "v", no leading zeros, three numbers.
// (golang.org/x/mod/semver takes "v1.2" for "v1.2.0", which a version
// here must not be.)
package semver

import (
	"cmp"
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

// Compare orders two valid versions by SemVer precedence (semver.org
// §11): -1 if a comes before b, +1 after, 0 if they are the same release.
// Build metadata, after "+", does not count, so "1.0.0+a" and "1.0.0+b"
// compare 0 though they are different strings. Anything not a valid
// version sorts by its bytes, which is a fixed order and nothing more.
func Compare(a, b string) int {
	pa, pb := semverPattern.FindStringSubmatch(a), semverPattern.FindStringSubmatch(b)
	if pa == nil || pb == nil {
		return strings.Compare(a, b)
	}
	for i := 1; i <= 3; i++ {
		if c := compareNumbers(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	// A pre-release comes before its release; otherwise the dot-separated
	// identifiers are compared in turn, numbers below words, and a longer
	// list after its own beginning.
	switch {
	case pa[4] == pb[4]:
		return 0
	case pa[4] == "":
		return 1
	case pb[4] == "":
		return -1
	}
	ia, ib := strings.Split(pa[4], "."), strings.Split(pb[4], ".")
	for i := 0; i < len(ia) && i < len(ib); i++ {
		na, nb := numeric(ia[i]), numeric(ib[i])
		var c int
		switch {
		case na && nb:
			c = compareNumbers(ia[i], ib[i])
		case na:
			c = -1
		case nb:
			c = 1
		default:
			c = strings.Compare(ia[i], ib[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ia), len(ib))
}

// compareNumbers compares two decimal numbers without leading zeros, of
// any length (SemVer sets no limit, so not through ParseUint).
func compareNumbers(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// numeric reports whether a pre-release identifier is a number.
func numeric(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

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
