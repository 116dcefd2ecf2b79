package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/internal/testtool"
)

// action is the part of action.yml the test runs.
type action struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			ID    string            `yaml:"id"`
			Uses  string            `yaml:"uses"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

var expr = regexp.MustCompile(`\$\{\{\s*([a-z._-]+)\s*\}\}`)

// TestAction runs the composite action's shell steps locally, as the
// runner would: inputs and github.action_path substituted into each step's
// env, GITHUB_OUTPUT, GITHUB_PATH and GITHUB_STEP_SUMMARY as files, and
// the outputs read back the way the runner parses them. It runs the
// action twice: with every input given, and with its defaults in a
// repository of skills (skills ".", output "dist" inside it), as a
// workflow that only says `uses: skillpack/skillpack@v0` does.
func TestAction(t *testing.T) {
	if testing.Short() {
		t.Skip("builds skillpack from source")
	}
	testtool.Need(t, "bash")
	root, a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	if a.Inputs["skills"].Default != "." || a.Inputs["output"].Default != "dist" {
		t.Errorf("default inputs skills %q, output %q; docs/ci.md documents . and dist", a.Inputs["skills"].Default, a.Inputs["output"].Default)
	}

	t.Run("inputs given", func(t *testing.T) {
		work := t.TempDir()
		out := filepath.Join(work, "site")
		runAction(t, a, root, work, map[string]string{
			"skills": filepath.Join(root, "examples"),
			"output": out,
			"strict": "true",
		}, out)
	})
	t.Run("defaults", func(t *testing.T) {
		// The checkout is the workspace, the runner's temporary folder
		// outside it, as on a hosted runner.
		work := t.TempDir()
		workspace := filepath.Join(work, "workspace")
		copyDir(t, filepath.Join(root, "examples"), workspace)
		runAction(t, a, root, workspace, nil, filepath.Join(workspace, "dist"))
		// A second run on the same checkout (a job that builds twice, or a
		// self-hosted runner's kept workspace) finds the bundle and skips it.
		runAction(t, a, root, workspace, nil, filepath.Join(workspace, "dist"))
	})
}

// runAction runs the action's steps in workspace with the inputs given
// (the rest at their defaults), and checks that its outputs describe the
// bundle it wrote to dist.
func runAction(t *testing.T, a action, root, workspace string, given map[string]string, dist string) {
	t.Helper()
	run := execAction(t, a, root, workspace, given)
	if run.failed != "" {
		t.Fatalf("step %q failed:\n%s", run.failed, run.log)
	}
	outputs := run.outputs
	if outputs["bundle"] != run.inputs["output"] {
		t.Errorf("bundle output = %q, want %q", outputs["bundle"], run.inputs["output"])
	}
	var summary struct {
		Skills    []struct{ Name string } `json:"skills"`
		Artifacts []struct {
			Path, Digest string
			Size         int64
		} `json:"artifacts"`
	}
	if err := json.Unmarshal([]byte(outputs["summary"]), &summary); err != nil {
		t.Fatalf("summary output is not the build's JSON: %v\n%s", err, outputs["summary"])
	}
	if file, err := os.ReadFile(outputs["summary-file"]); err != nil || strings.TrimSuffix(string(file), "\n") != outputs["summary"] {
		t.Errorf("summary-file output %q does not hold the summary output (%v)", outputs["summary-file"], err)
	}
	if len(summary.Skills) != 5 || len(summary.Artifacts) == 0 {
		t.Errorf("summary lists %d skills and %d artifacts; want the 5 examples", len(summary.Skills), len(summary.Artifacts))
	}
	for _, art := range summary.Artifacts {
		info, err := os.Stat(filepath.Join(dist, filepath.FromSlash(art.Path)))
		if err != nil || info.Size() != art.Size {
			t.Errorf("summary artifact %s (%d bytes) not in the bundle: %v", art.Path, art.Size, err)
		}
	}
	if !strings.Contains(run.stepSummary, "### skillpack build") || !strings.Contains(run.stepSummary, "| csv-profiler |") {
		t.Errorf("step summary lacks the skills table:\n%s", run.stepSummary)
	}
}

// actionRun is what a run of the action left.
type actionRun struct {
	inputs      map[string]string // every input, given or default
	outputs     map[string]string // the action's, as the workflow reads them
	failed      string            // the step that failed and stopped the action, or ""
	log         string            // the output of every step run
	stepSummary string            // GITHUB_STEP_SUMMARY
}

// execAction runs the action's steps in workspace with the inputs given
// (the rest at their defaults), as the runner does: up to the first step
// that fails, whose outputs count, then the action's outputs.
func execAction(t *testing.T, a action, root, workspace string, given map[string]string) actionRun {
	t.Helper()
	work := t.TempDir()
	runnerTemp := filepath.Join(work, "runner-temp")
	must(t, os.MkdirAll(runnerTemp, 0o755))
	files := map[string]string{}
	for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"} {
		files[f] = filepath.Join(work, strings.ToLower(f))
		must(t, os.WriteFile(files[f], nil, 0o644))
	}
	inputs := map[string]string{}
	for k, v := range a.Inputs {
		inputs[k] = v.Default
	}
	for k, v := range given {
		inputs[k] = v
	}
	steps := map[string]map[string]string{}
	ctx := func(name string) string {
		switch {
		case strings.HasPrefix(name, "inputs."):
			return inputs[strings.TrimPrefix(name, "inputs.")]
		case name == "github.action_path":
			return root
		case name == "github.action_ref", name == "github.action_repository":
			return "" // as for `uses: ./`: no release, built from source
		case strings.HasPrefix(name, "steps."): // steps.ID.outputs.NAME
			parts := strings.Split(name, ".")
			return steps[parts[1]][parts[len(parts)-1]]
		}
		t.Fatalf("action.yml uses ${{ %s }}, which this test does not provide", name)
		return ""
	}

	path := os.Getenv("PATH")
	var run actionRun
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			if !strings.HasPrefix(s.Uses, "actions/setup-go@") && !strings.HasPrefix(s.Uses, "actions/cache/") {
				t.Fatalf("step %q uses %s, which this test cannot stand in for", s.Name, s.Uses)
			}
			continue // Go is already here; nothing is cached
		}
		if s.Shell != "bash" {
			t.Fatalf("step %q: shell %q, want bash", s.Name, s.Shell)
		}
		if expr.MatchString(s.Run) {
			t.Errorf("step %q splices an expression into its script; pass it through env instead", s.Name)
		}
		cmd := exec.Command("bash", "-e", "-c", s.Run)
		cmd.Dir = workspace
		cmd.Env = append(os.Environ(), "PATH="+path, "RUNNER_TEMP="+runnerTemp, "CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+workspace)
		for f, p := range files {
			cmd.Env = append(cmd.Env, f+"="+p)
		}
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+expr.ReplaceAllStringFunc(v, func(m string) string {
				return ctx(expr.FindStringSubmatch(m)[1])
			}))
		}
		out, err := cmd.CombinedOutput()
		run.log += "== " + s.Name + "\n" + string(out)
		if err != nil {
			run.failed = s.Name
			run.log += err.Error() + "\n"
		}
		// The runner prepends GITHUB_PATH lines to PATH for later steps.
		if added, _ := os.ReadFile(files["GITHUB_PATH"]); len(added) > 0 {
			for _, l := range strings.Fields(string(added)) {
				path = l + string(os.PathListSeparator) + path
			}
			must(t, os.WriteFile(files["GITHUB_PATH"], nil, 0o644))
		}
		// A failed step's outputs count too (the runner reads the file
		// whatever the step's result), and the steps after it do not run.
		if s.ID != "" {
			steps[s.ID] = parseOutputs(t, files["GITHUB_OUTPUT"])
			must(t, os.WriteFile(files["GITHUB_OUTPUT"], nil, 0o644))
		}
		if run.failed != "" {
			break
		}
	}

	// The runner evaluates the outputs after the steps, failed or not.
	run.inputs, run.outputs = inputs, map[string]string{}
	for k, o := range a.Outputs {
		m := expr.FindStringSubmatch(o.Value)
		parts := strings.Split(m[1], ".") // steps.ID.outputs.NAME
		if len(parts) != 4 || parts[0] != "steps" || parts[2] != "outputs" {
			t.Fatalf("output %s = %q is not steps.ID.outputs.NAME", k, o.Value)
		}
		run.outputs[k] = steps[parts[1]][parts[3]]
	}
	md, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	run.stepSummary = string(md)
	return run
}

// copyDir copies the regular files and folders of src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	must(t, err)
}

// parseOutputs reads a GITHUB_OUTPUT file: "name=value" lines and
// "name<<DELIM" heredocs, as the runner does.
func parseOutputs(t *testing.T, file string) map[string]string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if name, delim, ok := strings.Cut(l, "<<"); ok {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			out[name] = strings.Join(val, "\n")
		} else if name, val, ok := strings.Cut(l, "="); ok {
			out[name] = val
		}
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestReleaseWorkflow checks the documented release workflow against the
// action it uses: every input it passes exists, and a job that signs
// keyless may request an OIDC token.
func TestReleaseWorkflow(t *testing.T) {
	root, a := loadAction(t)
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	data, err := os.ReadFile(filepath.Join(root, "examples", "workflows", "release.yml"))
	must(t, err)
	must(t, yaml.Unmarshal(data, &wf))
	if len(wf.Permissions) != 0 {
		t.Errorf("top-level permissions %v: grant per job instead", wf.Permissions)
	}
	used := false
	for name, job := range wf.Jobs {
		for _, s := range job.Steps {
			if !strings.HasPrefix(s.Uses, "skillpack/skillpack@") {
				continue
			}
			used = true
			for k := range s.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("job %s passes input %q, which action.yml does not declare", name, k)
				}
			}
			if s.With["sign"] == "true" && job.Permissions["id-token"] != "write" {
				t.Errorf("job %s signs keyless without permissions: id-token: write", name)
			}
		}
	}
	if !used {
		t.Error("the release workflow does not use the skillpack action")
	}
}

// The action's yes/no inputs take true and false in any case, and stop the
// job on anything else: strict: yes meant false, in silence.
func TestActionBooleanInputs(t *testing.T) {
	testtool.Need(t, "bash")
	_, a := loadAction(t)
	script := a.step(t, "Check the inputs")
	for _, tc := range []struct {
		strict, sign string
		code         int
	}{{"false", "false", 0}, {"True", "FALSE", 0}, {"yes", "false", 2}, {"true", "on", 2}, {"", "false", 2}} {
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = append(os.Environ(), "STRICT="+tc.strict, "SIGN="+tc.sign)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != tc.code || tc.code != 0 && !strings.Contains(string(out), "give true or false") {
			t.Errorf("strict %q, sign %q: exit %d (%s), want %d", tc.strict, tc.sign, code, out, tc.code)
		}
	}
}

// loadAction reads action.yml from the repository's root, which it
// returns with it.
func loadAction(t *testing.T) (string, action) {
	t.Helper()
	root, _ := filepath.Abs("../../../..")
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	must(t, err)
	var a action
	must(t, yaml.Unmarshal(data, &a))
	return root, a
}

// step is the script of the action's step of that name.
func (a action) step(t *testing.T, name string) string {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.Name == name {
			return s.Run
		}
	}
	t.Fatalf("action.yml has no step %q", name)
	return ""
}

// The Lint step is there for its annotations and leaves the verdict on
// findings to the build, which lints again: with skip-invalid in
// skillpack.yaml the build publishes the valid skills, where the Lint
// step used to stop the job on the broken one (stranger8 repro 2).
// Without it, the job fails at the Build step, its outputs still set.
func TestActionSkipInvalid(t *testing.T) {
	if testing.Short() {
		t.Skip("builds skillpack from source")
	}
	testtool.Need(t, "bash")
	root, a := loadAction(t)
	workspace := t.TempDir()
	testtool.WriteTree(t, workspace, map[string]string{
		"skills/good/SKILL.md": "---\nname: good\ndescription: A good skill. Use when testing.\n---\n# Good\n",
		"skills/bad/SKILL.md":  "---\nname: Bad_Name\ndescription: A bad skill. Use when testing.\n---\n# Bad\n",
		"skillpack.yaml":       "build:\n  skip-invalid: true\n",
	})
	given := map[string]string{"skills": "skills"}

	run := execAction(t, a, root, workspace, given)
	if run.failed != "" {
		t.Fatalf("skip-invalid: step %q failed:\n%s", run.failed, run.log)
	}
	if !strings.Contains(run.log, "::error file=skills/bad/SKILL.md,") {
		t.Errorf("the Lint step did not annotate the broken skill:\n%s", run.log)
	}
	var summary struct {
		Skills []struct{ Name string } `json:"skills"`
	}
	must(t, json.Unmarshal([]byte(run.outputs["summary"]), &summary))
	if len(summary.Skills) != 1 || summary.Skills[0].Name != "good" || run.outputs["bundle"] != "dist" {
		t.Errorf("skip-invalid: bundle %q with skills %v; want dist with good only", run.outputs["bundle"], summary.Skills)
	}
	if _, err := os.Stat(filepath.Join(workspace, "dist", ".well-known", "agent-skills", "index.json")); err != nil {
		t.Errorf("skip-invalid: no bundle: %v", err)
	}

	must(t, os.Remove(filepath.Join(workspace, "skillpack.yaml")))
	must(t, os.RemoveAll(filepath.Join(workspace, "dist")))
	run = execAction(t, a, root, workspace, given)
	if run.failed != "Build" {
		t.Fatalf("without skip-invalid: failed step %q, want Build\n%s", run.failed, run.log)
	}
	var failed struct {
		ExitCode int    `json:"exitCode"`
		Error    string `json:"error"`
	}
	data, err := os.ReadFile(run.outputs["summary-file"])
	if err != nil {
		t.Fatalf("the failed build's summary-file output %q: %v", run.outputs["summary-file"], err)
	}
	if err := json.Unmarshal(data, &failed); err != nil || failed.ExitCode != 1 || failed.Error == "" {
		t.Errorf("summary-file of the failed build: %v, exit code %d, error %q; want the build's JSON, exit code 1", err, failed.ExitCode, failed.Error)
	}
	if run.outputs["summary"] != strings.TrimSuffix(string(data), "\n") || run.outputs["bundle"] != "dist" {
		t.Errorf("the failed build's outputs: bundle %q, summary %q", run.outputs["bundle"], run.outputs["summary"])
	}
	if _, err := os.Stat(filepath.Join(workspace, "dist")); err == nil {
		t.Error("the failed build wrote dist")
	}
}

// The Lint step goes on after findings (1), for the build to decide, and
// stops the job on anything else: a usage mistake (2), skillpack's own
// failure (3), an interrupt (130). A stand-in skillpack exits with each.
func TestActionLintExit(t *testing.T) {
	testtool.Need(t, "bash")
	_, a := loadAction(t)
	script := a.step(t, "Lint")
	bin := t.TempDir()
	must(t, os.WriteFile(filepath.Join(bin, "skillpack"), []byte("#!/bin/sh\nexit $CODE\n"), 0o755))
	for code, want := range map[int]int{0: 0, 1: 0, 2: 2, 3: 3, 130: 130} {
		cmd := exec.Command("bash", "-e", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CODE="+strconv.Itoa(code), "SKILLS=.", "STRICT=false")
		out, _ := cmd.CombinedOutput()
		if got := cmd.ProcessState.ExitCode(); got != want {
			t.Errorf("lint exits %d: the step exits %d, want %d\n%s", code, got, want, out)
		}
	}
}

// The release docs/versions.md describes, through the action (stranger8
// repro 1): release-version makes a versioned build with the release's
// snapshot; previous: none makes the first one although skillpack.yaml
// names a previous URL where nothing is published yet; previous as a
// folder carries the first release into the second.
func TestActionRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds skillpack from source")
	}
	testtool.Need(t, "bash")
	root, a := loadAction(t)
	site := httptest.NewServer(http.NotFoundHandler()) // a Pages site before its first deploy
	defer site.Close()
	work := t.TempDir()
	workspace := filepath.Join(work, "repo")
	skill := "---\nname: pdf\ndescription: Extract text from PDF files. Use when the user gives a PDF.\nmetadata:\n  version: %s\n---\n# PDF %[1]s\n"
	testtool.WriteTree(t, workspace, map[string]string{
		"skills/pdf/SKILL.md": fmt.Sprintf(skill, "1.0.0"),
		"skillpack.yaml":      "build:\n  previous: " + site.URL + "/repo/\n",
	})

	first := filepath.Join(work, "first")
	run := execAction(t, a, root, workspace, map[string]string{"skills": "skills", "output": first, "release-version": "v1.0.0", "previous": "none"})
	if run.failed != "" {
		t.Fatalf("first release: step %q failed:\n%s", run.failed, run.log)
	}
	checkReleases(t, first, "1.0.0")

	must(t, os.WriteFile(filepath.Join(workspace, "skills", "pdf", "SKILL.md"), []byte(fmt.Sprintf(skill, "1.1.0")), 0o644))
	second := filepath.Join(work, "second")
	run = execAction(t, a, root, workspace, map[string]string{"skills": "skills", "output": second, "release-version": "1.1.0", "previous": first})
	if run.failed != "" {
		t.Fatalf("second release: step %q failed:\n%s", run.failed, run.log)
	}
	checkReleases(t, second, "1.1.0", "1.0.0")
	if _, err := os.Stat(filepath.Join(second, ".well-known", "agent-skills", "pdf", "1.0.0", "SKILL.md")); err != nil {
		t.Errorf("the second release did not carry pdf 1.0.0 from the first: %v", err)
	}
}

// checkReleases checks that the bundle in dist lists the releases given,
// newest first, each with its snapshot.
func checkReleases(t *testing.T, dist string, releases ...string) {
	t.Helper()
	dir := filepath.Join(dist, ".well-known", "agent-skills")
	var versions struct {
		Latest   string   `json:"latest"`
		Versions []string `json:"versions"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "versions.json"))
	must(t, err)
	must(t, json.Unmarshal(data, &versions))
	if versions.Latest != releases[0] || strings.Join(versions.Versions, " ") != strings.Join(releases, " ") {
		t.Errorf("%s: versions.json latest %q, versions %v; want %s, %v", dist, versions.Latest, versions.Versions, releases[0], releases)
	}
	for _, r := range releases {
		if _, err := os.Stat(filepath.Join(dir, "v"+r, "index.json")); err != nil {
			t.Errorf("%s: no snapshot of release %s: %v", dist, r, err)
		}
	}
}
