package lint

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
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
		for _, f := range CheckAcross(named, nil, nil, nil, Options{Base: "/p", All: true}) {
			if f.Rule == "installed-folder" {
				t.Errorf("%s: %s: %s", name, f.Path, f.Message)
			}
		}
	}
}

// installed-folder's fix names the folder as skillpack.yaml's ignore:
// takes it, relative to the file's folder: lint run from a subfolder
// gave "../.claude/skills/", which the file refuses.
func TestInstalledFolderFix(t *testing.T) {
	var named []Named
	for _, d := range []string{"/p/skills/a", "/p/.claude/skills/b"} {
		named = append(named, NameOf(&skill.Skill{Dir: d, File: skill.FileName}))
	}
	for cfg, want := range map[string]string{
		"":                  "add .claude/skills/ to ignore: in ../skillpack.yaml, or remove the folder",
		"/p/skillpack.yaml": "add .claude/skills/ to ignore: in ../skillpack.yaml, or remove the folder",
	} {
		var fixes []string
		for _, f := range CheckAcross(named, nil, nil, nil, Options{Base: "/p/sub", Settings: Settings{File: cfg}, All: true}) {
			if f.Rule == "installed-folder" {
				fixes = append(fixes, f.Fix)
			}
		}
		if len(fixes) != 1 || fixes[0] != want {
			t.Errorf("config %q: fixes %q, want %q", cfg, fixes, want)
		}
	}
	// Without --all the scope chose these skills (beside a collection's
	// folders, what clients read first): the rule that told the user to
	// ignore the folder the same run published contradicted it.
	for _, f := range CheckAcross(named, nil, nil, nil, Options{Base: "/p"}) {
		if f.Rule == "installed-folder" {
			t.Errorf("without --all: %s", f.Message)
		}
	}
}

// Each plugin's command writes a folder of its own, and a plugin that
// holds another leaves it out: following every command builds each
// plugin once (KingInYellows/yellow-plugins keeps each plugin's Codex
// skills in its codex/ folder, under a manifest of their own).
func TestPluginBuild(t *testing.T) {
	root := t.TempDir()
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	all := []string{p("plugins/alpha"), p("plugins/alpha/codex"), p("plugins/beta"), p("plugins/beta/codex"), p("vendor/alpha"), ""}
	for plugin, want := range map[string]string{
		"plugins/alpha":       "skillpack build A --ignore codex/ -o dist-plugins-alpha",
		"plugins/alpha/codex": "skillpack build A -o dist-alpha-codex",
		"plugins/beta":        "skillpack build A --ignore codex/ -o dist-beta",
		"vendor/alpha":        "skillpack build A -o dist-vendor-alpha",
	} {
		if got := PluginBuild(p(plugin), "A", all, "dist"); got != filepath.FromSlash(want) {
			t.Errorf("%s: %q, want %q", plugin, got, want)
		}
	}
	if got := PluginBuild(p("plugins/beta"), "B", []string{p("plugins/beta"), p("plugins/gamma")}, "out"); got != filepath.FromSlash("skillpack build B -o out-beta") {
		t.Errorf("two plugins apart: %q", got)
	}
}

// The note on install folders left out names five of them, and says how
// many more; -v (Scope.Verbose) names each (a mirror repository had 1,708
// skills in such folders: one line of 24,952 characters).
func TestInstalledNote(t *testing.T) {
	found := []*skill.Skill{{Dir: "/p/skills/main", File: skill.FileName}}
	for i := range 7 {
		found = append(found, &skill.Skill{Dir: fmt.Sprintf("/p/vendor/p%d/.claude/skills/s", i), File: skill.FileName})
	}
	for _, verbose := range []bool{false, true} {
		kept, notes := Scope{Verbose: verbose}.installed("/p", found)
		if len(kept) != 1 || len(notes) != 1 {
			t.Fatalf("verbose %v: kept %d, notes %q", verbose, len(kept), notes)
		}
		named := strings.Count(notes[0], ".claude/skills/s")
		if more := strings.Contains(notes[0], "and 2 more (-v"); verbose == more || named != map[bool]int{false: 5, true: 7}[verbose] {
			t.Errorf("verbose %v: %s", verbose, notes[0])
		}
	}
}

// Skills in install folders are taken when the only others are in hidden
// folders no client searches (an archive of retired copies): those are
// left out, with a note naming their folder.
func TestInstalledOverHidden(t *testing.T) {
	found := []*skill.Skill{
		{Dir: "/p/.claude/skills/deploy", File: skill.FileName},
		{Dir: "/p/.claude/skills/review", File: skill.FileName},
		{Dir: "/p/.tool/archive/skills/v1/deploy", File: skill.FileName},
		{Dir: "/p/.tool/archive/skills/v2/deploy", File: skill.FileName},
	}
	kept, notes := Scope{}.installed("/p", found)
	if len(kept) != 2 || kept[0].Dir != "/p/.claude/skills/deploy" || len(notes) != 1 || !strings.Contains(notes[0], "where no client looks (in hidden folders") || !strings.Contains(notes[0], "2 in /p/.tool") {
		t.Errorf("kept %d (%v), notes %q; want the install folder's 2 and a note on 2 in .tool", len(kept), kept, notes)
	}
	// One skill in a visible folder: the install folders are left out, as
	// before, and the hidden ones kept.
	kept, _ = Scope{}.installed("/p", append(found, &skill.Skill{Dir: "/p/skills/main", File: skill.FileName}))
	if len(kept) != 3 {
		t.Errorf("with a visible skill: kept %d, want the visible and the 2 hidden", len(kept))
	}
	// Nor does any client look deeper than the top-level folders, outside
	// skills/, when an install folder has skills (Arize-ai/phoenix: an
	// app's own prompts in src/; oodercn/skills: an SDK's example).
	deep := []*skill.Skill{
		{Dir: "/p/.agents/skills/dev", File: skill.FileName},
		{Dir: "/p/src/app/prompts/skills/debug", File: skill.FileName},
		{Dir: "/p/docs/phoenix", File: "skill.md"}, // a docs site's page
		{Dir: "/p/skills/_drivers/sdk/examples", File: skill.FileName},
	}
	kept, notes = Scope{}.installed("/p", deep)
	if len(kept) != 1 || kept[0].Dir != "/p/.agents/skills/dev" || len(notes) != 1 || !strings.Contains(notes[0], "/p/docs/phoenix, /p/skills/_drivers/sdk/examples, /p/src/app/prompts/skills/debug") {
		t.Errorf("kept %v, notes %q; want the install folder's and a note naming the three", kept, notes)
	}
	// A top-level folder's skill is published; a collection's (misc/<name>)
	// is too, but not alone: the install folder's own skills come with it.
	for top, want := range map[string]int{"/p/review": 4, "/p/misc/review": 5} {
		kept, _ = Scope{}.installed("/p", append(slices.Clone(deep), &skill.Skill{Dir: top, File: skill.FileName}))
		if len(kept) != want {
			t.Errorf("with %s: kept %d, want %d", top, len(kept), want)
		}
	}
}

// A repository whose only visible skills are a collection's category/name
// folders (cahyo40/agent: 11 workflows/<name>, 272 in .agent/skills)
// publishes its install folder's skills too, as a client looks there
// first; those named like a collection's skill, with its SKILL.md, stay
// out as copies. One of another SKILL.md is another version, taken, and
// its name's clash reported (tangledgroup/tangled-skills: the newer
// .agents/skills/webfetch was left out as a copy of misc/webfetch).
func TestInstalledBesideCollection(t *testing.T) {
	p := t.TempDir()
	md := func(v string) string { return "---\nname: x\ndescription: " + v + "\n---\n" }
	testtool.WriteTree(t, p, map[string]string{
		"workflows/flutter/SKILL.md": md("one"), ".agent/skills/flutter/SKILL.md": md("one"),
		"workflows/go/SKILL.md": md("old"), ".agent/skills/go/SKILL.md": md("new"),
		".agent/skills/rust/SKILL.md": md("rust"),
	})
	var found []*skill.Skill
	for _, d := range []string{"workflows/flutter", ".agent/skills/flutter", "workflows/go", ".agent/skills/go", ".agent/skills/rust"} {
		found = append(found, &skill.Skill{Dir: filepath.Join(p, d), File: skill.FileName})
	}
	kept, notes := Scope{}.installed(p, found)
	var dirs []string
	for _, s := range kept {
		dirs = append(dirs, strings.TrimPrefix(filepath.ToSlash(s.Dir), filepath.ToSlash(p)+"/"))
	}
	if !slices.Equal(dirs, []string{"workflows/flutter", "workflows/go", ".agent/skills/go", ".agent/skills/rust"}) ||
		len(notes) != 1 || !strings.Contains(notes[0], "taking the 2 skills of clients' install folders") || !strings.Contains(notes[0], "left out 1 there named like a skill taken") {
		t.Errorf("kept %v, notes %q; want the workflows, the other go and rust, with a note", dirs, notes)
	}
	// skills/<category>/<name> is where clients look, and published
	// (HoangNguyen0403/agent-skills-standard: 208 such, 23 installs).
	cats := []*skill.Skill{
		{Dir: "/p/skills/flutter/bloc", File: skill.FileName},
		{Dir: "/p/skills/go/db", File: skill.FileName},
		{Dir: "/p/.claude/skills/tdd", File: skill.FileName},
	}
	if kept, _ := (Scope{}).installed("/p", cats); len(kept) != 2 || kept[0] != cats[0] || kept[1] != cats[1] {
		t.Errorf("skills/<category>/<name>: kept %d, want the 2 of skills/", len(kept))
	}
	// One skill in skills/ is what the repository publishes: the install
	// folder stays out.
	kept, _ = Scope{}.installed(p, append(slices.Clone(found), &skill.Skill{Dir: filepath.Join(p, "skills/go"), File: skill.FileName}))
	if len(kept) != 3 {
		t.Errorf("with skills/go: kept %d, want the workflows and skills/go", len(kept))
	}
}

// Of the install folders, those at the top are taken when there are any:
// a sub-project's (google-gemini/gemini-cli's tools/bot/.gemini/skills) is
// its own, whether the other skills are where no client looks or none.
func TestInstalledAtTop(t *testing.T) {
	found := []*skill.Skill{
		{Dir: "/p/.gemini/skills/docs-writer", File: skill.FileName},
		{Dir: "/p/tools/bot/.gemini/skills/triage", File: skill.FileName},
		{Dir: "/p/tools/a/b/worker/.gemini/skills/code_explorer", File: skill.FileName},
	}
	withUnseen := append(slices.Clone(found), &skill.Skill{Dir: "/p/packages/sdk/test-data/skills/pirate", File: skill.FileName})
	for _, tree := range [][]*skill.Skill{found, withUnseen} {
		kept, notes := Scope{}.installed("/p", tree)
		said := slices.ContainsFunc(notes, func(n string) bool {
			return strings.Contains(n, "left out 2 skills in sub-projects' install folders") && strings.Contains(n, "/p/tools/bot/.gemini/skills/triage")
		})
		if len(kept) != 1 || kept[0].Dir != "/p/.gemini/skills/docs-writer" || !said {
			t.Errorf("%d skills: kept %v, notes %q; want the top's one and a note on the sub-projects' 2", len(tree), kept, notes)
		}
	}
	// A plugin manifest's folder is no install folder (davila7's
	// .claude-plugin/skills, which no client installs from): the skills
	// elsewhere are not left out for it.
	plugin := []*skill.Skill{
		{Dir: "/p/.claude-plugin/skills/owasp", File: skill.FileName},
		{Dir: "/p/cli-tool/components/skills/dev/a", File: skill.FileName},
		{Dir: "/p/cli-tool/components/skills/dev/b", File: skill.FileName},
	}
	if kept, notes := (Scope{}).installed("/p", plugin); len(kept) != 3 || len(notes) != 0 {
		t.Errorf(".claude-plugin/skills: kept %d, notes %q; want all 3", len(kept), notes)
	}
	// No install folder at the top: every one's skills, as before.
	kept, notes := Scope{}.installed("/p", found[1:])
	if len(kept) != 2 || len(notes) != 0 {
		t.Errorf("sub-projects' only: kept %v, notes %q; want both", kept, notes)
	}
	// Many sub-projects (IntentArchitect/Intent.Modules.NET: 195 test
	// projects' .agents/skills): the note names 5 unless -v.
	many := slices.Clone(found[:1])
	for i := range 7 {
		many = append(many, &skill.Skill{Dir: fmt.Sprintf("/p/tests/t%d/.agents/skills/crud", i), File: skill.FileName})
	}
	for _, verbose := range []bool{false, true} {
		_, notes := Scope{Verbose: verbose}.installed("/p", many)
		if len(notes) != 1 || strings.Count(notes[0], "/.agents/skills/crud") != map[bool]int{false: 5, true: 7}[verbose] || strings.Contains(notes[0], "and 2 more (-v") == verbose {
			t.Errorf("verbose %v: notes %q", verbose, notes)
		}
	}
}

// A plugin whose manifest names a skill linked from outside its folder
// (mrgoonie/claudekit-skills: skills/x -> ../../../.claude/skills/x) gets
// one plugin-skills finding, at the skill, saying it is a link.
func TestPluginSkillLinkedOut(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("shared/pdf/SKILL.md", "---\nname: pdf\ndescription: Fill PDF forms when the user works with PDF files.\n---\n# PDF\n")
	write("plug/.claude-plugin/plugin.json", `{"name": "plug", "skills": ["./skills/pdf"]}`)
	if err := os.Mkdir(filepath.Join(root, "plug", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../shared/pdf", filepath.Join(root, "plug", "skills", "pdf")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	var got []Finding
	for _, f := range lintDir(t, root, Options{}).Findings {
		if f.Rule == "plugin-skills" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || !strings.HasSuffix(filepath.ToSlash(got[0].Path), "plug/skills/pdf/SKILL.md") || !strings.Contains(got[0].Message, "by a symbolic link") {
		t.Errorf("plugin-skills findings %+v; want one at plug/skills/pdf/SKILL.md naming the link", got)
	}
}

// A plugin whose marketplace entry names its skills deeper in skills/
// (skills/<group>/<name>, naoto24kawa/claude-plugins) is not told that
// skills/ holds no skill: the clients find them where the entry says.
func TestPluginSkillsGrouped(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "plug", "source": "./plug", "skills": ["./skills/docs/pdf"]}]}`,
		"plug/.claude-plugin/plugin.json": `{"name": "plug"}`,
		"plug/skills/docs/pdf/SKILL.md":   "---\nname: pdf\ndescription: Fill PDF forms when the user works with PDF files.\n---\n# PDF\n",
	})
	res := lintDir(t, root, Options{})
	if len(res.Skills) != 1 {
		t.Fatalf("%d skills linted, want the one the entry names", len(res.Skills))
	}
	for _, f := range res.Findings {
		if f.Rule == "plugin-skills" {
			t.Errorf("%s: %s", f.Path, f.Message)
		}
	}
}

// A plugin at the top of the tree is named as that, not as "the plugin ."
// (Tyler-R-Kendrick/agent-skills, a marketplace of the repository's own
// folder).
func TestDuplicateNameRootPlugin(t *testing.T) {
	root := t.TempDir()
	md := "---\nname: a2a\ndescription: Talk to other agents over the A2A protocol, for the user.\n---\n# x\n"
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/plugin.json": `{"name": "agent-skills"}`,
		"skills/a2a/SKILL.md":        md,
		"skills/dotnet/a2a/SKILL.md": md + "other\n",
	})
	n := 0
	for _, f := range lintDir(t, root, Options{Base: root}).Findings {
		if f.Rule != "name-duplicate" {
			continue
		}
		n++
		if !strings.HasSuffix(f.Message, " in the plugin of the top folder") {
			t.Errorf("%s: %s", f.Path, f.Message)
		}
	}
	if n != 2 {
		t.Errorf("%d name-duplicate findings, want 2", n)
	}
}

// The --ignore a fix offers leaves out that folder and no other: a
// one-part path anchored (2C2P/agent-skills: skills/ left out a plugin's
// skills/ too), none for the top folder, which no pattern leaves out
// (pbakaus/impeccable: "--ignore ./ this one" changed nothing), and
// relative to the folder given, not the working one (Geralt1983/Thanos
// linted from its parent: the pattern offered matched nothing).
func TestIgnoreFlagFix(t *testing.T) {
	for dir, want := range map[string]string{"skills": "--ignore /skills/", "./plugin": "--ignore /plugin/", "a/b": "--ignore a/b/", ".": "",
		"repo/a/b": "--ignore a/b/", "repo/x": "--ignore /x/", "repo": "", "repo/in/x": "--ignore /x/", "other/x": "--ignore other/x/"} {
		if got := IgnoreFlag([]string{".", "repo", "./repo/in"}, dir); got != want {
			t.Errorf("IgnoreFlag(%q) = %q, want %q", dir, got, want)
		}
	}
	root := t.TempDir()
	md := "---\nname: %s\ndescription: Design better interfaces, for the user who asks.\n---\n# x\n"
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/plugin.json":        `{"name": "impeccable"}`,
		"skills/impeccable/SKILL.md":        fmt.Sprintf(md, "impeccable"),
		"plugin/.claude-plugin/plugin.json": `{"name": "impeccable"}`,
		"plugin/skills/polish/SKILL.md":     fmt.Sprintf(md, "polish"),
	})
	for _, base := range []string{root, filepath.Dir(root)} { // linted from the folder, and from its parent
		var fixes []string
		for _, f := range lintDir(t, root, Options{Base: base}).Findings {
			if f.Rule == "plugin-name-duplicate" {
				fixes = append(fixes, f.Message+" / "+f.Fix)
			}
		}
		if len(fixes) != 2 {
			t.Fatalf("plugin-name-duplicate: %q, want 2", fixes)
		}
		for _, f := range fixes {
			if !strings.Contains(f, "--ignore /plugin/") || strings.Contains(f, "--ignore ./") || strings.Contains(f, ",  this one") || strings.Contains(f, "name of .") {
				t.Errorf("%s", f)
			}
		}
	}
}

// A manifest that only points into a plugin of its name inside its folder
// is that plugin reached another way (microsoft/devsquad-copilot: the
// root's, for an install from the repository, beside the marketplace's
// plugin): one plugin, no duplicate. A root manifest with skills of its
// own is a second plugin still.
func TestPluginReachedTwice(t *testing.T) {
	md := "---\nname: %s\ndescription: Plan the work for the user. Use when asked to plan.\n---\nBody.\n"
	tree := map[string]string{
		".github/plugin/plugin.json":                          `{"name": "devsquad", "skills": [".github/plugins/devsquad/skills/"]}`,
		".github/plugin/marketplace.json":                     `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "devsquad", "source": "./.github/plugins/devsquad"}]}`,
		".github/plugins/devsquad/.github/plugin/plugin.json": `{"name": "devsquad", "skills": ["skills/"]}`,
		".github/plugins/devsquad/skills/plan/SKILL.md":       fmt.Sprintf(md, "plan"),
	}
	for _, own := range []bool{false, true} {
		root := t.TempDir()
		testtool.WriteTree(t, root, tree)
		if own {
			testtool.WriteTree(t, root, map[string]string{"skills/review/SKILL.md": fmt.Sprintf(md, "review")})
		}
		res := lintDir(t, root, Options{Base: root})
		dup := slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Rule == "plugin-name-duplicate" })
		once := slices.ContainsFunc(res.Notes, func(n string) bool {
			return strings.HasPrefix(n, "plugin devsquad (.) is the plugin at .github/plugins/devsquad") && strings.HasSuffix(n, "published once, from .github/plugins/devsquad")
		})
		if dup != own || once == own {
			t.Errorf("root manifest with skills of its own %v: plugin-name-duplicate %v, noted as one plugin %v\n%q", own, dup, once, res.Notes)
		}
	}
}

// A skill inside the top folder's skill, which a plugin of that folder
// declares (GQAdonis/artifact-refiner-skill): skill-nested's fix is no
// "move the folder next to .", which would leave the repository.
func TestNestedInTopSkill(t *testing.T) {
	dir := t.TempDir()
	md := "---\nname: %s\ndescription: Refine artifacts for the user. Use when asked to refine one.\n---\nBody.\n"
	testtool.WriteTree(t, dir, map[string]string{
		"SKILL.md":                        fmt.Sprintf(md, "top"),
		".claude-plugin/plugin.json":      `{"name": "top"}`,
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "top", "source": "./"}]}`,
		"skills/a/SKILL.md":               fmt.Sprintf(md, "a"),
	})
	t.Chdir(dir)
	res, err := Run([]string{"."}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var fixes []string
	for _, f := range res.Findings {
		if f.Rule == "skill-nested" {
			fixes = append(fixes, f.Fix)
		}
	}
	if len(fixes) != 1 || !strings.HasPrefix(fixes[0], "move the top SKILL.md into a folder of its own") {
		t.Errorf("skill-nested's fixes %q, want one that moves the top SKILL.md", fixes)
	}
}

// Each copy of a name in many plugins draws its own finding, naming three
// of the others and counting the rest (claude-for-legal-br's twelve
// copies of one name made 37 KB of findings).
func TestBundleClashNamesThree(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{}
	for i := range 5 {
		tree[fmt.Sprintf("p%d/.claude-plugin/plugin.json", i)] = fmt.Sprintf(`{"name": "p%d"}`, i)
		tree[fmt.Sprintf("p%d/skills/customize/SKILL.md", i)] = fmt.Sprintf("---\nname: customize\ndescription: Set up plugin %d for the user, step by step.\n---\n# x\n", i)
	}
	testtool.WriteTree(t, root, tree)
	n := 0
	for _, f := range lintDir(t, root, Options{Base: root}).Findings {
		if f.Rule != "name-bundle-clash" {
			continue
		}
		n++
		if strings.Count(f.Message, "/skills/customize") != 3 || !strings.Contains(f.Message, ", and 1 more, ") || !strings.HasSuffix(f.Message, "cannot publish more than one") {
			t.Errorf("%s: %s", f.Path, f.Message)
		}
	}
	if n != 5 {
		t.Errorf("%d findings, want one a copy, 5", n)
	}
}

// Each of n skills of one name names up to 5 others, not all of them:
// the output grew with n² (4,331-character lines, 1.9 MB of a 4 MB run on
// thedixitjain/the-mega-skill-library).
func TestDuplicateNamesShort(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("c%d/pdf/SKILL.md", i)] = fmt.Sprintf("---\nname: pdf\ndescription: Fills PDF forms, version %d. Use when asked to fill a PDF form.\n---\n# PDF\n", i)
	}
	testtool.WriteTree(t, dir, files)
	res, err := Run([]string{dir}, Options{Base: dir, All: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range res.Findings {
		if f.Rule == "name-duplicate" {
			n++
			if !strings.HasSuffix(f.Message, "and 2 more") {
				t.Errorf("%s: %s", f.Path, f.Message)
			}
		}
	}
	if n != 8 {
		t.Errorf("%d name-duplicate findings, want 8", n)
	}
}

// The others a name-duplicate names, and the copy its fix leaves out,
// do not depend on the order the skills came in: a walk's (by folder) and
// a hook's files (by path, where "x-plus/" sorts before "x/") gave each
// finding another message (kazuyaegusa/claude-skills).
func TestDuplicateNameOrder(t *testing.T) {
	root := t.TempDir()
	md := "---\nname: costs\ndescription: Cut cloud costs when the user asks how to spend less.\n---\n# x\n"
	dirs := []string{"x", "x-plus", "x-plus-skills"}
	tree := map[string]string{}
	for i, d := range dirs {
		tree[d+"/SKILL.md"] = md + strings.Repeat("more\n", i)
	}
	testtool.WriteTree(t, root, tree)
	t.Chdir(root) // as a hook runs
	said := func(paths []string) map[string]string {
		res, err := Run(paths, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range res.Findings {
			if f.Rule == "name-duplicate" {
				out[f.Path] = f.Message + " / " + f.Fix
			}
		}
		return out
	}
	var files []string
	for _, d := range slices.Backward(dirs) {
		files = append(files, d+"/SKILL.md")
	}
	walked, given := said([]string{"."}), said(files)
	if len(walked) != 3 || !maps.Equal(walked, given) {
		t.Errorf("a walk said\n%v\nthe files in another order\n%v", walked, given)
	}
}

// A copy of a listed plugin's manifest at the top, whose skills paths name
// nothing there, is that plugin reached again, not a second plugin of its
// name (GRCEngClub/claude-grc-engineering's root trust-center): the clash
// left both out of the bundle.
func TestPluginManifestCopy(t *testing.T) {
	md := "---\nname: tc\ndescription: Run the trust center for the user. Use when asked to.\n---\nBody.\n"
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/plugin.json":            `{"name": "tc", "skills": ["skills/tc/SKILL.md"]}`,
		".claude-plugin/marketplace.json":       `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "tc", "source": "./plugins/tc"}]}`,
		"plugins/tc/.claude-plugin/plugin.json": `{"name": "tc"}`,
		"plugins/tc/skills/tc/SKILL.md":         md,
	})
	res := lintDir(t, root, Options{Base: root})
	if len(res.Plugins) != 1 || filepath.Base(res.Plugins[0].Dir) != "tc" {
		t.Errorf("plugins %v, want plugins/tc alone", res.Plugins)
	}
	for _, f := range res.Findings {
		t.Errorf("%s: %s [%s]", f.Path, f.Message, f.Rule)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "plugin tc (.) is the plugin at plugins/tc, reached again")
	}) {
		t.Errorf("notes %q", res.Notes)
	}
}
