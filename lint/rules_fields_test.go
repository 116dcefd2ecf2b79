package lint

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/skill"
)

// name-mismatch offers the folder's name as the skill's only where it is
// a valid name: "set name: My_Skill" would trade the warning for a
// name-format error. A folder in no git checkout may be a copy of a
// repository that is the skill, which a clone's top would not be checked
// as: the fix says so; in a checkout it need not.
func TestNameMismatchFix(t *testing.T) {
	const copied = " (this folder is in no git checkout: a skill at the top of one, which whoever cloned it named, is not checked)"
	for _, checkout := range []bool{false, true} {
		for folder, want := range map[string]string{
			"My_Skill": `rename the folder to "my-skill"`,
			"pdf":      `rename the folder to "my-skill" or set name: pdf`,
			"1":        `rename the folder to "my-skill" or set name: "1"`,
		} {
			root := t.TempDir()
			if checkout {
				testtool.WriteTree(t, root, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			} else {
				want += copied
			}
			dir := filepath.Join(root, "skills", folder)
			md := "---\nname: my-skill\ndescription: Process PDF forms and merge documents for the user.\n---\nBody.\n"
			testtool.WriteTree(t, dir, map[string]string{"SKILL.md": md})
			if fixes := mismatchFixes(t, dir); len(fixes) != 1 || fixes[0] != want {
				t.Errorf("folder %s (in a checkout: %t): fixes %q, want %q", folder, checkout, strings.Join(fixes, "; "), want)
			}
		}
	}
	// In a collection of skills, a copied tree's folders are not the
	// clone's top: the fix does not say so on each.
	root := t.TempDir()
	md := "---\nname: %s\ndescription: Process PDF forms and merge documents for the user.\n---\nBody.\n"
	testtool.WriteTree(t, root, map[string]string{"skills/pdf/SKILL.md": fmt.Sprintf(md, "my-skill"), "skills/xlsx/SKILL.md": fmt.Sprintf(md, "xlsx")})
	for _, fix := range mismatchFixes(t, root) {
		if strings.Contains(fix, "git checkout") {
			t.Errorf("a collection's name-mismatch fix: %q", fix)
		}
	}
	// Nor does the build's check of each skill alone: it says what lint
	// says (xiao0sun/Unity-Skills, a tree without .git), and it offers no
	// name, which it cannot know is free (82beye/my-skills' backup/card-v2
	// was told "set name: card-v2", skills/card-v2's name).
	s := skill.Load(filepath.Join(root, "skills", "pdf"))
	files, err := skill.Collect(s.Dir)
	must(t, err)
	_, fs := CheckSkill(s, files, nil, nil, Options{Base: root})
	for _, f := range fs {
		if f.Rule == "name-mismatch" && (strings.Contains(f.Fix, "git checkout") || strings.Contains(f.Fix, "set name")) {
			t.Errorf("the build's name-mismatch fix: %q", f.Fix)
		}
	}
}

// mismatchFixes lints dir and returns the fixes of its name-mismatch findings.
func mismatchFixes(t *testing.T, dir string) []string { return ruleFixes(t, dir, "name-mismatch") }

// ruleFixes lints dir and returns the fixes of its findings of rule.
func ruleFixes(t *testing.T, dir, rule string) []string {
	t.Helper()
	var fixes []string
	for _, f := range lintDir(t, dir, Options{}).Findings {
		if f.Rule == rule {
			fixes = append(fixes, f.Fix)
		}
	}
	return fixes
}

// name-mismatch does not offer the folder's name when another skill of the
// run has it: following the fix would trade the warning for two
// name-duplicate errors (or, in another plugin, a clash the build refuses).
func TestNameMismatchFixTaken(t *testing.T) {
	root := t.TempDir()
	write := func(rel, md string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	skillMD := func(name string) string {
		return "---\nname: " + name + "\ndescription: Lints code with the project's rules. Use when asked to lint code.\n---\nBody.\n"
	}
	write(".git/HEAD", "ref: refs/heads/main\n") // a checkout, whose skill folders' names are the author's
	write("go/lint/SKILL.md", skillMD("lint"))
	write("js/lint/SKILL.md", skillMD("lint-js"))
	write("py/pdf/SKILL.md", skillMD("pdf-py"))
	write("plug/.claude-plugin/plugin.json", `{"name": "plug"}`)
	write("plug/skills/pdf/SKILL.md", skillMD("pdf"))
	res, err := Run([]string{root}, Options{Base: root})
	if err != nil {
		t.Fatal(err)
	}
	fixes := map[string]string{}
	for _, f := range res.Findings {
		if f.Rule == "name-mismatch" {
			fixes[f.Path] = f.Fix
		}
	}
	want := map[string]string{
		"js/lint/SKILL.md": `rename the folder to "lint-js"`,
		"py/pdf/SKILL.md":  `rename the folder to "pdf-py"`,
	}
	if !maps.Equal(fixes, want) {
		t.Errorf("fixes %q, want %q", fixes, want)
	}
}

// unknown-key's fix names the clients that read a key the profile does not
// know, and the profile that knows it: under spec, disable-model-invocation
// (Claude Code's, Cursor's and OpenClaw's) is known to clients; under
// claude, OpenClaw's homepage is.
func TestUnknownKeyReaders(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{
		"a/SKILL.md": "---\nname: a\ndescription: Reviews pull requests when the user asks for a review.\n" +
			"disable-model-invocation: true\n---\nBody.\n",
		"b/SKILL.md": "---\nname: b\ndescription: Reviews pull requests when the user asks for a review.\n" +
			"homepage: https://example.com\nauthor: Jane\n---\nBody.\n",
		// A list moved under metadata as it is would be metadata-nested
		// (0999312/GodotPrompter's agent_tested_on).
		"c/SKILL.md": "---\nname: c\ndescription: Reviews pull requests when the user asks for a review.\n" +
			"tested_on:\n  - claude\n---\nBody.\n",
	})
	const list = "move it under metadata, a list or map written as one string (\"a, b\"), since metadata holds strings, or choose a profile that knows it"
	for _, c := range []struct {
		profile string
		want    map[string]string // path → fix
	}{
		{"clients", map[string]string{
			"b/SKILL.md": "move it under metadata, or choose a profile that knows it",
			"c/SKILL.md": list,
		}},
		{"spec", map[string]string{
			"a/SKILL.md": "it is read by Claude Code, Cursor and OpenClaw: set profile: clients in skillpack.yaml, which knows it",
			"b/SKILL.md": "move them under metadata, or choose a profile that knows them; profile clients knows homepage (OpenClaw)",
			"c/SKILL.md": list,
		}},
		{"claude", map[string]string{
			"b/SKILL.md": "move them under metadata, or choose a profile that knows them; profile clients knows homepage (OpenClaw)",
			"c/SKILL.md": list,
		}},
	} {
		p, err := LookupProfile(c.profile)
		must(t, err)
		res, err := Run([]string{dir}, Options{Settings: Settings{Profile: p}, Base: dir})
		must(t, err)
		got := map[string]string{}
		for _, f := range res.Findings {
			if f.Rule == "unknown-key" {
				got[f.Path] = f.Fix
			}
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("profile %s: fixes %q, want %q", c.profile, got, c.want)
		}
	}
}

// A SKILL.md right in a plugin's skills/ folder is told to move into a
// folder of its own, not to rename skills/ or take "skills" as its name
// (0gfoundation/0g-claude-marketplace).
func TestNameMismatchInSkillsFolder(t *testing.T) {
	root := t.TempDir()
	md := "---\nname: compute\ndescription: Process PDF forms and merge documents for the user.\n---\nBody.\n"
	testtool.WriteTree(t, root, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "plug/.claude-plugin/plugin.json": `{"name": "plug"}`, "plug/skills/SKILL.md": md})
	fixes := mismatchFixes(t, root)
	if want := "move the skill's files into a folder of its own, skills/compute/"; len(fixes) != 1 || fixes[0] != want {
		t.Errorf("fixes %q, want %q", fixes, want)
	}
}

// A name only too long is told to be shorter, not to use the letters it
// uses, and is offered a name cut where a word ends
// (HolobiomicsLab/asb-skill-collections was offered "…-ion-mobilit").
func TestNameFormatTooLong(t *testing.T) {
	const long = "extraction-parameter-optimization-ppm-retention-time-ion-mobility"
	for folder, want := range map[string]string{
		long:    "shorten it to 64 characters: name: extraction-parameter-optimization-ppm-retention-time-ion, and rename the folder to match",
		"My_Sk": "use lowercase letters, digits and single hyphens: name: my-sk, and rename the folder to match",
	} {
		name := long
		if folder != long {
			name = "My_Sk"
		}
		dir := t.TempDir()
		md := "---\nname: " + name + "\ndescription: Process PDF forms and merge documents for the user.\n---\nBody.\n"
		testtool.WriteTree(t, dir, map[string]string{folder + "/SKILL.md": md})
		got := ruleFixes(t, dir, "name-format")
		if len(got) != 1 || got[0] != want {
			t.Errorf("name %s: fixes %q, want %q", name, got, want)
		}
	}
}

// description-angle-brackets tells a placeholder from a comparison or an
// arrow (HolobiomicsLab's "p < 0.01": 137 of its 144 findings), and
// offers each its own rewording.
func TestDescriptionAnglesFix(t *testing.T) {
	for desc, want := range map[string]string{
		"Convert <input file> files to PDF for the user.":            "spell placeholders out",
		"Close the </b> tag in the user's HTML files please.":        "spell placeholders out",
		"Flag results with p < 0.01 and effect sizes > 0.5 for you.": "write comparisons and arrows in words",
		"Map stage A -> stage B when the user plans a pipeline.":     "write comparisons and arrows in words",
	} {
		dir := t.TempDir()
		testtool.WriteTree(t, dir, map[string]string{"s/SKILL.md": "---\nname: s\ndescription: " + desc + "\n---\nBody.\n"})
		got := ruleFixes(t, dir, "description-angle-brackets")
		if len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("%q: fixes %q, want one starting %q", desc, got, want)
		}
	}
}

// An unknown key beside the key it was meant to be is not offered that
// key's name, which would give the key twice (jieli-cqwl's Name: above
// name:): it is removed when it says the same, merged when not.
func TestUnknownKeyBesideKnown(t *testing.T) {
	for front, want := range map[string]string{
		"Name: s\nname: s\n": `remove it: name already says "s"`,
		"NAME: t\nname: s\n": "remove it, or move what it says into name: (a key given twice is no YAML)",
		"Nmae: s\n":          `did you mean "name"?`,
	} {
		dir := t.TempDir()
		testtool.WriteTree(t, dir, map[string]string{"s/SKILL.md": "---\n" + front + "description: Process PDF forms and merge documents for the user.\n---\nBody.\n"})
		got := ruleFixes(t, dir, "unknown-key")
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q: fixes %q, want %q", front, got, want)
		}
	}
}
