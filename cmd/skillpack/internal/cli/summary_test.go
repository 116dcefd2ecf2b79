package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/skill"
)

// The step summary lists at most summaryRows skills in each table and
// counts the rest: GitHub drops a step's summary over 1 MiB, which 6,000
// skills' rows came near.
func TestStepSummaryCapped(t *testing.T) {
	res := &build.Result{Out: "dist"}
	for i := range summaryRows + 50 {
		res.Skills = append(res.Skills, build.Skill{Name: fmt.Sprintf("s-%d", i), Files: 1, Size: 10})
	}
	for i := range summaryRows + 7 {
		res.Skipped = append(res.Skipped, build.Skipped{Name: fmt.Sprintf("bad-%d", i), Dir: "skills/bad"})
	}
	// A message names no file: the row says where in the skill's folder.
	res.Skipped[0].Findings = []lint.Finding{{Path: "skills/bad/SKILL.md", Line: 2, Rule: "name-format", Message: "the name is bad"}}
	// A skill's folder is absolute when the root given was; its findings'
	// paths are relative to the working folder still.
	abs, _ := filepath.Abs("skills/bad")
	res.Skipped[1].Dir = abs
	res.Skipped[1].Findings = []lint.Finding{{Path: "skills/bad/scripts/x.sh", Rule: "script-crlf", Message: "CRLF"}}
	file := filepath.Join(t.TempDir(), "summary.md")
	if err := appendSummary(file, res); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "| s-"); n != summaryRows {
		t.Errorf("%d rows of skills, want %d", n, summaryRows)
	}
	if n := strings.Count(text, "| bad-"); n != summaryRows {
		t.Errorf("%d rows of skills left out, want %d", n, summaryRows)
	}
	for _, want := range []string{"and 50 more: the bundle's indexes list every one.", "and 7 more left out", "| `name-format` SKILL.md:2: the name is bad |", "| `script-crlf` scripts/x.sh: CRLF |"} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text[len(text)-300:])
		}
	}
}

// Past a screen of findings, lint's summary adds the rules with the most,
// most first; below it, the one line.
func TestLintSummaryByRule(t *testing.T) {
	res := &lint.Result{Skills: make([]*skill.Skill, 3)}
	add := func(rule string, n int) {
		for range n {
			res.Findings = append(res.Findings, lint.Finding{Rule: rule, Severity: lint.Warning})
		}
	}
	add("link-broken", 10)
	add("body-too-long", 20)
	for _, r := range []string{"a", "b", "c", "d"} {
		add(r, 2)
	}
	var err strings.Builder
	summarize(&IO{Err: &err}, res)
	if strings.Contains(err.String(), "by rule") {
		t.Errorf("%d findings drew a tally:\n%s", len(res.Findings), err.String())
	}
	add("secret", 9)
	err.Reset()
	summarize(&IO{Err: &err}, res)
	if want := "by rule: body-too-long 20, link-broken 10, secret 9, a 2, b 2, and 2 more (skillpack lint --explain RULE"; !strings.Contains(err.String(), want) {
		t.Errorf("summary:\n%s\nwant %q", err.String(), want)
	}
	// The rule that fails the run comes first, however few its findings
	// (lazarenkod/agents: name-bundle-clash was "and 1 more").
	res.Findings = append(res.Findings, lint.Finding{Rule: "name-bundle-clash", Severity: lint.Error})
	err.Reset()
	summarize(&IO{Err: &err}, res)
	if want := "by rule: name-bundle-clash 1, body-too-long 20, link-broken 10, secret 9, a 2, and 3 more"; !strings.Contains(err.String(), want) {
		t.Errorf("summary:\n%s\nwant %q", err.String(), want)
	}
}
