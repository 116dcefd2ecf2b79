package lint

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/skillpack/skillpack/skill"
)

// registryRules look across all skills of a run, as a bundle will hold them.
var registryRules = []*Rule{
	{
		ID:       "name-duplicate",
		Title:    "Skill names are unique",
		Category: CatRegistry,
		Severity: Error,
		Explain: "A bundle serves each skill under its name, so two skills with one name would overwrite " +
			"each other in every index and URL. Rename one of them. A plugin scopes the names of its skills " +
			"(Claude Code, Codex and Cursor invoke the skill access of the plugin discord as /discord:access), " +
			"so names are compared within one plugin, and among the skills outside any plugin; a plugin is a " +
			"folder holding plugin.json, or .claude-plugin/, .codex-plugin/ or .cursor-plugin/plugin.json. " +
			"A SKILL.md that declares no name is reported by other rules and not compared here.",
		Bad:      "a/pdf-tools/SKILL.md and b/pdf-tools/SKILL.md, both name: pdf-tools",
		Good:     "a/pdf-tools/SKILL.md and b/pdf-forms/SKILL.md; or discord/skills/access/SKILL.md and telegram/skills/access/SKILL.md in two plugins",
		CheckAll: checkDuplicateNames,
	},
	{
		ID:       "skill-nested",
		Title:    "No skill inside another skill's folder",
		Category: CatRegistry,
		Severity: Warning,
		Explain: "A skill folder inside another skill's folder is packed into the outer skill's archive as " +
			"well as published on its own, and clients that install the outer skill get a stray SKILL.md. " +
			"Move the inner skill next to the outer one.",
		Bad:      "pdf-tools/SKILL.md and pdf-tools/forms/SKILL.md",
		Good:     "pdf-tools/SKILL.md and pdf-forms/SKILL.md",
		CheckAll: checkNested,
	},
}

// SkillName is the name a skill is published under: its frontmatter name
// when that is a string, else its folder's name.
func SkillName(s *skill.Skill) string {
	if s.Doc != nil {
		if n, ok := s.Doc.String("name"); ok && n != "" {
			return n
		}
	}
	return s.Name()
}

func checkDuplicateNames(p *RegistryPass) {
	// A name is unique within its scope: one plugin, or all the skills
	// outside plugins. The plugin's folder is compared absolute, since
	// the paths of one run may mix forms.
	type scoped struct{ plugin, name string }
	byName := map[scoped][]int{}
	for i, s := range p.Skills {
		if !s.Declared {
			continue
		}
		k := scoped{name: s.Name}
		if s.Plugin != "" {
			k.plugin, _ = filepath.Abs(s.Plugin)
		}
		byName[k] = append(byName[k], i)
	}
	for k, group := range byName {
		if len(group) < 2 {
			continue
		}
		in := ""
		if k.plugin != "" {
			in = " in the plugin " + p.Rel(k.plugin)
		}
		for _, i := range group {
			s := &p.Skills[i]
			var others []string
			for _, j := range group {
				if j != i {
					others = append(others, p.Rel(p.Skills[j].Dir))
				}
			}
			p.Report(Finding{Path: p.Rel(s.EntryPath()), Line: s.Line, Column: s.Column,
				Message: fmt.Sprintf("skill name %q is also used by %s%s", k.name, strings.Join(others, ", "), in),
				Fix:     "rename one of the skills (folder and name together)"})
		}
	}
}

func checkNested(p *RegistryPass) {
	// A set of folders and a walk up from each skill keeps this linear in
	// the number of skills; comparing every pair costs seconds at 10,000.
	dirs := make(map[string]bool, len(p.Skills))
	abs := make([]string, len(p.Skills))
	for i, s := range p.Skills {
		abs[i], _ = filepath.Abs(s.Dir)
		dirs[abs[i]] = true
	}
	for i, s := range p.Skills {
		for dir := filepath.Dir(abs[i]); ; dir = filepath.Dir(dir) {
			if dirs[dir] {
				p.Report(Finding{Path: p.Rel(s.EntryPath()),
					Message: fmt.Sprintf("this skill is inside the skill folder %s, whose archive will contain it too", p.Rel(dir)),
					Fix:     "move the folder next to " + p.Rel(dir)})
				break
			}
			if parent := filepath.Dir(dir); parent == dir {
				break
			}
		}
	}
}
