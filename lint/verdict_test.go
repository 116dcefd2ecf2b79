package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// The rules read SKILL.md as it was parsed: rewritten on disk since, with
// the same size, it is not read again.
func TestContentIsParsed(t *testing.T) {
	dir := t.TempDir()
	sk := filepath.Join(dir, "demo")
	os.MkdirAll(sk, 0o755)
	md := filepath.Join(sk, "SKILL.md")
	os.WriteFile(md, []byte("---\nname: demo\ndescription: Does a demo thing when asked to demo.\n---\n# Demo xx\n"), 0o644)
	found, err := skill.Find(dir)
	if err != nil || len(found) != 1 {
		t.Fatal(found, err)
	}
	s := found[0]
	s.Read()
	files, err := skill.Collect(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	// U+202E, a bidirectional override (three bytes), in place of "xx\n".
	os.WriteFile(md, []byte("---\nname: demo\ndescription: Does a demo thing when asked to demo.\n---\n# Demo \u202e"), 0o644)
	if _, fs := CheckSkill(s, files, nil, nil, Options{Base: dir}); len(fs) != 0 {
		t.Errorf("findings on bytes written after SKILL.md was parsed: %+v", fs)
	}
}

// A kept verdict stands in for the rules: Check gives back the same
// findings from it without running a rule, and the key moves with what the
// rules read.
func TestVerdictKept(t *testing.T) {
	dir := t.TempDir()
	sk := filepath.Join(dir, "demo")
	os.MkdirAll(filepath.Join(sk, "scripts"), 0o755)
	os.WriteFile(filepath.Join(sk, "SKILL.md"), []byte("---\nname: demo\ndescription: Does a demo thing when asked to demo.\n---\n# Demo\n"), 0o644)
	os.WriteFile(filepath.Join(sk, "scripts", "run.py"), []byte("#!/usr/bin/env python3\nprint(1)\n"), 0o644)
	found, err := skill.Find(dir)
	if err != nil || len(found) != 1 {
		t.Fatal(found, err)
	}
	s := found[0]
	s.Read()
	opts := Options{Base: dir}
	files, err := skill.Collect(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	verdict, findings := CheckSkill(s, files, nil, nil, opts)
	if len(verdict) == 0 {
		t.Fatalf("want per-skill findings on a script without its execute bit and an unlinked script; got %+v", verdict)
	}
	kept, ok := EncodeVerdict(s, verdict, opts)
	if !ok || bytes.Contains(kept, []byte("demo/")) {
		t.Fatalf("EncodeVerdict = %s, %v; want paths relative to the skill", kept, ok)
	}
	back, err := DecodeVerdict(s, kept, opts)
	if err != nil || !reflect.DeepEqual(back, verdict) {
		t.Fatalf("DecodeVerdict = %+v, %v; want %+v", back, err, verdict)
	}
	ran := false
	_, again := CheckSkill(s, nil, nil, func() ([]Finding, bool) { ran = true; return back, true }, opts)
	if !ran || !reflect.DeepEqual(again, findings) {
		t.Errorf("from the kept verdict: %+v; want %+v", again, findings)
	}
	if raw, ok := EncodeVerdict(s, nil, opts); raw != nil || !ok {
		t.Error("a clean verdict should cost nothing to keep")
	}
	// Read from another folder, the paths follow the skill.
	moved, err := DecodeVerdict(s, kept, Options{Base: sk})
	if err != nil || moved[0].Path == back[0].Path || !strings.HasPrefix(back[0].Path, "demo/") && back[0].Path != "demo" {
		t.Errorf("decoded from the skill's own folder: %+v, %v", moved, err)
	}
	if _, ok := EncodeVerdict(s, []Finding{{Path: "skillpack.yaml", Rule: "unknown-key"}}, opts); ok {
		t.Error("a finding outside the skill was kept")
	}
	for _, bad := range []string{`[{"path":"a","rule":"no-such-rule","severity":"error"}]`, `[{"path":"../x","rule":"unknown-key","severity":"error"}]`, `{`} {
		if _, err := DecodeVerdict(s, []byte(bad), opts); err == nil {
			t.Errorf("the verdict %s was read", bad)
		}
	}

	entries := []pack.Member{{Path: "SKILL.md", Size: 1}}
	key := VerdictKey(s, files, entries, Options{Base: dir})
	for name, other := range map[string]string{
		"strict":         VerdictKey(s, files, entries, Options{Base: dir, Strict: true}),
		"another digest": VerdictKey(s, files, []pack.Member{{Path: "SKILL.md", Size: 1, Sum: [32]byte{1}}}, Options{Base: dir}),
		"an exec bit":    VerdictKey(s, files, []pack.Member{{Path: "SKILL.md", Size: 1, Exec: true}}, Options{Base: dir}),
		"an inner skill": VerdictKey(&skill.Skill{Dir: s.Dir, File: s.File, Inner: []string{filepath.Join(s.Dir, "inner")}}, files, entries, Options{Base: dir}),
	} {
		if other == key {
			t.Errorf("%s: the verdict key did not change", name)
		}
	}
	if again := VerdictKey(s, files, entries, Options{Base: sk}); again != key {
		t.Error("the verdict key depends on where the build runs from")
	}
}
