package lint

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"sync"
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
)

// Rule is one check. Everything but the check function is documentation,
// shown by --list-rules and --explain and written into SARIF and docs/rules.md.
type Rule struct {
	ID       string   // stable, kebab-case; used in config and output
	Title    string   // one line
	Category Category // where it comes from
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

	// Exactly one of Check, CheckAll and Engine is set.
	Check    func(*Pass)         // runs once per skill
	CheckAll func(*RegistryPass) // runs once over all skills of a run
	Engine   bool                // reported by the runner itself (suppressions)
}

// Rules returns every rule, sorted by ID.
func Rules() []*Rule { return registry }

// Lookup returns the rule with the given ID, or nil.
func Lookup(id string) *Rule {
	i := sort.Search(len(registry), func(i int) bool { return registry[i].ID >= id })
	if i < len(registry) && registry[i].ID == id {
		return registry[i]
	}
	return nil
}

// registry is every rule group, in ID order. Adding a rule means adding it
// to its group's slice; the tests check that it has docs and test cases.
var registry = func() []*Rule {
	var all []*Rule
	for _, g := range [][]*Rule{
		entryRules, fieldRules, yamlRules, bodyRules, linkRules, fileRules, securityRules, registryRules, suppressRules,
	} {
		all = append(all, g...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return all
}()

// Fingerprint identifies the rule set: every rule's ID, default severity
// and title. A caller that remembers verdicts (the build) keys them by it,
// so that a skillpack with other rules never reuses this one's verdicts,
// even between development builds that share a version string.
func Fingerprint() string { return fingerprint() }

// rulesRevision changes whenever a rule's verdicts change without its ID,
// severity or title changing, so that verdicts remembered by an older
// skillpack are not reused.
const rulesRevision = 5

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

// Suggest returns the rule IDs closest to a mistyped one, for error messages.
func Suggest(id string) string {
	best, bestD := "", 4
	for _, r := range registry {
		if d := editDistance(strings.ToLower(id), r.ID); d < bestD {
			best, bestD = r.ID, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance, used for did-you-mean hints.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
