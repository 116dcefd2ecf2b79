// Package version tells which skillpack this is. The build's reuse cache and
// the archives' generator field depend on it, so it has one source, Version,
// and it never reads the clock: two builds of one commit report one version.
package version

import (
	"cmp"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Module is the skillpack module path.
const Module = "github.com/skillpack/skillpack"

// devel is what Go itself reports when it knows nothing of the build.
const devel = "(devel)"

// stamped is set by the release build:
//
//	-ldflags "-X github.com/skillpack/skillpack/internal/version.stamped=v1.2.3"
//
// A release binary is built from a tagged checkout, but with flags (and
// perhaps -buildvcs=false) that the toolchain's own stamping does not see.
var stamped string

// Version is the version of this binary: the release's stamp, else the
// module version the toolchain recorded (go install ...@v1.2.3, or a
// pseudo-version that go build derives from a git checkout), else one made
// from the commit's VCS settings, else "(devel)".
// It is read once: the build asks for it in every skill's reuse key, and
// reading the build info parses it anew each time.
var Version = sync.OnceValue(func() string {
	bi, _ := debug.ReadBuildInfo()
	return resolve(stamped, bi)
})

// resolve picks the version from what is known of the build, most
// deliberate first.
func resolve(stamp string, bi *debug.BuildInfo) string {
	if stamp = strings.TrimSpace(stamp); stamp != "" {
		// GoReleaser's {{.Version}} drops the tag's "v"; Go's versions keep it.
		if stamp[0] >= '0' && stamp[0] <= '9' {
			stamp = "v" + stamp
		}
		return stamp
	}
	if bi == nil {
		return devel
	}
	if v := bi.Main.Version; v != "" && v != devel {
		return v
	}
	return cmp.Or(fromVCS(bi.Settings), devel)
}

// fromVCS makes a pseudo-version, v0.0.0-yyyymmddhhmmss-rev12[+dirty], from
// the vcs.* build settings, as go build itself does when it can: toolchains
// before Go 1.24, and builds whose module version was not set, still record
// the commit.
func fromVCS(settings []debug.BuildSetting) string {
	var rev, when string
	modified := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	// Go's own pseudo-versions name the commit's time in UTC; an unknown
	// time sorts first, as v0.0.0 does.
	stamp := "00000000000000"
	if t, err := time.Parse(time.RFC3339Nano, when); err == nil {
		stamp = t.UTC().Format("20060102150405")
	}
	v := "v0.0.0-" + stamp + "-" + rev[:min(len(rev), 12)]
	if modified {
		v += "+dirty"
	}
	return v
}
