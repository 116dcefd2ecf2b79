package lint

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/internal/human"
)

// Category groups rules in listings and docs.
type Category string

const (
	CatSpec     Category = "spec"        // the Agent Skills specification
	CatPortable Category = "portability" // YAML that some readers drop
	CatContent  Category = "content"     // SKILL.md body, links and descriptions
	CatFiles    Category = "files"       // the skill's files, sizes and names
	CatSecurity Category = "security"    // secrets and hidden text
	CatRegistry Category = "registry"    // across the skills of one tree
	CatPlugin   Category = "plugin"      // plugin.json, mcp.json and a plugin's layout
)

// Rule is one check. Everything but the check function is documentation,
// shown by --list-rules and --explain and written into SARIF and docs/rules.md.
type Rule struct {
	ID       string   // stable, kebab-case; used in config and output
	Title    string   // one line
	Category Category // where it comes from; its group's (registry) unless set
	Severity Severity // the default
	Explain  string   // one paragraph: what, why, and how to fix
	Bad      string   // an example that breaks the rule
	Good     string   // the same example, fixed

	// Supersedes names rules whose findings this rule's finding makes
	// redundant: where both report the same file at the same line (or
	// either reports the whole file), only this rule's finding is kept.
	// The engine applies it, so that one cause gives one finding however
	// many rules see it.
	Supersedes []string

	// Publish marks a rule that guards what a bundle can carry (an index
	// takes an ASCII name and a description of a string; pack, its limits):
	// a build holds it at its default severity at least, whatever the
	// profile and the config say, where a skill past it stopped the build
	// as if skillpack had failed (exit 3). What it refuses (Pass.Refuse) is
	// an error.
	Publish bool

	// Check, CheckRun or both (a rule that looks at the skills' files and
	// at the plugins' too), or Engine, is set.
	Check    func(*Pass)    // runs once per skill
	CheckRun func(*RunPass) // runs once over all skills and plugins of a run
	Engine   bool           // reported by the runner itself (suppressions)
}

// withFiles runs check only when the skill's folder could be collected:
// the rules that read its file list have nothing to say without one.
func withFiles(check func(*Pass)) func(*Pass) {
	return func(p *Pass) {
		if p.Files != nil {
			check(p)
		}
	}
}

// Rules returns every rule, sorted by ID.
func Rules() []*Rule { return registry }

// Lookup returns the rule with the given ID, or nil.
func Lookup(id string) *Rule {
	if i, ok := slices.BinarySearchFunc(registry, id, func(r *Rule, id string) int { return strings.Compare(r.ID, id) }); ok {
		return registry[i]
	}
	return nil
}

// registry is every rule group, in ID order. Adding a rule means adding it
// to its group's slice, which gives it its category; the tests check that
// it has docs and test cases.
var registry = func() []*Rule {
	var all []*Rule
	for _, g := range []struct {
		cat   Category // of the group's rules that set none
		rules []*Rule
	}{
		{CatSpec, entryRules}, {CatSpec, fieldRules}, {CatPortable, yamlRules}, {CatContent, bodyRules},
		{CatContent, linkRules}, {CatFiles, fileRules}, {CatSecurity, securityRules}, {CatRegistry, registryRules},
		{CatRegistry, scopeRules}, {CatPlugin, pluginRules}, {CatContent, suppressRules},
	} {
		for _, r := range g.rules {
			if r.Category == "" {
				r.Category = g.cat
			}
		}
		all = append(all, g.rules...)
	}
	slices.SortFunc(all, func(a, b *Rule) int { return strings.Compare(a.ID, b.ID) })
	return all
}()

// rulesRevision changes whenever a rule's verdicts change without its ID,
// severity or title changing, so that verdicts remembered by an older
// skillpack are not reused.
const rulesRevision = 20

// fingerprint identifies the rule set: every rule's ID, default severity
// and title. VerdictKey holds it, so that a skillpack with other rules never
// reuses this one's verdicts, even between development builds that share a
// version string.
var fingerprint = sync.OnceValue(func() string {
	h := sha256.New()
	fmt.Fprintf(h, "revision %d\n", rulesRevision)
	for _, r := range registry {
		fmt.Fprintf(h, "%s %s %s\n", r.ID, r.Severity, r.Title)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
})

// supersededBy maps a rule ID to the rules whose findings hide its own.
var supersededBy = func() map[string][]string {
	m := map[string][]string{}
	for _, r := range registry {
		for _, id := range r.Supersedes {
			m[id] = append(m[id], r.ID)
		}
	}
	return m
}()

// DidYouMean is human.DidYouMean of a mistyped rule ID among the rules'.
func DidYouMean(id string) string { return human.DidYouMean(id, slices.Sorted(maps.Keys(ruleIDs))) }
