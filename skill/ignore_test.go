package skill

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
)

// ignoreCases are expectations read from the gitignore documentation
// (git-scm.com/docs/gitignore), each with the rule it exercises. Match
// answers for the path's effective state, as `git check-ignore` does: a
// path inside an ignored folder is ignored.
var ignoreCases = []struct {
	rules string // .skillignore text
	path  string
	dir   bool
	want  bool
}{
	// A pattern without a slash matches at any depth, files and folders.
	{"foo", "foo", false, true},
	{"foo", "a/foo", false, true},
	{"foo", "a/b/foo", true, true},
	{"foo", "foobar", false, false},
	{"foo", "a/foo/x", false, true}, // inside an ignored folder
	// A leading slash anchors to the ignore file's folder.
	{"/foo", "foo", false, true},
	{"/foo", "a/foo", false, false},
	{"/*.c", "cat-file.c", false, true},
	{"/*.c", "mozilla-sha1/sha1.c", false, false},
	// A slash in the middle anchors too.
	{"doc/frotz", "doc/frotz", false, true},
	{"doc/frotz", "a/doc/frotz", false, false},
	{"doc/frotz/", "doc/frotz", true, true},
	{"doc/frotz/", "doc/frotz", false, false},
	// A trailing slash matches folders only.
	{"frotz/", "frotz", true, true},
	{"frotz/", "a/frotz", true, true},
	{"frotz/", "frotz", false, false},
	{"frotz/", "frotz/x.txt", false, true},
	// "*" matches anything but a slash.
	{"*.txt", "a.txt", false, true},
	{"*.txt", "x/y/a.txt", false, true},
	{"*.txt", "a.txt.bak", false, false},
	{"doc/*.txt", "doc/a.txt", false, true},
	{"doc/*.txt", "doc/x/a.txt", false, false},
	{"foo/*", "foo/test.json", false, true},
	{"foo/*", "foo/bar", true, true},
	{"foo/*", "foo", true, false},
	{"*", "anything", false, true},
	{"*", "a/b", false, true},
	// "?" matches one character but not a slash.
	{"a?c", "abc", false, true},
	{"a?c", "ac", false, false},
	{"a?c", "abbc", false, false},
	{"x/a?c", "x/a/c", false, false},
	// Leading "**/" matches in every folder.
	{"**/foo", "foo", false, true},
	{"**/foo", "a/b/foo", false, true},
	{"**/foo/bar", "foo/bar", false, true},
	{"**/foo/bar", "x/foo/bar", false, true},
	{"**/foo/bar", "x/foo/baz", false, false},
	// One trailing "/" is taken off: a second makes a pattern no path matches.
	{"a//", "a", true, false},
	{"a//", "x/a", true, false},
	// Trailing "/**" matches everything inside, not the folder itself.
	{"abc/**", "abc/x", false, true},
	{"abc/**", "abc/x/y", false, true},
	{"abc/**", "abc", true, false},
	{"abc/**", "z/abc/x", false, false},
	// "/**/" matches zero or more folders.
	{"a/**/b", "a/b", false, true},
	{"a/**/b", "a/x/b", false, true},
	{"a/**/b", "a/x/y/b", false, true},
	{"a/**/b", "a/x/y/c", false, false},
	{"a/**/b", "z/a/b", false, false},
	// A run of three stars or more is "**" (git's wildmatch).
	{"***/x", "b/c/x", false, true},
	{"a/***", "a/b/c", false, true},
	// git matches an anchored pattern's literal start as a string and the
	// rest as a glob of its own, in which a "**/" then stands at the start.
	{"a**/b", "ab", false, true},
	{"a**/b", "ax/y/b", false, true},
	{"x/a**/b", "x/ab", false, true},
	{"x/a**/b", "ab", false, false},
	// Other consecutive stars are ordinary stars.
	{"foo**bar", "fooxbar", false, true},
	{"foo**bar", "foo/bar", false, false},
	{"**", "a/b/c", false, true},
	// Bracket expressions; a class never matches a slash.
	{"[a-c]x", "bx", false, true},
	{"[a-c]x", "dx", false, false},
	{"[!a]x", "bx", false, true},
	{"[!a]x", "ax", false, false},
	{"[^a]x", "ax", false, false},
	{"q[!b]c", "q/c", false, false},
	{"q[+-0]c", "q/c", false, false}, // the range spans "/"
	{"q[+-0]c", "q.c", false, true},
	{"[]x]y", "]y", false, true},
	{"[]x]y", "xy", false, true},
	{"[]x]y", "zy", false, false},
	{"b[!]]z", "bqz", false, true},
	{"b[!]]z", "b]z", false, false},
	{"[[:digit:]]x", "1x", false, true},
	{"[[:digit:]]x", "ax", false, false},
	{"v[[:punct:]]w", "v/w", false, false},
	{"v[[:punct:]]w", "v.w", false, true},
	{"[z-a]", "m", false, false},   // a reversed range matches nothing
	{"foo[", "foo[", false, false}, // unclosed: the pattern matches nothing
	{"foo[", "foo", false, false},
	// Escapes.
	{`\#foo`, "#foo", false, true},
	{"#foo", "#foo", false, false}, // a comment
	{`\!foo`, "!foo", false, true},
	{`\*`, "*", false, true},
	{`\*`, "a", false, false},
	{`bar\`, "bar", false, false}, // a trailing lone backslash matches nothing
	{`a\[b]`, "a[b]", false, true},
	// Trailing spaces are dropped unless escaped.
	{"foo   ", "foo", false, true},
	{`foo\ `, "foo ", false, true},
	{`foo\ `, "foo", false, false},
	// "!" re-includes; the last matching pattern wins.
	{"*.log\n!keep.log", "keep.log", false, false},
	{"*.log\n!keep.log", "x.log", false, true},
	{"!keep.log\n*.log", "keep.log", false, true},
	{"/build\n!build", "build", true, false},
	// A file in an ignored folder cannot be re-included.
	{"build/\n!build/keep.txt", "build/keep.txt", false, true},
	{"build/*\n!build/keep.txt", "build/keep.txt", false, false},
	{"abc/**\n!abc/def", "abc/def", true, false},
	{"abc/**\n!abc/def", "abc/def/x", false, true},
	// Blank lines and comments are nothing.
	{"\n# comment\n\n", "comment", false, false},
	// Line ends and a BOM as editors write them.
	{"*.tmp\r\n", "a.tmp", false, true},
	{"\xEF\xBB\xBF*.tmp\n", "a.tmp", false, true},
	// Non-ASCII.
	{"café", "x/café", false, true},
}

// runeCases are where skillpack knowingly differs from git: git matches
// bytes, so "?" or a class never matches a character of two or more bytes
// in UTF-8. Authors write characters, and a .skillignore is read by no git.
var runeCases = []struct {
	rules, path string
	want        bool
}{
	{"caf[é]", "café", true},
	{"caf?", "café", true},
	{"caf??", "café", false},
	{"[à-ï]", "é", true},
}

func TestIgnoreRunes(t *testing.T) {
	for _, tt := range runeCases {
		if got := ParseIgnore([]byte(tt.rules)).Match(tt.path, false); got != tt.want {
			t.Errorf("rules %q: Match(%q) = %v, want %v", tt.rules, tt.path, got, tt.want)
		}
	}
}

func TestIgnore(t *testing.T) {
	for _, tt := range ignoreCases {
		ig := ParseIgnore([]byte(tt.rules))
		if got := ig.Match(tt.path, tt.dir); got != tt.want {
			t.Errorf("rules %q: Match(%q, dir=%v) = %v, want %v", tt.rules, tt.path, tt.dir, got, tt.want)
		}
	}
}

func TestIgnoreEmpty(t *testing.T) {
	var nilIg *Ignore
	if !nilIg.Empty() || nilIg.Match("a", false) {
		t.Error("a nil Ignore must be empty and match nothing")
	}
	if ig := ParseIgnore([]byte("# only a comment\n\n   \n!\n/\n")); !ig.Empty() {
		t.Error("comments, blank lines and bare ! or / are no patterns")
	}
	if ig := NewIgnore([]string{"*.tmp"}); ig.Empty() || !ig.Match("x/a.tmp", false) {
		t.Error("NewIgnore did not compile a pattern")
	}
}

// A pattern after an over-long line must still count.
func TestParseIgnoreLongLine(t *testing.T) {
	data := "# " + strings.Repeat("a", 2<<20) + "\n*.tmp\n"
	if !ParseIgnore([]byte(data)).Match("a.tmp", false) {
		t.Error("the pattern after a 2 MB line was dropped")
	}
}

// Pathological patterns must compile and match in linear time (Go's regexp
// guarantees it; this guards against a switch to a backtracking matcher).
func TestIgnorePathological(t *testing.T) {
	ig := NewIgnore([]string{strings.Repeat("*a", 50) + "b", strings.Repeat("**/", 200) + "x"})
	path := strings.Repeat("a", 2000)
	if ig.Match(path, false) {
		t.Error("no b, no match")
	}
	if !ig.Match("q/x", false) {
		t.Error("repeated **/ must still match")
	}
}

// TestIgnoreAgainstGit runs the same table through `git check-ignore`, the
// reference implementation, so that the expectations above cannot drift
// from what git really does.
func TestIgnoreAgainstGit(t *testing.T) {
	git := testtool.Need(t, "git")
	groups := map[string][]int{}
	var order []string
	for i, tt := range ignoreCases {
		if _, ok := groups[tt.rules]; !ok {
			order = append(order, tt.rules)
		}
		groups[tt.rules] = append(groups[tt.rules], i)
	}
	for _, rules := range order {
		dir := t.TempDir()
		run := func(stdin string, args ...string) string {
			cmd := exec.Command(git, args...)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(stdin)
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_CONFIG_GLOBAL=/dev/null")
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				// check-ignore exits 1 when nothing is ignored.
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || errb.Len() > 0 {
					t.Fatalf("git %v: %v\n%s", args, err, errb.String())
				}
			}
			return out.String()
		}
		run("", "init", "-q", ".")
		if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(rules), 0o644); err != nil {
			t.Fatal(err)
		}
		var paths []string
		var cases []int
		for _, i := range groups[rules] {
			tt := ignoreCases[i]
			p := filepath.Join(dir, filepath.FromSlash(tt.path))
			// git decides dir-only patterns by what is on disk.
			var err error
			if tt.dir {
				err = os.MkdirAll(p, 0o755)
			} else if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.WriteFile(p, nil, 0o644)
			}
			if info, serr := os.Stat(p); err != nil || serr != nil || info.IsDir() != tt.dir {
				continue // the table asks for a path both file and folder
			}
			paths = append(paths, tt.path)
			cases = append(cases, i)
		}
		out := run(strings.Join(paths, "\x00")+"\x00", "check-ignore", "--no-index", "--stdin", "-z")
		ignored := map[string]bool{}
		for _, p := range strings.Split(out, "\x00") {
			ignored[p] = true
		}
		for _, i := range cases {
			tt := ignoreCases[i]
			if got := ignored[tt.path]; got != tt.want {
				t.Errorf("git disagrees with the table: rules %q, path %q (dir=%v): git says %v, table says %v",
					rules, tt.path, tt.dir, got, tt.want)
			}
		}
	}
}

// Path names the path that decided: the nearest ignored folder at or
// above it, never base itself nor anything outside it; "!" takes a folder
// back, as in git; a folder-only pattern does not ignore a file.
func TestIgnorePath(t *testing.T) {
	ig := NewIgnore(append(append([]string{}, DefaultIgnore...), "!templates/", "vendor/x/"))
	base := filepath.Join("repo", "sub")
	for dir, want := range map[string]string{
		"repo/sub/tests/fixtures/bad": "tests",
		"repo/sub/a/TEMPLATE":         "a/TEMPLATE",
		"repo/sub/.test/a":            ".test",
		"repo/sub/skills/_template":   "skills/_template",
		"repo/sub/templates/a":        "", // taken back
		"repo/sub/vendor/x/y":         "vendor/x",
		"repo/sub/vendor/z":           "",
		"repo/sub/skills/testing":     "",
		"repo/sub":                    "", // base itself: named, so asked for
		"repo/tests/a":                "", // outside base
	} {
		got, ok := ig.Path(base, filepath.FromSlash(dir), true)
		if got != want || ok != (want != "") {
			t.Errorf("Path(%s) = %q, %v; want %q", dir, got, ok, want)
		}
	}
	// A folder named as base is not ignored by its own name.
	if _, ok := ig.Path("tests", filepath.Join("tests", "a"), true); ok {
		t.Error("Path(tests, tests/a): base's own name counted")
	}
	if _, ok := (*Ignore)(nil).Path(".", "tests", true); ok {
		t.Error("a nil Ignore ignores")
	}
	// "tests/" names folders: a file of that name is not ignored, a file
	// inside such a folder is.
	if got, ok := ig.Path(base, filepath.Join(base, "a", "tests"), false); ok {
		t.Errorf("Path(a/tests, file) = %q: a folder-only pattern ignored a file", got)
	}
	if got, ok := ig.Path(base, filepath.Join(base, "tests", "notes.md"), false); got != "tests" || !ok {
		t.Errorf("Path(tests/notes.md, file) = %q, %v; want tests", got, ok)
	}
}

// TestOutside checks which patterns can name nothing below their folder,
// and what Outside proposes instead.
func TestOutside(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "repo")
	testtool.WriteTree(t, root, map[string]string{
		"repo/skills/old/SKILL.md": "",
		"repo/tmp/x":               "",
		"other/skills/x/SKILL.md":  "",
	})
	abs := filepath.ToSlash(filepath.Join(base, "skills", "old"))
	cases := []struct {
		pattern, why, instead string
	}{
		{"skills/old/", "", ""},
		{"/skills/old", "", ""},
		{"!tests/", "", ""},
		{"# ../comment", "", ""},
		{"..foo", "", ""},
		{"../other/skills/x", `holds ".."`, ""},
		{"../repo/skills/old/", `holds ".."`, "skills/old/"},
		{"skills/../tmp", `holds ".."`, "/tmp"},
		{"!../repo/skills/*", `holds ".."`, "!skills/*"},
		{abs, "is an absolute path", "skills/old"},
		{"!" + abs + "/", "is an absolute path", "!skills/old/"},
		{filepath.ToSlash(filepath.Join(root, "other", "skills")), "is an absolute path", ""},
		{filepath.ToSlash(root), "is an absolute path", ""},
		// Anchored patterns, whatever the system holds: one name, or a
		// path that is not there.
		{"/tmp/", "", ""},
		{"/no/such/folder/anywhere", "", ""},
		{"/tmp/x", "", ""}, // the base's own tmp/x
		// Not there, but below the base or in a system folder (the
		// docs' example, copied): meant as a path.
		{abs + "/gone/", "is an absolute path", "skills/old/gone/"},
		{"/home/me/repo/skills/old", "is an absolute path", ""},
	}
	for _, c := range cases {
		why, instead := Outside(c.pattern, base)
		if !strings.Contains(why, c.why) || (c.why == "") != (why == "") || instead != c.instead {
			t.Errorf("Outside(%q) = %q, %q; want %q, %q", c.pattern, why, instead, c.why, c.instead)
		}
	}
	// A folder that holds the path, anchored, is what the pattern names
	// (a volume name cannot be inside a folder).
	if filepath.VolumeName(abs) != "" {
		return
	}
	mirror := filepath.Join(root, "mirror")
	if err := os.MkdirAll(filepath.Join(mirror, filepath.FromSlash(abs)), 0o755); err != nil {
		t.Fatal(err)
	}
	if why, _ := Outside(abs, mirror); why != "" {
		t.Errorf("Outside(%q) in a folder that holds it = %q", abs, why)
	}
}
