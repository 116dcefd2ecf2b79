package sign

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// buildExamples builds the repository's example skills into a new dist.
func buildExamples(t *testing.T, o build.Options) string {
	t.Helper()
	o.Out = filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{filepath.Join("..", "examples")}, o); err != nil {
		t.Fatal(err)
	}
	return o.Out
}

// snapshot maps every file of dist to its digest.
func snapshot(t *testing.T, dist string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dist, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dist, p)
		m[filepath.ToSlash(rel)] = string(layout.DigestOf(data))
		return err
	})
	must(t, err)
	return m
}

func TestTargets(t *testing.T) {
	dist := buildExamples(t, build.Options{})
	got, err := Targets(dist)
	must(t, err)
	var archives int
	for _, p := range got {
		if strings.HasSuffix(p, "."+layout.TarGz) || strings.HasSuffix(p, "."+layout.Zip) {
			archives++
		}
		if _, err := os.Stat(filepath.Join(dist, p)); err != nil {
			t.Errorf("target %s: %v", p, err)
		}
	}
	// Five example skills, each with a .tar.gz and a .zip, and four documents.
	if archives != 10 {
		t.Errorf("%d archives among the targets, want 10: %v", archives, got)
	}
	for _, doc := range []string{layout.V2Index, layout.V1Index, layout.MCPIndex, layout.MCPSkills} {
		if !slices.Contains(got, doc) {
			t.Errorf("targets lack %s", doc)
		}
	}
	if len(got) != 14 || !slices.IsSorted(got) {
		t.Errorf("targets = %v, want 14 sorted paths", got)
	}
	for _, p := range got {
		if p == layout.MCPResources || p == layout.Checksums || strings.HasSuffix(p, ".md") {
			t.Errorf("%s is not a signing target", p)
		}
	}

	noLegacy := buildExamples(t, build.Options{NoLegacy: true})
	got, err = Targets(noLegacy)
	must(t, err)
	if slices.Contains(got, layout.V1Index) || len(got) != 13 {
		t.Errorf("--no-legacy targets = %v, want 13 without %s", got, layout.V1Index)
	}

	if _, err := Targets(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a bundle skillpack built") {
		t.Errorf("empty folder: err = %v", err)
	}
	// An index that points outside the bundle is refused, not followed.
	evil := buildExamples(t, build.Options{})
	idx := filepath.Join(evil, filepath.FromSlash(layout.V2Index))
	data, err := os.ReadFile(idx)
	must(t, err)
	must(t, os.WriteFile(idx, []byte(strings.Replace(string(data), `"name": "csv-profiler"`, `"name": "../../x"`, 1)), 0o644))
	if _, err := Targets(evil); err == nil || !strings.Contains(err.Error(), "not a skill name") {
		t.Errorf("index naming ../../x: err = %v", err)
	}
}

// TestSignDist builds the examples, signs the bundle with a key through
// the helper, and verifies every signature against the artifact on disk.
// Keyless signing is the helper's own business, tested in its module.
func TestSignDist(t *testing.T) {
	keyPath, pub := writeKey(t)
	s := newSigner(t, Options{Key: keyPath})
	if s.Keyless() {
		t.Error("a key signer says it is keyless")
	}
	v, err := NewVerifier(context.Background(), VerifyOptions{Key: pub, Helper: helper})
	must(t, err)
	defer v.Close()

	dist := buildExamples(t, build.Options{})
	before := snapshot(t, dist)
	targets, err := Targets(dist)
	must(t, err)
	written, err := SignDist(context.Background(), dist, s)
	must(t, err)
	if len(written) != len(targets) {
		t.Fatalf("wrote %d signatures for %d targets", len(written), len(targets))
	}
	after := snapshot(t, dist)
	for p, d := range before {
		if p != layout.BuildRecord && after[p] != d {
			t.Errorf("signing changed %s", p)
		}
	}
	for i, p := range targets {
		if written[i] != p+Suffix {
			t.Errorf("wrote %s for %s", written[i], p)
		}
		data, err := os.ReadFile(filepath.Join(dist, p))
		must(t, err)
		b, err := os.ReadFile(filepath.Join(dist, written[i]))
		must(t, err)
		sum := sha256.Sum256(data)
		if err := v.Verify(b, sum[:]); err != nil {
			t.Errorf("%s: %v", written[i], err)
		}
		// A signature checked against another artifact's digest fails,
		// naming the mismatch.
		other := sha256.Sum256(append(data, '!'))
		if err := v.Verify(b, other[:]); err == nil || !strings.Contains(err.Error(), "digest mismatch") {
			t.Errorf("%s against another digest: %v", written[i], err)
		}
	}
	if len(after) != len(before)+len(written) {
		t.Errorf("dist has %d files after signing, want %d", len(after), len(before)+len(written))
	}
	// The record lists the signatures, so the next build takes the
	// folder as its own (no --force) and drops them.
	var rec struct{ Files []string }
	data, err := os.ReadFile(filepath.Join(dist, layout.BuildRecord))
	must(t, err)
	must(t, json.Unmarshal(data, &rec))
	for _, w := range written {
		if !slices.Contains(rec.Files, w) {
			t.Errorf("build record lacks %s", w)
		}
	}
	if _, err := build.Run([]string{filepath.Join("..", "examples")}, build.Options{Out: dist}); err != nil {
		t.Errorf("rebuilding a signed dist: %v", err)
	}
}

// TestSignDistRefusesChangedArchive checks that an archive whose bytes no
// longer match its index is not signed.
func TestSignDistRefusesChangedArchive(t *testing.T) {
	dist := buildExamples(t, build.Options{})
	targets, err := Targets(dist)
	must(t, err)
	var archive string
	for _, p := range targets {
		if strings.HasSuffix(p, "."+layout.Zip) {
			archive = p
			break
		}
	}
	must(t, os.WriteFile(filepath.Join(dist, archive), []byte("tampered"), 0o644))
	keyPath, _ := writeKey(t)
	_, err = SignDist(context.Background(), dist, newSigner(t, Options{Key: keyPath}))
	if err == nil || !strings.Contains(err.Error(), "rebuild the bundle before signing") || !strings.Contains(err.Error(), filepath.Base(archive)) {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dist, archive+Suffix)); err == nil {
		t.Errorf("%s was signed", archive)
	}
}
