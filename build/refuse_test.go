package build

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/pack"
)

// What the build cannot pack is a finding of the skill, which
// --skip-invalid leaves out, never the build's own failure: an entry file
// lint only warns of (skill.md), and a nested skill's file that the outer
// skill's archive cannot hold, which lint reports of the inner skill only.
func TestRefusalsAreFindings(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "good"), "good", nil)
	writeSkill(t, filepath.Join(src, "lower"), "lower", nil)
	if err := os.Rename(filepath.Join(src, "lower", "SKILL.md"), filepath.Join(src, "lower", "skill.md")); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(src, "outer"), "outer", map[string]string{
		"inner/SKILL.md": "---\nname: inner\ndescription: Test skill inner that does one small thing for the tests.\n---\n# inner\n",
		`inner/a\b.md`:   "a name no archive holds\n",
	})
	dist := filepath.Join(root, "dist")
	// skill-md-name is an error by default; the spec profile, or a
	// config, makes it a warning, and the build still cannot publish it.
	cfg, err := config.Parse(filepath.Join(root, "skillpack.yaml"), []byte("rules:\n  skill-md-name: warning\n"))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Out: dist, All: true, Lint: lint.Options{Settings: cfg.Lint}} // All: outer/inner is a skill too

	res, err := Run([]string{src}, opts)
	var le *LintError
	if !errors.As(err, &le) {
		t.Fatalf("build: %v, want lint errors", err)
	}
	// Packing stops at the first error, so outer may not be reached.
	wantFinding(t, res.Findings, "skill-md-name", "lower/skill.md", `clients look for "SKILL.md" only`)
	if _, err := os.Stat(dist); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused build wrote %s: %v", dist, err)
	}

	opts.SkipInvalid = true
	res, err = Run([]string{src}, opts)
	if err != nil {
		t.Fatalf("build --skip-invalid: %v", err)
	}
	wantFinding(t, res.Findings, "skill-md-name", "lower/skill.md", `clients look for "SKILL.md" only`)
	wantFinding(t, res.Findings, "path-unpackable", `outer/inner/a\b.md`, `the path cannot be packed into the archive of outer`)
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Name)
	}
	slices.Sort(skipped)
	if got := strings.Join(skipped, " "); got != "inner lower outer" {
		t.Errorf("left out %q, want inner, lower and outer", got)
	}
	if _, err := os.Stat(filepath.Join(dist, ".well-known", "agent-skills", "good", "SKILL.md")); err != nil {
		t.Errorf("the valid skill was not published: %v", err)
	}
}

func wantFinding(t *testing.T, fs []lint.Finding, rule, path, msg string) {
	t.Helper()
	for _, f := range fs {
		if f.Rule == rule && f.Severity == lint.Error && strings.HasSuffix(f.Path, path) && strings.Contains(f.Message, msg) {
			return
		}
	}
	t.Errorf("no %s error at %s saying %q; findings: %+v", rule, path, msg, fs)
}

// A full disk while a served copy is written is said as what it is:
// writing the output, on which device, and not a read of the input
// ("lint: … reading: write …" before).
func TestFullDisk(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "hello"), "hello", map[string]string{"notes/a.md": "A\n"})
	dist := filepath.Join(root, "dist")
	withSeam(t, &wrapServed, func(io.Writer) io.Writer { return full{} })
	_, err := Run([]string{src}, Options{Out: dist, Jobs: 1})
	if err == nil {
		t.Fatal("the build succeeded on a full disk")
	}
	msg := err.Error()
	for _, want := range []string{"pack: ", "writing the output: no space left on the device of " + dist, "no space left on device"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "reading") || strings.HasPrefix(msg, "lint") || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("error %q: mislabelled, or not ENOSPC", msg)
	}
}

// full is a writer on a full disk.
type full struct{}

func (full) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "/stage/file", Err: syscall.ENOSPC}
}

// pack.TarBound, which the build compares with what verify may unpack,
// is never less than what a .tar.gz it packs unpacks to: long paths split
// into the USTAR prefix, non-ASCII names, empty files, odd sizes.
func TestTarBound(t *testing.T) {
	files := []struct {
		path string
		size int64
	}{
		{"SKILL.md", 1},
		{strings.Repeat("d/", 70) + "long-name-in-the-prefix.md", 513},
		{"empty", 0},
		{"références/données-中文.md", 1024},
		{"x", 100_000},
	}
	slices.SortFunc(files, func(a, b struct {
		path string
		size int64
	}) int {
		return strings.Compare(a.path, b.path)
	})
	var tgz bytes.Buffer
	pw := pack.NewWriter(&tgz, io.Discard, pack.Options{})
	var sizes []int64
	for _, f := range files {
		if _, err := pw.Add(f.path, false, f.size, bytes.NewReader(make([]byte, f.size))); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		sizes = append(sizes, f.size)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&tgz)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		t.Fatal(err)
	}
	if bound := pack.TarBound(sizes); bound < n {
		t.Errorf("TarBound = %d, but the tar is %d bytes", bound, n)
	}
}

// What an index cannot carry is refused by the build whatever the profile
// and the config say of its rule: a missing name that the claude profile
// makes a warning (Claude Code takes the folder's), a non-ASCII name that
// relaxed allows, rules turned off in skillpack.yaml. Each stopped the build
// as skillpack's own fault (exit 3); now it is the skill's finding.
func TestPublishRulesHold(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writeSkill(t, filepath.Join(src, "good"), "good", nil)
	writeSkillFile(t, src, "nameless", "SKILL.md", "---\ndescription: Take notes in the team's format, when the user asks.\n---\n# Notes\n")
	writeSkillFile(t, src, "cafe", "SKILL.md", "---\nname: café\ndescription: Order coffee for the team, when the user asks.\n---\n# Café\n")
	// Nor do a baseline and allow entries silence them in a build.
	res, err := lint.Run([]string{src}, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	baseline := filepath.Join(src, "baseline.json")
	var b bytes.Buffer
	if err := lint.WriteBaseline(&b, baseline, res.Base, res.Findings); err != nil || os.WriteFile(baseline, b.Bytes(), 0o644) != nil {
		t.Fatal(err)
	}
	allow := "allow:\n  - rule: name-missing\n    path: '**'\n    reason: legacy\n" +
		"  - rule: name-non-ascii\n    path: '**'\n    reason: legacy\n"
	for _, tc := range []struct{ profile, config string }{
		{"claude", ""},
		{"relaxed", "rules:\n  name-missing: off\n"},
		{"", "rules:\n  name-missing: off\n  name-non-ascii: warning\n  name-format: off\n"},
		{"", "baseline: baseline.json\n"},
		{"", allow},
	} {
		cfg, err := config.Parse(filepath.Join(src, "skillpack.yaml"), []byte(tc.config+"profile: "+cmp.Or(tc.profile, "clients")+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.BaselinePath != "" {
			if cfg.Lint.Baseline, err = lint.LoadBaseline(cfg.BaselinePath); err != nil {
				t.Fatal(err)
			}
		}
		// Lint passes what the build refuses (but for café under claude).
		if quiet, _ := lint.Run([]string{src}, lint.Options{Settings: cfg.Lint}); tc.profile != "claude" {
			if errs, _, _ := lint.Count(quiet.Findings); errs > 0 {
				t.Fatalf("%+v: lint reports errors itself, so the case shows nothing: %+v", tc, quiet.Findings)
			}
		}
		dist := filepath.Join(t.TempDir(), "dist")
		var log bytes.Buffer
		_, err = Run([]string{src}, Options{Out: dist, Log: &log, Lint: lint.Options{Settings: cfg.Lint}})
		if le, ok := errors.AsType[*LintError](err); !ok || le.Errors != 2 {
			t.Errorf("%+v: %v, want a LintError of 2 errors", tc, err)
		}
		// Where the settings lowered it, the build says it does not follow them.
		if lowered := cfg.Lint.Lowers(lint.Lookup("name-missing")); lowered != strings.Contains(log.String(), "  name-missing: the profile or skillpack.yaml sets it below error") {
			t.Errorf("%+v: name-missing lowered %t, log:\n%s", tc, lowered, log.String())
		}
		res, err := Run([]string{src}, Options{Out: dist, SkipInvalid: true, Lint: lint.Options{Settings: cfg.Lint}})
		if err != nil || len(res.Skipped) != 2 || !slices.Equal(indexNames(t, dist), []string{"good"}) {
			t.Errorf("%+v, --skip-invalid: %v, skipped %+v; want good published, the other two left out", tc, err, res)
		}
	}
}
