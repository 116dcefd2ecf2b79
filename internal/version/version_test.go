package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	commit := vcs("vcs", "git",
		"vcs.revision", "89271750fbb73b17d71a09a5a94922980de5f429",
		"vcs.time", "2026-11-24T04:55:20Z",
		"vcs.modified", "false")
	dirty := vcs("vcs", "git",
		"vcs.revision", "89271750fbb73b17d71a09a5a94922980de5f429",
		"vcs.time", "2026-11-24T05:55:20+01:00",
		"vcs.modified", "true")

	tests := []struct {
		name  string
		stamp string
		bi    *debug.BuildInfo
		want  string
	}{
		{"no build info", "", nil, "(devel)"},
		{"nothing known", "", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}}, "(devel)"},
		{"empty module version", "", &debug.BuildInfo{}, "(devel)"},
		{"go install at a tag", "", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.2.0"}}, "v0.2.0"},
		{"go build in a checkout (Go 1.24+)", "",
			&debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.0.0-20261124045520-89271750fbb7+dirty"}, Settings: dirty},
			"v0.0.0-20261124045520-89271750fbb7+dirty"},
		{"VCS settings only", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: commit},
			"v0.0.0-20261124045520-89271750fbb7"},
		{"VCS settings, modified, time in another zone", "", &debug.BuildInfo{Settings: dirty},
			"v0.0.0-20261124045520-89271750fbb7+dirty"},
		{"VCS revision without a time", "", &debug.BuildInfo{Settings: vcs("vcs.revision", "abc123")},
			"v0.0.0-00000000000000-abc123"},
		{"VCS without a revision", "", &debug.BuildInfo{Settings: vcs("vcs", "git", "vcs.modified", "true")}, "(devel)"},
		{"release stamp", "v0.3.0", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: commit}, "v0.3.0"},
		{"release stamp wins over the module version", "v0.3.0",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124045520-89271750fbb7"}}, "v0.3.0"},
		{"GoReleaser's stamp without its v", "0.3.0", nil, "v0.3.0"},
		{"snapshot stamp", "0.3.1-SNAPSHOT-8927175", nil, "v0.3.1-SNAPSHOT-8927175"},
		{"blank stamp is no stamp", " ", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, "v0.2.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolve(tt.stamp, tt.bi); got != tt.want {
				t.Errorf("resolve(%q, ...) = %q, want %q", tt.stamp, got, tt.want)
			}
		})
	}
}

// The binary's version is read once and does not change between calls:
// the build's reuse keys depend on it.
func TestVersionStable(t *testing.T) {
	if a, b := Version(), Version(); a != b || a == "" {
		t.Fatalf("Version() = %q then %q", a, b)
	}
}
