package build

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/layout"
)

// fakeSign "signs" by prefixing the artifact's digest: enough to tell
// which bytes a signature is for, without sigstore.
func fakeSign(data []byte) ([]byte, error) { return []byte("signed " + layout.DigestOf(data)), nil }

// fakeSignFolder "signs" a folder's statement by quoting it.
func fakeSignFolder(st []byte) ([]byte, error) { return append([]byte("folder "), st...), nil }

// Signing a built bundle signs what `build --sign` signs, lists the
// signatures in the record, and changes no other file.
func TestSignBuiltBundle(t *testing.T) {
	dist := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{filepath.Join("..", "examples")}, Options{Out: dist})
	signedDist := filepath.Join(t.TempDir(), "signed")
	mustBuild(t, []string{filepath.Join("..", "examples")}, Options{Out: signedDist, Sign: fakeSign, SignFolder: fakeSignFolder})
	before := snapshotDir(t, dist)

	res, err := Sign(dist, fakeSign, fakeSignFolder, nil)
	if err != nil {
		t.Fatal(err)
	}
	after := snapshotDir(t, dist)
	want := snapshotDir(t, signedDist)
	// The same files as a signed build, with the same bytes.
	if !slices.Equal(slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(want))) {
		t.Errorf("sign wrote\n%v\n`build --sign` wrote\n%v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(want)))
	}
	for p, d := range after {
		if want[p] != d {
			t.Errorf("%s differs from the signed build's", p)
		}
		if before[p] != "" && before[p] != d && p != layout.BuildRecord {
			t.Errorf("signing changed %s", p)
		}
	}
	if len(res.Signatures) != 14 { // 5 skills × 2 archives, and 4 indexes
		t.Errorf("%d signatures, want 14: %v", len(res.Signatures), res.Signatures)
	}
	// Each skill folder is signed, its statement listing its files with
	// the digests the record gives them.
	rec, err := layout.DecodeRecord([]byte(after[layout.BuildRecord]))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Folders) != len(rec.Skills) {
		t.Errorf("%d folder signatures, want one per skill (%d): %v", len(res.Folders), len(rec.Skills), res.Folders)
	}
	for _, sk := range rec.Skills {
		st, err := layout.StatementDoc(sk.Name, sk.Files)
		if err != nil {
			t.Fatal(err)
		}
		p := layout.FolderSignature(sk.Name)
		if got := after[p]; got != "folder "+string(st) {
			t.Errorf("%s holds %q, want the statement of the skill's files", p, got)
		}
		if !slices.Contains(rec.Files, p) {
			t.Errorf("the record does not list %s", p)
		}
	}
	for _, s := range res.Signatures {
		art, _ := strings.CutSuffix(s, layout.SignatureSuffix)
		sig, _ := os.ReadFile(filepath.Join(dist, filepath.FromSlash(s)))
		data, _ := os.ReadFile(filepath.Join(dist, filepath.FromSlash(art)))
		if string(sig) != "signed "+string(layout.DigestOf(data)) {
			t.Errorf("%s does not sign %s", s, art)
		}
	}

	// Signing again replaces the signatures; a build after it still
	// takes the folder for its own: when nothing changed it leaves the
	// signed bundle as it is (a release that signs in a job of its own
	// builds again before publishing); when a skill changed, the bundle
	// is not signed, and the build says the signatures went.
	res, err = Sign(dist, fakeSign, fakeSignFolder, nil)
	if err != nil {
		t.Fatal(err)
	}
	signed := snapshotDir(t, dist)
	src := copyExamples(t)
	var log bytes.Buffer
	if res := mustBuild(t, []string{src}, Options{Out: dist, Log: &log}); !res.UpToDate || !maps.Equal(snapshotDir(t, dist), signed) {
		t.Errorf("an unsigned build of the same skills rewrote the signed bundle (up to date: %v):\n%s", res.UpToDate, log.String())
	}
	writeSkillFile(t, src, "csv-profiler", "NOTES.md", "changed\n")
	log.Reset()
	mustBuild(t, []string{src}, Options{Out: dist, Log: &log})
	if _, err := os.Stat(filepath.Join(dist, filepath.FromSlash(layout.FolderSignature("csv-profiler")))); err == nil {
		t.Error("an unsigned rebuild of a changed skill kept a folder signature")
	}
	if want := fmt.Sprintf("the last one's signatures (%d) are not carried into it", len(res.Signatures)+len(res.Folders)); !strings.Contains(log.String(), want) {
		t.Errorf("the rebuild said:\n%s\nwant %q", log.String(), want)
	}
}

// A served file changed after the build is not signed for; nor is a
// skill that carries a skill.oms.sig of its own, where the bundle's would go.
func TestSignFoldersRefuse(t *testing.T) {
	dist := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{filepath.Join("..", "examples")}, Options{Out: dist})
	before := snapshotDir(t, dist)
	served := filepath.Join(dist, filepath.FromSlash(layout.SkillFile("csv-profiler", "SKILL.md")))
	os.WriteFile(served, []byte("changed\n"), 0o644)
	_, err := Sign(dist, fakeSign, fakeSignFolder, nil)
	var oe *OutputError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), layout.SkillFile("csv-profiler", "SKILL.md")+": its digest is") {
		t.Errorf("a changed served file: err = %v", err)
	}
	os.WriteFile(served, []byte(before[layout.SkillFile("csv-profiler", "SKILL.md")]), 0o644)

	skills := filepath.Join(t.TempDir(), "skills")
	if err := os.CopyFS(skills, os.DirFS(filepath.Join("..", "examples"))); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(skills, "csv-profiler", layout.FolderSignatureFile), []byte("{}"), 0o644)
	own := filepath.Join(t.TempDir(), "own")
	_, err = Run([]string{skills}, Options{Out: own, Sign: fakeSign, SignFolder: fakeSignFolder})
	if err == nil || !strings.Contains(err.Error(), "skill csv-profiler has a skill.oms.sig of its own") || !strings.Contains(err.Error(), ".skillignore") {
		t.Errorf("a skill with its own skill.oms.sig: err = %v", err)
	}
	if _, serr := os.Stat(own); serr == nil {
		t.Error("a refused signed build wrote its output")
	}
	// Unsigned, the author's signature is one of the skill's files, and
	// signing the bundle later refuses the same way.
	mustBuild(t, []string{skills}, Options{Out: own})
	if _, err := Sign(own, fakeSign, fakeSignFolder, nil); !errors.As(err, &oe) || !strings.Contains(err.Error(), "of its own") {
		t.Errorf("sign, a skill with its own skill.oms.sig: err = %v", err)
	}
	// Signing the artifacts alone keeps it as the skill's file.
	if _, err := Sign(own, fakeSign, nil, nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(own, filepath.FromSlash(layout.FolderSignature("csv-profiler")))); string(data) != "{}" {
		t.Errorf("the skill's own skill.oms.sig became %q", data)
	}
}

func TestSignRefuses(t *testing.T) {
	dist := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{filepath.Join("..", "examples")}, Options{Out: dist})
	before := snapshotDir(t, dist)

	// A failing signer leaves the bundle as it was, and no litter.
	_, err := Sign(dist, func([]byte) ([]byte, error) { return nil, errors.New("no key") }, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "no key") {
		t.Fatalf("err = %v", err)
	}
	// A file skillpack did not write, or an artifact changed since.
	os.WriteFile(filepath.Join(dist, "notes.txt"), []byte("mine"), 0o644)
	if _, err := Sign(dist, fakeSign, nil, nil); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("with a foreign file: err = %v", err)
	}
	os.Remove(filepath.Join(dist, "notes.txt"))
	if !maps.Equal(before, snapshotDir(t, dist)) {
		t.Error("a refused signing changed the bundle")
	}
	idx := filepath.Join(dist, filepath.FromSlash(layout.V2Index))
	data, _ := os.ReadFile(idx)
	os.WriteFile(idx, bytes.Replace(data, []byte("skill"), []byte("SKILL"), 1), 0o644)
	if _, err := Sign(dist, fakeSign, nil, nil); err == nil || !strings.Contains(err.Error(), "rebuild the bundle before signing") {
		t.Errorf("with a changed index: err = %v", err)
	}
	if _, err := Sign(t.TempDir(), fakeSign, nil, nil); err == nil || !strings.Contains(err.Error(), "not a bundle skillpack built") {
		t.Errorf("an empty folder: err = %v", err)
	}
	ents, _ := os.ReadDir(filepath.Dir(dist))
	if len(ents) != 1 {
		t.Errorf("signing left litter beside the bundle: %v", ents)
	}
}

// snapshotDir maps every file below dir to its bytes.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for p, n := range snapshot(t, dir) {
		if n.Mode.IsRegular() {
			m[filepath.ToSlash(p)] = n.Data
		}
	}
	return m
}
