package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/human"
)

// SpecKeys are the top-level frontmatter keys the Agent Skills specification
// defines.
var SpecKeys = []string{"allowed-tools", "compatibility", "description", "license", "metadata", "name"}

// Profile adapts the rules to a family of clients: which extra frontmatter
// keys are known, and which rules weigh differently there.
//
// A rule's own severity, which the default profile (clients) keeps, is an
// error when what it finds breaks something: the build cannot publish the
// skill, an index cannot carry it, or the clients that load skills (Claude
// Code, Codex, Cursor, OpenClaw, the Vercel skills CLI) refuse or misread
// it. A deviation from the specification that those clients accept is a
// warning, even where a validator of the letter (skills-ref, the official
// MCP SDK's entry checks and YAML subset) refuses it: the build leaves a
// skill MCP hosts refuse out of the MCP documents (skill.CheckMCP). The
// spec profile raises those deviations to errors, skillpack's earlier levels.
type Profile struct {
	Name        string
	Description string
	Keys        []string            // frontmatter keys known beyond SpecKeys
	Severity    map[string]Severity // rule ID → severity, over the rule's default

	// Letter holds the skill to the specification's letter: a check whose
	// finding only that reading calls a fault (a one-line flow mapping,
	// which strict YAML readers refuse and every client reads) reports it
	// only under such a profile.
	Letter bool
}

// KnownKey reports whether key is a spec key or one the profile allows (a
// nil profile is the default, which allows none).
func (p *Profile) KnownKey(key string) bool {
	return slices.Contains(SpecKeys, key) || p != nil && slices.Contains(p.Keys, key)
}

// claudeKeys are the frontmatter keys Claude Code reads beyond the spec
// (code.claude.com skills docs, Nov 2026; disallowed-tools since v2.1.152).
var claudeKeys = []string{
	"agent", "argument-hint", "arguments", "context", "disable-model-invocation",
	"disallowed-tools", "effort", "hooks", "model", "paths", "shell",
	"user-invocable", "version", "when_to_use",
}

// clientKeys are the frontmatter keys beyond the spec that the clients the
// default profile names document, by client: Claude Code's (claudeKeys),
// Cursor's (cursor.com/docs/context/skills) and OpenClaw's
// (docs.openclaw.ai/tools/skills, "Optional frontmatter keys"), read in
// November 2026. Codex documents none (name and description; its own
// settings are in agents/openai.yaml), nor does the Vercel skills CLI.
var clientKeys = []struct {
	client string
	keys   []string
}{
	{"Claude Code", claudeKeys},
	{"Cursor", []string{"disable-model-invocation"}},
	{"OpenClaw", []string{"command-arg-mode", "command-dispatch", "command-tool", "disable-model-invocation",
		"homepage", "user-invocable"}},
}

// clientList joins client names as a sentence does: "Claude Code, Cursor
// and OpenClaw".
func clientList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// clientsKeys are the keys of clientKeys, each once, sorted: what the
// default profile knows.
var clientsKeys = func() []string {
	var all []string
	for _, c := range clientKeys {
		all = append(all, c.keys...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}()

// readers returns the clients that document key, in clientKeys' order;
// none for a key no client documents.
func readers(key string) []string {
	var out []string
	for _, c := range clientKeys {
		if slices.Contains(c.keys, key) {
			out = append(out, c.client)
		}
	}
	return out
}

// specSeverity raises what the clients accept back to errors: the spec
// profile reports at the levels skillpack had before profiles weighed by
// clients (issue 31). One rule goes the other way: skills-ref accepts
// skill.md, which the clients and the build do not.
var specSeverity = map[string]Severity{
	"name-mismatch": Error, "metadata-nested": Error, "license-type": Error,
	"compatibility-format": Error, "yaml-flow-mapping": Error, "yaml-flow-lines": Error, "yaml-indent-indicator": Error, "yaml-deep-nesting": Error,
	"skill-md-name": Warning,
}

// claudeSeverity is what Claude Code accepts, weighed for it: it reads a
// YAML list of allowed-tools, and takes the folder's name for a missing
// name (its skills docs: "If omitted, uses the directory name";
// lazygophers/ccplugin, whose six such skills load).
var claudeSeverity = map[string]Severity{"allowed-tools-list": Info, "name-missing": Warning}

var profiles = []*Profile{
	{
		Name: "clients",
		Description: "the default: errors are what breaks publishing, an index or the clients that load skills; " +
			"deviations from the specification that those clients accept are warnings; knows the frontmatter keys " +
			"they document (Claude Code's, Cursor's, OpenClaw's)",
		Keys: clientsKeys,
	},
	{
		Name: "spec",
		Description: "the Agent Skills specification to the letter, at skillpack's earlier levels: what the " +
			"clients accept against it (a name unlike its folder, nested metadata) is an error too, and any " +
			"other frontmatter key is reported",
		Severity: specSeverity,
		Letter:   true,
	},
	{
		Name: "claude",
		Description: "also allows Claude Code's frontmatter keys (" + strings.Join(claudeKeys, ", ") + "); " +
			"a YAML list of allowed-tools is informational, a missing name (Claude Code takes the folder's) a " +
			"warning, which a build still refuses",
		Keys:     claudeKeys,
		Severity: claudeSeverity,
	},
	{
		Name: "relaxed",
		Description: "for private registries whose clients all read Unicode: non-ASCII names and " +
			"Claude Code keys are allowed as under claude, unknown keys are informational; a build " +
			"still refuses a non-ASCII name, which no index carries",
		Keys:     claudeKeys,
		Severity: withSeverity(claudeSeverity, map[string]Severity{"name-non-ascii": Warning, "unknown-key": Info}),
	},
}

// level is a rule's severity under the profile (nil: the default),
// before the config.
func (p *Profile) level(r *Rule) Severity {
	if p == nil {
		p = profiles[0]
	}
	if s, ok := p.Severity[r.ID]; ok {
		return s
	}
	return r.Severity
}

// withSeverity returns base with over's entries added, leaving base as it is.
func withSeverity(base, over map[string]Severity) map[string]Severity {
	out := maps.Clone(base)
	maps.Copy(out, over)
	return out
}

// Profiles returns the built-in profiles, the default first.
func Profiles() []*Profile { return profiles }

// LookupProfile returns the named profile or an error listing the known ones.
func LookupProfile(name string) (*Profile, error) {
	if name == "" {
		return profiles[0], nil
	}
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
	}
	names := ProfileNames()
	return nil, fmt.Errorf("unknown profile %q%s; known profiles: %s", name, human.DidYouMean(name, names), strings.Join(names, ", "))
}

// ProfileNames are the profiles' names, sorted.
func ProfileNames() []string {
	var names []string
	for _, p := range profiles {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}
