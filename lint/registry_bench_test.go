package lint

import (
	"fmt"
	"testing"
	"time"

	"github.com/skillpack/skillpack/skill"
)

// BenchmarkRegistryRules measures the rules across skills, which run on
// every build even when every skill's own verdict is reused, at 10,000
// skills against a baseline of 1,000 in the same run. A per-skill cost
// ratio near 1 means linear; a pairwise check shows as about 10.
func BenchmarkRegistryRules(b *testing.B) {
	tree := func(n int) []*skill.Skill {
		var skills []*skill.Skill
		for i := range n {
			// Each declares its name, so that the duplicate check groups
			// them, as it does for real skills.
			doc := skill.Parse(fmt.Appendf(nil, "---\nname: skill-%05d\ndescription: d\n---\nbody\n", i))
			skills = append(skills, &skill.Skill{Dir: fmt.Sprintf("/tree/group-%02d/skill-%05d", i%50, i), File: skill.FileName, Doc: doc})
		}
		return skills
	}
	run := func(skills []*skill.Skill) time.Duration {
		start := time.Now()
		named := make([]Named, len(skills))
		for i, s := range skills {
			named[i] = NameOf(s)
		}
		if fs := CheckAcross(named, nil, nil, nil, Options{Base: "/tree"}); len(fs) != 0 {
			b.Fatalf("%d findings on a tree with no nested or duplicate skills", len(fs))
		}
		return time.Since(start)
	}
	small, large := tree(1000), tree(10000)
	var base, big time.Duration
	for b.Loop() {
		base += run(small)
		big += run(large)
	}
	b.ReportMetric(float64(big)/float64(base)/10, "per-skill-cost-10k/1k")
}
