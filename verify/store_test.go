package verify

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// memStore is a bundle.Store of a dist folder's files, held in memory:
// the whole bundle, as a bucket holds it, or (registry) only what a
// registry keeps of it, as publish/oci's store does.
type memStore struct {
	files    map[string][]byte
	registry bool
	problems [][2]string // reported by Check
	checkErr error
	stall    string // Open of this path waits for its context to end
}

func newMemStore(t testing.TB, dir string, registry bool) *memStore {
	t.Helper()
	m := &memStore{files: map[string][]byte{}, registry: registry}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !registry || m.Holds(p) {
			m.files[p] = readFile(t, dir, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *memStore) Check(ctx context.Context, problem func(path, message string)) error {
	for _, p := range m.problems {
		problem(p[0], p[1])
	}
	return m.checkErr
}

func (m *memStore) Open(ctx context.Context, p string) (io.ReadCloser, int64, error) {
	if p == m.stall {
		<-ctx.Done()
		return nil, 0, ctx.Err()
	}
	data, ok := m.files[p]
	if !ok {
		return nil, 0, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
}

// Holds is what a registry keeps: the .tar.gz archives, a skill's SKILL.md
// in the v0.2 tree, the documents and the signatures.
func (m *memStore) Holds(p string) bool {
	if !m.registry {
		return true
	}
	pp, ok := layout.ParsePath(p)
	switch {
	case !ok:
		return true
	case pp.Kind == layout.KindArchive:
		return pp.Format == layout.TarGz
	case pp.Kind == layout.KindFile:
		return !pp.Legacy && pp.File == layout.EntryFile
	}
	return true
}

func (m *memStore) Files() ([]string, bool) {
	return slices.Sorted(maps.Keys(m.files)), m.registry
}

func (m *memStore) String() string { return "mem://bundle" }

func checkStore(t *testing.T, st bundle.Store, o Options) *Report {
	t.Helper()
	rep, err := Objects(context.Background(), st, o)
	if err != nil {
		t.Fatalf("Objects: %v", err)
	}
	return rep
}

// A store that holds the whole bundle verifies as the folder does,
// signatures included; one that holds what a registry does verifies
// too, counting what it does not hold.
func TestObjects(t *testing.T) {
	dir := copyBuilt(t)
	sign(t, dir)
	folder := check(t, dir, Options{Verifier: &fakeVerifier{}, RequireSignatures: true})
	wantOK(t, folder)

	whole := checkStore(t, newMemStore(t, dir, false), Options{Verifier: &fakeVerifier{}, RequireSignatures: true})
	wantOK(t, whole)
	if whole.Checked != folder.Checked || whole.Source != "mem://bundle" {
		t.Errorf("whole store: checked %+v from %s; the folder: %+v", whole.Checked, whole.Source, folder.Checked)
	}

	reg := checkStore(t, newMemStore(t, dir, true), Options{Verifier: &fakeVerifier{}, RequireSignatures: true})
	wantOK(t, reg)
	c := reg.Checked
	// A registry holds neither the .zip archives' signatures nor the
	// folder signatures: one each a skill.
	if c.NotHeld == 0 || c.Archives != c.Skills || c.Signatures != folder.Checked.Signatures-2*c.Skills || c.Files >= folder.Checked.Files {
		t.Errorf("registry: checked %+v; the folder: %+v", c, folder.Checked)
	}
	if s := reg.Summary(); !strings.Contains(s, "files not held there") || !strings.Contains(s, "everything verified") {
		t.Errorf("summary: %s", s)
	}
}

// What is wrong in a store is reported as in a folder: a missing object,
// one replaced with other bytes (both digests named), an extra file in a
// store that holds one bundle, a file listed in the record that is not
// there; a store's own problems are in the report; and a file only the
// archive holds is held to what the documents say of it.
func TestObjectsProblems(t *testing.T) {
	dir := copyBuilt(t)
	tgz := archiveOf(t, dir, multi, layout.TarGz)

	st := newMemStore(t, dir, false)
	delete(st.files, tgz)
	wantProblem(t, checkStore(t, st, Options{}), tgz, "missing (not found)")

	st = newMemStore(t, dir, false)
	st.files[tgz] = append(slices.Clone(st.files[tgz]), 0)
	want := string(layout.DigestOf(st.files[tgz]))
	wantProblem(t, checkStore(t, st, Options{}), tgz, "digest is "+want, "says "+string(layout.DigestOf(readFile(t, dir, tgz))))

	// The index as another tool would change it: the record vouches for it.
	st = newMemStore(t, dir, false)
	st.files[layout.V2Index] = bytes.Replace(st.files[layout.V2Index], []byte("CSV"), []byte("TSV"), 1)
	wantProblem(t, checkStore(t, st, Options{}), layout.V2Index, "but "+layout.BuildRecord+" says")

	st = newMemStore(t, dir, false)
	delete(st.files, layout.Headers) // no index names it: only the record
	wantProblem(t, checkStore(t, st, Options{}), layout.Headers, "listed in the build record", "but missing")

	st = newMemStore(t, dir, true)
	st.files["stray.txt"] = []byte("x")
	st.problems = [][2]string{{"oci://r/x@sha256:0", "the manifest is odd"}}
	rep := checkStore(t, st, Options{})
	wantProblem(t, rep, "stray.txt", "not part of this bundle")
	wantProblem(t, rep, "oci://r/x@sha256:0", "the manifest is odd")

	st = newMemStore(t, dir, true)
	delete(st.files, layout.SkillFile(single, layout.EntryFile))
	wantProblem(t, checkStore(t, st, Options{}), layout.SkillFile(single, layout.EntryFile), "listed in the build record", "but missing")

	// What mcp/skills.json says of a file the store does not hold is
	// checked against the skill's .tar.gz.
	st = newMemStore(t, dir, true)
	f := layout.SkillFile(multi, "scripts/profile.py")
	real := layout.DigestOf(readFile(t, dir, f))
	fake := layout.DigestOf([]byte("other"))
	st.files[layout.MCPSkills] = bytes.ReplaceAll(st.files[layout.MCPSkills], []byte(real), []byte(fake))
	wantProblem(t, checkStore(t, st, Options{}), f, "not held by mem://bundle", "has digest "+string(real), layout.MCPSkills+" says "+string(fake))
}

// A store that cannot be read fails the check; one whose index is not
// there fails it naming the index under the store; a request that does
// not end is cut at --timeout.
func TestObjectsErrors(t *testing.T) {
	dir := copyBuilt(t)
	st := newMemStore(t, dir, false)
	st.checkErr = errors.New("no such bucket")
	if _, err := Objects(context.Background(), st, Options{}); err == nil || !strings.Contains(err.Error(), "mem://bundle: no such bucket") {
		t.Errorf("Check's error: %v", err)
	}
	st = newMemStore(t, dir, false)
	delete(st.files, layout.V2Index)
	if _, err := Objects(context.Background(), st, Options{}); err == nil || !strings.Contains(err.Error(), "mem://bundle/"+layout.V2Index+": missing") {
		t.Errorf("no index: %v", err)
	}
	st = newMemStore(t, dir, false)
	st.stall = layout.MCPSkills
	rep := checkStore(t, st, Options{Timeout: 50 * time.Millisecond})
	wantProblem(t, rep, layout.MCPSkills, "timed out after 50ms (--timeout)")
}
