package build

import (
	"path/filepath"

	"github.com/skillpack/skillpack/skill"
)

func (b *builder) discover() (string, error) {
	seen := map[string]bool{}
	for _, root := range b.roots {
		found, err := skill.Find(root)
		if err != nil {
			return "", err
		}
		for _, s := range found {
			abs, _ := filepath.Abs(s.Dir)
			if !seen[abs] {
				seen[abs] = true
				b.skills = append(b.skills, s)
			}
		}
	}
	if len(b.skills) == 0 {
		return "", &NoSkillsError{Roots: b.roots}
	}
	b.logf("• discover: %s", plural(len(b.skills), "skill", "skills"))
	return "", nil
}
