package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
)

// fakeIO is an IO on buffers, with an environment of its own and a clock
// that moves 10ms a reading.
func fakeIO(env map[string]string) (*IO, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	return &IO{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Getenv: func(k string) string { return env[k] },
		Now: func() time.Time {
			n++
			return t0.Add(time.Duration(n) * 10 * time.Millisecond)
		},
	}, &out, &errb
}

// writeSkills makes a tree of skills in a temporary folder and enters it.
func writeSkills(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testtool.WriteTree(t, dir, files)
	t.Chdir(dir)
	return dir
}

const (
	// cleanSkill has no finding; ambiguousSkill has one warning that
	// --fix repairs (yaml-ambiguous-scalar) and one it cannot
	// (description-short); badSkill has an error.
	cleanSkill     = "---\nname: good\ndescription: Formats tables in Markdown files. Use when the user asks to align or tidy a table.\n---\n# Good\n\nAlign the columns.\n"
	ambiguousSkill = "---\nname: fixme\ndescription: yes\n---\n# Fix me\n\nSomething.\n"
	badSkill       = "---\nname: Bad_Name\ndescription: Formats tables in Markdown files. Use when the user asks to align or tidy a table.\n---\n# Bad\n\nBody.\n"
)

func TestColorDecision(t *testing.T) {
	for _, tc := range []struct {
		flag string
		tty  bool
		env  map[string]string
		want bool
	}{
		{"auto", false, nil, false},
		{"auto", true, nil, true},
		{"", true, nil, true},
		{"auto", true, map[string]string{"NO_COLOR": "1"}, false},
		{"auto", true, map[string]string{"NO_COLOR": ""}, true},
		{"auto", true, map[string]string{"TERM": "dumb"}, false},
		{"auto", false, map[string]string{"FORCE_COLOR": "1"}, true},
		{"auto", false, map[string]string{"FORCE_COLOR": "0"}, false},
		{"auto", false, map[string]string{"CLICOLOR_FORCE": "1"}, true},
		{"auto", false, map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, false},
		{"always", false, map[string]string{"NO_COLOR": "1"}, true},
		{"never", true, map[string]string{"FORCE_COLOR": "1"}, false},
	} {
		ios, _, _ := fakeIO(tc.env)
		ios.Color = tc.flag
		if got := ios.colorOn(tc.tty); got != tc.want {
			t.Errorf("--color=%s tty=%t env=%v: colour %t, want %t", tc.flag, tc.tty, tc.env, got, tc.want)
		}
	}
}

// TestLintColor checks that lint's text report is coloured on a terminal
// only, and that the words are the same either way.
func TestLintColor(t *testing.T) {
	writeSkills(t, map[string]string{"skills/Bad_Name/SKILL.md": badSkill})
	plain := func(s string) string {
		for _, esc := range []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[1;31m", "\x1b[1;33m", "\x1b[1;36m"} {
			s = strings.ReplaceAll(s, esc, "")
		}
		return s
	}
	var reports []string
	for _, tc := range []struct {
		name  string
		tty   bool
		args  []string
		env   map[string]string
		color bool
	}{
		{"pipe", false, nil, nil, false},
		{"terminal", true, nil, nil, true},
		{"terminal NO_COLOR", true, nil, map[string]string{"NO_COLOR": "1"}, false},
		{"pipe --color=always", false, []string{"--color=always"}, nil, true},
		{"terminal --color=never", true, []string{"--color", "never"}, nil, false},
	} {
		ios, out, _ := fakeIO(tc.env)
		ios.OutTTY = tc.tty
		if code := run(ios, append([]string{"lint", "skills"}, tc.args...)); code != ExitFindings {
			t.Fatalf("%s: exit %d", tc.name, code)
		}
		got := out.String()
		if colored := strings.Contains(got, "\x1b[1;31merror\x1b[0m"); colored != tc.color {
			t.Errorf("%s: coloured %t, want %t:\n%q", tc.name, colored, tc.color, got)
		}
		if tc.color && !strings.Contains(got, "\x1b[2m[name-format]\x1b[0m") {
			t.Errorf("%s: the rule ID is not dim:\n%q", tc.name, got)
		}
		reports = append(reports, plain(got))
	}
	for _, r := range reports[1:] {
		if r != reports[0] {
			t.Errorf("colour changed the words:\n%s\nversus\n%s", r, reports[0])
		}
	}
}

func TestLintQuietVerbose(t *testing.T) {
	writeSkills(t, map[string]string{
		"skills/good/SKILL.md":     cleanSkill,
		"skills/fixme/SKILL.md":    ambiguousSkill,
		"skills/Bad_Name/SKILL.md": badSkill,
	})

	ios, out, errb := fakeIO(nil)
	if code := run(ios, []string{"lint", "skills"}); code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "warning:") {
		t.Errorf("warnings missing from the report:\n%s", out)
	}
	wantErr := "1 error, 2 warnings, 0 infos in 3 skills\nnext: run `skillpack lint --fix skills` to repair 1 of the 3 findings\n"
	if errb.String() != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", errb, wantErr)
	}

	// -q: the findings that fail the run, nothing on stderr.
	ios, out, errb = fakeIO(nil)
	if code := run(ios, []string{"-q", "lint", "skills"}); code != ExitFindings {
		t.Fatalf("-q: exit %d", code)
	}
	if strings.Contains(out.String(), "warning:") || !strings.Contains(out.String(), "error:") || errb.Len() > 0 {
		t.Errorf("-q printed\n%s\nand on stderr\n%s", out, errb)
	}
	// With --fail-on warning the warnings fail the run, so -q keeps them.
	ios, out, _ = fakeIO(nil)
	run(ios, []string{"lint", "--quiet", "--fail-on", "warning", "skills"})
	if !strings.Contains(out.String(), "warning:") {
		t.Errorf("-q --fail-on warning left out the warnings:\n%s", out)
	}

	// -v: the config read, a line a skill and the time taken, before the hint.
	ios, _, errb = fakeIO(nil)
	run(ios, []string{"lint", "-v", "skills"})
	wantErr = "config: no skillpack.yaml here or above; the defaults apply\n" +
		"1 error, 2 warnings, 0 infos in 3 skills\n" +
		"  skills/Bad_Name: 1 error\n" +
		"  skills/fixme: 2 warnings\n" +
		"  skills/good: ok\n" +
		"checked 3 skills in 10ms\n" +
		"next: run `skillpack lint --fix skills` to repair 1 of the 3 findings\n"
	if errb.String() != wantErr {
		t.Errorf("-v stderr:\n%s\nwant:\n%s", errb, wantErr)
	}

	// Machine formats do not change with -q.
	ios, out, _ = fakeIO(nil)
	run(ios, []string{"lint", "-q", "--format", "github", "skills"})
	if !strings.Contains(out.String(), "::warning ") {
		t.Errorf("-q changed --format github:\n%s", out)
	}
}

// TestLintFixHint checks the hint's count and wording: only findings a
// dry run of the fixes repairs count, and a clean run has no hint.
func TestLintFixHint(t *testing.T) {
	writeSkills(t, map[string]string{
		"a/fixme/SKILL.md": "---\nname: fixme\ndescription: 'Formats tables in Markdown files. Use when the user asks to align or tidy a table.'\nmetadata:\n  count: 28\n---\n# Fix me\n\nSomething.\n",
		"b/good/SKILL.md":  cleanSkill,
	})
	ios, _, errb := fakeIO(nil)
	run(ios, []string{"lint", "--profile", "spec", "a"})
	if want := "next: run `skillpack lint --fix --profile spec a` to repair it\n"; !strings.HasSuffix(errb.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to end in\n%s", errb, want)
	}
	// The files a pre-commit hook passes give way to the file the fix
	// changes: the hint repeated every one of them.
	ios, _, errb = fakeIO(nil)
	run(ios, []string{"lint", "a/fixme/SKILL.md", "b/good/SKILL.md", "b/good", "a"})
	if want := "next: run `skillpack lint --fix a/fixme/SKILL.md` to repair it\n"; !strings.HasSuffix(errb.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to end in\n%s", errb, want)
	}
	ios, _, errb = fakeIO(nil)
	run(ios, []string{"lint", "b"})
	if strings.Contains(errb.String(), "next:") {
		t.Errorf("a clean run has a hint:\n%s", errb)
	}
}

func TestBuildOutput(t *testing.T) {
	writeSkills(t, map[string]string{"skills/good/SKILL.md": cleanSkill})

	ios, _, errb := fakeIO(nil)
	if code := run(ios, []string{"build", "skills", "-o", "my dist"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if want := "next: skillpack serve 'my dist'   (or open 'my dist/index.html')\n"; !strings.HasSuffix(errb.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to end in\n%s", errb, want)
	}
	if strings.Contains(errb.String(), "packing") {
		t.Errorf("a progress line went to a pipe:\n%q", errb)
	}

	// -q: nothing at all on success.
	ios, _, errb = fakeIO(nil)
	if code := run(ios, []string{"build", "-q", "skills", "-o", "dist"}); code != ExitOK || errb.Len() > 0 {
		t.Errorf("-q: exit %d, stderr:\n%s", code, errb)
	}

	// -v: when each step ended, a line a skill, the whole time.
	ios, _, errb = fakeIO(nil)
	if code := run(ios, []string{"build", "--verbose", "skills", "-o", "dist"}); code != ExitOK {
		t.Fatalf("-v: exit %d: %s", code, errb)
	}
	for _, want := range []string{"• discover: 1 skill  (at ", "• write: dist is up to date  (at ", "  good (skills/good): 1 file, ", ", reused\n", "built 1 skill in "} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("-v stderr lacks %q:\n%s", want, errb)
		}
	}

	// The progress line: on a terminal only, never with -q or in CI.
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want bool
	}{
		{nil, nil, true},
		{[]string{"-q"}, nil, false},
		{nil, map[string]string{"CI": "true"}, false},
	} {
		ios, _, errb = fakeIO(tc.env)
		ios.ErrTTY = true
		run(ios, append([]string{"build", "skills", "-o", "dist", "--force"}, tc.args...))
		if got := strings.Contains(errb.String(), "\r  packing 1/1"); got != tc.want {
			t.Errorf("%v %v: progress %t, want %t:\n%q", tc.args, tc.env, got, tc.want, errb)
		}
	}
}

// TestBuildQuietFailure checks that -q keeps what stopped the build: the
// error findings and the error.
func TestBuildQuietFailure(t *testing.T) {
	writeSkills(t, map[string]string{"skills/Bad_Name/SKILL.md": badSkill, "skills/fixme/SKILL.md": ambiguousSkill})
	ios, _, errb := fakeIO(nil)
	if code := run(ios, []string{"build", "-q", "skills", "-o", "dist"}); code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	got := errb.String()
	if !strings.Contains(got, "error: ") || strings.Contains(got, "warning:") || strings.Contains(got, "•") || !strings.Contains(got, "skillpack: ") {
		t.Errorf("-q stderr:\n%s", got)
	}
}

func TestOutputFlagErrors(t *testing.T) {
	for args, want := range map[string]string{
		"-q -v lint":         "skillpack: --quiet and --verbose cannot be combined\n",
		"--color=alwys lint": "skillpack: --color: unknown mode \"alwys\" (did you mean \"always\"?); want auto, always or never\n",
	} {
		ios, _, errb := fakeIO(nil)
		if code := run(ios, strings.Fields(args)); code != ExitUsage || errb.String() != want {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", args, code, errb, want)
		}
	}
}

func TestStepTimer(t *testing.T) {
	ios, _, errb := fakeIO(nil)
	ios.Verbose = true
	w := ios.stepLog() // the clock reads 10ms
	for _, line := range []string{"• discover: 2 skills\n", "  warning: a note\n", "• write: dist\n"} {
		w.Write([]byte(line))
	}
	want := "• discover: 2 skills  (at 10ms)\n  warning: a note\n• write: dist  (at 20ms)\n"
	if errb.String() != want {
		t.Errorf("got\n%s\nwant\n%s", errb, want)
	}
	for d, want := range map[time.Duration]string{0: "<1ms", 1500 * time.Microsecond: "2ms", 1234 * time.Millisecond: "1.23s", 75 * time.Second: "1m15s"} {
		if got := duration(d); got != want {
			t.Errorf("duration(%v) = %s, want %s", d, got, want)
		}
	}
}

// TestHostileNames runs lint and build over files and a folder whose names
// hold what a crafted name can (an escape sequence, a line break that fakes
// a finding, a carriage return, a tab), and checks that no line a person or
// a CI log reads carries one: every printer escapes them (lint.Printable).
func TestHostileNames(t *testing.T) {
	fake := "x.md:1:1: error: all clear [fake]"
	files := map[string]string{
		"skills/good/SKILL.md":                cleanSkill,
		"skills/s/SKILL.md":                   "---\nname: s\ndescription: Formats tables in Markdown files. Use when the user asks to align or tidy a table.\n---\n# S\n\nAlign the columns.\n",
		"skills/s/red\x1b[31m.md":             "red",
		"skills/s/a\n" + fake:                 "fake",
		"skills/s/b\rc\td.md":                 "cr",
		"skills/t\x1b[2Jt/SKILL.md":           "---\nname: \"t\\e[2Jt\"\ndescription: Formats tables in Markdown files. Use when the user asks to align or tidy a table.\n---\n# T\n",
		"skills/t\x1b[2Jt/scripts/run\x07.sh": "#!/bin/sh\n",
	}
	dir := t.TempDir()
	for name := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[name]), 0o644); err != nil {
			t.Skipf("this file system takes no control characters in names: %v", err)
		}
	}
	t.Chdir(dir)
	summary := filepath.Join(t.TempDir(), "summary.md")
	for _, args := range [][]string{
		{"lint", "-v", "--color", "always", "skills"},
		{"lint", "--format", "github", "skills"},
		{"lint", "--format", "sarif", "skills"},
		{"build", "-v", "--color", "always", "--skip-invalid", "skills", "-o", "dist"},
	} {
		ios, out, errb := fakeIO(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary})
		run(ios, args)
		report, err := os.ReadFile(summary)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for what, s := range map[string]string{"stdout": out.String(), "stderr": errb.String(), "step summary": string(report)} {
			// The colour codes are the printers' own; nothing else may act.
			for _, esc := range []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[1;31m", "\x1b[1;33m", "\x1b[1;36m"} {
				s = strings.ReplaceAll(s, esc, "")
			}
			for _, line := range strings.Split(s, "\n") {
				if lint.Printable(line) != line {
					t.Errorf("%v: %s line %q acts on a terminal", args, what, line)
				}
				if strings.HasPrefix(line, "x.md:") {
					t.Errorf("%v: %s has a faked finding line %q", args, what, line)
				}
			}
		}
	}
}

// Over 10 findings of a kind, --format github says in the log that the run
// shows only 10 annotations of each kind, and how many the log holds.
func TestLintGitHubCap(t *testing.T) {
	skills := map[string]string{}
	for i := range 11 {
		skills[fmt.Sprintf("folder-%d/SKILL.md", i)] = fmt.Sprintf("---\nname: other-%d\ndescription: Formats tables in Markdown files. Use when the user asks to align a table.\n---\n# T\n", i)
	}
	writeSkills(t, skills)
	ios, out, errb := fakeIO(nil)
	run(ios, []string{"lint", "--format", "github", "."})
	if n := strings.Count(out.String(), "::warning "); n != 11 {
		t.Fatalf("%d warning annotations, want 11:\n%s", n, out)
	}
	if want := "GitHub shows 10 annotations of each kind a step; the annotations in this log are all 11\n"; !strings.HasSuffix(errb.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to end in\n%s", errb, want)
	}
}

// Skills left out of a document for one reason are one line, naming five
// and counting the rest; another reason has a line of its own.
func TestWarnLeftOutGroups(t *testing.T) {
	var off []layout.Excluded
	for i := range 7 {
		off = append(off, layout.Excluded{Name: fmt.Sprintf("s%d", i), Reason: "metadata.x is a mapping", Fix: "flatten it"})
	}
	off = append(off, layout.Excluded{Name: "t", Reason: "metadata is a list"})
	var errs strings.Builder
	warnLeftOut(&IO{Err: &errs}, off, "the MCP documents, whose hosts would refuse its entry")
	want := "warning: 8 skills are left out of the MCP documents, whose hosts would refuse their entries; the other indexes keep them\n" +
		"  s0, s1, s2, s3, s4, and 2 more: metadata.x is a mapping (fix: flatten it)\n" +
		"  t: metadata is a list\n"
	if errs.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", errs.String(), want)
	}
}
