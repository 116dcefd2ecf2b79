package lint

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/skill"
)

// registryRules look across all skills of a run, as a bundle will hold them.
var registryRules = []*Rule{
	{
		ID:       "name-duplicate",
		Title:    "Skill names are unique",
		Severity: Error,
		Explain: "A bundle serves each skill under its name, so two skills with one name would overwrite " +
			"each other in every index and URL. Rename one of them. A plugin scopes the names of its skills " +
			"(Claude Code, Codex and Cursor invoke the skill access of the plugin discord as /discord:access), " +
			"so names are compared within one plugin, and among the skills outside any plugin; a plugin is a " +
			"folder holding plugin.json, or .claude-plugin/, .codex-plugin/ or .cursor-plugin/plugin.json. " +
			"A SKILL.md that declares no name is reported by other rules and not compared here, nor is a " +
			"mirror (skill-mirror), nor a skill inside another skill's folder whose name a skill outside " +
			"every skill's folder has: clients load that one, and the inner SKILL.md is a page of the skill " +
			"holding it (skill-nested).",
		Bad:        "a/pdf-tools/SKILL.md and b/pdf-tools/SKILL.md, both name: pdf-tools",
		Good:       "a/pdf-tools/SKILL.md and b/pdf-forms/SKILL.md; or discord/skills/access/SKILL.md and telegram/skills/access/SKILL.md in two plugins",
		Supersedes: []string{"name-bundle-clash"}, // one cause: the name its scope has twice
		CheckRun:   checkDuplicateNames,
	},
	{
		ID:       "name-bundle-clash",
		Title:    "Skills of one name in different plugins are built as separate bundles",
		Severity: Error, // the build refuses the bundle: lint passing it let commits through that break the build
		Explain: "Plugins scope skill names, so access in the plugin discord and access in the plugin telegram " +
			"are two skills and name-duplicate lets them be. A bundle, though, has one namespace: its indexes " +
			"carry each skill under its name and clients install skills by name, so skillpack build refuses to " +
			"put both in one bundle (with --skip-invalid it leaves both out). Build each plugin into its own " +
			"bundle, or rename one of the skills. A skill whose name its own scope has twice is reported by " +
			"name-duplicate alone.",
		Bad:      "discord/skills/access/SKILL.md and telegram/skills/access/SKILL.md, built as one bundle",
		Good:     "skillpack build discord -o dist/discord; skillpack build telegram -o dist/telegram",
		CheckRun: checkBundleClash,
	},
	{
		ID:       "skill-nested",
		Title:    "No skill inside another skill's folder",
		Severity: Warning,
		Explain: "A skill folder inside another skill's folder is packed into the outer skill's archive as " +
			"well as published on its own, and clients that install the outer skill get a stray SKILL.md. " +
			"Move the inner skill next to the outer one; or, when it is a part of the outer skill (a page the " +
			"outer SKILL.md links to), rename its SKILL.md so that it is no skill of its own. Each inner skill " +
			"is reported once, against the nearest skill holding it. When a skill outside every skill's folder " +
			"has its name, the inner skill leaves the name to it: the bundle publishes the inner one only " +
			"inside the outer skill's archive. The scope takes an inner skill only with --all, or when a " +
			"manifest names its folder: no client loads one as a skill.",
		Bad:      "pdf-tools/SKILL.md and pdf-tools/forms/SKILL.md",
		Good:     "pdf-tools/SKILL.md and pdf-forms/SKILL.md",
		CheckRun: checkNested,
	},
	{
		ID:       "skill-mirror",
		Title:    "SKILL.md is no link to another skill's SKILL.md",
		Severity: Error,
		Explain: "A folder whose SKILL.md is a symbolic link to the SKILL.md of another skill of the tree is " +
			"that skill seen a second time, as a client's install folder often mirrors a repository's own " +
			"skills. It is reported once, here, and its name is not counted as a second use. The build cannot " +
			"publish it (its SKILL.md lies outside its folder), and would serve one skill twice if it could. " +
			"Remove the mirror, or leave its folder out with ignore: in skillpack.yaml.",
		Bad:        ".gemini/skills/pdf/SKILL.md -> ../../../skills/pdf/SKILL.md",
		Good:       "skills/pdf/SKILL.md, with .gemini/ under ignore: in skillpack.yaml",
		Supersedes: []string{"symlink-escape"},
		CheckRun:   checkMirrors,
	},
	{
		ID:       "installed-folder",
		Title:    "No client's install folder among the skills a repository publishes",
		Severity: Warning,
		Explain: "Clients load a project's skills from their own folders: .claude/skills (Claude Code, also " +
			"read by GitHub Copilot, Cursor and OpenCode), .agents/skills (Codex, Gemini CLI, GitHub Copilot, " +
			"Cursor, OpenCode, goose), .gemini/skills (Gemini CLI), .github/skills (GitHub Copilot), " +
			".cursor/skills and .codex/skills (Cursor), .opencode/skills (OpenCode), .windsurf/skills " +
			"(Windsurf), .goose/skills (goose). When a tree has skills of its own elsewhere too, such a folder " +
			"holds a client's copy, installed or mirrored from elsewhere, or the project's own working skills: " +
			"either way not what the repository publishes. Lint and the build leave such a folder out, and " +
			"say so; this rule speaks when --all takes it in, which would publish it too. Add the folder " +
			"to ignore: in skillpack.yaml, or remove it. A tree whose only skills are in such a folder is " +
			"linted as it is.",
		Bad:      "skills/pdf/SKILL.md and .gemini/skills/pdf/SKILL.md",
		Good:     "skills/pdf/SKILL.md, with .gemini/ under ignore: in skillpack.yaml",
		CheckRun: checkInstalled,
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

// byScope groups the skills that declare a name (mirrors aside, and the
// skills Shadowed leaves to their namesakes) by name and scope: name →
// plugin → skills, by folder, so that the findings name the others alike
// whether the skills came from a walk or from the files a hook passed. A
// name is unique within its scope, one plugin or all the skills outside
// plugins; the plugin's folder is compared absolute, since the paths of
// one run may mix forms.
func byScope(skills []Named) map[string]map[string][]int {
	shadowed := Shadowed(skills)
	scopes := map[string]map[string][]int{}
	for i, s := range skills {
		if !s.Declared || s.Mirror != "" || shadowed[i] != "" {
			continue
		}
		plugin := ""
		if s.Plugin != "" {
			plugin, _ = filepath.Abs(s.Plugin)
		}
		if scopes[s.Name] == nil {
			scopes[s.Name] = map[string][]int{}
		}
		scopes[s.Name][plugin] = append(scopes[s.Name][plugin], i)
	}
	for _, byPlugin := range scopes {
		for _, group := range byPlugin {
			slices.SortStableFunc(group, func(a, b int) int { return strings.Compare(skills[a].Dir, skills[b].Dir) })
		}
	}
	return scopes
}

// runNames is what a fix giving a skill its folder's name must not
// collide with: the names the run's skills declare (byScope), and how many
// skills the name fixes would give each folder's name (their name missing,
// or one no index carries: windyroad's wr-c4:generate and
// wr-wardley:generate, both in folders named generate, traded two
// name-format errors for a clash). Nil declared: a skill checked alone.
type runNames struct {
	declared map[string]map[string][]int
	fixes    map[string]int
}

func newRunNames(skills []Named) runNames {
	ns := runNames{declared: byScope(skills), fixes: map[string]int{}}
	for _, s := range skills {
		if s.fixed() {
			ns.fixes[filepath.Base(s.Dir)]++
		}
	}
	return ns
}

// fixed reports whether a name fix would give the skill its folder's name.
func (n Named) fixed() bool {
	return n.Mirror == "" && (!n.Declared || !validName(n.Name))
}

// taken reports whether giving the skill s the name name would collide
// with another skill's, declared or given by a fix.
func (ns runNames) taken(s Named, name string) bool {
	fixes := ns.fixes[name]
	if s.fixed() && filepath.Base(s.Dir) == name {
		fixes-- // s's own
	}
	return len(ns.declared[name]) > 0 || fixes > 0
}

// Nesting returns, for each of the skill folders dirs, the nearest other
// of them that holds it, absolute; "" when none does. A set of folders and
// a walk up from each keeps this linear in the number of skills; comparing
// every pair costs seconds at 10,000.
func Nesting(dirs []string) []string {
	if len(dirs) < 2 {
		// No other to hold it: CheckSkill's checks across skills see one
		// skill, and asking for the working folder costs two stats.
		return make([]string, len(dirs))
	}
	wd, _ := os.Getwd() // once: filepath.Abs asks the system each time
	abs := make([]string, len(dirs))
	set := make(map[string]bool, len(dirs))
	for i, d := range dirs {
		abs[i] = filepath.Clean(d)
		if !filepath.IsAbs(d) {
			abs[i] = filepath.Join(wd, d)
		}
		set[abs[i]] = true
	}
	in := make([]string, len(dirs))
	for i := range dirs {
		for dir := filepath.Dir(abs[i]); ; dir = filepath.Dir(dir) {
			if set[dir] {
				in[i] = dir
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return in
}

// Shadowed returns, for each skill, the folder of the skill it leaves its
// name to, or "" for none: a skill inside another skill's folder whose
// declared name a skill outside every skill's folder declares too. Clients
// load that one (Claude Code and the skills CLI load skills/other, not
// skills/parent/examples/other/SKILL.md), so the inner SKILL.md is a page
// of the skill holding it: it is no second use of the name, and the build
// publishes it only inside that skill's archive (skill-nested says so).
// So is a skill of a client's variant folder inside a plugin whose name a
// skill of the plugin itself declares (KingInYellows/yellow-plugins:
// yellow-ci/codex/skills/x, which the Codex manifest declares, beside
// yellow-ci/skills/x), or of a folder a client's own manifest names
// (skill.ClientCopy): that client's copy, which the plugin's archives hold.
func Shadowed(skills []Named) []string {
	out := make([]string, len(skills))
	dirs := make([]string, len(skills))
	for i, s := range skills {
		dirs[i] = s.Dir
	}
	in := Nesting(dirs)
	outer := map[string]string{} // a declared name → the first skill outside every skill that declares it
	for i, s := range skills {
		if in[i] == "" && s.Declared && s.Mirror == "" && outer[s.Name] == "" {
			outer[s.Name] = s.Dir
		}
	}
	variant := func(s Named) bool { return s.CopyOf != "" }
	var own map[[2]string]string // a plugin (absolute) and a name → its skill declaring it
	if slices.ContainsFunc(skills, variant) {
		own = map[[2]string]string{}
		for _, s := range skills {
			if s.Plugin != "" && s.Declared && s.Mirror == "" && !variant(s) {
				k := [2]string{absDir(s.Plugin), s.Name}
				own[k] = cmp.Or(own[k], s.Dir)
			}
		}
	}
	for i, s := range skills {
		switch {
		case !s.Declared || s.Mirror != "":
		case in[i] != "":
			out[i] = outer[s.Name]
		case variant(s):
			out[i] = own[[2]string{absDir(s.CopyOf), s.Name}]
		}
	}
	return out
}

// absDir is the folder dir, absolute.
func absDir(dir string) string {
	abs, _ := filepath.Abs(dir)
	return abs
}

// PluginBuild is the command that builds plugin (a folder, as found) into
// a bundle of its own beside out (out-NAME: inside out, the next build of
// out would replace it), the folder shown as shown. The bundle is
// named by the shortest tail of the folder's path that no other of plugins
// (the others built apart, "" for none) ends in, so that no two commands
// write one folder; each of plugins inside this one is left out
// (--ignore), since its skills are what clash with this one's.
func PluginBuild(plugin, shown string, plugins []string, out string) string {
	abs, _ := filepath.Abs(plugin)
	var others []string
	ignore := ""
	for _, o := range plugins {
		if o == "" {
			continue
		}
		if o, _ = filepath.Abs(o); o == abs || slices.Contains(others, o) {
			continue
		}
		others = append(others, o)
		if rel, err := filepath.Rel(abs, o); err == nil && filepath.IsLocal(rel) {
			ignore += " --ignore " + filepath.ToSlash(rel) + "/"
		}
	}
	tail := func(p string, k int) string {
		parts := strings.Split(filepath.ToSlash(p), "/")
		return strings.Join(parts[max(len(parts)-k, 0):], "-")
	}
	var name string
	for k := 1; ; k++ {
		name = tail(abs, k)
		if k > strings.Count(filepath.ToSlash(abs), "/") || !slices.ContainsFunc(others, func(o string) bool { return tail(o, k) == name }) {
			break
		}
	}
	return fmt.Sprintf("skillpack build %s%s -o %s", shown, ignore, filepath.Clean(out)+"-"+name)
}

// checkBundleClash reports declared names shared across plugin scopes,
// which name-duplicate leaves alone (within a scope it is an error there).
func checkBundleClash(p *RunPass) {
	for name, byPlugin := range byScope(p.Skills) {
		if len(byPlugin) < 2 {
			continue
		}
		for plugin, group := range byPlugin {
			var others []string
			where := "in another plugin"
			for other, g := range byPlugin {
				if other == plugin {
					continue
				}
				if other == "" {
					where = "outside any plugin"
				}
				for _, j := range g {
					others = append(others, p.Rel(p.Skills[j].Dir))
				}
			}
			switch {
			case plugin == "":
				where = "in a plugin"
			case where != "in another plugin" && len(byPlugin) > 2:
				where = "in another plugin or outside any"
			}
			sort.Strings(others)
			fix := "rename one of the skills (folder and name together)"
			if dir := p.Skills[group[0]].Carrier; dir != "" {
				var dirs []string // of the others, as their archives carry them
				for _, g := range byPlugin {
					dirs = append(dirs, p.Skills[g[0]].Carrier)
				}
				fix = fmt.Sprintf("build the plugin into its own bundle (%s), or rename one of the skills",
					PluginBuild(dir, p.Rel(dir), dirs, p.out))
			}
			// Three named a finding: each copy has its own, and twelve
			// copies naming eleven each made 37 KB of one list.
			named := human.Few(others, 3)
			both := "both"
			if len(others) > 1 {
				both = "more than one"
			}
			for _, i := range group {
				s := &p.Skills[i]
				p.Report(Finding{Path: p.Rel(s.EntryPath()), Line: s.Line, Column: s.Column, Fix: fix,
					Message: fmt.Sprintf("%q is also the name of %s, %s: plugins scope their skills' names, "+
						"but one bundle cannot publish %s", name, named, where, both)})
			}
		}
	}
}

func checkDuplicateNames(p *RunPass) {
	for name, byPlugin := range byScope(p.Skills) {
		for plugin, group := range byPlugin {
			if len(group) < 2 {
				continue
			}
			in := ""
			if plugin != "" {
				in = " in " + pluginAt(p.Rel(plugin))
			}
			for _, i := range group {
				s := &p.Skills[i]
				var others, files []string // others: folders, on disk; files: a folder named like the skill read as the skill itself
				for _, j := range group {
					if j != i {
						others, files = append(others, p.Skills[j].Dir), append(files, p.Rel(p.Skills[j].EntryPath()))
					}
				}
				// The folders themselves, not a placeholder: a stale copy
				// (an archive, an inbox) is left out with one flag.
				fix := fmt.Sprintf("rename one of the skills (folder and name together), or leave out the copy you do not publish: "+
					"%s leaves out that one, %s this one", p.Ignore(others[0]), p.Ignore(s.Dir))
				if len(others) > 1 || p.Ignore(s.Dir) == "" { // a root: no pattern leaves it out
					fix = fmt.Sprintf("rename all but one of the skills (folder and name together), or leave out each copy you do not publish "+
						"with --ignore, such as %s", p.Ignore(others[0]))
				}
				p.Report(Finding{Path: p.Rel(s.EntryPath()), Line: s.Line, Column: s.Column, Fix: fix,
					Message: fmt.Sprintf("skill name %q is also used by %s%s", name,
						human.Few(files, 5), in)})
			}
		}
	}
}

func checkNested(p *RunPass) {
	dirs := make([]string, len(p.Skills))
	for i, s := range p.Skills {
		dirs[i] = s.Dir
	}
	shadowed := Shadowed(p.Skills)
	for i, dir := range Nesting(dirs) {
		if dir == "" {
			continue
		}
		s := p.Skills[i]
		msg := fmt.Sprintf("this skill is inside the skill folder %s, whose archive will contain it too", p.Rel(dir))
		if shadowed[i] != "" {
			msg += fmt.Sprintf("; %s has its name, so the bundle publishes it only in that archive", p.Rel(shadowed[i]))
		}
		fix := "move the folder next to " + p.Rel(dir) + "; or, if it is a part of that skill, " +
			"rename its " + s.File + " (to README.md, say) so that it is no skill of its own"
		if p.Rel(dir) == "." || skill.IsRepoRoot(dir) || filepath.Base(dir) == "skills" {
			// The top folder's skill (GQAdonis/artifact-refiner-skill), or
			// skills/' own (a collection's overview): nothing is next to
			// it, and a .skillignore there would leave the skills out of
			// a plugin of the same folder too.
			outer := p.Rel(filepath.Join(dir, skill.FileName))
			if p.Rel(dir) == "." || skill.IsRepoRoot(dir) {
				outer = "the top " + skill.FileName
			}
			fix = "move " + outer + " into a folder of its own, so that its archives do not hold the other skills"
		}
		p.Report(Finding{Path: p.Rel(s.EntryPath()), Message: msg, Fix: fix})
	}
}

func checkMirrors(p *RunPass) {
	for _, s := range p.Skills {
		if s.Mirror == "" {
			continue
		}
		p.Report(Finding{Path: p.Rel(s.EntryPath()),
			Message: fmt.Sprintf("%s is a link to the SKILL.md of %s: this folder is that skill seen again, not a skill of its own", s.File, p.Rel(s.Mirror)),
			Fix:     "remove the folder, or add it to ignore: in skillpack.yaml"})
	}
}

// installFolders are the folders, as their last two names, where clients
// load a project's skills from, and the clients that do (from each
// client's documentation, Nov 2026).
var installFolders = map[[2]string]string{
	{".claude", "skills"}:   "Claude Code (and GitHub Copilot, Cursor, OpenCode)",
	{".agents", "skills"}:   "Codex, Gemini CLI, GitHub Copilot, Cursor, OpenCode and goose",
	{".gemini", "skills"}:   "Gemini CLI",
	{".github", "skills"}:   "GitHub Copilot",
	{".cursor", "skills"}:   "Cursor",
	{".codex", "skills"}:    "Cursor (for Codex compatibility)",
	{".opencode", "skills"}: "OpenCode",
	{".opencode", "skill"}:  "OpenCode",
	{".windsurf", "skills"}: "Windsurf",
	{".goose", "skills"}:    "goose",
}

// installFolder returns the nearest client's install folder above the
// absolute folder dir, and the clients that read it; "" when none is. A
// hidden folder's skills/ or skill/ folder of a client not in the table
// (.grok/skills, .kiro/skills) is one too, but not a plugin manifest's
// folder's (.claude-plugin/skills: no client installs there; davila7's
// one skill there left out its 894 others).
func installFolder(dir string) (folder, clients string) {
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		hidden, base := filepath.Base(parent), filepath.Base(dir)
		if c, ok := installFolders[[2]string{hidden, base}]; ok {
			return dir, c
		}
		if hiddenName(hidden) && !strings.HasSuffix(hidden, "-plugin") && (base == "skills" || base == "skill") {
			return dir, "the client that reads " + hidden
		}
		dir = parent
	}
}

func checkInstalled(p *RunPass) {
	// One finding a folder, not one a skill: the folder is the cause, and
	// a mirror of a few hundred skills would otherwise bury the rest.
	type folder struct {
		clients string
		skills  int
	}
	if !p.all {
		return // the scope left such folders out, or took them as what clients read first
	}
	inside := map[string]*folder{}
	outside := 0
	for _, s := range p.Skills {
		abs, _ := filepath.Abs(s.Dir)
		dir, clients := installFolder(abs)
		switch {
		case dir != "":
			if inside[dir] == nil {
				inside[dir] = &folder{clients: clients}
			}
			inside[dir].skills++
		case s.Mirror == "":
			outside++
		}
	}
	if outside == 0 {
		return // the tree's skills are all in such folders: they are its own
	}
	for dir, f := range inside {
		rel := p.Rel(dir)
		// skillpack.yaml's patterns are relative to its folder, not to
		// where lint runs: the file in effect, or one to make where lint
		// runs, or above it where it holds the client's folder, since the
		// file is looked for there and upward.
		cfg := filepath.Join(p.Base, "skillpack.yaml")
		for d := p.Base; !below(d, dir) && filepath.Dir(d) != d; d = filepath.Dir(d) {
			cfg = filepath.Join(filepath.Dir(d), "skillpack.yaml")
		}
		if p.Config != "" {
			cfg, _ = filepath.Abs(p.Config)
		}
		fix := fmt.Sprintf("add %s/ to ignore: in skillpack.yaml, or remove the folder", rel)
		if r, err := filepath.Rel(filepath.Dir(cfg), dir); err == nil && filepath.IsLocal(r) {
			fix = fmt.Sprintf("add %s/ to ignore: in %s, or remove the folder", filepath.ToSlash(r), p.Rel(cfg))
		}
		p.Report(Finding{Path: rel,
			Message: fmt.Sprintf("%s is a client's skill folder, read by %s; what it holds (%s) is a copy, "+
				"installed or mirrored from elsewhere, or the project's working skills, not skills this repository "+
				"publishes (%s elsewhere)", rel, f.clients, human.Plural(f.skills, "skill"), human.Plural(outside, "skill")),
			Fix: fix})
	}
}
