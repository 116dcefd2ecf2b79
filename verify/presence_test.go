package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// Every document the bundle promises is checked for being there whole, not
// only for agreeing with the others where it is.

// served are the documents a client reads, and so verify over HTTP.
var served = []string{layout.V2Index, layout.V1Index, layout.MCPSkills, layout.MCPIndex, layout.MCPResources, layout.Checksums}

// An emptied document is never "everything verified", in a folder or
// served, even when a forger makes the build record agree.
func TestEmptiedDocuments(t *testing.T) {
	for _, doc := range append(slices.Clone(served), layout.Catalog) {
		t.Run(doc, func(t *testing.T) {
			dir := copyBuilt(t)
			writeFile(t, dir, doc, nil)
			want := "is empty (0 bytes); skillpack never writes it so: it was emptied or cut short"
			if doc == layout.Catalog { // not decoded: its digest tells
				want = "digest is " + string(layout.DigestOf(nil)) + ", but " + layout.BuildRecord + " says"
			}
			wantProblem(t, check(t, dir, Options{}), doc, want)
			if doc == layout.Catalog {
				return
			}
			wantProblem(t, fetch(t, serve(t, dir, nil).URL, Options{}), doc, want)
			resealRecord(t, dir)
			wantProblem(t, check(t, dir, Options{}), doc, want)
		})
	}
}

// A document cut short says where, in a folder or served.
func TestTruncatedDocuments(t *testing.T) {
	for _, doc := range served {
		t.Run(doc, func(t *testing.T) {
			dir := copyBuilt(t)
			data := readFile(t, dir, doc)
			writeFile(t, dir, doc, data[:len(data)/2])
			resealRecord(t, dir)
			wantProblem(t, check(t, dir, Options{}), doc)
			wantProblem(t, fetch(t, serve(t, dir, nil).URL, Options{}), doc)
		})
	}
	// Lines of checksums.txt dropped whole: each file it no longer lists.
	dir := copyBuilt(t)
	data := readFile(t, dir, layout.Checksums)
	writeFile(t, dir, layout.Checksums, data[:bytes.IndexByte(data, '\n')+1])
	reseal(t, dir)
	rep := fetch(t, serve(t, dir, nil).URL, Options{})
	wantProblem(t, rep, layout.Checksums, "does not list "+layout.MCPResources)
	wantProblem(t, rep, layout.Checksums, "does not list "+archiveOf(t, dir, other, layout.Zip))
}

// A document the bundle may leave out is missing when another document
// lists it: served, no build record says it was written.
func TestPromisedDocumentsMissing(t *testing.T) {
	dir := copyBuilt(t)
	for _, doc := range []string{layout.MCPIndex, layout.V1Index} {
		os.Remove(filepath.Join(dir, filepath.FromSlash(doc)))
	}
	rep := fetch(t, serve(t, dir, nil).URL, Options{})
	wantProblem(t, rep, layout.MCPIndex, "missing (not found), though "+layout.MCPResources+" lists it")
	wantProblem(t, rep, layout.V1Index, "missing (not found), though "+layout.Checksums+" line 12 lists it")
}

// The v0.1 index lists every skill whose files meet its rules: the build
// leaves out only the others.
func TestV1IndexComplete(t *testing.T) {
	dir := copyBuilt(t)
	doc, err := layout.DecodeIndexV1(readFile(t, dir, layout.V1Index))
	if err != nil {
		t.Fatal(err)
	}
	doc.Skills = slices.DeleteFunc(doc.Skills, func(e layout.EntryV1) bool { return e.Name == single })
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, layout.V1Index, data)
	reseal(t, dir)
	want := `skill "` + single + `" of ` + layout.V2Index + " is missing, though its files meet the v0.1 rules"
	wantProblem(t, check(t, dir, Options{}), layout.V1Index, want)
	wantProblem(t, fetch(t, serve(t, dir, nil).URL, Options{}), layout.V1Index, want)

	// A skill with a file the v0.1 rules refuse is left out, rightly.
	src := t.TempDir()
	writeFile(t, src, "odd/SKILL.md", []byte("---\nname: odd\ndescription: A skill with a file the v0.1 rules refuse. Use when testing.\n---\n# Odd\n"))
	writeFile(t, src, "odd/refs/a#b.md", []byte("hi\n"))
	out := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{src}, build.Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	wantOK(t, check(t, out, Options{}))
}

// A document the build record lists keeps the digest and size it had,
// even when the served documents are made to agree with a change.
func TestRecordDocuments(t *testing.T) {
	dir := copyBuilt(t)
	edit(t, dir, layout.Catalog, "<title>", "<title>Phished ")
	resealServed(t, dir)
	wantOK(t, fetch(t, serve(t, dir, nil).URL, Options{})) // the catalog is not for clients
	wantProblem(t, check(t, dir, Options{}), layout.Catalog, "but "+layout.BuildRecord+" says")
}

// A value as long as its document is not repeated whole in every problem
// about it: each message quotes at most a few hundred bytes of it.
func TestLongValuesClipped(t *testing.T) {
	dir := copyBuilt(t)
	long := strings.Repeat("x", 1<<20)
	edit(t, dir, layout.V2Index, `"name": "`+single+`"`, `"name": "`+long+`"`)
	rep := check(t, dir, Options{})
	wantProblem(t, rep, layout.V2Index, `skills[0] "`+strings.Repeat("x", maxQuoted)+`"… (`+strconv.Itoa(len(long)-maxQuoted)+` bytes more)`)
	for _, p := range rep.Problems {
		if len(p.Message) > 2*maxQuoted+200 {
			t.Errorf("a message of %d bytes: %.300s…", len(p.Message), p.Message)
		}
	}
}

// Lists in messages are clipped like values, and a value is never cut
// inside a character.
func TestClippedFormats(t *testing.T) {
	var many []string
	for i := range 100 {
		many = append(many, strconv.Itoa(i))
	}
	if got, want := fmt.Sprintf("%q", clippedList(many)), `["0" "1" "2" "3" "4" "5" "6" "7" "8" "9" "10" "11" "12" "13" "14" "15"]… (84 more)`; got != want {
		t.Errorf("100 values: %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(clippedList{"a", "b"}), "[a b]"; got != want {
		t.Errorf("two values: %s, want %s", got, want)
	}
	long := strings.Repeat("x", maxQuoted-1) + strings.Repeat("é", maxQuoted)
	got := fmt.Sprint(clipped(long))
	if !utf8.ValidString(got) || !strings.HasPrefix(got, strings.Repeat("x", maxQuoted-1)+"…") {
		t.Errorf("cut inside a character: %.300q", got)
	}
}
