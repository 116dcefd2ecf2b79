package lint

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
)

const brokenLinkSkill = "---\nname: %s\ndescription: A skill that links a file it does not have.\n---\nSee [gone](gone.md).\n"

func skillMD(name string) string { return strings.ReplaceAll(brokenLinkSkill, "%s", name) }

func lintTree(t *testing.T, dir string, set Settings) []string {
	t.Helper()
	res, err := Run([]string{dir}, Options{Settings: set, Base: dir})
	must(t, err)
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Path+" "+f.Rule)
	}
	return got
}

func TestAllowList(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{
		"a/SKILL.md":     skillMD("a"),
		"b/SKILL.md":     skillMD("b"),
		"skillpack.yaml": "",
	})
	// As package config reads skillpack.yaml's allow list.
	set := Settings{File: filepath.Join(dir, "skillpack.yaml"), Allow: []*Allow{
		{Rules: []string{"link-broken"}, Path: "a/**", Reason: "gone.md is written by the installer", Line: 2},
		{Rules: []string{"link-broken", "secret"}, Path: "nowhere/", Reason: "a folder that was deleted", Line: 5},
	}}
	got := strings.Join(lintTree(t, dir, set), "\n")
	want := "b/SKILL.md link-broken\nskillpack.yaml suppression-unused"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// A baseline records the unused entry as it records any finding, and
	// then knows it (a newcomer's placeholder entry stayed new for ever).
	res, err := Run([]string{dir}, Options{Settings: set, Base: dir})
	must(t, err)
	withBase := set
	withBase.Baseline = recordBaseline(t, dir, res.Findings)
	res, err = Run([]string{dir}, Options{Settings: withBase, Base: dir})
	must(t, err)
	if len(res.Findings) != 0 || len(res.Stale) != 0 {
		t.Errorf("with the baseline of every finding, lint reported %v, and %v stale", describe(res.Findings), res.Stale)
	}

	// Linting a part of the tree cannot tell that an entry is unused.
	res, err = Run([]string{filepath.Join(dir, "b")}, Options{Settings: set, Base: dir})
	must(t, err)
	for _, f := range res.Findings {
		if f.Rule == "suppression-unused" {
			t.Errorf("linting b/ alone reported %s:%d %s", f.Path, f.Line, f.Message)
		}
	}
}

// TestSupersedes checks that the engine keeps one finding per cause: a
// rule that supersedes another hides its findings at the same line or on
// the same file as a whole, and nowhere else.
func TestSupersedes(t *testing.T) {
	saved := supersededBy
	defer func() { supersededBy = saved }()
	supersededBy = map[string][]string{"b": {"a"}}
	fs := []Finding{
		{Path: "x.md", Line: 3, Rule: "a"},
		{Path: "x.md", Line: 3, Rule: "b"}, // hidden: same line
		{Path: "x.md", Line: 4, Rule: "b"}, // kept: another line
		{Path: "y.md", Line: 0, Rule: "a"},
		{Path: "y.md", Line: 9, Rule: "b"}, // hidden: a is about the whole file
		{Path: "z.md", Line: 3, Rule: "b"}, // kept: another file
		{Path: "z.md", Line: 3, Rule: "c"},
	}
	var got []string
	for _, f := range Sort(fs) {
		got = append(got, f.Path+":"+string(rune('0'+f.Line))+" "+f.Rule)
	}
	want := "x.md:3 a, x.md:4 b, y.md:0 a, z.md:3 b, z.md:3 c"
	if s := strings.Join(got, ", "); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
}

// TestNestedSkillFiles checks that a file of a skill inside another skill's
// folder is reported once, by the inner skill.
func TestNestedSkillFiles(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{
		"outer/SKILL.md":        "---\nname: outer\ndescription: The outer skill of a nested pair, for the test.\n---\nSee [inner](inner/SKILL.md).\n",
		"outer/inner/SKILL.md":  skillMD("inner"),
		"outer/inner/.DS_Store": "",
		"outer/inner/latin.md":  "caf\xe9\n",
	})
	n := map[string]int{}
	for _, f := range lintTree(t, dir, Settings{}) {
		n[f]++
	}
	for _, f := range []string{"outer/inner/.DS_Store junk-file", "outer/inner/latin.md text-encoding"} {
		if n[f] != 1 {
			t.Errorf("%s was reported %d times, want once (by the inner skill)", f, n[f])
		}
	}
}

// FuzzInline checks that no file content makes the comment parser panic,
// and that every comment it finds names a line of the file.
func FuzzInline(f *testing.F) {
	f.Add([]byte("<!-- skillpack-disable-next-line link-broken -- why -->\n[x](y.md)\n"))
	f.Add([]byte("# skillpack-disable-next-line a,b c\t-- -->"))
	f.Add([]byte("skillpack-disable-next-line"))
	f.Add([]byte("<!-- skillpack-disable-next-line secret -->\n  ```\nkey\n    ```\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, in := range parseInline(data) {
			if in.line < 1 || in.line > lines || in.last <= in.line || in.last > max(lines, in.line+1) || len(in.used) != len(in.rules) {
				t.Fatalf("comment at line %d of %d covering to %d, %d rules, %d marks", in.line, lines, in.last, len(in.rules), len(in.used))
			}
		}
	})
}

// TestInlineCoversBlock checks which lines a comment covers: the next one,
// or the code block whose fence opens there, to its closing fence and no
// further; a fence of the other character, or a shorter one, does not
// close it, and an unclosed block runs to the end of the file.
func TestInlineCoversBlock(t *testing.T) {
	for _, c := range []struct {
		src  string
		last int
	}{
		{"<!-- " + Directive + " secret -->\nkey\nkey", 2},
		{"<!-- " + Directive + " secret -->\n```pem\nkey\n~~~\n``\n```\nkey", 6},
		{"<!-- " + Directive + " secret -->\n  ~~~~\nkey\n  ~~~\n      ~~~~\n~~~~~ \r\nkey", 6},
		{"<!-- " + Directive + " secret -->\n```pem\nkey\n", 4},
		{"<!-- " + Directive + " secret -->\n```js`x`\nkey\n```", 2}, // inline code, no fence
	} {
		in := parseInline([]byte(c.src))
		if len(in) != 1 {
			t.Fatalf("%q: %d comments", c.src, len(in))
		}
		for line := 1; line <= strings.Count(c.src, "\n")+2; line++ {
			if got, want := in[0].suppresses("secret", line), line >= 2 && line <= c.last; got != want {
				t.Errorf("%q: line %d covered: %t, want %t", c.src, line, got, want)
			}
		}
	}
}
