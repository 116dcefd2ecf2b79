package build

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Builds that stage into a spare folder give, after every kind of change,
// the tree a fresh build of the same skills gives; and they do stage into
// it: the output folder is the one the build before last swapped out.
func TestSpareMatchesFresh(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "skills")
	copyTree(t, examples, src, copyOpts{})
	// alpha ships its author's folder signature, which is its file.
	writeSkill(t, filepath.Join(src, "alpha"), "alpha", map[string]string{"references/a.md": "a\n", "scripts/run.sh": "echo a\n", "skill.oms.sig": "{}\n"})
	writeSkill(t, filepath.Join(src, "beta"), "beta", map[string]string{"references/b.md": "b\n"})
	out := filepath.Join(root, "dist")
	spare := new(Spare)
	defer spare.Close()
	build := func(what string) *Result {
		t.Helper()
		res := mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
		sameTree(t, what, snapshot(t, out), freshTree(t, src, Options{}), false)
		return res
	}
	dirOf := map[int]os.FileInfo{}
	steps := []struct {
		what string
		edit func()
	}{
		{"first build", func() {}},
		{"SKILL.md edited", func() { writeSkillFile(t, src, "alpha", "SKILL.md", skillMD("alpha", "Edited once.")) }},
		{"file added", func() { writeSkillFile(t, src, "beta", "references/c.md", "c\n") }},
		{"file removed", func() { os.Remove(filepath.Join(src, "alpha", "scripts", "run.sh")) }},
		{"skill added", func() { writeSkill(t, filepath.Join(src, "gamma"), "gamma", nil) }},
		{"skill removed", func() { os.RemoveAll(filepath.Join(src, "beta")) }},
		{"edit reverted", func() { writeSkillFile(t, src, "alpha", "SKILL.md", skillMD("alpha", "Do the thing.")) }},
		{"skill renamed", func() {
			os.Rename(filepath.Join(src, "gamma"), filepath.Join(src, "delta"))
			writeSkillFile(t, src, "delta", "SKILL.md", skillMD("delta", "Renamed."))
		}},
		{"two skills edited", func() {
			writeSkillFile(t, src, "alpha", "references/a.md", "a2\n")
			writeSkillFile(t, src, "delta", "references/d.md", "d\n")
		}},
	}
	for i, s := range steps {
		s.edit()
		res := build(s.what)
		if res.UpToDate {
			t.Errorf("%s: up to date", s.what)
		}
		info, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		dirOf[i] = info
		if i >= 2 && !os.SameFile(dirOf[i], dirOf[i-2]) {
			t.Errorf("%s: the output is not the folder the build before last swapped out", s.what)
		}
		if i >= 1 && spare.dir == "" {
			t.Errorf("%s: no spare kept", s.what)
		}
	}
	// A no-op leaves the spare as it was, and the next build uses it.
	if res := build("no-op"); !res.UpToDate {
		t.Error("no-op: not up to date")
	}
	writeSkillFile(t, src, "alpha", "SKILL.md", skillMD("alpha", "After a no-op."))
	build("edit after a no-op")

	// Close removes it, and nothing else is left beside the output.
	kept := spare.dir
	if err := spare.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kept); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Close left %s", kept)
	}
	noStaging(t, root)
}

// A build that fails gives the spare back untouched when it wrote nothing,
// and the next build still equals a fresh one.
func TestSpareAfterFailedBuild(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "skills")
	writeSkill(t, filepath.Join(src, "alpha"), "alpha", nil)
	writeSkill(t, filepath.Join(src, "beta"), "beta", nil)
	out := filepath.Join(root, "dist")
	spare := new(Spare)
	defer spare.Close()
	mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
	writeSkillFile(t, src, "alpha", "SKILL.md", skillMD("alpha", "Second."))
	mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
	before := spare.dir
	if before == "" {
		t.Fatal("no spare kept")
	}

	// A lint error: nothing written, the spare is kept.
	writeSkillFile(t, src, "beta", "SKILL.md", "---\nname: Not Valid\n---\n")
	var le *LintError
	if _, err := Run([]string{src}, Options{Out: out, Spare: spare}); !errors.As(err, &le) {
		t.Fatalf("want a lint error, got %v", err)
	}
	if spare.dir != before {
		t.Errorf("after a failed build the spare is %q, want %q", spare.dir, before)
	}
	writeSkillFile(t, src, "beta", "SKILL.md", skillMD("beta", "Fixed."))
	mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
	sameTree(t, "after the fix", snapshot(t, out), freshTree(t, src, Options{}), false)
}

// Another build of the same output, without the spare, in between: the
// spare still holds what it says, and the next build is right.
func TestSpareWithOtherBuilds(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "skills")
	writeSkill(t, filepath.Join(src, "alpha"), "alpha", map[string]string{"references/a.md": "a\n"})
	writeSkill(t, filepath.Join(src, "beta"), "beta", nil)
	out := filepath.Join(root, "dist")
	spare := new(Spare)
	defer spare.Close()
	mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
	writeSkillFile(t, src, "alpha", "references/a.md", "a2\n")
	mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
	writeSkillFile(t, src, "alpha", "references/a.md", "a3\n")
	writeSkillFile(t, src, "beta", "references/b.md", "b\n")
	mustBuild(t, []string{src}, Options{Out: out}) // no spare
	writeSkillFile(t, src, "alpha", "references/a.md", "a\n")
	mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
	sameTree(t, "after another build", snapshot(t, out), freshTree(t, src, Options{}), false)

	// A spare for another output is not used, and is removed.
	other := filepath.Join(root, "other")
	old := spare.dir
	mustBuild(t, []string{src}, Options{Out: other, Spare: spare})
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spare of %s was left after a build of %s", out, other)
	}
	sameTree(t, "another output", snapshot(t, other), freshTree(t, src, Options{}), false)
}

// Prime makes the spare of a bundle that replaced none, without making the
// next build hash the bundle, and the build after it stages into it.
func TestSparePrime(t *testing.T) {
	src, dist, _ := builtExamples(t, Options{})
	spare := new(Spare)
	defer spare.Close()
	if err := spare.Prime(dist); err != nil {
		t.Fatal(err)
	}
	if spare.dir == "" {
		t.Fatal("Prime made no spare")
	}
	stampedLast(t, dist)
	primed, err := os.Stat(spare.dir)
	if err != nil {
		t.Fatal(err)
	}
	appendTo(t, filepath.Join(src, "csv-profiler", "SKILL.md"), "\nOne more line.\n")
	mustBuild(t, []string{src}, Options{Out: dist, Spare: spare})
	if info, err := os.Stat(dist); err != nil || !os.SameFile(info, primed) {
		t.Errorf("the build did not stage into the primed spare (%v)", err)
	}
	sameTree(t, "after priming", snapshot(t, dist), freshTree(t, src, Options{}), false)
	// A spare that is there already is kept.
	kept := spare.dir
	if err := spare.Prime(dist); err != nil || spare.dir != kept {
		t.Errorf("Prime replaced the spare %s with %s (%v)", kept, spare.dir, err)
	}
}

func skillMD(name, body string) string {
	return "---\nname: " + name + "\ndescription: Test skill " + name + " that does one small thing for the tests.\n---\n# " + name + "\n\n" + strings.TrimSpace(body) + "\n"
}

// The output inside the input, as `serve dist --watch .` has it: a no-op
// gives the spare back still a bundle (its documents are removed only by
// a build that writes its own), so the next build does not take it for
// another build's staging folder among the skills.
func TestSpareOutputInsideInput(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, filepath.Join(root, "alpha"), "alpha", nil)
	writeSkill(t, filepath.Join(root, "beta"), "beta", nil)
	out := filepath.Join(root, "dist")
	spare := new(Spare)
	defer spare.Close()
	mustBuild(t, []string{root}, Options{Out: out, Spare: spare})
	writeSkillFile(t, root, "alpha", "SKILL.md", skillMD("alpha", "Second."))
	mustBuild(t, []string{root}, Options{Out: out, Spare: spare})
	if res := mustBuild(t, []string{root}, Options{Out: out, Spare: spare}); !res.UpToDate {
		t.Fatal("not a no-op")
	}
	writeSkillFile(t, root, "beta", "SKILL.md", skillMD("beta", "Third."))
	mustBuild(t, []string{root}, Options{Out: out, Spare: spare})
	sameTree(t, "after a no-op", snapshot(t, out), freshTree(t, root, Options{}), false)
}

// A file changed in place in the output is packed again, and the folder
// that held it, kept as the spare, never lends it to a later build: only
// the skills a build reused (proved to hold their bytes) are kept.
func TestSpareNeverKeepsUnproven(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "skills")
	writeSkill(t, filepath.Join(src, "alpha"), "alpha", nil)
	writeSkill(t, filepath.Join(src, "beta"), "beta", nil)
	out := filepath.Join(root, "dist")
	spare := new(Spare)
	defer spare.Close()
	mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
	served := filepath.Join(out, ".well-known", "agent-skills", "alpha", "SKILL.md")
	if err := os.WriteFile(served, []byte("tampered\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSkillFile(t, src, "beta", "SKILL.md", skillMD("beta", "Second.")) // alpha is packed again, beta too
	mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
	writeSkillFile(t, src, "beta", "SKILL.md", skillMD("beta", "Third.")) // alpha is reused
	mustBuild(t, []string{src}, Options{Out: out, Spare: spare})
	sameTree(t, "after a tampered file", snapshot(t, out), freshTree(t, src, Options{}), false)
}
