package build

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/lint"
)

func TestClashes(t *testing.T) {
	named := []lint.Named{
		{Dir: "p/telegram/skills/access", Name: "access"},
		{Dir: "solo", Name: "solo"},
		{Dir: "p/discord/skills/access", Name: "access"},
		{Dir: "a/b", Name: "b"},
		{Dir: "c/b", Name: "b"},
		{Dir: "d/b", Name: "b"},
	}
	want := []Clash{
		{Name: "access", Skills: []Clashing{{Dir: "p/telegram/skills/access"}, {Dir: "p/discord/skills/access"}}},
		{Name: "b", Skills: []Clashing{{Dir: "a/b"}, {Dir: "c/b"}, {Dir: "d/b"}}},
	}
	if got := clashes(named); !reflect.DeepEqual(got, want) {
		t.Errorf("clashes:\n%+v\nwant\n%+v", got, want)
	}
	if got := clashes(named[:4]); len(got) != 1 || got[0].Name != "access" {
		t.Errorf("clashes of four: %+v, want access alone", got)
	}
	if got := clashes(nil); got != nil {
		t.Errorf("clashes of none: %+v", got)
	}
}

func TestClashErrorMessage(t *testing.T) {
	e := &ClashError{Out: "dist", Clashes: []Clash{{Name: "access", Skills: []Clashing{
		{Dir: "external_plugins/discord/skills/access", Plugin: "external_plugins/discord"},
		{Dir: "external_plugins/telegram/skills/access", Plugin: "external_plugins/telegram"},
	}}}}
	want := `2 skills would be published as "access", but a bundle holds one skill per name:
  external_plugins/discord/skills/access (plugin external_plugins/discord)
  external_plugins/telegram/skills/access (plugin external_plugins/telegram)
Build each plugin into its own bundle:
  skillpack build external_plugins/discord -o dist-discord
  skillpack build external_plugins/telegram -o dist-telegram
or rename one of the skills of each name (folder and name together),
or leave out each copy you do not publish with --ignore and its folder (--ignore external_plugins/telegram/skills/access/).
(Copies whose files are identical are one skill, published once: these differ.)
--skip-invalid publishes every other skill and lists these as left out.
Nothing was written.`
	if got := e.Error(); got != want {
		t.Errorf("message:\n%s\nwant\n%s", got, want)
	}
	e = &ClashError{Out: "dist", Clashes: []Clash{{Name: "b", Skills: []Clashing{{Dir: "a/b"}, {Dir: "c/b"}}}}}
	if got := e.Error(); strings.Contains(got, "skillpack build") || !strings.Contains(got, "Rename one of the skills") {
		t.Errorf("without plugins:\n%s", got)
	}
	// A folder holding one skill of every name (Aery9527/aery-marketplace's
	// codex-plugins/, copies of skills/) is left out with one flag, a
	// pattern relative to the folder given, as --ignore reads it.
	e = &ClashError{Out: "dist", Roots: []string{"repo"}, Clashes: []Clash{
		{Name: "a", Skills: []Clashing{{Dir: "repo/codex/x/skills/a"}, {Dir: "repo/skills/a"}}},
		{Name: "b", Skills: []Clashing{{Dir: "repo/codex/y/skills/b"}, {Dir: "repo/skills/b"}}},
	}}
	if got := e.Error(); !strings.Contains(got, "all in one folder: --ignore /codex/ or --ignore /skills/.") {
		t.Errorf("copies in one folder:\n%s", got)
	}
	e.Clashes[1].Skills[1].Dir = "repo/other/b"
	if got := e.Error(); !strings.Contains(got, "all in one folder: --ignore /codex/.") {
		t.Errorf("one side in one folder:\n%s", got)
	}
}

// Two skills of one name that lint lets through (plugins scope names, and
// a config may turn name-duplicate off) are refused by the build, and
// nothing is written; with SkipInvalid all of them are left out, each
// with the way to publish it, and the other skills are published.
func TestBuildRefusesClash(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	for _, p := range []string{"discord", "telegram"} {
		writeSkillFile(t, src, p, ".claude-plugin/plugin.json", `{"name": "`+p+`"}`)
		writeSkill(t, filepath.Join(src, p, "skills", "access"), "access", map[string]string{"notes.md": "for " + p + "\n"})
	}
	writeSkill(t, filepath.Join(src, "a", "other"), "other", nil)
	writeSkill(t, filepath.Join(src, "b", "other"), "other", map[string]string{"notes.md": "b\n"})
	writeSkill(t, filepath.Join(src, "solo"), "solo", nil)
	cfg, err := config.Parse("skillpack.yaml", []byte("rules:\n  name-duplicate: off\n"))
	if err != nil {
		t.Fatal(err)
	}
	dist := withPrevious(t, root)
	before := snapshot(t, dist)
	for _, jobs := range []int{1, 3} {
		_, err := Run([]string{src}, Options{Out: dist, Jobs: jobs, Lint: lint.Options{Settings: cfg.Lint}})
		var ce *ClashError
		if !errors.As(err, &ce) || len(ce.Clashes) != 2 {
			t.Fatalf("jobs %d: %v, want a ClashError for two names", jobs, err)
		}
		want := []Clash{
			{Name: "access", Skills: []Clashing{
				{Dir: filepath.Join(src, "discord", "skills", "access"), Plugin: filepath.Join(src, "discord")},
				{Dir: filepath.Join(src, "telegram", "skills", "access"), Plugin: filepath.Join(src, "telegram")}}},
			{Name: "other", Skills: []Clashing{{Dir: filepath.Join(src, "a", "other")}, {Dir: filepath.Join(src, "b", "other")}}},
		}
		if !reflect.DeepEqual(ce.Clashes, want) {
			t.Errorf("jobs %d: clashes\n%+v\nwant\n%+v", jobs, ce.Clashes, want)
		}
		if cmd := "skillpack build " + filepath.Join(src, "discord") + " -o " + dist + "-discord"; !strings.Contains(err.Error(), cmd) {
			t.Errorf("the message does not say %q:\n%v", cmd, err)
		}
		sameTree(t, "refused build", before, snapshot(t, dist), true)
		noStaging(t, root)
	}

	// With SkipInvalid every skill of a clashing name is left out, none
	// preferred, and the rest is published and verifies.
	for _, jobs := range []int{1, 3} {
		res, err := Run([]string{src}, Options{Out: dist, Jobs: jobs, SkipInvalid: true, Lint: lint.Options{Settings: cfg.Lint}})
		if err != nil {
			t.Fatalf("skip, jobs %d: %v", jobs, err)
		}
		if got := indexNames(t, dist); !slices.Equal(got, []string{"solo"}) {
			t.Errorf("skip, jobs %d: index holds %v, want solo alone", jobs, got)
		}
		var left []string
		for _, s := range res.Skipped {
			if len(s.Findings) != 1 || s.Findings[0].Rule != "name-bundle-clash" || !strings.Contains(s.Findings[0].Message, "one skill per name") {
				t.Errorf("skip: %s left out for %+v", s.Dir, s.Findings)
			}
			left = append(left, s.Name+" "+s.Dir)
		}
		if len(left) != 4 {
			t.Errorf("skip, jobs %d: left out %v, want the four clashing skills", jobs, left)
		}
		for _, s := range res.Skipped {
			if s.Name == "access" && !strings.Contains(s.Findings[0].Fix, "skillpack build") {
				t.Errorf("skip: the fix for %s does not say how to build its plugin: %s", s.Dir, s.Findings[0].Fix)
			}
		}
		verified(t, dist)
		noStaging(t, root)
	}

	// Under the default config lint refuses the two skills named other
	// first, and lets the plugins' access through.
	_, err = Run([]string{src}, Options{Out: dist})
	var le *LintError
	if !errors.As(err, &le) || le.Errors != 2 {
		t.Errorf("default config: %v, want 2 lint errors (name-duplicate)", err)
	}
}

// A skill inside another skill's folder whose name a skill outside has
// (kun630/hmos-runtime-tool-skills: an example's SKILL.md) leaves the name
// to that one: the build publishes both outer skills, and the inner one
// only inside its outer skill's archive; no clash, with SkipInvalid or
// without.
func TestShadowedNested(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "parent"), "parent", nil)
	writeSkill(t, filepath.Join(src, "parent", "examples", "build"), "app-build", nil)
	writeSkill(t, filepath.Join(src, "app-build"), "app-build", map[string]string{"log.md": "the real one\n"})
	for _, skip := range []bool{false, true} {
		for _, jobs := range []int{1, 3} {
			dist := filepath.Join(root, "dist")
			res, err := Run([]string{src}, Options{Out: dist, Jobs: jobs, SkipInvalid: skip, Lint: lint.Options{Base: root}})
			if err != nil {
				t.Fatalf("skip %v, jobs %d: %v", skip, jobs, err)
			}
			if got, want := indexNames(t, dist), []string{"app-build", "parent"}; !slices.Equal(got, want) {
				t.Errorf("skip %v, jobs %d: the index lists %q, want %q", skip, jobs, got, want)
			}
			if len(res.Skipped) != 0 {
				t.Errorf("skip %v, jobs %d: skipped %q", skip, jobs, skippedOf(res))
			}
			for _, s := range res.Skills {
				if s.Name == "app-build" && s.Dir != filepath.Join(src, "app-build") {
					t.Errorf("skip %v, jobs %d: app-build published from %s", skip, jobs, s.Dir)
				}
			}
			verified(t, dist)
			noStaging(t, root)
		}
	}
}
