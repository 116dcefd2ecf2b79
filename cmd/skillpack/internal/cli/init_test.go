package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/internal/version"
)

func TestInitConfig(t *testing.T) {
	writeSkills(t, map[string]string{"skills/good/SKILL.md": cleanSkill})

	ios, out, errb := fakeIO(nil)
	if code := run(ios, []string{"init", "--profile", "claude"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if out.String() != "created skillpack.yaml\ncreated .gitignore\n" || errb.String() != "next: edit skillpack.yaml, then run: skillpack lint (skillpack new NAME starts a skill)\n" {
		t.Errorf("stdout %q, stderr %q", out, errb)
	}
	data, err := os.ReadFile(config.File)
	if err != nil {
		t.Fatal(err)
	}
	const modeline = "# yaml-language-server: $schema=https://raw.githubusercontent.com/skillpack/skillpack/main/schema/skillpack.schema.json\n"
	if !strings.HasPrefix(string(data), modeline) {
		t.Errorf("the config does not start with the schema comment:\n%s", data)
	}
	cfg, err := config.Parse(config.File, data)
	if err != nil || cfg.Lint.Profile.Name != "claude" || len(cfg.Lint.Severity) != 0 || cfg.Lint.Allow != nil || !reflect.DeepEqual(cfg.Build, config.Build{}) {
		t.Errorf("the config reads as %+v, %v; want profile claude and nothing else", cfg, err)
	}
	if _, err := os.Stat(workflowPath); err == nil {
		t.Errorf("init without --ci wrote %s", workflowPath)
	}
	// The config lints the skills it was written beside.
	ios, _, errb = fakeIO(nil)
	if code := run(ios, []string{"lint"}); code != ExitOK {
		t.Errorf("lint after init: exit %d: %s", code, errb)
	}

	// An existing config is kept: init alone writes nothing, and --ci
	// github adds the workflow beside it.
	os.WriteFile(config.File, []byte("profile: relaxed\n"), 0o644)
	ios, out, errb = fakeIO(nil)
	if code := run(ios, []string{"init"}); code != ExitUsage {
		t.Errorf("init over a config: exit %d, want 2", code)
	}
	if want := "skillpack: skillpack.yaml already exists; --force replaces it\n"; errb.String() != want || out.Len() > 0 {
		t.Errorf("stdout %q, stderr %q, want %q", out, errb, want)
	}
	ios, _, errb = fakeIO(nil)
	if code := run(ios, []string{"init", "--ci", "github"}); code != ExitOK || !strings.Contains(errb.String(), "kept skillpack.yaml") {
		t.Errorf("init --ci github over a config: exit %d, %s", code, errb)
	}
	if data, _ := os.ReadFile(config.File); string(data) != "profile: relaxed\n" {
		t.Errorf("the config was changed:\n%s", data)
	}
	if _, err := os.Stat(workflowPath); err != nil {
		t.Errorf("init --ci github beside a config wrote no workflow: %v", err)
	}
	os.Remove(workflowPath)

	// --force replaces it.
	ios, _, errb = fakeIO(nil)
	if code := run(ios, []string{"init", "--force"}); code != ExitOK {
		t.Fatalf("--force: exit %d: %s", code, errb)
	}
	if data, _ := os.ReadFile(config.File); !strings.Contains(string(data), "\nprofile: clients\n") {
		t.Errorf("--force did not replace the config:\n%s", data)
	}
}

func TestInitParentConfig(t *testing.T) {
	dir := writeSkills(t, map[string]string{"skillpack.yaml": "profile: claude\n", "sub/skills/good/SKILL.md": cleanSkill})
	t.Chdir(filepath.Join(dir, "sub"))
	ios, _, errb := fakeIO(nil)
	if code := run(ios, []string{"init"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if want := "note: ../skillpack.yaml applied here until now; the new skillpack.yaml takes its place in this folder and below\n"; !strings.HasPrefix(errb.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to start with\n%s", errb, want)
	}
}

func TestInitFlagErrors(t *testing.T) {
	writeSkills(t, nil)
	for args, want := range map[string]string{
		"init --ci gitlab":     `skillpack: --ci: unknown provider "gitlab"; want github` + "\n",
		"init --profile claud": "skillpack: --profile: ",
		"init skills":          "skillpack: ",
	} {
		ios, _, errb := fakeIO(nil)
		if code := run(ios, strings.Fields(args)); code != ExitUsage || !strings.HasPrefix(errb.String(), want) {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", args, code, errb, want)
		}
	}
	if _, err := os.Stat(config.File); err == nil {
		t.Errorf("a refused init wrote %s", config.File)
	}
}

// workflow is the part of a GitHub Actions workflow the test reads.
type workflow struct {
	On map[string]struct {
		Branches []string `yaml:"branches"`
	} `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		If     string `yaml:"if"`
		RunsOn string `yaml:"runs-on"`
		Steps  []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestInitGitHub checks the workflow: lint on pull requests with
// annotations, build on pushes to main with this repository's action and
// only inputs the action has, from the folder that holds the skills.
func TestInitGitHub(t *testing.T) {
	root, _ := filepath.Abs("../../../..")
	actionYAML, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(actionYAML, &a); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files  map[string]string
		skills string
	}{
		{map[string]string{"skills/good/SKILL.md": cleanSkill}, "skills"},
		{map[string]string{"good/SKILL.md": cleanSkill}, "."},
	} {
		writeSkills(t, tc.files)
		ios, out, errb := fakeIO(nil)
		if code := run(ios, []string{"init", "--ci", "github"}); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		if want := "created skillpack.yaml\ncreated .github/workflows/skillpack.yml\ncreated .gitignore\n"; out.String() != want {
			t.Errorf("stdout %q, want %q", out, want)
		}
		data, err := os.ReadFile(workflowPath)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "SKILLS") {
			t.Errorf("the workflow still says SKILLS:\n%s", data)
		}
		var w workflow
		if err := yaml.Unmarshal(data, &w); err != nil {
			t.Fatalf("the workflow is not YAML: %v", err)
		}
		if _, ok := w.On["pull_request"]; !ok || !slices.Equal(w.On["push"].Branches, []string{"main"}) || w.Permissions["contents"] != "read" {
			t.Errorf("triggers or permissions: %+v %+v", w.On, w.Permissions)
		}
		lintJob, buildJob := w.Jobs["lint"], w.Jobs["build"]
		if lintJob.If != "github.event_name == 'pull_request'" || buildJob.If != "github.event_name == 'push'" {
			t.Errorf("lint runs if %q, build if %q", lintJob.If, buildJob.If)
		}
		var runs []string
		for _, s := range lintJob.Steps {
			runs = append(runs, s.Run)
		}
		install := "go install " + version.Module + "/cmd/skillpack@v0"
		// The pull request also builds, writing nothing: what only the
		// build refuses fails it there, not on the push.
		if !slices.Contains(runs, install) || !slices.Contains(runs, "skillpack lint --format github -- "+tc.skills) ||
			!slices.Contains(runs, "skillpack build --dry-run -o dist -- "+tc.skills) {
			t.Errorf("lint runs %q", runs)
		}
		if _, err := os.Stat(filepath.Join(root, "cmd", "skillpack")); err != nil {
			t.Errorf("%s installs a command this repository does not have: %v", install, err)
		}
		found := false
		for _, s := range buildJob.Steps {
			if s.Uses != "skillpack/skillpack@v0" {
				continue
			}
			found = true
			for k := range s.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("the build step passes %s, which action.yml does not take", k)
				}
			}
			if s.With["skills"] != tc.skills || s.With["output"] != "dist" {
				t.Errorf("the build step takes %v", s.With)
			}
		}
		if !found {
			t.Errorf("no build step uses skillpack/skillpack@v0")
		}
		// upload-artifact@v4 leaves out hidden files unless told: the
		// bundle's .well-known/ tree would be missing from the artifact.
		uploads := 0
		for _, s := range buildJob.Steps {
			if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
				uploads++
				if s.With["path"] != "dist" || s.With["include-hidden-files"] != "true" {
					t.Errorf("the artifact step takes %v; want path dist and include-hidden-files true", s.With)
				}
			}
		}
		if uploads != 1 {
			t.Errorf("%d artifact steps, want 1", uploads)
		}
	}
}

// TestInitWorkflowReplay replays the build job of the workflow init
// writes in a checkout of the examples: skillpack's action runs as the
// runner would (runAction), then the artifact step uploads what
// upload-artifact would, which must be every file of the bundle.
func TestInitWorkflowReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds skillpack from source")
	}
	testtool.Need(t, "bash")
	root, _ := filepath.Abs("../../../..")
	var a action
	actionYAML, err := os.ReadFile(filepath.Join(root, "action.yml"))
	must(t, err)
	must(t, yaml.Unmarshal(actionYAML, &a))
	workspace := filepath.Join(t.TempDir(), "workspace")
	copyDir(t, filepath.Join(root, "examples"), workspace)
	t.Chdir(workspace)
	ios, _, errb := fakeIO(nil)
	if code := run(ios, []string{"init", "--ci", "github"}); code != ExitOK {
		t.Fatalf("init: exit %d: %s", code, errb)
	}
	data, err := os.ReadFile(workflowPath)
	must(t, err)
	var w workflow
	must(t, yaml.Unmarshal(data, &w))
	var output string
	var uploaded []string
	for _, s := range w.Jobs["build"].Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			// The workspace is the checkout.
		case s.Uses == "skillpack/skillpack@v0":
			output = s.With["output"]
			runAction(t, a, root, workspace, s.With, filepath.Join(workspace, output))
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			uploaded = artifactFiles(t, workspace, s.With["path"], s.With["include-hidden-files"] == "true")
		default:
			t.Fatalf("the build job has a step (%q %q) this test cannot replay", s.Uses, s.Run)
		}
	}
	if output == "" {
		t.Fatal("the build job builds no bundle")
	}
	want := artifactFiles(t, workspace, output, true)
	if len(want) < 40 || !slices.Contains(want, ".well-known/agent-skills/index.json") {
		t.Fatalf("the bundle holds %d files: %v", len(want), want)
	}
	if !slices.Equal(uploaded, want) {
		t.Errorf("the artifact holds %d files, the bundle %d:\nuploaded %v\nbundle %v", len(uploaded), len(want), uploaded, want)
	}
}

// artifactFiles lists the files actions/upload-artifact@v4 would upload
// for the path given, relative to it, as upload-artifact names them:
// without includeHidden, a file or folder whose name starts with a dot is
// left out, with all below it (@actions/glob's excludeHiddenFiles).
func artifactFiles(t *testing.T, workspace, path string, includeHidden bool) []string {
	t.Helper()
	top := filepath.Join(workspace, filepath.FromSlash(path))
	var files []string
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !includeHidden && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(top, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	must(t, err)
	slices.Sort(files)
	return files
}

// TestMan checks that skillpack man writes skillpack.1 and one page per
// command, with the commands' help and no date but SOURCE_DATE_EPOCH's.
func TestMan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man", "man1")
	ios, _, errb := fakeIO(map[string]string{"SOURCE_DATE_EPOCH": "1767225600"}) // 2026-01-01
	if code := run(ios, []string{"man", dir}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	root := newRoot(&IO{})
	root.InitDefaultCompletionCmd()
	want := []string{"skillpack.1"}
	var walk func(prefix string, cmds []*cobra.Command)
	walk = func(prefix string, cmds []*cobra.Command) {
		for _, c := range cmds {
			if !c.IsAvailableCommand() {
				continue
			}
			want = append(want, prefix+"-"+c.Name()+".1")
			walk(prefix+"-"+c.Name(), c.Commands())
		}
	}
	walk("skillpack", root.Commands())
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("pages %v, want %v", got, want)
	}
	for _, must := range []string{"skillpack-lint.1", "skillpack-build.1", "skillpack-init.1", "skillpack-completion-bash.1"} {
		if !slices.Contains(got, must) {
			t.Errorf("no %s", must)
		}
	}
	if slices.Contains(got, "skillpack-man.1") {
		t.Errorf("the hidden man command has a page")
	}
	// A file given as the folder is the user's to correct.
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, errb = fakeIO(nil)
	if code := run(ios, []string{"man", file}); code != ExitUsage || !strings.Contains(errb.String(), "afile is a file; give the folder to write the man pages into") {
		t.Errorf("man FILE: exit %d, %s", code, errb)
	}
	page, err := os.ReadFile(filepath.Join(dir, "skillpack-lint.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`.TH "SKILLPACK" "1" "Jan 2026" "skillpack `, "--fail-on", "--quiet"} {
		if !strings.Contains(string(page), s) {
			t.Errorf("skillpack-lint.1 lacks %q", s)
		}
	}
	if strings.Contains(string(page), "Auto generated") {
		t.Errorf("skillpack-lint.1 has cobra's dated history line")
	}
}

// The workflow builds on a push to the branch checked out where init ran
// (a repository on master never ran a build job for branches: [main]),
// and on main where there is none to read.
func TestInitWorkflowBranch(t *testing.T) {
	for head, want := range map[string]string{
		"ref: refs/heads/master\n": "master",
		"ref: refs/heads/trunk":    "trunk",
		"0123456789abcdef\n":       "main", // a detached HEAD
		"":                         "main", // no repository
	} {
		t.Chdir(t.TempDir())
		if head != "" {
			must(t, os.Mkdir(".git", 0o755))
			must(t, os.WriteFile(filepath.Join(".git", "HEAD"), []byte(head), 0o644))
		}
		ios, _, errb := fakeIO(nil)
		if code := run(ios, []string{"init", "--ci", "github"}); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		data, err := os.ReadFile(workflowPath)
		must(t, err)
		var w workflow
		must(t, yaml.Unmarshal(data, &w))
		if got := w.On["push"].Branches; !slices.Equal(got, []string{want}) {
			t.Errorf("HEAD %q: the build runs on a push to %v, want [%s]", head, got, want)
		}
	}
	// The help said "pushes to main" of a workflow for master.
	if long := newInitCmd(&IO{}, nil).Long; !strings.Contains(strings.Join(strings.Fields(long), " "), "pushes to the branch checked out here") {
		t.Errorf("init --help does not say the build runs on the branch checked out:\n%s", long)
	}
}
