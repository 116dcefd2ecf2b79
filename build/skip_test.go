package build

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/verify"
)

// brokenTree writes, below root/src, three valid skills and five invalid
// ones: one with an error of its own (with a second file, so that a stray
// served copy would show), two sharing a name, and one inside another
// skill's folder (an error under the config returned). It returns the
// source folder and that config.
func brokenTree(t *testing.T, root string) (string, *config.Config) {
	t.Helper()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "alpha"), "alpha", map[string]string{"notes/a.md": "A\n"})
	writeSkill(t, filepath.Join(src, "beta"), "beta", nil)
	writeSkill(t, filepath.Join(src, "outer"), "outer", nil)
	writeSkill(t, filepath.Join(src, "outer", "inner"), "inner", nil)
	writeSkill(t, filepath.Join(src, "broken"), "broken", map[string]string{
		"SKILL.md":  "---\nname: Broken_Name\ndescription: A skill whose name breaks the rules, so it is invalid.\n---\n# Broken\n",
		"extra.txt": "x\n",
	})
	writeSkill(t, filepath.Join(src, "x", "dup"), "dup", nil)
	writeSkill(t, filepath.Join(src, "y", "dup"), "dup", map[string]string{"notes.md": "not a copy of x/dup\n"})
	cfg, err := config.Parse("skillpack.yaml", []byte("rules:\n  skill-nested: error\n"))
	if err != nil {
		t.Fatal(err)
	}
	return src, cfg
}

// indexNames lists the skills of a bundle's v0.2 index.
func indexNames(t *testing.T, dist string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, ".well-known", "agent-skills", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Skills []struct{ Name string } `json:"skills"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range idx.Skills {
		names = append(names, s.Name)
	}
	return names
}

// verified runs the real verifier on a bundle and fails on any problem.
func verified(t *testing.T, dist string) {
	t.Helper()
	rep, err := verify.Dist(context.Background(), dist, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("verify %s: %s", filepath.Base(dist), p)
	}
}

// skippedOf is "name dir rule,rule" for each skill left out.
func skippedOf(res *Result) []string {
	var out []string
	for _, s := range res.Skipped {
		var rules []string
		for _, f := range s.Findings {
			if f.Severity != lint.Error {
				rules = append(rules, "NOT AN ERROR")
			}
			rules = append(rules, f.Rule)
		}
		out = append(out, s.Name+" "+filepath.ToSlash(s.Dir)+" "+strings.Join(slices.Compact(rules), ","))
	}
	return out
}

func TestSkipInvalid(t *testing.T) {
	for _, jobs := range []int{1, 4} {
		root := t.TempDir()
		src, cfg := brokenTree(t, root)
		dist := filepath.Join(root, "dist")
		opts := Options{Out: dist, Jobs: jobs, All: true, Lint: lint.Options{Settings: cfg.Lint, Base: root}} // All: brokenTree nests a skill

		// Without the flag the build refuses and writes nothing.
		_, err := Run([]string{src}, opts)
		var le *LintError
		if !errors.As(err, &le) || le.All {
			t.Fatalf("jobs %d: without SkipInvalid: %v, want a LintError", jobs, err)
		}
		if _, err := os.Lstat(dist); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("jobs %d: a refused build made %s", jobs, dist)
		}
		noStaging(t, root)

		opts.SkipInvalid = true
		res := mustBuild(t, []string{src}, opts)
		if got, want := indexNames(t, dist), []string{"alpha", "beta", "outer"}; !slices.Equal(got, want) {
			t.Errorf("jobs %d: the index lists %q, want %q", jobs, got, want)
		}
		var built []string
		for _, s := range res.Skills {
			built = append(built, s.Name)
		}
		if want := []string{"alpha", "beta", "outer"}; !slices.Equal(built, want) || res.Packed != 3 {
			t.Errorf("jobs %d: built %q (%d packed), want %q", jobs, built, res.Packed, want)
		}
		want := []string{
			"Broken_Name src/broken name-format",
			"inner src/outer/inner skill-nested",
			"dup src/x/dup name-duplicate",
			"dup src/y/dup name-duplicate",
		}
		got := skippedOf(res)
		for i := range got {
			got[i] = strings.Replace(got[i], filepath.ToSlash(root)+"/", "", 1)
		}
		if !slices.Equal(got, want) {
			t.Errorf("jobs %d: skipped\n%s\nwant\n%s", jobs, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		var recorded []string
		for _, s := range readRecord(t, dist).Skills {
			recorded = append(recorded, s.Name)
		}
		if want := []string{"alpha", "beta", "outer"}; !slices.Equal(recorded, want) {
			t.Errorf("jobs %d: the record lists %q, want %q", jobs, recorded, want)
		}
		for _, p := range []string{"dup", "inner", "Broken_Name", "broken"} {
			if _, err := os.Lstat(filepath.Join(dist, ".well-known", "agent-skills", p)); err == nil {
				t.Errorf("jobs %d: the bundle holds %s", jobs, p)
			}
		}
		verified(t, dist)
		noStaging(t, root)

		// The JSON of the result lists them under "skipped".
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Skipped []struct {
				Name, Dir string
				Findings  []struct{ Rule, Severity string }
			} `json:"skipped"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Skipped) != 4 || doc.Skipped[0].Name != "Broken_Name" || doc.Skipped[0].Dir != filepath.Join(src, "broken") ||
			len(doc.Skipped[0].Findings) == 0 || doc.Skipped[0].Findings[0].Severity != "error" {
			t.Errorf("jobs %d: JSON skipped: %+v", jobs, doc.Skipped)
		}
	}
}

// A skill left out is published by the next build once it is fixed, and a
// no-op rebuild with it still broken still reports it.
func TestSkipInvalidRebuild(t *testing.T) {
	root := t.TempDir()
	src, cfg := brokenTree(t, root)
	dist := filepath.Join(root, "dist")
	opts := Options{Out: dist, SkipInvalid: true, All: true, Lint: lint.Options{Settings: cfg.Lint, Base: root}}
	first := mustBuild(t, []string{src}, opts)

	before := snapshot(t, dist)
	res := mustBuild(t, []string{src}, opts)
	if !res.UpToDate || res.Reused != 3 {
		t.Errorf("no-op rebuild: upToDate %v, reused %d; want true, 3", res.UpToDate, res.Reused)
	}
	if got, want := skippedOf(res), skippedOf(first); !slices.Equal(got, want) {
		t.Errorf("no-op rebuild skipped %q, want %q", got, want)
	}
	sameTree(t, "no-op rebuild", before, snapshot(t, dist), true)

	// Fix two: the broken name, and one of the two skills named dup.
	writeSkill(t, filepath.Join(src, "broken"), "broken", nil)
	if err := os.RemoveAll(filepath.Join(src, "y")); err != nil {
		t.Fatal(err)
	}
	res = mustBuild(t, []string{src}, opts)
	if got, want := indexNames(t, dist), []string{"alpha", "beta", "broken", "dup", "outer"}; !slices.Equal(got, want) {
		t.Errorf("after the fix the index lists %q, want %q", got, want)
	}
	if res.Packed != 2 || res.Reused != 3 {
		t.Errorf("after the fix: %d packed, %d reused; want 2, 3", res.Packed, res.Reused)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Name != "inner" {
		t.Errorf("after the fix skipped %q, want only inner", skippedOf(res))
	}
	verified(t, dist)

	// Break a published skill: it leaves the bundle and the record.
	writeSkill(t, filepath.Join(src, "beta"), "beta", map[string]string{"SKILL.md": "---\nname: beta\n---\n# no description\n"})
	res = mustBuild(t, []string{src}, opts)
	if got, want := indexNames(t, dist), []string{"alpha", "broken", "dup", "outer"}; !slices.Equal(got, want) {
		t.Errorf("with beta broken the index lists %q, want %q", got, want)
	}
	for _, s := range readRecord(t, dist).Skills {
		if s.Name == "beta" {
			t.Error("the record still lists beta")
		}
	}
	verified(t, dist)
}

// A published skill that lost its name to a skill left out later (two
// skills of one name, which lint lets through when name-duplicate is off
// or scoped per plugin) is packed after all.
func TestSkipInvalidLostName(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	// With one job, skills are packed in the order found: a-outer/access
	// takes the name first, and is left out for being nested.
	writeSkill(t, filepath.Join(src, "a-outer"), "a-outer", nil)
	writeSkill(t, filepath.Join(src, "a-outer", "access"), "access", map[string]string{"inner.md": "inner\n"})
	writeSkill(t, filepath.Join(src, "z", "access"), "access", map[string]string{"SKILL.md": "---\nname: access\ndescription: The access skill that is published, not the nested one.\n---\n# z\n"})
	cfg, err := config.Parse("skillpack.yaml", []byte("rules:\n  skill-nested: error\n  name-duplicate: off\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		dist := filepath.Join(root, "dist")
		res := mustBuild(t, []string{src}, Options{Out: dist, Jobs: 1, DryRun: dry, SkipInvalid: true, All: true, Lint: lint.Options{Settings: cfg.Lint}})
		if len(res.Skipped) != 1 || res.Skipped[0].Dir != filepath.Join(src, "a-outer", "access") {
			t.Fatalf("dry run %v: skipped %q, want a-outer/access", dry, skippedOf(res))
		}
		if len(res.Skills) != 2 || res.Skills[1].Dir != filepath.Join(src, "z", "access") || res.Skills[1].Files != 1 {
			t.Fatalf("dry run %v: built %+v, want a-outer and z/access (one file)", dry, res.Skills)
		}
		if dry {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dist, ".well-known", "agent-skills", "access", "SKILL.md"))
		if err != nil || !strings.Contains(string(data), "# z") {
			t.Errorf("access/SKILL.md is not z's: %q, %v", data, err)
		}
		if _, err := os.Lstat(filepath.Join(dist, ".well-known", "agent-skills", "access", "inner.md")); err == nil {
			t.Error("the skipped skill's file is in the bundle")
		}
		verified(t, dist)
		noStaging(t, root)
	}
}

// Skills left out for a name they share (two plugins' skills of one name,
// tenzir/claude-plugins) are not packed: packed and then left out, they
// were packed again by every build, and a rebuild of an unchanged tree was
// no no-op. Two skills of one name in folders named apart (openclaw/skills:
// skills/a/4claw and skills/b/4claw-imageboard) cannot be told from the
// folders: the first build packs one of them, and a rebuild, which the
// record tells they were left out, none. The pack step's tally counts
// what it packed, and its figures add up: the claw that lost its name to
// the other waits for lint (LinuxIsCool/claude-plugins-public's 24 + 22 of
// 47).
func TestSkipInvalidSharedNameNotPacked(t *testing.T) {
	for _, jobs := range []int{1, 3} {
		root := t.TempDir()
		src := filepath.Join(root, "src")
		for _, p := range []string{"cpp", "python"} {
			writeSkillFile(t, src, p, ".claude-plugin/plugin.json", `{"name": "`+p+`"}`)
			writeSkill(t, filepath.Join(src, p, "skills", "conv"), "conv", map[string]string{"notes.md": "for " + p + "\n"})
		}
		writeSkill(t, filepath.Join(src, "skills", "solo"), "solo", nil)
		writeSkill(t, filepath.Join(src, "a", "claw"), "claw", nil)
		writeSkill(t, filepath.Join(src, "b", "claw-board"), "claw", nil)
		var served atomic.Int64 // files packed afresh
		withSeam(t, &wrapServed, func(w io.Writer) io.Writer { served.Add(1); return w })
		dist := filepath.Join(root, "dist")
		for run, want := range []int64{2, 0} {
			var log strings.Builder
			served.Store(0)
			res := mustBuild(t, []string{src}, Options{Out: dist, Jobs: jobs, SkipInvalid: true, Log: &log})
			if got := served.Load(); got != want {
				t.Errorf("jobs %d, run %d: %d files packed, want %d (solo's SKILL.md, then none)", jobs, run, got, want)
			}
			if len(res.Skipped) != 4 || run == 1 && (!res.UpToDate || res.Packed != 0) {
				t.Errorf("jobs %d, run %d: skipped %q, up to date %v, %d packed", jobs, run, skippedOf(res), res.UpToDate, res.Packed)
			}
			tally := []string{"(2 packed, 0 reused; 3 that may lose their name wait for lint)", "(0 packed, 1 reused; 4 that may lose their name wait for lint)"}[run]
			if !strings.Contains(log.String(), "• pack: 5 skills "+tally) {
				t.Errorf("jobs %d, run %d: the log does not say %q:\n%s", jobs, run, tally, log.String())
			}
			if got := indexNames(t, dist); !slices.Equal(got, []string{"solo"}) {
				t.Errorf("jobs %d, run %d: the index lists %q", jobs, run, got)
			}
		}
		verified(t, dist)
		noStaging(t, root)
	}
}

// When every skill is invalid there is nothing to publish: a LintError
// that says so, and nothing written.
func TestSkipInvalidAll(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "bad"), "Bad_Name", nil)
	dist := filepath.Join(root, "dist")
	_, err := Run([]string{src}, Options{Out: dist, SkipInvalid: true})
	var le *LintError
	if !errors.As(err, &le) || !le.All || !strings.Contains(err.Error(), "every skill is invalid") {
		t.Fatalf("got %v, want a LintError saying every skill is invalid", err)
	}
	if _, err := os.Lstat(dist); err == nil {
		t.Error("a refused build made the output folder")
	}
	noStaging(t, root)
}

// An error of the checks across skills that names a folder (a client's
// install folder, under Strict) leaves out every skill below it.
func TestSkipInvalidFolderFinding(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "skills", "pdf"), "pdf", nil)
	writeSkill(t, filepath.Join(src, ".claude", "skills", "one"), "one", nil)
	writeSkill(t, filepath.Join(src, ".claude", "skills", "two"), "two", nil)
	dist := filepath.Join(root, "dist")
	// All: by default the build leaves install folders out before lint.
	res := mustBuild(t, []string{src}, Options{Out: dist, SkipInvalid: true, All: true, Lint: lint.Options{Strict: true, Base: src}})
	var got []string
	for _, s := range res.Skipped {
		got = append(got, s.Name)
		if len(s.Findings) != 1 || s.Findings[0].Rule != "installed-folder" {
			t.Errorf("%s: findings %+v, want one installed-folder", s.Name, s.Findings)
		}
	}
	if want := []string{"one", "two"}; !slices.Equal(got, want) {
		t.Errorf("skipped %q, want %q", got, want)
	}
	if got, want := indexNames(t, dist), []string{"pdf"}; !slices.Equal(got, want) {
		t.Errorf("the index lists %q, want %q", got, want)
	}
	verified(t, dist)
}

// A skill left out for hidden text in a file is not published inside the
// skill whose folder holds it (lint reports the file once, as the inner
// skill's): the enclosing skill is left out too, unless its .skillignore
// keeps the file out of its archive.
func TestSkipInvalidEnclosing(t *testing.T) {
	for _, ignored := range []bool{false, true} {
		root := t.TempDir()
		src := filepath.Join(root, "src")
		writeSkill(t, filepath.Join(src, "alpha"), "alpha", nil)
		outer := map[string]string{}
		if ignored {
			outer[".skillignore"] = "inner/\n"
		}
		writeSkill(t, filepath.Join(src, "outer"), "outer", outer)
		writeSkill(t, filepath.Join(src, "outer", "inner"), "inner", map[string]string{"data.txt": "abc\u202edef\n"})
		// A folder of outer's name elsewhere: outer is packed only after
		// lint (mayShare), and is left out all the same.
		writeSkill(t, filepath.Join(src, "more", "outer"), "more-outer", nil)
		res := mustBuild(t, []string{src}, Options{Out: filepath.Join(root, "dist"), SkipInvalid: true, All: true,
			Lint: lint.Options{Base: root}})
		got := skippedOf(res)
		want := []string{"inner src/outer/inner invisible-unicode", "outer src/outer invisible-unicode"}
		if ignored {
			want = want[:1]
		}
		for i := range got {
			got[i] = strings.Replace(got[i], filepath.ToSlash(root)+"/", "", 1)
		}
		if !slices.Equal(got, want) {
			t.Errorf(".skillignore %v: skipped %q, want %q", ignored, got, want)
		}
		if !ignored && !slices.ContainsFunc(res.Findings, func(f lint.Finding) bool {
			return f.Path == "src/outer/SKILL.md" && strings.Contains(f.Message, "its archive holds src/outer/inner/data.txt")
		}) {
			t.Errorf("no finding on outer says why: %v", res.Findings)
		}
	}
}

// The folder the build starts from may be the enclosing skill itself.
func TestSkipInvalidEnclosingRoot(t *testing.T) {
	root := t.TempDir()
	outer := filepath.Join(root, "outer")
	writeSkill(t, outer, "outer", nil)
	writeSkill(t, filepath.Join(outer, "sib"), "sib", nil)
	writeSkill(t, filepath.Join(outer, "inner"), "inner", map[string]string{"data.txt": "abc\u202edef\n"})
	res := mustBuild(t, []string{outer}, Options{Out: filepath.Join(root, "dist"), SkipInvalid: true,
		Lint: lint.Options{Base: outer}})
	var names []string
	for _, s := range res.Skipped {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	if want := []string{"inner", "outer"}; !slices.Equal(names, want) {
		t.Errorf("skipped %q, want %q", names, want)
	}
}
