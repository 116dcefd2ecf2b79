package lint

import (
	"fmt"
	"sort"
	"strings"
)

// SpecKeys are the top-level frontmatter keys the Agent Skills specification
// defines.
var SpecKeys = []string{"allowed-tools", "compatibility", "description", "license", "metadata", "name"}

// Profile adapts the rules to a family of clients: which extra frontmatter
// keys are known, and which rules weigh differently there.
type Profile struct {
	Name        string
	Description string
	Keys        []string            // frontmatter keys known beyond SpecKeys
	Severity    map[string]Severity // rule ID → severity, over the rule's default
}

// KnownKey reports whether key is a spec key or one the profile allows.
func (p *Profile) KnownKey(key string) bool {
	for _, k := range SpecKeys {
		if k == key {
			return true
		}
	}
	for _, k := range p.Keys {
		if k == key {
			return true
		}
	}
	return false
}

// claudeKeys are the frontmatter keys Claude Code reads beyond the spec
// (code.claude.com skills docs, Nov 2026; disallowed-tools since v2.1.152).
var claudeKeys = []string{
	"agent", "argument-hint", "arguments", "context", "disable-model-invocation",
	"disallowed-tools", "effort", "hooks", "model", "paths", "shell",
	"user-invocable", "version", "when_to_use",
}

// claudeSeverity is what Claude Code accepts, weighed for it: it reads a
// YAML list of allowed-tools, and it goes by the frontmatter name, so a
// folder named otherwise changes nothing it does.
var claudeSeverity = map[string]Severity{"allowed-tools-list": Info, "name-mismatch": Warning}

var profiles = []*Profile{
	{
		Name:        "spec",
		Description: "the Agent Skills specification only: any other frontmatter key is reported",
	},
	{
		Name: "claude",
		Description: "also allows Claude Code's frontmatter keys (" + strings.Join(claudeKeys, ", ") + "); " +
			"a YAML list of allowed-tools is informational and a name unlike its folder a warning",
		Keys:     claudeKeys,
		Severity: claudeSeverity,
	},
	{
		Name: "relaxed",
		Description: "for private registries whose clients all read Unicode: non-ASCII names and " +
			"Claude Code keys are allowed as under claude, unknown keys are informational",
		Keys:     claudeKeys,
		Severity: withSeverity(claudeSeverity, map[string]Severity{"name-non-ascii": Warning, "unknown-key": Info}),
	},
}

// withSeverity returns base with over's entries added, leaving base as it is.
func withSeverity(base, over map[string]Severity) map[string]Severity {
	out := make(map[string]Severity, len(base)+len(over))
	for id, s := range base {
		out[id] = s
	}
	for id, s := range over {
		out[id] = s
	}
	return out
}

// Profiles returns the built-in profiles, "spec" first.
func Profiles() []*Profile { return profiles }

// LookupProfile returns the named profile or an error listing the known ones.
func LookupProfile(name string) (*Profile, error) {
	if name == "" {
		return profiles[0], nil
	}
	var names []string
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(names, ", "))
}
