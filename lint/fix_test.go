package lint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/skill"
)

// fixLeft are the findings of fixable rules that --fix leaves to a person,
// by a substring of their message or of " fix: " and their fix, with why.
var fixLeft = map[string][]string{
	// " #" may start a comment or be text: the author knows which.
	"yaml-colon-space": {`cut at " #"`},
	// The idiom for a fence inside a fence changes the rendering if deleted;
	// in code the character may be the value.
	"invisible-char": {"before a code fence line", "if the text needs the character", "put the value in double quotes"},
	// Removing a bidirectional override reorders the text on screen; an
	// escape in a value is the author's to read and delete.
	"invisible-unicode": {"bidirectional control", "delete the escapes"},
	// An item with a space has no faithful string form.
	// A comment has no place in the one-line string.
	"allowed-tools-list": {"fix: keep the list", "leaves a list holding a comment"},
	// Only a ": " in a plain value is a mechanical cause; a mistake on
	// the line above it is the author's to mend, as the fix says, and so
	// is a value of paragraphs or "Keywords: a, b" lines under its key.
	"frontmatter-yaml": {"on a line of its own", "goes on over several lines, and", "goes on to line", "is no escape", "check its indentation", "put a space after the colon", "start line", "indent the lines of the", "save SKILL.md as UTF-8", "remove the \"...\" line", "write allowed-tools in one form"},
	// Only a byte order mark is; the text's real encoding is a guess.
	"skill-md-encoding": {"not valid UTF-8"},
	"text-encoding":     {"not valid UTF-8", "UTF-16", "NUL bytes"},
	// A metadata key with no value: "" or no key is the author's call.
	"metadata-scalar": {"has no value"},
	// Only an empty metadata is removed; a string or a list is the author's
	// to rewrite.
	"metadata-format": {"not a list", "not a string"},
	// Only an argument-hint is text written as a list; a comment after it
	// stays the author's.
	"yaml-flow-sequence": {"write the list in block form", "quote the whole value"},
	// Only a string becomes the folder's name; a number or a list may mean
	// something the author knows.
	"name-format": {"must be a string"},
	// Only "\" separators are; an absolute path is the author's to rewrite.
	"link-absolute": {"a path from the root of a web site", "starts at a root", "a path on the author's computer", "from the repository's root"},
	// Only a command of plain words splits as a shell would split it.
	"plugin-mcp-command": {"is a path", "leads out", `"cd x && ./run"`},
}

// TestFixRules runs Fix on every fixable rule's case file: the rule's
// findings are gone but for fixLeft's, no finding of any rule is new, and
// a second Fix changes nothing.
func TestFixRules(t *testing.T) {
	for _, fx := range fixers {
		for _, id := range fx.rules {
			t.Run(id, func(t *testing.T) {
				t.Parallel()
				if Lookup(id) == nil {
					t.Fatalf("fixer for unknown rule %s", id)
				}
				ar, err := txtar.ParseFile(filepath.Join("testdata", "rules", id+".txtar"))
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				opts, _ := materialize(t, dir, ar)
				opts.Base = dir
				before := lintDir(t, dir, opts)
				rep, err := Fix(context.Background(), before, FixOptions{Lint: opts})
				if err != nil {
					t.Fatal(err)
				}
				after := lintDir(t, dir, opts)
				fixed := 0
				for _, f := range before.Findings {
					if f.Rule == id {
						fixed++
					}
				}
				for _, f := range after.Findings {
					if f.Rule != id {
						continue
					}
					fixed--
					if !slices.ContainsFunc(fixLeft[id], func(s string) bool { return strings.Contains(f.Message+" fix: "+f.Fix, s) }) {
						t.Errorf("not fixed: %s:%d:%d %s", f.Path, f.Line, f.Column, f.Message)
					}
				}
				if fixed == 0 {
					t.Errorf("no finding of %s fixed", id)
				}
				if rep.Fixed < fixed {
					t.Errorf("report says %d findings fixed, %s alone lost %d", rep.Fixed, id, fixed)
				}
				checkNoNew(t, before.Findings, after.Findings)
				snap := snapshot(t, dir)
				again, err := Fix(context.Background(), after, FixOptions{Lint: opts})
				if err != nil {
					t.Fatal(err)
				}
				if again.Fixed != 0 || len(again.Files) != 0 || !maps.Equal(snap, snapshot(t, dir)) {
					t.Errorf("a second Fix changed %v (%d findings)", again.Files, again.Fixed)
				}
			})
		}
	}
}

func lintDir(t *testing.T, dir string, opts Options) *Result {
	t.Helper()
	res, err := Run([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkNoNew fails when a file holds more findings of some rule after Fix
// than before (a renamed file counts under its old name), except where
// frontmatter that did not parse now does: its fields are checked at last.
func checkNoNew(t *testing.T, before, after []Finding) {
	t.Helper()
	type key struct{ path, rule string }
	n := map[key]int{}
	had := map[string]bool{}
	revealed := map[string]bool{} // frontmatter that did not parse, so its fields were never checked
	for _, f := range before {
		n[key{f.Path, f.Rule}]++
		had[f.Path] = true
		revealed[f.Path] = revealed[f.Path] || f.Rule == "frontmatter-yaml"
	}
	for _, f := range after {
		p := f.Path
		if alt := strings.TrimSuffix(p, skill.FileName) + "skill.md"; strings.HasSuffix(p, "/"+skill.FileName) && !had[p] && had[alt] {
			p = alt // renamed by Fix
		}
		if n[key{p, f.Rule}]--; n[key{p, f.Rule}] < 0 && !revealed[p] {
			t.Errorf("new finding after Fix: %s:%d:%d %s [%s]", f.Path, f.Line, f.Column, f.Message, f.Rule)
		}
	}
}

type fileState struct {
	data string
	mode fs.FileMode
}

// snapshot records every file's bytes and mode, and every link's target.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		var data []byte
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			s, err := os.Readlink(p)
			if err != nil {
				return err
			}
			data = []byte("-> " + s)
		case fi.Mode().IsRegular():
			if data, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = fileState{string(data), fi.Mode()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFixGolden runs Fix on each testdata/fix case: the files under in/
// are a tree of skills, each want/PATH is what in/PATH must hold after
// Fix, and every file without a want/ twin must keep its bytes. The
// archive's comment takes materialize's directives, on in/ paths, and
// three of its own: "mode PATH 0755" checks a mode after Fix, "gone
// PATH" lets a file go (renamed), and "copies N" is how many of the files
// changed are copies of another (FixReport.Copies; 0 without it).
func TestFixGolden(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join("testdata", "fix", "*.txtar"))
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/fix")
	}
	for _, c := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(c), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(c)
			if err != nil {
				t.Fatal(err)
			}
			in := &txtar.Archive{}
			want := map[string]string{}
			modes := map[string]fs.FileMode{}
			gone := map[string]bool{}
			copies := 0
			for _, l := range strings.Split(string(ar.Comment), "\n") {
				if f := strings.Fields(l); len(f) == 2 && f[0] == "gone" {
					gone[f[1]] = true
				} else if len(f) == 2 && f[0] == "copies" {
					copies, _ = strconv.Atoi(f[1])
				} else if len(f) == 3 && f[0] == "mode" {
					var m uint32
					for _, d := range f[2] {
						m = m*8 + uint32(d-'0')
					}
					modes[f[1]] = fs.FileMode(m)
				} else {
					in.Comment = append(in.Comment, l+"\n"...)
				}
			}
			for _, f := range ar.Files {
				if p, ok := strings.CutPrefix(f.Name, "want/"); ok {
					want[p] = string(f.Data)
				} else {
					in.Files = append(in.Files, f)
				}
			}
			dir := t.TempDir()
			opts, _ := materialize(t, dir, in)
			opts.Base = filepath.Join(dir, "in")
			before := snapshot(t, opts.Base)
			res := lintDir(t, opts.Base, opts)
			rep, err := Fix(context.Background(), res, FixOptions{Lint: opts})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Copies != copies {
				t.Errorf("%d of the %d files changed are copies, want %d", rep.Copies, len(rep.Files), copies)
			}
			after := snapshot(t, opts.Base)
			for p, w := range want {
				if got, ok := after[p]; !ok {
					t.Errorf("%s: gone after Fix", p)
				} else if got.data != w {
					t.Errorf("%s after Fix:\n%s\nwant:\n%s", p, got.data, w)
				}
			}
			for p, st := range before {
				if _, ok := want[p]; ok {
					continue
				}
				if got, ok := after[p]; !ok && !gone[p] {
					t.Errorf("%s: gone after Fix, and no \"gone %s\" says so", p, p)
				} else if ok && got.data != st.data {
					t.Errorf("%s changed, and no want/%s says how", p, p)
				}
			}
			for p, m := range modes {
				if after[p].mode.Perm() != m {
					t.Errorf("%s: mode %v after Fix, want %v", p, after[p].mode.Perm(), m)
				}
			}
		})
	}
}

// fixTree writes a skill whose script has CRLF line ends, and returns the
// run's folder and its options.
func fixTree(t *testing.T, files map[string]string) (string, Options) {
	t.Helper()
	dir := t.TempDir()
	testtool.WriteTree(t, dir, files)
	return dir, Options{Base: dir}
}

const fixSkillMD = "---\nname: s\ndescription: Fill PDF forms. Use when the user works with PDF files.\n---\n# S\n\nRun `sh scripts/a.sh`, `sh scripts/b.sh` and `sh scripts/real.sh`.\n"

// TestFixRefuses checks that a read-only file and a symbolic link are
// reported and left as they are, that the other files are still fixed,
// and that no temporary file is left behind.
func TestFixRefuses(t *testing.T) {
	dir, opts := fixTree(t, map[string]string{
		"s/SKILL.md":        fixSkillMD,
		"s/scripts/a.sh":    "echo a\r\n",
		"s/scripts/b.sh":    "echo b\r\n",
		"s/scripts/real.sh": "echo real\r\n",
	})
	must(t, os.Chmod(filepath.Join(dir, "s/scripts/a.sh"), 0o444))
	must(t, os.Remove(filepath.Join(dir, "s/scripts/b.sh")))
	must(t, os.Symlink("real.sh", filepath.Join(dir, "s/scripts/b.sh")))
	res := lintDir(t, dir, opts)
	rep, err := Fix(context.Background(), res, FixOptions{Lint: opts})
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshot(t, dir)
	if got := snap["s/scripts/a.sh"]; got.data != "echo a\r\n" || got.mode.Perm() != 0o444 {
		t.Errorf("read-only file changed: %q %v", got.data, got.mode)
	}
	if got := snap["s/scripts/b.sh"]; got.data != "-> real.sh" {
		t.Errorf("link replaced: %q", got.data)
	}
	if got := snap["s/scripts/real.sh"]; got.data != "echo real\n" {
		t.Errorf("real.sh not fixed: %q", got.data)
	}
	var failed []string
	for _, f := range rep.Failed {
		failed = append(failed, f.Error())
	}
	want := []string{"s/scripts/a.sh: not fixed: the file is read-only",
		"s/scripts/b.sh: not fixed: b.sh is a symbolic link; fix the file it points to"}
	if !slices.Equal(failed, want) {
		t.Errorf("failed:\n%s\nwant:\n%s", strings.Join(failed, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(rep.Files, []string{"s/scripts/real.sh"}) {
		t.Errorf("files = %v", rep.Files)
	}
	for p := range snap {
		if strings.Contains(p, ".fix-") {
			t.Errorf("temporary file left: %s", p)
		}
	}
}

// TestFixDryRun checks that a dry run writes nothing and prints a diff that
// patch tools take.
func TestFixDryRun(t *testing.T) {
	dir, opts := fixTree(t, map[string]string{
		"s/skill.md":     "\uFEFF---\nname: s\ndescription: Fill PDF forms. Use when the user works with PDF files.\nmetadata:\n  count: 28\n---\n# S\n\nRun scripts/a.sh.\n",
		"s/scripts/a.sh": "#!/bin/sh\r\necho a\r\n",
	})
	before := snapshot(t, dir)
	res := lintDir(t, dir, opts)
	var out bytes.Buffer
	rep, err := Fix(context.Background(), res, FixOptions{Lint: opts, DryRun: true, Diff: &out})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(before, snapshot(t, dir)) {
		t.Error("a dry run changed files")
	}
	want := "diff --git a/s/scripts/a.sh b/s/scripts/a.sh\n" +
		"old mode 100644\nnew mode 100755\n" +
		"--- a/s/scripts/a.sh\n+++ b/s/scripts/a.sh\n" +
		"@@ -1,2 +1,2 @@\n-#!/bin/sh\r\n-echo a\r\n+#!/bin/sh\n+echo a\n" +
		"diff --git a/s/skill.md b/s/SKILL.md\n" +
		"rename from s/skill.md\nrename to s/SKILL.md\n" +
		"--- a/s/skill.md\n+++ b/s/SKILL.md\n" +
		"@@ -1,8 +1,8 @@\n-\uFEFF---\n+---\n name: s\n description: Fill PDF forms. Use when the user works with PDF files.\n" +
		" metadata:\n-  count: 28\n+  count: \"28\"\n ---\n # S\n \n"
	if got := out.String(); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if !slices.Equal(rep.Files, []string{"s/SKILL.md", "s/scripts/a.sh"}) || rep.Fixed != 5 {
		t.Errorf("files %v, fixed %d; want both files and 5 findings", rep.Files, rep.Fixed)
	}
}

// A skill inside another's folder that the run left out is not fixed in a
// later round, whose lint of the outer folder takes it (a stranger's
// repro: the dry run said one fix, --fix made three, in a file no finding
// had named).
func TestFixLeavesNestedOut(t *testing.T) {
	md := "---\nname: %s\ndescription: Fill PDF forms. Use when the user works with PDF files.\n%s---\n# S\n\nSee inner/skill.md.\n"
	dir, opts := fixTree(t, map[string]string{
		"skills/outer/skill.md":             fmt.Sprintf(md, "outer", ""),
		"skills/outer/inner/skill.md":       fmt.Sprintf(md, "inner", "allowed-tools: [Read, Bash]\n"),
		"skills/outer/inner/scripts/run.sh": "#!/bin/sh\necho\n", // a script of the inner skill, not the outer's
	})
	res := lintDir(t, dir, opts)
	rep, err := Fix(context.Background(), res, FixOptions{Lint: opts})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Files, []string{"skills/outer/SKILL.md"}) || rep.Fixed != 1 {
		t.Errorf("files %v, fixed %d; want the outer skill.md renamed alone", rep.Files, rep.Fixed)
	}
	if _, err := os.Stat(filepath.Join(dir, "skills", "outer", "inner", "skill.md")); err != nil {
		t.Errorf("the inner skill.md: %v", err)
	}
}

// A run the fix leaves (a zero-width space inside a word in an unclosed
// code block) in a skill inside the one fixed is not counted as fixed
// when the second lint takes the inner skill as one of its own: the
// count is the dry run's (gerrardLT/multi-useful-skills-zh: 85 against
// 82).
func TestFixCountsNestedLeft(t *testing.T) {
	z := "\u200b\u200b"
	inner := "---\nname: inner\ndescription: Fill PDF forms. Use when the user works with PDF files.\n---\n\nRun " + z +
		"`make` now.\n\n   ```\nsee docs__C" + z + "MD_0__ here\n"
	for _, dry := range []bool{true, false} {
		dir, opts := fixTree(t, map[string]string{
			"outer/SKILL.md":       "---\nname: outer\ndescription: Fill PDF forms. Use when the user works with PDF files.\n---\n# Outer\n",
			"outer/inner/SKILL.md": inner,
		})
		rep, err := Fix(context.Background(), lintDir(t, dir, opts), FixOptions{Lint: opts, DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Fixed != 1 {
			t.Errorf("dry run %v: %d fixed, want 1", dry, rep.Fixed)
		}
	}
}

// TestFixDiffApplies applies a dry run's diff with git apply and with
// patch -p1, as docs/lint.md says one may, to files whose names hold a
// space, a tab, a quote and a backslash: each must make what --fix makes.
func TestFixDiffApplies(t *testing.T) {
	md := "---\nname: demo\ndescription: Fill PDF forms. Use when the user works with PDF files.\nmetadata:\n  n: 1.10\n---\nBody.\n"
	files := map[string]string{}
	for _, d := range []string{"my skill", "tab\tdir", `quo"te`, `back\slash`} {
		files[d+"/SKILL.md"] = md
	}
	fixed, opts := fixTree(t, files)
	if _, err := Fix(context.Background(), lintDir(t, fixed, opts), FixOptions{Lint: opts}); err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, fixed)
	for _, tool := range [][]string{{"git", "apply"}, {"patch", "-p1", "-s"}} {
		t.Run(tool[0], func(t *testing.T) {
			bin := testtool.Need(t, tool[0])
			dir, opts := fixTree(t, files)
			var diff bytes.Buffer
			if _, err := Fix(context.Background(), lintDir(t, dir, opts), FixOptions{Lint: opts, DryRun: true, Diff: &diff}); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, tool[1:]...)
			cmd.Dir, cmd.Stdin = dir, &diff
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(tool, " "), err, out)
			}
			if got := snapshot(t, dir); !maps.Equal(got, want) {
				t.Errorf("%s made\n%v\n--fix made\n%v", strings.Join(tool, " "), got, want)
			}
		})
	}
}

// TestFixInvisibleAgrees checks that lint reports as invisible-char's
// what --fix deletes, and only that, so that the dry run's count (the
// "to repair N findings" hint) is what --fix repairs: of the zero-width
// spaces around "**" beside CJK punctuation (DolphinDB's Chinese docs),
// those that let the emphasis open and close stay, unreported.
func TestFixInvisibleAgrees(t *testing.T) {
	dir, opts := fixTree(t, map[string]string{
		"s/SKILL.md": "---\nname: s\ndescription: Fill PDF forms. Use when the user works with PDF files.\n---\n\n" +
			"* \u200b**\u200b时序场景适配性差：\u200b**\u200bRDBMS 不适合时序数据\n\n在期权交易中，**\u200b**隐含波动率\n",
	})
	res := lintDir(t, dir, opts)
	if len(res.Findings) != 3 {
		t.Errorf("%d findings, want 3 (the zero-width spaces --fix deletes): %v", len(res.Findings), describe(res.Findings))
	}
	dry, fixed := dryThenFix(t, res, opts)
	if left := lintDir(t, dir, opts).Findings; dry != len(res.Findings) || fixed != len(res.Findings) || len(left) != 0 {
		t.Errorf("a dry run fixes %d, --fix %d of %d findings, and leaves %v", dry, fixed, len(res.Findings), describe(left))
	}
}

// TestFixInvisibleCountsPerLine checks that --fix counts the findings lint
// showed, and a dry run what --fix counts, where invisible-unicode's finding
// of a line supersedes invisible-char's: of a line with a zero-width space
// inside a word and another outside any, lint reports one, and --fix
// deleted the other in a second round and counted it too ("fixed 3" of 2
// findings); beside a right-to-left override, which --fix keeps, a run it
// keeps in a code span stays superseded, not a finding left.
func TestFixInvisibleCountsPerLine(t *testing.T) {
	for _, c := range []struct {
		body       string
		fixed, out int // findings fixed, and left
	}{
		{"Fill\u200bs the form \u200b as asked.\n\nRead\u200bs the fields.\n", 2, 0},
		{"Fills \u202e the `a \u200b b` form.\n\nReads \u200b the fields.\n", 1, 1},
	} {
		dir, opts := fixTree(t, map[string]string{
			"s/SKILL.md": "---\nname: s\ndescription: Fill PDF forms. Use when the user works with PDF files.\n---\n\n" + c.body,
		})
		res := lintDir(t, dir, opts)
		if len(res.Findings) != 2 {
			t.Fatalf("%q: %d findings, want 2 (one a line): %v", c.body, len(res.Findings), describe(res.Findings))
		}
		dry, fixed := dryThenFix(t, res, opts)
		if left := lintDir(t, dir, opts).Findings; dry != c.fixed || fixed != c.fixed || len(left) != c.out {
			t.Errorf("%q: a dry run fixes %d, --fix %d of 2 findings, and leaves %v; want %d fixed", c.body, dry, fixed, describe(left), c.fixed)
		}
	}
}

// TestFixInvisibleFrontmatterRuns checks that --fix deletes each of several
// zero-width spaces of one frontmatter value: each was weighed against the
// value with all of them cut, so none seemed to leave what YAML reads, and
// lint told the user to quote the value, which changed nothing.
func TestFixInvisibleFrontmatterRuns(t *testing.T) {
	dir, opts := fixTree(t, map[string]string{
		"s/SKILL.md": "---\nname: s\ndescription: Fill \u200b PDF \u200b forms. Use when the user works with PDF files.\n" +
			"metadata:\n  note: a \u200b b\n---\n# S\n",
	})
	res := lintDir(t, dir, opts)
	if len(res.Findings) != 3 || slices.ContainsFunc(res.Findings, func(f Finding) bool { return strings.Contains(f.Fix, "double quotes") }) {
		t.Fatalf("want 3 findings, none asking for quotes: %v", res.Findings)
	}
	dry, fixed := dryThenFix(t, res, opts)
	if left := lintDir(t, dir, opts).Findings; dry != 3 || fixed != 3 || len(left) != 0 {
		t.Errorf("a dry run fixes %d, --fix %d of 3 findings, and leaves %v", dry, fixed, describe(left))
	}
}

// dryThenFix runs a dry run of res's fixes, then the fixes, and returns
// how many findings each says it repaired.
func dryThenFix(t *testing.T, res *Result, opts Options) (dry, fixed int) {
	t.Helper()
	d, err := Fix(context.Background(), res, FixOptions{Lint: opts, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fix(context.Background(), res, FixOptions{Lint: opts})
	if err != nil {
		t.Fatal(err)
	}
	return d.Fixed, f.Fixed
}

// TestFixDryRunCountsWhatIsLeft checks that a dry run counts what --fix
// repairs, not every finding of the rules it touches: the zero-width
// spaces in a code block or a code span, and those alone in a table cell
// (Typst's symbol tables), are content that --fix leaves, so of seven
// findings both repair two (lint's "to repair N" hint is the dry run's).
func TestFixDryRunCountsWhatIsLeft(t *testing.T) {
	dir, opts := fixTree(t, map[string]string{
		"s/SKILL.md": "---\nname: s\ndescription: Fill PDF forms. Use when the user works with PDF files.\n---\n" +
			"Some prose\u200b\n\n```sh\necho a\u200b\necho b\u200b\n```\n\n" +
			"| Symbol | Name |\n| --- | --- |\n| \u200d | zwj |\n|\u2060| wj |\n\n" +
			"Names wrap at camelCase (mainRoad\u200bGrid), as in `mainRoad\u200bGrid`.\n",
	})
	res := lintDir(t, dir, opts)
	if dry, fixed := dryThenFix(t, res, opts); len(res.Findings) != 7 || dry != 2 || fixed != 2 {
		t.Errorf("of %d findings a dry run fixes %d, --fix %d; want 7, 2 and 2", len(res.Findings), dry, fixed)
	}
}

// TestFixCanceled checks that a canceled fix touches no file.
func TestFixCanceled(t *testing.T) {
	dir, opts := fixTree(t, map[string]string{"s/SKILL.md": fixSkillMD, "s/scripts/a.sh": "echo a\r\n"})
	before := snapshot(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fix(ctx, lintDir(t, dir, opts), FixOptions{Lint: opts}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if !maps.Equal(before, snapshot(t, dir)) {
		t.Error("a canceled fix changed files")
	}
}

// FuzzFixFrontmatter runs the frontmatter fixers on any SKILL.md, with a
// finding at every scalar: none may panic, break frontmatter that parsed,
// or change what a second run sees.
func FuzzFixFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: Use when: x\n---\nbody",
		"---\nmetadata:\n  count: 28\n  github-repo: x\n  v: 1.10\nallowed-tools: [Read, 'Ba]sh']\n---\n",
		"---\nallowed-tools:\n  - Read\n  - Bash # c\non: yes\n---\n",
		"\uFEFF---\r\nname: é\r\ndescription: \"a\\\\b\": c\r\n---\r\n",
		"---\nmetadata:\n  github-ref: main\n  github-path: |\n    x\n\n# c\nname: b\n---\n",
		"---\nname: 'My Skill' # c\ndescription: d\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		once := fuzzFix(data)
		if problemKind(skill.Parse(data)) == skill.NoProblem && problemKind(skill.Parse(once)) != skill.NoProblem {
			t.Fatalf("frontmatter broken:\n%q\n->\n%q", data, once)
		}
		// A quote waits for the round after the colon fix, as in Fix.
		twice := fuzzFix(once)
		if thrice := fuzzFix(twice); !bytes.Equal(twice, thrice) {
			t.Fatalf("no fixed point after two rounds:\n%q\n->\n%q\n->\n%q", once, twice, thrice)
		}
	})
}

// fuzzFix applies the frontmatter fixers as Fix would, with a finding of
// every quoting rule at every scalar.
func fuzzFix(data []byte) []byte {
	f := &fixFile{job: &fixJob{path: "s/SKILL.md", rel: "SKILL.md", dir: "/fuzz/my-skill", entry: true}, orig: data, data: data, left: map[string]int{}}
	fixColonLines(f, nil)
	if bytes.Equal(f.data, f.orig) {
		var at []Finding
		if d := skill.Parse(data); d.Front != nil {
			walkYAML(d.Front, func(n *yaml.Node) {
				line, col := d.FilePos(n)
				for _, r := range []string{"yaml-ambiguous-scalar", "yaml-colon-space"} {
					at = append(at, Finding{Line: line, Column: col, Rule: r})
				}
			})
		}
		fixQuoteScalars(f, at)
	}
	toolsList(f.data, skill.Parse(f.data)) // as allowed-tools-list calls it, on any list
	fixAllowedTools(f, nil)
	fixInstalledMetadata(f, nil)
	fixNameFormat(f, nil)
	return f.data
}

// TestSameRenderingHostile checks that --fix renders hostile Markdown
// within skill's bounds: a megabyte of nested quotes is rendered (the
// test's own timeout is the assertion that this is quick), and a file
// whose inline pass would take minutes is not rendered at all, so its
// deletion waits.
func TestSameRenderingHostile(t *testing.T) {
	zwsp := []byte("\u200b")
	deep := append(bytes.Repeat([]byte(">"), 1<<20-8), "a\u200bb"...)
	if !sameRendering(deep, bytes.ReplaceAll(deep, zwsp, nil)) {
		t.Error("deep quotes: the deletion changes the rendering")
	}
	costly := append(bytes.Repeat([]byte("*a _b"), 200_000), "a\u200bb"...)
	if sameRendering(costly, bytes.ReplaceAll(costly, zwsp, nil)) {
		t.Error("a costly file was rendered")
	}
}

// sameRendering reports whether two versions of a Markdown file render to
// the same HTML once the characters fixInvisible deletes are taken out.
// It says no, and the deletion waits, for a file too large or too costly
// to render (skill.InlineCostly).
func sameRendering(a, b []byte) bool {
	ra, ok1 := renderShown(a)
	rb, ok2 := renderShown(b)
	return ok1 && ok2 && bytes.Equal(ra, rb)
}

// name-format's fix gives a skill its folder's name, quoted or not as
// written, but not a name another skill of the run has, nor one the fix
// would give another skill too: that would trade one error for two
// (name-duplicate, or name-bundle-clash across plugins: windyroad's
// wr-c4:generate and wr-wardley:generate, each in a folder generate).
func TestFixNameFormatTaken(t *testing.T) {
	dir := t.TempDir()
	md := "---\nname: %s\ndescription: Process PDF forms and merge documents for the user.\n---\nBody.\n"
	testtool.WriteTree(t, dir, map[string]string{
		"export/SKILL.md":                    fmt.Sprintf(md, `"Conversation Export"`),
		"pdf/SKILL.md":                       fmt.Sprintf(md, "PDF Tools"),
		"other/SKILL.md":                     fmt.Sprintf(md, "pdf"), // has the name the fix would give
		"c4/.claude-plugin/plugin.json":      `{"name": "wr-c4"}`,
		"c4/skills/generate/SKILL.md":        fmt.Sprintf(md, "wr-c4:generate"),
		"wardley/.claude-plugin/plugin.json": `{"name": "wr-wardley"}`,
		"wardley/skills/generate/SKILL.md":   fmt.Sprintf(md, "wr-wardley:generate"),
	})
	res := lintDir(t, dir, Options{})
	for _, f := range res.Findings {
		if f.Rule == "name-format" && strings.HasSuffix(f.Path, "generate/SKILL.md") && !strings.Contains(f.Fix, "rename the folder") {
			t.Errorf("%s: fix %q, want a folder renamed", f.Path, f.Fix)
		}
	}
	if _, err := Fix(context.Background(), res, FixOptions{}); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"export/SKILL.md": "name: export\n", "pdf/SKILL.md": "name: PDF Tools\n",
		"c4/skills/generate/SKILL.md": "name: wr-c4:generate\n", "wardley/skills/generate/SKILL.md": "name: wr-wardley:generate\n"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), want) {
			t.Errorf("%s after Fix:\n%s\nwant a line %q", file, data, want)
		}
	}
}

// yaml-flow-sequence's fix writes a list in block form, at any depth
// (superpowers-zh's metadata.hermes.tags: --fix said it repairs the rule,
// then fixed nothing), in a block list's item too (gkkirsch's
// install[0].bins stayed after every --fix), and quotes an argument-hint
// meant as text, its comment kept (with one, the list was left as it was).
func TestFixFlowSequences(t *testing.T) {
	dir, opts := fixTree(t, map[string]string{
		"s/SKILL.md": "---\nname: s\ndescription: Fill PDF forms. Use when the user works with PDF files.\nargument-hint: [file] # the form\n" +
			"metadata:\n  hermes:\n    tags: [design, \"a: b\", 'c']\n  install:\n  - id: brew\n    bins: [gog]\n---\nBody.\n",
	})
	res := lintDir(t, dir, opts)
	if _, err := Fix(context.Background(), res, FixOptions{Lint: opts}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "s", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "argument-hint: \"[file]\" # the form\nmetadata:\n  hermes:\n    tags:\n      - design\n      - \"a: b\"\n      - \"c\"\n" +
		"  install:\n  - id: brew\n    bins:\n      - gog\n---\n"
	if !strings.Contains(string(data), want) {
		t.Errorf("after Fix:\n%s\nwant it to hold:\n%s", data, want)
	}
	for _, f := range lintDir(t, dir, opts).Findings {
		if f.Rule == "yaml-flow-sequence" {
			t.Errorf("left: %v", f)
		}
	}
}

// rawDest and unescapeDest read untrusted Markdown at any offset a link
// may report: they never panic, and a destination found lies inside src.
func FuzzRawDest(f *testing.F) {
	f.Add([]byte(`See [a](references\guide.md "t") and [b]: x\\y`), 4)
	f.Add([]byte(`![i](<a\b>)`), 0)
	f.Fuzz(func(t *testing.T, src []byte, off int) {
		if off < 0 || off > len(src) {
			return
		}
		if start, end, ok := rawDest(src, off); ok {
			if start < off || end > len(src) || start >= end {
				t.Fatalf("rawDest(%q, %d) = %d, %d", src, off, start, end)
			}
			unescapeDest(string(src[start:end]))
		}
	})
}

// The dry run that counts what --fix repairs ("repair 3 of the 4") counts
// the flow sequences it leaves to a person out: an empty list (ariffazil/AAA:
// 45 promised, 43 fixed), also when another fixer of the same file counts
// what it leaves (the invisible characters').
func TestFixDryRunFlowSequences(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"demo/SKILL.md": "---\nname: demo\ndescription: Demonstrates flow sequences, for the user who asks.\n" +
		"metadata:\n  hermes:\n    tags: [a, b]\n    none: []\n    tools:\n      - tool: x\n        modes: [analyze, extract]\n---\n# Demo\n\nSome prose\u200b\n"})
	opts := Options{Base: dir}
	res := lintDir(t, dir, opts)
	dry, err := Fix(context.Background(), res, FixOptions{Lint: opts, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	done, err := Fix(context.Background(), res, FixOptions{Lint: opts})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Fixed != 3 || done.Fixed != 3 {
		t.Errorf("the dry run counts %d fixed, the fix %d; want 3 both (tags, modes, the prose's zero-width space)", dry.Fixed, done.Fixed)
	}
}
