package reuse_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// builtRecord builds the examples and returns the dist folder, the path of
// its record and the record as json.Unmarshal reads it.
func builtRecord(t *testing.T) (dist, path string, rec layout.Record) {
	t.Helper()
	dist = filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{filepath.Join("..", "..", "..", "examples")}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dist, filepath.FromSlash(layout.BuildRecord))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	return dist, path, rec
}

// readBuilt opens the bundle whose record is at path, closed when the test
// ends.
func readBuilt(t *testing.T, path string) *reuse.Last {
	t.Helper()
	p, err := reuse.Open(filepath.Dir(filepath.Dir(path)), 0)
	if err != nil || p == nil {
		t.Fatalf("Open: %v, %v", p, err)
	}
	t.Cleanup(p.Close)
	return p
}

// The record read as a stream holds what json.Unmarshal makes of it.
func TestOpen(t *testing.T) {
	_, path, rec := builtRecord(t)
	p := readBuilt(t, path)
	if p.Head.Bundle != rec.Bundle || p.Head.Bundle == "" {
		t.Errorf("bundle %q, want %q", p.Head.Bundle, rec.Bundle)
	}
	// The record is hashed as it is read: all of it, even far past the
	// closing brace, where the decoder stops reading.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	padded := filepath.Join(t.TempDir(), filepath.FromSlash(layout.BuildRecord))
	os.MkdirAll(filepath.Dir(padded), 0o755)
	if err := os.WriteFile(padded, append(data, bytes.Repeat([]byte("\n"), 300<<10)...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, padded} {
		d, size, err := bundle.HashFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := readBuilt(t, f).Head.Self, (layout.Artifact{Path: layout.BuildRecord, Digest: d, Size: size}); got != want {
			t.Errorf("%s read as %+v, on disk %+v", f, got, want)
		}
	}
	if !reflect.DeepEqual(p.Head.Docs, rec.Docs) || len(p.Head.Docs) == 0 {
		t.Errorf("docs read as %v, want %v", p.Head.Docs, rec.Docs)
	}
	if !reflect.DeepEqual(p.Head.Excluded, rec.Excluded) {
		t.Errorf("excluded read as %v, want %v", p.Head.Excluded, rec.Excluded)
	}
	if len(rec.Skills) < 2 {
		t.Fatalf("the examples' record has %d skills", len(rec.Skills))
	}
	for _, want := range rec.Skills {
		got := p.Skill(want.Name)
		if got == nil || !reflect.DeepEqual(*got, want) {
			t.Errorf("skill %s read as\n%+v\nwant\n%+v", want.Name, got, want)
		}
	}
	for _, name := range []string{"", "no-such-skill", rec.Skills[0].Name + "x"} {
		if c := p.Skill(name); c != nil {
			t.Errorf("skill(%q) = %+v, want nil", name, c)
		}
	}

	var files []string
	if err := p.EachFile(func(f string) bool { files = append(files, f); return true }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, rec.Files) {
		t.Errorf("eachFile gave %d files, the record lists %d", len(files), len(rec.Files))
	}
	n := 0
	if err := p.EachFile(func(string) bool { n++; return n < 3 }); err != nil || n != 3 {
		t.Errorf("eachFile went on after fn returned false: %d calls, err %v", n, err)
	}
}

// Artifacts lists what the previous build wrote: every file the record
// lists, each with the digest and size on disk; and a bundle just built
// is up to date, every skill unchanged, until a file changes.
func TestArtifacts(t *testing.T) {
	out, path, rec := builtRecord(t)
	p := readBuilt(t, path)
	arts, err := p.Artifacts()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	legacy := 0
	for _, a := range arts {
		paths = append(paths, a.Path)
		d, size, err := bundle.HashFile(filepath.Join(out, filepath.FromSlash(a.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if a.Digest != d || a.Size != size {
			t.Errorf("%s listed as %s, %d bytes; on disk %s, %d bytes", a.Path, a.Digest, a.Size, d, size)
		}
		if strings.HasPrefix(a.Path, layout.LegacyDir+"/") {
			legacy++
		}
	}
	if !slices.Equal(paths, rec.Files) || p.Len() != len(rec.Files) {
		t.Errorf("artifacts %q (%d), the record lists %q", paths, p.Len(), rec.Files)
	}
	if legacy == 0 {
		t.Error("the record lists no legacy copies; the test checks nothing of them")
	}
	for _, c := range rec.Skills {
		if c.Page == nil {
			t.Errorf("%s: no page recorded", c.Name)
		}
		if !p.Unchanged(&c) {
			t.Errorf("%s: changed, just built", c.Name)
		}
	}
	if !p.UpToDate(rec.Bundle, true) {
		t.Error("not up to date, just built")
	}
	if p.UpToDate(rec.Bundle, false) || p.UpToDate(layout.DigestOf([]byte("other")), true) {
		t.Error("up to date with a skill not kept, or another bundle key")
	}
	// A legacy copy or a page rewritten in place, its folder untouched.
	c := rec.Skills[0]
	for _, f := range []string{layout.LegacyFile(c.Name, layout.EntryFile), layout.CatalogPage(c.Name)} {
		disk := filepath.Join(out, filepath.FromSlash(f))
		data, err := os.ReadFile(disk)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(disk); err != nil { // a new inode: not the served copy's
			t.Fatal(err)
		}
		if err := os.WriteFile(disk, bytes.ToUpper(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if readBuilt(t, path).Unchanged(&c) {
			t.Errorf("%s rewritten, and the skill unchanged", f)
		}
		if err := os.WriteFile(disk, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A damaged record is an error, never a panic or half a record taken for
// whole; the build then treats the folder as holding no record.
func TestOpenDamaged(t *testing.T) {
	_, path, rec := builtRecord(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole := bytes.TrimRight(data, "\n")
	dir := t.TempDir()
	bad := filepath.Join(dir, filepath.FromSlash(layout.BuildRecord))
	os.MkdirAll(filepath.Dir(bad), 0o755)
	try := func(what string, data []byte) {
		t.Helper()
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := reuse.Open(dir, 0)
		if err == nil || p != nil {
			p.Close()
			t.Errorf("%s: read without error", what)
		}
	}
	for n := 0; n < len(whole); n += max(1, len(whole)/97) {
		try(fmt.Sprintf("cut at byte %d of %d", n, len(whole)), whole[:n])
	}
	try("cut before the last brace", whole[:len(whole)-1])
	try("not an object", []byte(`["skills"]`))
	try("skills not an array", []byte(`{"skills": {}}`))
	try("files of numbers", []byte(`{"files": [1, 2]}`))

	// Skills out of order would make the binary search miss some.
	slices.Reverse(rec.Skills)
	unsorted, err := json.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	try("unsorted skills", unsorted)
}

// A record is read from a folder anyone may have written to: whatever it
// holds, reading it must not panic, and what it yields must be usable.
func FuzzOpen(f *testing.F) {
	f.Add([]byte(`{"generator":"g","bundle":"b","skills":[{"name":"a","files":[{"path":"SKILL.md","digest":"sha256:00","size":1}]}],"files":["x"]}`))
	f.Add([]byte(`{"skills":[{"name":"b"},{"name":"a"}]}`))
	f.Add([]byte(`{"docs":[{"path":"index.html"}],"legacyExcluded":null,"other":[1,{"x":2}]}`))
	// One folder for all the runs of a fuzzing process: only the record
	// changes between them.
	dir := f.TempDir()
	path := filepath.Join(dir, filepath.FromSlash(layout.BuildRecord))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := reuse.Open(dir, 0)
		if err != nil || p == nil {
			if p != nil {
				t.Fatal("an error and a record")
			}
			return
		}
		defer p.Close()
		if _, err := p.Artifacts(); err != nil {
			t.Fatal(err)
		}
		p.UpToDate(p.Head.Bundle, true)
		for _, name := range reuse.Names(p) {
			c := p.Skill(name)
			if c == nil || c.Name != name {
				t.Fatalf("skill %q listed but not found", name)
			}
			p.Unchanged(c)
		}
	})
}
