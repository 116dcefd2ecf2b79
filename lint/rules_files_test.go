package lint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/pack"

	"github.com/skillpack/skillpack/skill"
)

func TestUstarFits(t *testing.T) {
	rep := strings.Repeat
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"SKILL.md", true},
		{rep("a", 100), true},
		{rep("a", 101), false},                                 // no "/" to split at
		{rep("d", 155) + "/" + rep("n", 100), true},            // both fields full
		{rep("d", 156) + "/" + rep("n", 10), false},            // prefix one byte over
		{rep("d", 10) + "/" + rep("n", 101), false},            // name one byte over
		{rep("d", 100) + "/" + rep("e", 100) + "/x.md", false}, // only split with a short name has a long prefix
		{rep("d", 50) + "/" + rep("e", 50) + "/" + rep("n", 99), true},
		{"/" + rep("n", 100), false}, // an empty prefix is no split
	} {
		if got := pack.FitsUSTAR(tc.path); got != tc.want {
			t.Errorf("pack.FitsUSTAR(%d bytes, %.20q...) = %v, want %v", len(tc.path), tc.path, got, tc.want)
		}
	}
}

func TestWindowsNameProblem(t *testing.T) {
	bad := []string{"aux", "AUX.md", "Con.tar.gz", "nul .txt", "com1", "LPT9.log", "com\u00b9.md", "COM0",
		"a:b", "what?", "x*y", "a<b", "a>b", `a"b`, "a|b", `a\b`, "tab\there", "trailing.", "trailing "}
	good := []string{"auxiliary.md", "console", "com10.md", "lpt", "nul-handling.md", ".hidden", "a.b.c", "caf\u00e9.md"}
	for _, n := range bad {
		if windowsNameProblem(n) == "" {
			t.Errorf("windowsNameProblem(%q) = \"\", want a reason", n)
		}
	}
	for _, n := range good {
		if why := windowsNameProblem(n); why != "" {
			t.Errorf("windowsNameProblem(%q) = %q, want \"\"", n, why)
		}
	}
}

func TestPathKey(t *testing.T) {
	same := [][2]string{
		{"README.md", "readme.md"},
		{"caf\u00e9.md", "cafe\u0301.md"},
		{"CAF\u00c9.md", "cafe\u0301.md"},
		{"Stra\u00dfe.md", "STRASSE.md"}, // full case folding
	}
	for _, p := range same {
		if pathKey(p[0]) != pathKey(p[1]) {
			t.Errorf("pathKey(%q) != pathKey(%q)", p[0], p[1])
		}
	}
	if pathKey("a.md") == pathKey("b.md") {
		t.Error("distinct paths share a key")
	}
}

func TestFirstBadUTF8(t *testing.T) {
	for _, tc := range []struct {
		data     string
		complete bool
		want     int
	}{
		{"caf\u00e9", true, -1},
		{"caf\xe9!", true, 3},
		{"ok\xe2\x82", true, 2},   // a cut rune at the real end is an error
		{"ok\xe2\x82", false, -1}, // at the read limit it is not
		{"\xff\xe2\x82", false, 0},
	} {
		if got := firstBadUTF8([]byte(tc.data), tc.complete); got != tc.want {
			t.Errorf("firstBadUTF8(%q, %v) = %d, want %d", tc.data, tc.complete, got, tc.want)
		}
	}
}

func TestLines(t *testing.T) {
	data := []byte("\uFEFFab\ncd\r\n\nxyz\né𝑨\u200bx")
	l := newLines(data)
	for _, tc := range []struct{ off, line, col int }{
		{3, 1, 1}, // the BOM does not count
		{4, 1, 2},
		{6, 2, 1},
		{8, 2, 3}, // the \r of a CRLF
		{11, 4, 1},
		{13, 4, 3},
		{7, 2, 2},  // out of order still works
		{15, 5, 1}, // columns count characters, as YAML's do, not bytes
		{17, 5, 2},
		{21, 5, 3},
		{24, 5, 4},
		{0, 1, 1}, // in the BOM: its line's first column
	} {
		if line, col := l.pos(tc.off); line != tc.line || col != tc.col {
			t.Errorf("pos(%d) = %d:%d, want %d:%d", tc.off, line, col, tc.line, tc.col)
		}
	}
}

// shebangCommand keeps the interpreter's arguments, the run SKILL.md
// should write ("npx tsx scripts/x.ts"), and drops env and what is env's.
func TestShebangCommand(t *testing.T) {
	for in, want := range map[string]string{
		"#!/bin/sh\n":                                   "sh",
		"#!/usr/bin/env python3\n":                      "python3",
		"#! /usr/bin/env -S node --foo\r\n":             "node --foo",
		"#!/bin/bash -e":                                "bash -e",
		"#!/usr/bin/env npx tsx\n":                      "npx tsx",
		"#!/usr/bin/env -S deno run --allow-read\n":     "deno run --allow-read",
		"#!/usr/bin/env -i -u HOME -C /tmp A=1 ruby -w": "ruby -w",
		"#!/usr/bin/env --split-string=python3 -u\n":    "python3 -u",
		"#!/usr/bin/env -Sbun x\n":                      "bun x",
		"#!\n":                                          "sh",
		"#!/usr/bin/env\n":                              "sh",
	} {
		if got := strings.Join(shebangCommand([]byte(in)), " "); got != want {
			t.Errorf("shebangCommand(%q) = %q, want %q", in, got, want)
		}
	}
}

// testPass runs one rule's check on hand-made files and returns its findings.
func testPass(t *testing.T, id string, s *skill.Skill, files *skill.Files) []Finding {
	t.Helper()
	r := Lookup(id)
	if r == nil {
		t.Fatalf("no rule %s", id)
	}
	var got []Finding
	p := &Pass{Skill: s, Doc: s.Doc, Files: files, rule: r,
		report: func(_ *Rule, f Finding) { got = append(got, f) }}
	r.Check(p)
	return got
}

// The txtar case for file-unreadable can only build a folder too large to
// list, since permissions mean nothing to root; these cover the rest.
func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	s := &skill.Skill{Dir: dir, File: skill.FileName}
	files := &skill.Files{
		Files: []skill.File{
			{Path: "SKILL.md", Disk: filepath.Join(dir, "gone-too")}, // the entry rule's business
			{Path: "gone.md", Disk: filepath.Join(dir, "gone.md")},
		},
		Refused: []skill.Refused{
			{Path: "/", Kind: skill.Unreadable, Err: errors.New("permission denied")},
			{Path: "private/", Kind: skill.Unreadable, Err: errors.New("permission denied")},
			{Path: "link", Kind: skill.LinkBroken, Err: errors.New("symlink target does not exist")},
		},
	}
	got := testPass(t, "file-unreadable", s, files)
	want := []string{
		"|the skill folder cannot be read (permission denied)",
		"private|the folder cannot be read (permission denied)",
		"gone.md|the file cannot be read (no such file or directory)",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		path, msg, _ := strings.Cut(w, "|")
		if got[i].Path != path || !strings.HasPrefix(got[i].Message, msg) {
			t.Errorf("finding %d = %s: %q, want %s: %q", i, got[i].Path, got[i].Message, path, msg)
		}
		if strings.Contains(got[i].Message, dir) {
			t.Errorf("finding %d names the absolute path: %q", i, got[i].Message)
		}
	}
}

func TestFindSecrets(t *testing.T) {
	// Built at run time so that this file holds no token a scanner would flag.
	tok := "ghp_" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zA2bC4"
	for _, tc := range []struct {
		text string
		want int
	}{
		{"token=" + tok, 1},
		{"token=" + tok + "Z", 0},   // part of a longer word
		{"xghp_" + tok[4:], 0},      // likewise
		{"AKIAIOSFODNN7EXAMPLE", 0}, // the AWS documentation's key
		{"AKIA" + "Z7Q2M4RXTNW6Y3P5", 1},
		{"AKIA" + "Z7Q2M4R8T1W6Y3P5", 0}, // 8 and 1: no key ID is written so (base32, A-Z and 2-7)
		{"AKIA" + "EXPOSEDKEY123456", 0},
		{"AKIA" + "XXXXXXXXXXXXXXXX", 0},
		{"sk-ant-api03-" + strings.Repeat("a", 40), 0},       // a repeated character
		{"ghp_" + strings.Repeat("ab12", 9), 0},              // too few distinct characters
		{"ghp_" + "abcdefghijklmnopqrstuvwxyz1234567890", 0}, // typed in order
		{"ghp_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij", 0},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\n...\n-----END OPENSSH PRIVATE KEY-----", 0},
		{"-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMHcCAQEEIBkg4LVWM9nuwNSk3yBYrKpGFl1xqNOHd4Lcs+DoXi0OoAoGCCqGSM49\n", 1},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAplantedtestkeymaterialnotrealdonotusethisanywhere00\n-----END RSA PRIVATE KEY-----", 0},
		{"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEbCqGSM49AwEHA0IABHxqNOHd4Lcs\n", 0},
	} {
		if got := findSecrets([]byte(tc.text)); len(got) != tc.want {
			t.Errorf("findSecrets(%.40q...) found %d, want %d", tc.text, len(got), tc.want)
		}
	}

	// A message shows four characters of the secret and never the rest.
	dir := t.TempDir()
	disk := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(disk, []byte("one\n  key: "+tok+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &skill.Skill{Dir: dir, File: skill.FileName}
	got := testPass(t, "secret", s, &skill.Files{Files: []skill.File{{Path: "notes.md", Disk: disk}}})
	if len(got) != 1 || got[0].Line != 2 || got[0].Column != 8 {
		t.Fatalf("got %v, want one finding at 2:8", got)
	}
	if !strings.Contains(got[0].Message, `"ghp_…"`) || strings.Contains(got[0].Message+got[0].Fix, tok[4:8]) {
		t.Errorf("message shows too much or too little of the token: %q", got[0].Message)
	}
}

func TestFindInvisible(t *testing.T) {
	tags := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteRune(0xE0000 + r)
		}
		return b.String()
	}
	for _, tc := range []struct {
		text string
		want []string // message substrings, in order
	}{
		{"plain text", nil},
		{"\uFEFFstarts with a BOM", nil},
		{"x" + tags("hi") + " y", []string{`hidden text: "hi"`}},
		{"x" + tags("0123456789abcdef"), []string{`hidden text: "0123456789ab…"`}},
		{"\U0001F3F4" + tags("gbsct") + "\U000E007F", nil}, // the flag of Scotland
		{"\U0001F3F4" + tags("ignoreall") + "\U000E007F", []string{"hidden text"}},
		{"x" + tags("gbsct") + "\U000E007F", []string{"hidden text"}}, // no flag before it
		{"\U0001F469\u200d\U0001F4BB", nil},                           // woman technologist
		{"a\u200db", []string{"U+200D ZERO WIDTH JOINER"}},
		{"\u0645\u06cc\u200c\u062e", nil}, // Persian
		{"a\u200b\u200bb \u202ex", []string{`U+200B ZERO WIDTH SPACE, inside the word "a\u200b\u200bb" split it`, "U+202E RIGHT-TO-LEFT OVERRIDE is an"}},
		{"\u202e\u202ex", []string{"2 invisible characters in a row, starting with U+202E RIGHT-TO-LEFT OVERRIDE, are invisible bidirectional controls that reorder"}},
		{"\xe2\x80", nil}, // cut off: no panic, nothing found
		// Outside words they hide nothing, and say where they are.
		{"```md\n\u200b```sh\n", []string{"before a code fence line"}},
		{"a\n\u200e~~~\r\n", []string{"U+200E LEFT-TO-RIGHT MARK before a code fence line"}},
		{"a\n \u200b \nb", []string{"alone on an otherwise blank line"}},
		{"the\u200b script", []string{`between "e" and " "`}},
		{"x\u200f", []string{"U+200F RIGHT-TO-LEFT MARK at the end of a line"}},
		{"x\u200fy", []string{`inside the word "x\u200fy"`}},
		{"\u2066```", []string{"bidirectional control"}}, // an isolate reorders wherever it is
		// One character alone in quotes is the value itself; an override
		// there is Trojan Source's trick, and two are no value.
		{`ENT = {zwj: "` + "\u200d" + `", lrm: '` + "\u200e" + `'}`, nil},
		{"markers (`\u200e` LTR)", nil},
		{`s = "` + "\u202e" + `"`, []string{"RIGHT-TO-LEFT OVERRIDE"}},
		{`s = "` + "\u200b\u200b" + `"`, []string{"2 invisible characters in a row, starting with U+200B ZERO WIDTH SPACE, between"}},
		{`s = "` + "\u200b'", []string{"U+200B ZERO WIDTH SPACE between"}},
	} {
		hits := findInvisible([]byte(tc.text))
		if len(hits) != len(tc.want) {
			t.Errorf("findInvisible(%q) = %v, want %d hits", tc.text, hits, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(hits[i].msg, w) {
				t.Errorf("findInvisible(%q)[%d] = %q, want it to contain %q", tc.text, i, hits[i].msg, w)
			}
			// Only what can hide text is invisible-unicode's.
			harmless := strings.Contains(w, "code fence") || strings.Contains(w, "blank line") ||
				strings.Contains(w, "between") || strings.Contains(w, "end of a line")
			if hits[i].hiding == harmless {
				t.Errorf("findInvisible(%q)[%d].hiding = %v", tc.text, i, hits[i].hiding)
			}
		}
	}
}

// FuzzFindInvisible finds invisible runs in any text, and plans --fix's
// cuts of them (code blocks, code spans, renders): in order, within the
// text, and none where a run is kept.
func FuzzFindInvisible(f *testing.F) {
	f.Add([]byte("a\u200b\U000E0041\U0001F3F4\U000E007F\xf3\xa0"))
	f.Add([]byte("e.g. `mainRoad\u200bGrid` and **x\u200b**\n```\n\u200b```\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		last := -1
		hits := findInvisible(data)
		for _, h := range hits {
			if h.off <= last || h.off >= len(data) {
				t.Fatalf("hit at %d after %d in %d bytes", h.off, last, len(data))
			}
			last = h.off
		}
		for k, p := range invisiblePlan(data, hits) {
			for _, c := range p.cuts {
				if p.keep != keepNone || c.start < hits[k].off || c.end > hits[k].end {
					t.Fatalf("run %d (%d-%d, kept %d): cut %d-%d", k, hits[k].off, hits[k].end, p.keep, c.start, c.end)
				}
			}
		}
		findSecrets(data)
	})
}

// TestPathUnpackableNames covers the names the case file keeps out of its
// text (a control character, bytes that are not UTF-8), and checks that
// lint and the build agree: path-unpackable or path-too-long reports a name
// exactly when pack.Writer.Add refuses it.
func TestPathUnpackableNames(t *testing.T) {
	rep := strings.Repeat
	for _, tc := range []struct {
		path string
		rule string // the rule that reports it, or ""
		fix  string // in the fix, when reported
	}{
		{"参考/说明.md", "", ""},
		{"references/cafe\u0301.md", "", ""},
		{"assets/Screenshot 2024-05-01 at 10.15.32\u202fAM.png", "", ""},
		{"scripts/🚀.sh", "", ""},
		{"a\x1b[31m.md", "path-unpackable", `"a[31m.md"`},
		{"references/caf\xe9.md", "path-unpackable", "convmv -f LATIN1 -t UTF-8 --notest 'caf\xe9.md'"},
		{"notes\u202edm.exe", "path-unpackable", `"notesdm.exe"`},
		{"tab\there.md", "path-unpackable", `"tabhere.md"`},
		{"C:notes.md", "path-unpackable", "rename the file"},
		{rep("文", 33) + ".md", "path-too-long", "shorten"},
		{rep("目", 51) + "/" + rep("文", 33), "", ""},
	} {
		dir := t.TempDir()
		s := &skill.Skill{Dir: dir, File: skill.FileName}
		files := &skill.Files{Files: []skill.File{{Path: tc.path, Disk: filepath.Join(dir, "x")}}}
		var got []Finding
		for _, id := range []string{"path-unpackable", "path-too-long"} {
			for _, f := range testPass(t, id, s, files) {
				f.Rule = id
				got = append(got, f)
			}
		}
		w := pack.NewWriter(nil, nil, pack.Options{})
		_, err := w.Add(tc.path, false, 0, strings.NewReader(""))
		if (err == nil) != (len(got) == 0) {
			t.Errorf("%q: lint reports %v, the build's Add says %v; they must agree", tc.path, got, err)
		}
		switch {
		case tc.rule == "" && len(got) > 0:
			t.Errorf("%q: %s: %s, want no finding", tc.path, got[0].Rule, got[0].Message)
		case tc.rule != "" && (len(got) != 1 || got[0].Rule != tc.rule || got[0].Path != tc.path):
			t.Errorf("%q: got %v, want one %s finding naming the file", tc.path, got, tc.rule)
		case tc.rule != "" && !strings.Contains(got[0].Fix, tc.fix):
			t.Errorf("%q: fix %q, want it to hold %q", tc.path, got[0].Fix, tc.fix)
		}
	}
}

// Above pack's limits the build refuses a skill, so lint reports it as an
// error under the rule the build refuses it by, with the build's message
// (PackLimits), whatever severity the config gives the rule; below them,
// the clients' lower limits stay warnings.
func TestPackLimitsAreErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string, size int64) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		f, err := os.Create(p)
		must(t, err)
		must(t, f.Truncate(size))
		must(t, f.Close())
	}
	skillMD := func(name string) {
		t.Helper()
		p := filepath.Join(dir, name, "SKILL.md")
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: A test skill of many or large files. Use in tests.\n---\n# Test\n\nUse it in tests.\n"), 0o644))
	}
	skillMD("many")
	for i := range pack.MaxEntries {
		write(fmt.Sprintf("many/icons/%05d.svg", i), 0)
	}
	skillMD("huge")
	for i := range 5 {
		write(fmt.Sprintf("huge/assets/%d.bin", i), 60<<20)
	}
	write("huge/assets/over.bin", pack.MaxFile+1)
	skillMD("soft")
	write("soft/assets/big.bin", 11<<20)
	write("soft/assets/more.bin", 11<<20)

	want := map[string]Severity{
		"many:skill-too-many-files":           Error,
		"huge/assets/over.bin:file-too-large": Error,
		"huge:skill-too-large":                Error,
		"soft/assets/big.bin:file-too-large":  Warning,
		"soft/assets/more.bin:file-too-large": Warning,
		"soft:skill-too-large":                Warning,
	}
	for _, sev := range []Severity{Warning, Info} {
		set := Settings{Profile: profiles[0], Severity: map[string]Severity{}}
		for _, id := range []string{"skill-too-many-files", "file-too-large", "skill-too-large"} {
			set.Severity[id] = sev
		}
		res, err := Run([]string{dir}, Options{Settings: set, Base: dir})
		must(t, err)
		got := map[string]Finding{}
		for _, f := range res.Findings {
			if _, ok := want[f.Path+":"+f.Rule]; ok {
				got[f.Path+":"+f.Rule] = f
			}
		}
		for k, w := range want {
			f, ok := got[k]
			if w == Warning {
				w = sev // the config's severity, below the limits
			}
			switch {
			case !ok:
				t.Errorf("rules at %s: no finding %s", sev, k)
			case f.Severity != w:
				t.Errorf("rules at %s: %s is %s, want %s: %s", sev, k, f.Severity, w, f.Message)
			case w == Error && !strings.Contains(f.Message, "; verify and pull "):
				t.Errorf("%s: %q does not say the build refuses the skill", k, f.Message)
			}
		}
		if len(got) != len(want) {
			t.Errorf("rules at %s: got %d findings, want %d: %v", sev, len(got), len(want), got)
		}
	}
	// So are the paths pack cannot write, which the build refuses too.
	skillMD("paths")
	write("paths/references/"+strings.Repeat("n", 101)+".md", 1)
	write("paths/references/a\x01b.md", 1)
	set := Settings{Profile: profiles[0], Severity: map[string]Severity{"path-too-long": Warning, "path-unpackable": Info}}
	res, err := Run([]string{filepath.Join(dir, "paths")}, Options{Settings: set, Base: dir})
	must(t, err)
	n := 0
	for _, f := range res.Findings {
		if f.Rule == "path-too-long" || f.Rule == "path-unpackable" {
			n++
			if f.Severity != Error {
				t.Errorf("%s set lower: %s is %s, want error", f.Rule, f.Path, f.Severity)
			}
		}
	}
	if n != 2 {
		t.Errorf("got %d path findings, want 2: %v", n, res.Findings)
	}
	// The build refuses by the same findings.
	var files []skill.File
	for i := range pack.MaxEntries + 1 {
		files = append(files, skill.File{Path: fmt.Sprintf("f%d", i)})
	}
	if fs := PackLimits("skill", files); len(fs) != 1 || fs[0].Rule != "skill-too-many-files" || fs[0].Severity != Error {
		t.Errorf("PackLimits(%d files) = %v", len(files), fs)
	}
}

// A rule's findings of many files of a skill read as one entry of the text
// format ("also at N more places"), which folds findings of one rule,
// message and fix: their messages and fixes name no file, since each
// finding's path does. 14,139 byte order marks of one repository made
// 28,338 lines, its 27 errors among them.
func TestPerFileFindingsFold(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data), mode))
	}
	write("docs/SKILL.md", "---\nname: docs\ndescription: Data dictionary lookups. Use when a table is named.\n---\n# Docs\n\nRead the tables.\n", 0o644)
	long := strings.Repeat("x", 101)
	rules := map[string]bool{}
	for i := range 5 {
		n := strconv.Itoa(i)
		write("docs/references/t"+n+".md", "\uFEFF# Table "+n+"\n", 0o644)
		write("docs/references/"+long+n+".md", "# Long\n", 0o644)
		write("docs/references/"+long+"/"+long+"/"+n+".md", "# Deep\n", 0o644)
		write("docs/references/latin"+n+".md", "caf\xe9\n", 0o644)
		write("docs/scripts/crlf"+n+".sh", "echo hi\r\n", 0o755)
		write("docs/scripts/run"+n+".py", "#!/usr/bin/env python3\nprint(1)\n", 0o644)
		write("docs/assets/left"+n+".txt", "over\n", 0o644)
		write("docs/assets/d"+n+"/.DS_Store", "", 0o644)
	}
	for _, r := range []string{"text-encoding", "path-too-long", "script-crlf", "script-not-executable", "file-unreferenced", "junk-file"} {
		rules[r] = true
	}
	res, err := Run([]string{dir}, Options{Base: dir})
	must(t, err)
	type same struct{ msg, fix string }
	kinds := map[string]map[same]int{}
	for _, f := range res.Findings {
		if rules[f.Rule] {
			if kinds[f.Rule] == nil {
				kinds[f.Rule] = map[same]int{}
			}
			kinds[f.Rule][same{f.Message, f.Fix}]++
		}
	}
	for r := range rules {
		if len(kinds[r]) == 0 {
			t.Errorf("%s: no findings", r)
		}
		for k, n := range kinds[r] {
			if n < 5 {
				t.Errorf("%s: %d findings of %q (fix %q), want them all folded in groups of 5 or more", r, n, k.msg, k.fix)
			}
		}
	}
	var out strings.Builder
	must(t, FormatText(&out, res, TextOptions{}))
	if n := strings.Count(out.String(), "more places"); n != len(kinds["text-encoding"])+len(kinds["path-too-long"])+
		len(kinds["script-crlf"])+len(kinds["script-not-executable"])+len(kinds["file-unreferenced"])+len(kinds["junk-file"]) {
		t.Errorf("text output folds %d groups:\n%s", n, out.String())
	}
}

// A published file that git ignores is reported, in a skill's folder and
// in a plugin's (10xChengTu/Hyperpowers: node_modules/ and the root
// plugin's .claude/settings.local.json in its archives); one tracked in
// spite of the pattern (git add -f) is not, nor anything outside git. A
// link counts as its target.
func TestGitIgnored(t *testing.T) {
	testtool.Need(t, "git")
	root := t.TempDir()
	md := "---\nname: pdf\ndescription: Fill PDF forms for the user, when asked to.\n---\n# PDF\n"
	testtool.WriteTree(t, root, map[string]string{
		".gitignore":                           "node_modules/\n*.local.json\n.env\nskills/mine/\n",
		"skills/mine/SKILL.md":                 strings.ReplaceAll(md, "pdf", "mine"),
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`, // inside the root's: its file reported once
		"plugins/p/node_modules/x.js":          "1\n",
		".claude-plugin/plugin.json":           `{"name": "tools"}`,
		".claude/settings.local.json":          "{}",
		".claude/commands/run.md":              "Run it.\n",
		"skills/pdf/SKILL.md":                  md,
		"skills/pdf/scripts/fill.py":           "print(1)\n",
		"skills/pdf/scripts/node_modules/a.js": "1\n",
		"skills/pdf/creds.local.json":          "{}\n",
		"skills/pdf/forced.local.json":         "{}",
		"notes/keys.local.json":                "{}",
		"LICENSE":                              "MIT\n",
	})
	// A link is tracked, but a clone lacks its target when git ignores that.
	for name, target := range map[string]string{"keys.json": "../../notes/keys.local.json", "LICENSE": "../../LICENSE"} {
		if err := os.Symlink(target, filepath.Join(root, "skills", "pdf", name)); err != nil {
			t.Fatal(err)
		}
	}
	got := func() (out []string) {
		for _, f := range lintDir(t, root, Options{Base: root}).Findings {
			if f.Rule == "file-git-ignored" {
				out = append(out, f.Path)
				if strings.HasSuffix(f.Path, "SKILL.md") != strings.Contains(f.Fix, "--ignore") {
					t.Errorf("%s: fix %q", f.Path, f.Fix) // a skill git ignores is left out whole
				}
			}
		}
		slices.Sort(out)
		return out
	}
	if g := got(); len(g) > 0 {
		t.Errorf("outside git: %q", g)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"add", "-f", "skills/pdf/forced.local.json"}} {
		testtool.Git(t, root, args...)
	}
	if g, want := got(), []string{".claude/settings.local.json", "notes", "plugins/p/node_modules", "skills/mine/SKILL.md", "skills/pdf/creds.local.json", "skills/pdf/keys.json", "skills/pdf/scripts/node_modules"}; !slices.Equal(g, want) {
		t.Errorf("file-git-ignored at %q, want %q", g, want)
	}
}
