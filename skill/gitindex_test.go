package skill

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
)

// TestCollectFromIndex collects a skill as a Windows checkout leaves it:
// no execute bits, and a link as a file holding its target. From git's
// index, it is what the commit holds: the script executable, the link
// the file it names (in the skill or elsewhere in the repository), a link
// leaving the repository refused; as the disk says it is not.
func TestCollectFromIndex(t *testing.T) {
	testtool.Need(t, "git")
	top := t.TempDir()
	root := filepath.Join(top, "repo")
	dir := filepath.Join(root, "skills", "s")
	testtool.WriteTree(t, top, map[string]string{
		"repo/skills/s/SKILL.md":       "---\nname: s\ndescription: d\n---\n",
		"repo/skills/s/scripts/run.sh": "#!/bin/sh\n",
		"repo/skills/s/shared.md":      "shared\n",
		"repo/LICENSE":                 "license\n",
		"outside.md":                   "outside\n",
	})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("shared.md", filepath.Join(dir, "guide.md")))
	must(os.Symlink("../../../outside.md", filepath.Join(dir, "escape.md")))
	must(os.Symlink("../../LICENSE", filepath.Join(dir, "LICENSE")))
	must(os.Symlink("..", filepath.Join(dir, "up"))) // holds the skill: a loop
	must(os.Symlink("scripts", filepath.Join(dir, "bin")))
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"update-index", "--chmod=+x", "skills/s/scripts/run.sh"}} {
		testtool.Git(t, root, args...)
	}
	// What core.symlinks=false checks out.
	links := map[string]string{"guide.md": "shared.md", "escape.md": "../../../outside.md", "bin": "scripts", "LICENSE": "../../LICENSE", "up": ".."}
	for name, target := range links {
		must(os.Remove(filepath.Join(dir, name)))
		must(os.WriteFile(filepath.Join(dir, name), []byte(target), 0o644))
	}
	for _, on := range []bool{false, true} {
		fromIndex = on
		files, err := Collect(dir)
		fromIndex = false
		must(err)
		got := map[string]File{}
		for _, f := range files.Files {
			got[f.Path] = f
		}
		isExec, guide, license := got["scripts/run.sh"].Exec(), got["guide.md"], got["LICENSE"]
		linked := guide.Link && filepath.Base(guide.Disk) == "shared.md" && license.Link && license.Disk == filepath.Join(root, "LICENSE")
		refused := len(files.Refused) == 2 && files.Refused[0].Path == "escape.md" && files.Refused[0].Kind == LinkEscapes &&
			files.Refused[1].Path == "up" && files.Refused[1].Kind == LinkBroken && strings.Contains(files.Refused[1].Err.Error(), "loop")
		_, viaBin := got["bin/run.sh"]
		if isExec != on || linked != on || refused != on || viaBin != on {
			t.Errorf("from the index %v: script executable %v, guide.md and LICENSE the links %v (%+v, %+v), escape.md and up refused %v (%v), bin/run.sh through the link %v; want all %v",
				on, isExec, linked, guide, license, refused, files.Refused, viaBin, on)
		}
		// Lint names each link's target from these, where the disk has
		// no link to read (a Windows checkout).
		if on && !maps.Equal(files.Links, links) {
			t.Errorf("from the index: links %v, want %v", files.Links, links)
		}
	}
}

// An empty folder where a skill could be is a submodule not checked out
// when git's index records a commit there; else git has no record of it.
func TestEmptyFolderSubmodule(t *testing.T) {
	testtool.Need(t, "git")
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{"skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n"})
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"update-index", "--add", "--cacheinfo", "160000,0123456789abcdef0123456789abcdef01234567,skills/sub"}} {
		testtool.Git(t, root, args...)
	}
	for _, d := range []string{"sub", "stray", "a/SKILL.md"} {
		if err := os.MkdirAll(filepath.Join(root, "skills", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := FindTree(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		filepath.Join(root, "skills", "sub"):   "it is a git submodule, not checked out: run git submodule update --init -- " + filepath.Join(root, "skills", "sub"),
		filepath.Join(root, "skills", "stray"): "remove it: git keeps no empty folder",
		// Not a submodule's question: a folder where the file belongs.
		filepath.Join(root, "skills", "a", "SKILL.md"): "it is named like a skill's file: remove the folder, and write SKILL.md as a file in " + filepath.Join(root, "skills", "a"),
	}
	for _, b := range tr.Broken {
		if w, ok := want[b.Path]; ok && strings.HasPrefix(b.Fix, w) {
			delete(want, b.Path)
		}
	}
	if len(want) > 0 {
		t.Errorf("broken %+v; want fixes %q", tr.Broken, want)
	}
}

// TestTreeCache: a reading is kept while the file stamping it keeps its
// time, read again when it changes, and one kept a root (serve --watch
// goes through commit after commit).
func TestTreeCache(t *testing.T) {
	stamp := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var c treeCache[int]
	reads := 0
	read := func() int { reads++; return reads }
	t0 := time.Unix(1e9, 0)
	for i, at := range []time.Time{t0, t0, t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(2 * time.Second)} {
		if err := os.Chtimes(stamp, at, at); err != nil {
			t.Fatal(err)
		}
		if got, want := c.get("root", read, stamp), []int{1, 1, 2, 3, 3}[i]; got != want {
			t.Errorf("get %d: reading %d, want %d", i, got, want)
		}
	}
	kept := 0
	c.m.Range(func(any, any) bool { kept++; return true })
	if kept != 1 {
		t.Errorf("%d readings kept for one root, want 1", kept)
	}
}
