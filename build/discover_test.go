package build

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
)

// A vendor's shape: one skill shipped byte for byte in several providers'
// plugins, and a second shared by two; a skill of one name whose copies
// differ is still a clash. Identical copies are published once, from the
// first in path order, with a note saying so, whatever the jobs.
func TestIdenticalCopies(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	for _, p := range []string{"anthropic", "bedrock", "vertex"} {
		writeSkillFile(t, src, p, ".claude-plugin/plugin.json", `{"name": "`+p+`"}`)
		writeSkill(t, filepath.Join(src, p, "skills", "setup"), "setup", map[string]string{"scripts/run.sh": "echo run\n"})
	}
	for _, p := range []string{"anthropic", "vertex"} {
		writeSkill(t, filepath.Join(src, p, "skills", "deploy"), "deploy", nil)
	}
	var log strings.Builder
	for _, jobs := range []int{1, 3} {
		log.Reset()
		dist := filepath.Join(root, "dist")
		res := mustBuild(t, []string{src}, Options{Out: dist, Jobs: jobs, Log: &log})
		if got, want := indexNames(t, dist), []string{"deploy", "setup"}; !slices.Equal(got, want) {
			t.Errorf("jobs %d: index %q, want %q", jobs, got, want)
		}
		for _, s := range res.Skills {
			if want := filepath.Join(src, "anthropic", "skills", s.Name); s.Dir != want {
				t.Errorf("jobs %d: %s built from %s, want %s (the first in path order)", jobs, s.Name, s.Dir, want)
			}
		}
		for _, want := range []string{
			"• discover: 2 skills",
			"setup: 3 identical copies, published once, from " + rel(t, src, "anthropic/skills/setup") + " (the first in path order); not from " +
				rel(t, src, "bedrock/skills/setup") + ", " + rel(t, src, "vertex/skills/setup"),
			"deploy: 2 identical copies",
		} {
			if !strings.Contains(log.String(), want) {
				t.Errorf("jobs %d: the log does not say %q:\n%s", jobs, want, log.String())
			}
		}
		verified(t, dist)
	}

	// One byte, or one mode, makes another skill: a clash, refused with
	// both paths.
	writeSkillFile(t, src, "vertex/skills/setup", "scripts/run.sh", "echo Run\n")
	os.Chmod(filepath.Join(src, "bedrock", "skills", "setup", "scripts", "run.sh"), 0o755)
	_, err := Run([]string{src}, Options{Out: filepath.Join(root, "dist2")})
	var ce *ClashError
	if !errors.As(err, &ce) || len(ce.Clashes) != 1 || len(ce.Clashes[0].Skills) != 3 {
		t.Fatalf("copies that differ: %v, want a ClashError naming the three", err)
	}
	if !strings.Contains(err.Error(), "--ignore") {
		t.Errorf("the clash does not offer --ignore:\n%v", err)
	}
}

// Of identical copies, the one a manifest declares is published, else one
// outside hidden folders (a client's working copy in .claude/skills),
// else the first in path order.
func TestIdenticalCopiesPick(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, ".hidden", "pdf"), "pdf", nil)
	writeSkill(t, filepath.Join(src, "b", "pdf"), "pdf", nil)
	writeSkill(t, filepath.Join(src, "c", "pdf"), "pdf", nil)
	var log strings.Builder
	res := mustBuild(t, []string{src}, Options{Out: filepath.Join(root, "dist"), Log: &log})
	if len(res.Skills) != 1 || res.Skills[0].Dir != filepath.Join(src, "b", "pdf") {
		t.Errorf("built %+v, want b/pdf alone", res.Skills)
	}
	if !strings.Contains(log.String(), "(outside hidden folders, the first in path order)") {
		t.Errorf("the log does not say why:\n%s", log.String())
	}

	writeSkillFile(t, src, "c", ".claude-plugin/plugin.json", `{"name": "c", "skills": "./pdf"}`)
	log.Reset()
	res = mustBuild(t, []string{src}, Options{Out: filepath.Join(root, "dist"), Log: &log, All: true})
	if len(res.Skills) != 1 || res.Skills[0].Dir != filepath.Join(src, "c", "pdf") {
		t.Errorf("built %+v, want c/pdf, which its plugin declares", res.Skills)
	}
	if want := "(declared by " + rel(t, src, "c/.claude-plugin/plugin.json") + ")"; !strings.Contains(log.String(), want) {
		t.Errorf("the log does not say %q:\n%s", want, log.String())
	}

	// Else the shallowest, before the first in path order: a package's
	// payload copy (jamiemills/opencode-skills' bootstrap/.../skills).
	deep := filepath.Join(root, "deep")
	writeSkill(t, filepath.Join(deep, "a", "payload", "skills", "pdf"), "pdf", nil)
	writeSkill(t, filepath.Join(deep, "pdf"), "pdf", nil)
	log.Reset()
	res = mustBuild(t, []string{deep}, Options{Out: filepath.Join(root, "dist"), Log: &log})
	if len(res.Skills) != 1 || res.Skills[0].Dir != filepath.Join(deep, "pdf") || !strings.Contains(log.String(), "(the shallowest)") {
		t.Errorf("built %+v, want pdf, the shallowest:\n%s", res.Skills, log.String())
	}
}

// A marketplace repository builds what its marketplace declares (the
// anthropics/skills shape: plugins with source "./" listing skills/<name>)
// and, as the Vercel skills CLI finds them beside the plugins, the skills
// in the root's own folders (the jamditis/claude-skills-journalism shape:
// 40 of them beside a marketplace of 4 plugins), and says so; a template,
// a fixture, a client's working copy and a skill deeper where no client
// looks are left out, each with the way back in.
func TestDeclaredScope(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "repo")
	writeSkillFile(t, src, ".claude-plugin", "marketplace.json", `{"name": "m", "plugins": [
		{"name": "docs", "source": "./", "strict": false, "skills": ["./skills/pdf", "./skills/xlsx"]},
		{"name": "extra", "source": "./plugins/extra"}]}`)
	writeSkill(t, filepath.Join(src, "skills", "pdf"), "pdf", nil)
	writeSkill(t, filepath.Join(src, "skills", "xlsx"), "xlsx", nil)
	// A page of xlsx's, which the note on what the marketplace declares
	// does not count: a later step leaves it out.
	writeSkill(t, filepath.Join(src, "skills", "xlsx", "examples", "mini"), "mini", nil)
	writeSkill(t, filepath.Join(src, "plugins", "extra", "skills", "art"), "art", nil)
	writeSkill(t, filepath.Join(src, "plugins", "extra", "skills", "pdf"), "pdf", nil) // a copy
	writeSkill(t, filepath.Join(src, "template"), "template-skill", nil)
	writeSkill(t, filepath.Join(src, "tests", "fixtures", "bad"), "Bad_Name", nil)
	writeSkill(t, filepath.Join(src, ".claude", "skills", "dev"), "dev", nil)
	writeSkill(t, filepath.Join(src, ".cursor", "skills", "dev"), "dev", nil) // named once
	writeSkill(t, filepath.Join(src, "scratch", "idea"), "idea", nil)
	writeSkill(t, filepath.Join(src, "newsroom-style"), "newsroom-style", nil)
	// An old copy of a plugin the marketplace does not list declares
	// nothing (jeremylongshore/claude-code-plugins-plus-skills' backups/).
	writeSkillFile(t, src, "backups/extra-old/.claude-plugin", "plugin.json", `{"name": "extra"}`)
	writeSkill(t, filepath.Join(src, "backups", "extra-old", "skills", "art"), "art", map[string]string{"old.md": "old\n"})
	var log strings.Builder
	dist := filepath.Join(root, "dist")
	mustBuild(t, []string{src}, Options{Out: dist, Log: &log})
	if got, want := indexNames(t, dist), []string{"art", "newsroom-style", "pdf", "xlsx"}; !slices.Equal(got, want) {
		t.Errorf("index %q, want %q", got, want)
	}
	for _, want := range []string{
		"• discover: 4 skills",
		"left out 2 skills in folders of tests and templates: template/ (1), tests/ and fixtures/ (1); --ignore '!template/' takes back the one in template/, --all every skill found",
		"taking the 4 skills that " + rel(t, src, ".claude-plugin/marketplace.json") + " declares, and the 1 skill in skills/ and the top-level folders, where every client looks",
		"left out 1 skill that no manifest declares, which no client installing from the repository loads as skills (" + rel(t, src, "scratch/idea") + "); --all takes every skill found",
		"left out 2 skills in clients' install folders, copies or working skills the repository does not publish: " + rel(t, src, ".claude/skills/dev") + ", " +
			rel(t, src, ".cursor/skills/dev") + "; 2 of them are no copies of a skill taken (none has the folder's name and SKILL.md), under 1 name: dev/; --all takes them",
		"left out 1 skill of plugins the marketplace does not list, which no client installing from the repository loads as skills (" + rel(t, src, "backups/extra-old/skills/art") + "); --all takes every skill found",
		"pdf: 2 identical copies",
		"left out 1 skill inside other skills' folders",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, log.String())
		}
	}

	// --ignore leaves out more, and "!" takes a default back.
	log.Reset()
	mustBuild(t, []string{src}, Options{Out: dist, Log: &log, Ignore: []string{"plugins/extra/", "!template/"}})
	if got, want := indexNames(t, dist), []string{"newsroom-style", "pdf", "template-skill", "xlsx"}; !slices.Equal(got, want) {
		t.Errorf("--ignore: index %q, want %q", got, want)
	}
	if !strings.Contains(log.String(), "left out 2 skills that skillpack.yaml's ignore or --ignore names") {
		t.Errorf("--ignore: the log does not say what it left out:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "left out 1 skill in folders of tests and templates: tests/ and fixtures/ (1: "+rel(t, src, "tests/fixtures/bad")+")") {
		t.Errorf("--ignore '!template/': the template is still left out:\n%s", log.String())
	}

	// --all builds every skill found, the broken fixture too.
	_, err := Run([]string{src}, Options{Out: dist, All: true})
	var le *LintError
	if !errors.As(err, &le) {
		t.Errorf("--all: %v, want the fixture's lint error", err)
	}

	// skillpack.yaml's ignore list, relative to its folder, leaves skills
	// out of the build as it does of lint.
	cfg, err := config.Parse(filepath.Join(src, "skillpack.yaml"), []byte("ignore:\n  - skills/xlsx/\n"))
	if err != nil {
		t.Fatal(err)
	}
	mustBuild(t, []string{src}, Options{Out: dist, Lint: lint.Options{Settings: cfg.Lint}})
	if got, want := indexNames(t, dist), []string{"art", "newsroom-style", "pdf"}; !slices.Equal(got, want) {
		t.Errorf("config ignore: index %q, want %q", got, want)
	}
}

// Per-platform variant folders get one verdict with manifests and
// without: copies that are identical are one skill; copies that differ
// are a clash the build names (not lint errors, which only the layout
// without manifests used to get).
func TestVariantFolders(t *testing.T) {
	for _, manifests := range []bool{false, true} {
		root := t.TempDir()
		src := filepath.Join(root, "src")
		for _, c := range []string{"claude", "codex", "cursor"} {
			if manifests {
				writeSkillFile(t, src, c, "."+c+"-plugin/plugin.json", `{"name": "`+c+`"}`)
			}
			writeSkill(t, filepath.Join(src, c, "skills", "pdf"), "pdf", nil)
			writeSkill(t, filepath.Join(src, c, "skills", "review"), "review", map[string]string{"notes.md": "for " + c + "\n"})
		}
		_, err := Run([]string{src}, Options{Out: filepath.Join(root, "dist")})
		var ce *ClashError
		if !errors.As(err, &ce) || len(ce.Clashes) != 1 || ce.Clashes[0].Name != "review" {
			t.Errorf("manifests %v: %v, want a clash of review alone", manifests, err)
		}
		res, err := Run([]string{src}, Options{Out: filepath.Join(root, "dist"), SkipInvalid: true, Inventory: true})
		if err != nil || len(res.Skills) != 1 || res.Skills[0].Name != "pdf" || len(res.Skipped) != 3 {
			t.Errorf("manifests %v, --skip-invalid: %v; want pdf published once and the three review left out", manifests, err)
		}
	}
}

// rel is a path below base as the build's notes spell it (lint.Rel): relative to the
// working folder, with slashes.
func rel(t *testing.T, base, p string) string {
	t.Helper()
	wd, _ := os.Getwd()
	return lint.Rel(wd, filepath.Join(base, filepath.FromSlash(p)))
}

// TestManyCopies checks that the log names at most three sets of
// identical copies one by one, and every set with -v.
func TestManyCopies(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	names := []string{"alpha", "beta", "delta", "gamma"}
	for _, p := range []string{"claude", "cursor"} {
		writeSkillFile(t, src, p, ".claude-plugin/plugin.json", `{"name": "`+p+`"}`)
		for _, n := range names {
			writeSkill(t, filepath.Join(src, p, "skills", n), n, nil)
		}
	}
	for _, verbose := range []bool{false, true} {
		var log strings.Builder
		mustBuild(t, []string{src}, Options{Out: filepath.Join(root, "dist"), Log: &log, Verbose: verbose})
		sets := strings.Count(log.String(), "2 identical copies, published once")
		switch {
		case verbose && sets != len(names):
			t.Errorf("-v: the log names %d sets of copies, want %d:\n%s", sets, len(names), log.String())
		case !verbose && (sets != 0 || !strings.Contains(log.String(), "4 skills found in identical copies, each linted and published once (-v says from which)")):
			t.Errorf("the log names %d sets of copies, want one line for all 4:\n%s", sets, log.String())
		}
	}
}

// A tree of more skills than a bundle may hold is refused once they are
// found, before any is linted or packed: without SkipInvalid each would
// be published or the build fail. (With it, the count is known only once
// the invalid ones are left out; ten thousand skills linted is too slow
// a test for that.)
func TestTooManySkills(t *testing.T) {
	root := t.TempDir()
	for i := range layout.MaxSkills + 1 {
		dir := filepath.Join(root, fmt.Sprintf("s%05d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// No description: every skill has a lint error.
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), fmt.Appendf(nil, "---\nname: s%05d\n---\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	linted := countLinted(t)
	_, err := Run([]string{root}, Options{Out: filepath.Join(t.TempDir(), "dist")})
	var le *layout.LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), fmt.Sprintf("the bundle has %d skills", layout.MaxSkills+1)) {
		t.Fatalf("err = %v; want the limit's", err)
	}
	if n := linted.Load(); n != 0 {
		t.Errorf("%d skills were linted before the refusal", n)
	}
}
