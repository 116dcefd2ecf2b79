package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/lint"
)

// TestConfigEveryProblem checks that one run reports every mistake of a
// config, each at its line with its did-you-mean, in the order of the
// lines: a file with four typos once took four runs.
func TestConfigEveryProblem(t *testing.T) {
	const yml = `profil: claude
rules:
  name-mismach: off
  unknown-key: loud
  secret: error
build:
  base-ulr: https://example.com
  no-legacy: true
  marketplaces: [claude, {}, claud]
  base-url: not a url
allow:
  - rule: secret
    path: a/**
  - rules: [link-broken]
    path: docs/**
    reason: generated at install time
ignore:
  - vendor/
  - ../shared/skills/
`
	_, err := Parse("skillpack.yaml", []byte(yml))
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("got %T %v, want Errors", err, err)
	}
	want := []string{
		`skillpack.yaml:1: unknown key "profil" (did you mean "profile"?); known keys: allow, baseline, build, ignore, profile, rules`,
		`skillpack.yaml:3: unknown rule "name-mismach" (did you mean "name-mismatch"?); ` + "`skillpack lint --list-rules` lists them",
		`skillpack.yaml:4: rule unknown-key: unknown severity "loud" (want error, warning, info or off)`,
		`skillpack.yaml:7: unknown key "build.base-ulr" (did you mean "base-url"?); known keys: ai-catalog, base-url, catalog-publisher, catalog-source, catalog-title, llms-txt, llms-txt-merge, marketplaces, no-legacy, previous, skip-invalid, versioned`,
		`skillpack.yaml:9: build.marketplaces: a client is a name, such as claude`,
		`skillpack.yaml:9: build.marketplaces: unknown marketplace "claud" (did you mean "claude"?); skillpack writes claude, codex, copilot, cursor`,
		`skillpack.yaml:10: build.base-url "not a url": use an absolute http or https URL such as https://example.com/skills`,
		`skillpack.yaml:12: allow entry for secret on "a/**" has no reason: add ` + "`reason: ...`" + ` saying why the finding is not a defect`,
		`skillpack.yaml:19: ignore: "../shared/skills/": a pattern is relative to this file's folder and matches only below it; this one holds "..", which no path below it holds: drop it: only folders below this file's are linted`,
	}
	if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Each problem is a *Error of its own, for callers that want the
	// positions.
	var one *Error
	if !errors.As(err, &one) || one.Line != 1 {
		t.Errorf("errors.As found %+v, want the first problem, at line 1", one)
	}
}

// TestConfigAllowEntryProblems checks that an allow entry reports each of
// its problems once: a misspelt key is not also a missing one.
func TestConfigAllowEntryProblems(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"allow:\n  - rule: secret\n", "skillpack.yaml:2: allow entry without a path: add `path: GLOB` (use rules: {ID: off} to turn a rule off everywhere)\n" +
			"skillpack.yaml:2: allow entry for secret has no reason: add `reason: ...` saying why the finding is not a defect"},
		{"allow:\n  - rule: secret\n    pth: a\n    reason: x\n", `skillpack.yaml:3: allow: unknown key "pth" (did you mean "path"?); known keys: path, reason, rule, rules`},
		{"allow:\n  - rul: secret\n    path: a\n    reason: x\n", `skillpack.yaml:2: allow: unknown key "rul" (did you mean "rule"?); known keys: path, reason, rule, rules`},
		{"allow:\n  - rule: secret\n    path: a\n    reason: \"  \"\n", "skillpack.yaml:2: allow entry for secret on \"a\" has no reason: add `reason: ...` saying why the finding is not a defect"},
		{"allow:\n  - rules: [secrt, link-brokn]\n    path: a\n    reason: x\n", "skillpack.yaml:2: allow: unknown rule \"secrt\" (did you mean \"secret\"?); `skillpack lint --list-rules` lists them\n" +
			"skillpack.yaml:2: allow: unknown rule \"link-brokn\" (did you mean \"link-broken\"?); `skillpack lint --list-rules` lists them"},
		{"allow:\n  - rules: []\n    path: a\n    reason: x\n", "skillpack.yaml:2: allow entry without a rule: add `rule: ID`"},
	} {
		_, err := Parse("skillpack.yaml", []byte(tc.yaml))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\ngot  %v\nwant %s", tc.yaml, err, tc.want)
		}
	}
}

// TestConfigValid checks that a config without mistakes is read whole.
func TestConfigValid(t *testing.T) {
	c, err := Parse("skillpack.yaml", []byte(`profile: claude
rules:
  file-unreferenced: off
ignore: [vendor/]
allow:
  - rules: [link-broken, secret]
    path: docs/**
    reason: generated
build:
  no-legacy: true
  base-url: https://example.com/skills
  skip-invalid: true
  llms-txt: true
  llms-txt-merge: site/llms.txt
  ai-catalog: true
  marketplaces: [claude]
  versioned: true
  previous: ../published
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Lint.Profile.Name != "claude" || c.Lint.Severity["file-unreferenced"] != lint.Off || len(c.Lint.Allow) != 1 || len(c.Lint.Allow[0].Rules) != 2 {
		t.Errorf("read %+v", c)
	}
	// Paths are the config folder's, not the working directory's.
	want := Build{NoLegacy: true, BaseURL: "https://example.com/skills", SkipInvalid: true,
		LLMsTxt: true, LLMsTxtMerge: "site/llms.txt", AICatalog: true, Marketplaces: []string{"claude"}, Versioned: true, Previous: "../published"}
	if !reflect.DeepEqual(c.Build, want) {
		t.Errorf("build: read %+v, want %+v", c.Build, want)
	}
	c, err = Parse("/src/proj/skillpack.yaml", []byte("build:\n  llms-txt-merge: site/llms.txt\n  previous: ../published\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Build.LLMsTxtMerge != filepath.FromSlash("/src/proj/site/llms.txt") || c.Build.Previous != filepath.FromSlash("/src/published") {
		t.Errorf("paths read as %q and %q, want them under /src/proj", c.Build.LLMsTxtMerge, c.Build.Previous)
	}
	// A URL is not a path.
	c, err = Parse("/src/proj/skillpack.yaml", []byte("build:\n  previous: https://skills.example.com/\n"))
	if err != nil || c.Build.Previous != "https://skills.example.com/" {
		t.Errorf("previous: %v, %+v", err, c)
	}
}

// TestConfigBaselineLater checks that a config may name a baseline that
// does not exist yet (the run that writes it needs the config), and that
// a run reading it says which line named it.
func TestConfigBaselineLater(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "skillpack.yaml")
	if err := os.WriteFile(p, []byte("profile: spec\nbaseline: ci/baseline.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaselinePath != filepath.Join(dir, "ci", "baseline.json") || cfg.Lint.Baseline != nil {
		t.Fatalf("BaselinePath %q, Baseline %v", cfg.BaselinePath, cfg.Lint.Baseline)
	}
	if err := cfg.ReadBaseline(); err == nil || !strings.HasPrefix(err.Error(), p+":2: baseline ") {
		t.Errorf("reading a missing baseline: %v", err)
	}
}

func TestAllowListErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"allow:\n  - rule: link-broken\n    path: a/**\n", "skillpack.yaml:2: allow entry for link-broken on \"a/**\" has no reason"},
		{"allow:\n  - rule: link-brokn\n    path: a/**\n    reason: x\n", "skillpack.yaml:2: allow: unknown rule \"link-brokn\" (did you mean \"link-broken\"?)"},
		{"allow:\n  - path: a/**\n    reason: x\n", "skillpack.yaml:2: allow entry without a rule"},
		{"allow:\n  - rule: secret\n    reason: x\n", "skillpack.yaml:2: allow entry without a path"},
		{"allow:\n  - rule: secret\n    path: a\n    reson: x\n", `skillpack.yaml:4: allow: unknown key "reson" (did you mean "reason"?)`},
		{"allow: secret\n", "skillpack.yaml:1: allow must be a list"},
	} {
		_, err := Parse("skillpack.yaml", []byte(tc.yaml))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s…", tc.yaml, err, tc.want)
		}
	}
}

// --config given a path that is no file says so with the fix, not with
// the system's words.
func TestLoadNoFile(t *testing.T) {
	dir := t.TempDir()
	for p, want := range map[string]string{
		filepath.Join(dir, "nothere.yaml"): "nothere.yaml: no such file; give the path of a skillpack.yaml (--config)",
		dir:                                "is a folder; give the path of its skillpack.yaml (--config " + filepath.Join(dir, File) + ")",
	} {
		if _, err := Load(p); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("Load(%s): %v, want …%s", p, err, want)
		}
	}
}

// TestConfigProfile checks that a mistyped profile gets a did-you-mean,
// as --profile's does, and a list a message rather than "<nil>".
func TestConfigProfile(t *testing.T) {
	for yml, want := range map[string]string{
		"profile: clints\n":   `skillpack.yaml:1: unknown profile "clints" (did you mean "clients"?); known profiles: claude, clients, relaxed, spec`,
		"profile: claud\n":    `skillpack.yaml:1: unknown profile "claud" (did you mean "claude"?); known profiles: claude, clients, relaxed, spec`,
		"profile: [claude]\n": `skillpack.yaml:1: profile is one name: claude, clients, relaxed, spec`,
	} {
		if _, err := Parse("skillpack.yaml", []byte(yml)); err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %s", yml, err, want)
		}
	}
}
