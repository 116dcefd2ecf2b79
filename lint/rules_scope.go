package lint

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/skill"
)

// scopeRules judge what discovery met where skills would be, outside any
// skill: Run reports them from what Scope found (RunPass.Broken).
var scopeRules = []*Rule{
	{
		ID:       "skill-dangling",
		Title:    "Nothing where a skill would be is a link leading nowhere or out of the folder given, or an empty folder",
		Severity: Warning,
		Explain: "A symbolic link in a skills/ folder (or a folder in it, skills/popular/), in a folder a manifest names for skills, or beside skill " +
			"folders (or such a folder itself) stands where a skill would be. When its target does not exist " +
			"(a git submodule not checked out, or a link to a folder on the machine of whoever made it, " +
			"/Users/...), no skill is there: no client installing from the repository finds one, and lint and " +
			"the build skip it. Check out the submodule (git submodule update --init), or copy the skill into " +
			"the repository, or link to it by a relative path inside the repository; or remove the link. A " +
			"manifest's skills path that is such a link is reported here, at the link, not at the manifest. " +
			"A link to a skill, or a folder of skills, out of the folder given is reported too: skillpack " +
			"follows no link to a folder (a loop would trap it, and a clone holds only the repository), so " +
			"those skills are left out; give that folder as well, or copy the skill in. " +
			"An empty folder there is reported too: git keeps no empty folder, so in a checkout it is a " +
			"submodule not checked out. More than three in one folder are one finding, at the folder.",
		Bad:      "skills/pdf -> /Users/me/.agents/skills/pdf",
		Good:     "skills/pdf/SKILL.md, the skill itself in the repository",
		CheckRun: checkDangling,
	},
}

// checkDangling reports each link, or more than three in one folder (a
// client's install folder of links to its author's home: corca-ai's held
// 39) as one finding at the folder.
func checkDangling(p *RunPass) {
	var dirs []string
	in := map[string][]skill.BrokenLink{}
	for _, b := range p.Broken {
		d := filepath.Dir(b.Path)
		if in[d] == nil {
			dirs = append(dirs, d)
		}
		in[d] = append(in[d], b)
	}
	for _, d := range dirs {
		bs := in[d]
		if len(bs) <= sameAtMost {
			for _, b := range bs {
				p.Reportf(b.Path, 0, 0, b.Fix, "%s", dangles(b))
			}
			continue
		}
		names := human.UpTo(len(bs), 3, func(i int) string { return filepath.Base(bs[i].Path) }, "and %d more")
		p.Reportf(d, 0, 0, "for each as for the first: "+bs[0].Fix, "%d entries here hold no skill (%s); the first is %s",
			len(bs), strings.Join(names, ", "), dangles(bs[0]))
	}
}

// dangling reports whether the path on disk is a link skill-dangling
// reports, which the rules that find a path naming nothing leave to it:
// one cause, one finding.
func (p *RunPass) dangling(disk string) bool {
	abs, _ := filepath.Abs(disk)
	return slices.ContainsFunc(p.Broken, func(b skill.BrokenLink) bool {
		at, _ := filepath.Abs(b.Path)
		return at == abs
	})
}
