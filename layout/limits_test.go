package layout

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// tooMany is a bundle of more skills than a reader takes; Plan must
// refuse it before reading one.
type tooMany struct{}

func (tooMany) Len() int { return MaxSkills + 1 }
func (tooMany) Skill(int) (Skill, error) {
	return Skill{}, errors.New("read a skill of a bundle over MaxSkills")
}

// Plan refuses what verify, pull and serve would refuse of a bundle as a
// whole, naming it and the limit: more than MaxSkills skills, and a
// document over MaxFile (here mcp/index.json, the first in path order of
// the documents that copy each skill's frontmatter: 65 skills of 1 MiB of
// metadata).
func TestPlanLimits(t *testing.T) {
	var le *LimitError
	_, err := Plan(tooMany{}, Options{})
	if !errors.As(err, &le) || !strings.Contains(err.Error(), fmt.Sprintf("the bundle has %d skills; verify and pull read no bundle of more than %d", MaxSkills+1, MaxSkills)) {
		t.Errorf("%d skills: %v", MaxSkills+1, err)
	}
	if CheckSkills(MaxSkills) != nil || CheckDocument(MCPSkills, MaxDocument) != nil {
		t.Error("a bundle at the limits is refused")
	}

	meta := strings.Repeat("x", 1<<20)
	var skills List
	for i := range 65 {
		name := fmt.Sprintf("s%02d", i)
		skills = append(skills, makeSkill(name, "A skill.", content{"SKILL.md": "---\nname: " + name + "\n---\n"}, `,"metadata":{"notes":"`+meta+`"}`))
	}
	_, err = Plan(skills, Options{})
	if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), MCPIndex+" would be ") || !strings.Contains(err.Error(), "read no document over 67108864 bytes (64 MiB)") {
		t.Errorf("an %s over MaxFile: %v", MCPIndex, err)
	}
}
