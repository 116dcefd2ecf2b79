package skill

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
)

func dirs(t *testing.T, root string, skills []*Skill) []string {
	t.Helper()
	out := []string{}
	for _, s := range skills {
		rel, err := filepath.Rel(root, s.Dir)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// relFolders maps each skill's folder to another folder it names (its
// plugin, its mirror), both relative to base with "/", or "" for none.
func relFolders(base string, skills []*Skill, folder func(*Skill) string) map[string]string {
	out := map[string]string{}
	for _, s := range skills {
		rel, _ := filepath.Rel(base, s.Dir)
		other := ""
		if f := folder(s); f != "" {
			other, _ = filepath.Rel(base, f)
		}
		out[filepath.ToSlash(rel)] = filepath.ToSlash(other)
	}
	return out
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		"pdf/SKILL.md":                                 skillMD,
		"pdf/scripts/run.sh":                           "",
		"pdf/nested/SKILL.md":                          skillMD,        // a skill inside a skill is found (lint reports it)
		"pdf/assets/sample/SKILL.md":                   "# A sample\n", // declares no skill: a file of pdf
		"pdf/assets/lower/skill.md":                    "# A sample\n", // a file of pdf, not passed over
		"lower/skill.md":                               skillMD,
		"mixed/Skill.MD":                               skillMD,
		"wiki/skill.md":                                "---\nconcept: skill\n---\n# What a skill is\n", // a page, no skill
		"notes/Skill.md":                               "# Skills I use\n",
		"a-b/SKILL.md":                                 skillMD,
		"a/b/SKILL.md":                                 skillMD,
		".git/modules/x/SKILL.md":                      skillMD,
		"node_modules/pkg/SKILL.md":                    skillMD,
		"deep/.hg/SKILL.md":                            skillMD,
		"dist/" + BundleMarker:                         "{}",
		"dist/skills/pdf/SKILL.md":                     skillMD,
		"notaskill/README.md":                          "",
		"dirnamed/SKILL.md/":                           "", // a folder called SKILL.md is no entry file
		"both/SKILL.md":                                skillMD,
		"both/skill.md":                                skillMD,
		"docs/" + strings.Repeat("d/", 3) + "SKILL.md": skillMD,
	})
	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a-b", "a/b", "both", "docs/d/d/d", "lower", "mixed", "pdf", "pdf/nested"}
	if d := dirs(t, root, got); !reflect.DeepEqual(d, want) {
		t.Fatalf("Discover = %q\nwant       %q", d, want)
	}
	files := map[string]string{}
	for _, s := range got {
		files[filepath.Base(s.Dir)] = s.File
		if s.Err != nil || s.Doc == nil {
			t.Errorf("%s: Err = %v, Doc = %v", s.Dir, s.Err, s.Doc)
			continue
		}
		if s.Size != int64(len(skillMD)) || string(s.Doc.Raw) != skillMD {
			t.Errorf("%s: Size = %d, Raw = %q", s.Dir, s.Size, s.Doc.Raw)
		}
		if s.EntryPath() != filepath.Join(s.Dir, s.File) {
			t.Errorf("EntryPath = %s", s.EntryPath())
		}
	}
	if files["lower"] != "skill.md" || files["mixed"] != "Skill.MD" || files["both"] != FileName || files["pdf"] != FileName {
		t.Errorf("entry files = %v", files)
	}

	// Find finds the same skills without reading them; Read then gives
	// what Discover gave.
	found, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if d := dirs(t, root, found); !reflect.DeepEqual(d, want) {
		t.Fatalf("Find = %q\nwant   %q", d, want)
	}
	for i, s := range found {
		if s.Doc != nil || s.Err != nil || s.Size != 0 {
			t.Errorf("Find read %s", s.Dir)
		}
		s.Read()
		if !reflect.DeepEqual(s, got[i]) {
			t.Errorf("Find then Read = %+v, Discover = %+v", s, got[i])
		}
	}

	// The case variants that name no skill, outside any skill, are
	// passed over and said so: nothing else tells an author why their
	// skill.md is no skill.
	tree, err := FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	wantPassed := []string{filepath.Join(root, "notes", "Skill.md"), filepath.Join(root, "wiki", "skill.md")}
	if !reflect.DeepEqual(tree.PassedOver, wantPassed) {
		t.Errorf("PassedOver = %q\nwant         %q", tree.PassedOver, wantPassed)
	}

	// A bundle named as root is walked: the user asked for it.
	got, err = Discover(filepath.Join(root, "dist"))
	if err != nil || len(got) != 1 {
		t.Errorf("Discover(dist) = %d skills, %v", len(got), err)
	}
}

func TestDiscoverFilePath(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		"pdf/SKILL.md":       skillMD,
		"pdf/scripts/run.sh": "",
		"pdf/a/b/c/d.txt":    "",
		"README.md":          "",
		"other/notes.txt":    "",
		// A sample whose SKILL.md declares no skill is pdf's file.
		"pdf/assets/sample/SKILL.md": "# A sample\n",
		"pdf/assets/sample/data.csv": "",
	})
	for _, p := range []string{"pdf/scripts/run.sh", "pdf/SKILL.md", "pdf/a/b/c/d.txt", "pdf/a/b", "pdf", "pdf/assets/sample/data.csv", "pdf/assets/sample"} {
		got, err := Discover(filepath.Join(root, p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if d := dirs(t, root, got); !reflect.DeepEqual(d, []string{"pdf"}) {
			t.Errorf("Discover(%s) = %q, want pdf", p, d)
		}
	}
	for _, p := range []string{"README.md", "other/notes.txt"} {
		got, err := Discover(filepath.Join(root, p))
		if err != nil || len(got) != 0 {
			t.Errorf("Discover(%s) = %q, %v; want nothing", p, dirs(t, root, got), err)
		}
	}
	// A folder outside any skill is walked and holds none.
	if got, err := Discover(filepath.Join(root, "other")); err != nil || len(got) != 0 {
		t.Errorf("Discover(other) = %d, %v", len(got), err)
	}
}

func TestDiscoverMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "such")
	got, err := Discover(p)
	if err == nil || got != nil {
		t.Fatalf("Discover(missing) = %v, %v; want an error", got, err)
	}
	if msg := err.Error(); !strings.Contains(msg, p) || !strings.Contains(msg, "no such file or folder") {
		t.Errorf("error %q should name %s and say no such file or folder", msg, p)
	}
}

// Walking deeper than MaxDepth is cut off rather than followed forever.
func TestDiscoverMaxDepth(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		strings.Repeat("d/", MaxDepth) + "SKILL.md":   skillMD,
		strings.Repeat("e/", MaxDepth+1) + "SKILL.md": skillMD,
	})
	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if d := dirs(t, root, got); len(d) != 1 || !strings.HasPrefix(d[0], "d/") {
		t.Errorf("Discover = %q, want only the skill at depth %d", d, MaxDepth)
	}
}

// A path relative to a working folder inside a skill still finds it, and
// the skill's name is its folder's name, not ".." or ".".
func TestEnclosingRelative(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{"pdf-forms/SKILL.md": skillMD, "pdf-forms/scripts/a/run.sh": ""})
	t.Chdir(filepath.Join(root, "pdf-forms", "scripts", "a"))
	if got := Enclosing("run.sh"); got != filepath.Join("..", "..") {
		t.Errorf("Enclosing(run.sh) = %q, want ../..", got)
	}
	got, err := Discover("run.sh")
	if err != nil || len(got) != 1 {
		t.Fatalf("Discover(run.sh) = %v, %v", got, err)
	}
	if got[0].Name() != "pdf-forms" || got[0].Doc == nil {
		t.Errorf("Name = %q, Doc = %v; want pdf-forms", got[0].Name(), got[0].Doc)
	}
	t.Chdir(filepath.Join(root, "pdf-forms"))
	got, err = Discover(".")
	if err != nil || len(got) != 1 || got[0].Dir != "." || got[0].Name() != "pdf-forms" {
		t.Fatalf("Discover(.) = %+v, %v; want Dir . named pdf-forms", got, err)
	}
	if got := Enclosing("nope.txt"); got != "." {
		t.Errorf("Enclosing of a missing file in a skill = %q, want .", got)
	}
}

func TestEnclosingNone(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{"a/b.txt": ""})
	if got := Enclosing(filepath.Join(root, "a", "b.txt")); got != "" {
		t.Errorf("Enclosing = %q, want none", got)
	}
}

// A git checkout's files are no part of a skill above the checkout: lint
// of a page in a repository cloned inside a skill folder is no lint of
// that skill. A skill at the top of a checkout is still its files'.
func TestEnclosingStopsAtCheckout(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		"SKILL.md": skillMD, "repo/.git/HEAD": "", "repo/docs/page.md": "",
		"repo/pdf/SKILL.md": skillMD, "repo/pdf/.git": "gitdir: x", "repo/pdf/notes/a.md": "",
	})
	if got := Enclosing(filepath.Join(root, "repo", "docs", "page.md")); got != "" {
		t.Errorf("Enclosing of a checkout's page = %q, want none (not the skill above the checkout)", got)
	}
	if got, want := Enclosing(filepath.Join(root, "repo", "pdf", "notes", "a.md")), filepath.Join(root, "repo", "pdf"); got != want {
		t.Errorf("Enclosing in a skill at a checkout's top = %q, want %q", got, want)
	}
}

func TestSkillName(t *testing.T) {
	for dir, want := range map[string]string{
		"skills/pdf":  "pdf",
		"skills/pdf/": "pdf",
		"/abs/pdf":    "pdf",
	} {
		if got := (&Skill{Dir: dir}).Name(); got != want {
			t.Errorf("Name(%q) = %q, want %q", dir, got, want)
		}
	}
	wd, _ := os.Getwd()
	if got := (&Skill{Dir: "."}).Name(); got != filepath.Base(wd) {
		t.Errorf("Name(.) = %q, want %q", got, filepath.Base(wd))
	}
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{"a/SKILL.md": skillMD, "b/skill.md": "---\nname: b\n---\nno description\n", "c/": "", "d/skill.md": "no frontmatter"})
	s := Load(filepath.Join(root, "a"))
	if s.Err != nil || s.Doc == nil || s.File != FileName {
		t.Fatalf("Load(a) = %+v", s)
	}
	if name, _ := s.Doc.String("name"); name != "s" {
		t.Errorf("name = %q", name)
	}
	s = Load(filepath.Join(root, "b"))
	if name, _ := s.Doc.String("name"); s.File != "skill.md" || name != "b" {
		t.Errorf("Load(b) = %+v", s)
	}
	// A skill.md that neither names nor describes a skill is no entry
	// file: the folder has none.
	for _, d := range []string{"c", "d"} {
		s = Load(filepath.Join(root, d))
		if s.Doc != nil || s.Err == nil || s.File != FileName || !strings.Contains(s.Err.Error(), "no such file or folder") {
			t.Errorf("Load(%s) = %+v, want Err no such file", d, s)
		}
	}
}

// A SKILL.md linking to another skill's SKILL.md makes its folder a mirror
// of that skill, as in a client's install folder that links a repository's
// own skills; a dangling link, or one to a file no skill holds, does not.
func TestDiscoverMirror(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{"skills/a/SKILL.md": skillMD, "README.md": "# hi\n"})
	symlink(t, root, ".gemini/skills/a/SKILL.md", "../../../skills/a/SKILL.md")
	symlink(t, root, ".gemini/skills/gone/SKILL.md", "../../../skills/gone/SKILL.md")
	symlink(t, root, ".gemini/skills/readme/SKILL.md", "../../../README.md")
	symlink(t, root, ".agents/skills/a/SKILL.md", "../../../.gemini/skills/a/SKILL.md") // a link to a link
	symlink(t, root, "linked", ".")                                                     // the root as a link
	want := map[string]string{
		".agents/skills/a":      "skills/a",
		".gemini/skills/a":      "skills/a",
		".gemini/skills/gone":   "",
		".gemini/skills/readme": "",
		"skills/a":              "",
	}
	for _, base := range []string{root, filepath.Join(root, "linked")} {
		got, err := Discover(base)
		if err != nil {
			t.Fatal(err)
		}
		if have := relFolders(base, got, func(s *Skill) string { return s.Mirror }); !reflect.DeepEqual(have, want) {
			t.Errorf("Discover(%s): mirrors = %q\nwant %q", base, have, want)
		}
	}
	t.Chdir(root)
	got, err := Discover(".gemini")
	if err != nil || len(got) != 3 {
		t.Fatalf("Discover(.gemini) = %v, %v", got, err)
	}
	for _, s := range got {
		if s.Mirror != "" {
			t.Errorf("%s: Mirror = %q, but the skill it links to was not part of the walk", s.Dir, s.Mirror)
		}
	}
}

// A link where a skill would be that leads nowhere (a git submodule not
// checked out) is reported: in a skills/ folder, named by a manifest's
// "skills", or beside skill folders; one elsewhere, or inside a skill (the skill's file, which lint
// checks), is not.
func TestFindTreeBroken(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		".git/HEAD":                    "",
		".claude-plugin/plugin.json":   `{"name": "p", "skills": ["./vendor/direct", "./extra"]}`,
		"skills/own/SKILL.md":          skillMD,
		"extra/mine/SKILL.md":          skillMD,
		"docs/readme.md":               "",
		"skills/own/references/x.md":   "",
		"plugins/q/skills/ok/SKILL.md": skillMD,
		"top/a/SKILL.md":               skillMD,
	})
	links := map[string]string{
		"skills/docx":          "../external/anthropic-skills/skills/docx", // reported
		"plugins/q/skills/pdf": "/home/someone/skills/pdf",                 // reported
		"vendor/direct":        "../submodule/direct",                      // reported: the manifest names it
		"extra/gone":           "../nowhere",                               // reported: in a folder the manifest names
		"docs/old":             "../nowhere",                               // not where a skill would be
		"top/b":                "/Users/someone/skills/b",                  // reported: beside a skill folder
		"skills/own/linked":    "../../gone",                               // a file of the skill own
		"skills/self":          "own",                                      // leads somewhere
	}
	for p, target := range links {
		p = filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range tr.Broken {
		rel, _ := filepath.Rel(root, b.Path)
		got = append(got, filepath.ToSlash(rel)+" -> "+b.Target)
		if b.Fix == "" {
			t.Errorf("%s: no fix", b.Path)
		}
	}
	want := []string{
		"extra/gone -> ../nowhere",
		"plugins/q/skills/pdf -> /home/someone/skills/pdf",
		"skills/docx -> ../external/anthropic-skills/skills/docx",
		"top/b -> /Users/someone/skills/b",
		"vendor/direct -> ../submodule/direct",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Broken = %q, want %q", got, want)
	}
	for _, b := range tr.Broken {
		if !filepath.IsAbs(b.Target) && !strings.Contains(b.Fix, "git submodule update --init") {
			t.Errorf("%s: fix %q does not say how to check a submodule out", b.Path, b.Fix)
		}
	}
	// A link to a skill, or a folder of skills, out of the folder walked is
	// reported too: the walk follows no link, so those skills are not
	// found. One to a skill inside is not: the walk finds it there.
	outside := t.TempDir()
	testtool.WriteTree(t, outside, map[string]string{"far/SKILL.md": skillMD, "many/one/SKILL.md": skillMD, "none/x.md": ""})
	for name, target := range map[string]string{"far": "far", "many": "many", "none": "none"} {
		if err := os.Symlink(filepath.Join(outside, target), filepath.Join(root, "skills", name)); err != nil {
			t.Fatal(err)
		}
	}
	tr, err = FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, b := range tr.Broken {
		if b.Out != "" {
			rel, _ := filepath.Rel(root, b.Path)
			got = append(got, filepath.ToSlash(rel))
			if !strings.Contains(b.Fix, "give the folder it leads to as well") {
				t.Errorf("%s: fix %q", b.Path, b.Fix)
			}
		}
	}
	if want := []string{"skills/far", "skills/many"}; !slices.Equal(got, want) {
		t.Errorf("links out = %q, want %q", got, want)
	}
	// Walked from inside a skill, its links are its files.
	if tr, err := FindTree(filepath.Join(root, "skills", "own")); err != nil || len(tr.Broken) > 0 {
		t.Errorf("FindTree(skills/own) = %+v, %v; want no broken link", tr, err)
	}
	// An empty folder in a category of skills/ is a submodule not checked
	// out, also when skills/ is walked as ".".
	if err := os.MkdirAll(filepath.Join(root, "skills", "popular", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "skills"))
	tr, err = FindTree(".")
	if err != nil || !slices.ContainsFunc(tr.Broken, func(b BrokenLink) bool { return b.Path == filepath.Join("popular", "sub") }) {
		t.Errorf("FindTree(.) in skills/ = %+v, %v; want popular/sub broken", tr.Broken, err)
	}
}

// A link that leads nowhere but for letter case (made on macOS, where
// ../Vendor/PDF and ../vendor/pdf are one folder) gets the link that
// leads there as its fix.
func TestBrokenLinkCase(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{"Vendor/PDF/SKILL.md": skillMD, "skills/own/SKILL.md": skillMD})
	if _, err := os.Stat(filepath.Join(root, "vendor")); err == nil {
		t.Skip("the file system ignores case: the link leads somewhere")
	}
	if err := os.Symlink("../vendor/pdf", filepath.Join(root, "skills", "pdf")); err != nil {
		t.Fatal(err)
	}
	tr, err := FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Broken) != 1 || !strings.HasSuffix(tr.Broken[0].Fix, "ln -sfn ../Vendor/PDF "+filepath.Join(root, "skills", "pdf")) {
		t.Errorf("broken %+v; want the fix ln -sfn ../Vendor/PDF", tr.Broken)
	}
}
