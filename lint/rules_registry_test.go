package lint

import (
	"testing"

	"github.com/skillpack/skillpack/skill"
)

// A tree whose skills all sit in client folders is a project's own skills
// (or a personal folder such as ~/.claude/skills): installed-folder says
// nothing there, and a mirror elsewhere is no skill of the tree's own.
func TestInstalledFolderAlone(t *testing.T) {
	for name, dirs := range map[string][]string{
		"client folders only": {"/p/.claude/skills/a", "/p/.claude/skills/b", "/p/.agents/skills/c"},
		"inside one":          {"/home/u/.claude/skills/repo/skills/a", "/home/u/.claude/skills/repo/skills/b"},
	} {
		var skills []*skill.Skill
		for _, d := range dirs {
			skills = append(skills, &skill.Skill{Dir: d, File: skill.FileName})
		}
		skills = append(skills, &skill.Skill{Dir: "/p/skills/a", File: skill.FileName, Mirror: "/p/.claude/skills/a"})
		var named []Named
		for _, s := range skills {
			named = append(named, NameOf(s))
		}
		for _, f := range CheckAcross(named, nil, nil, Options{Base: "/p"}) {
			if f.Rule == "installed-folder" {
				t.Errorf("%s: %s: %s", name, f.Path, f.Message)
			}
		}
	}
}
