package verify

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// built is a bundle of the example skills, built once; tests copy it.
var built string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "verify-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	built = filepath.Join(dir, "dist")
	if _, err := build.Run([]string{"../examples"}, build.Options{Out: built}); err != nil {
		fmt.Fprintln(os.Stderr, "building the examples:", err)
		os.RemoveAll(dir)
		os.Exit(3)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Skills of the examples that the tests tamper with.
const (
	multi  = "csv-profiler"    // type archive, four files, one executable
	single = "commit-messages" // type skill-md
	other  = "repo-hygiene"    // type archive, two files
)

// copyBuilt returns a fresh copy of the built bundle.
func copyBuilt(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dist")
	if err := os.CopyFS(dir, os.DirFS(built)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func check(t *testing.T, dir string, o Options) *Report {
	t.Helper()
	rep, err := Dist(context.Background(), dir, o)
	if err != nil {
		t.Fatalf("Dist: %v", err)
	}
	return rep
}

// wantProblem fails unless the report has a problem at path (any path
// when "") whose message contains every one of subs.
func wantProblem(t *testing.T, rep *Report, path string, subs ...string) {
	t.Helper()
	if rep.OK() {
		t.Fatalf("report is OK; want a problem at %q with %q", path, subs)
	}
next:
	for _, p := range rep.Problems {
		if path != "" && p.Path != path {
			continue
		}
		for _, s := range subs {
			if !strings.Contains(p.Message, s) {
				continue next
			}
		}
		return
	}
	t.Fatalf("no problem at %q containing %q; got:\n%s", path, subs, problems(rep))
}

func wantOK(t *testing.T, rep *Report) {
	t.Helper()
	if !rep.OK() {
		t.Fatalf("want no problems; got:\n%s", problems(rep))
	}
}

func problems(rep *Report) string {
	var b strings.Builder
	rep.WriteText(&b)
	return b.String()
}

func readFile(t testing.TB, dir, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t testing.TB, dir, p string, data []byte) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// edit rewrites a text file of the bundle, failing if old is not in it.
func edit(t *testing.T, dir, p, old, new string) {
	t.Helper()
	data := string(readFile(t, dir, p))
	if !strings.Contains(data, old) {
		t.Fatalf("%s does not contain %q", p, old)
	}
	writeFile(t, dir, p, []byte(strings.ReplaceAll(data, old, new)))
}

// archiveOf returns the dist path of a skill's archive of the given
// extension.
func archiveOf(t testing.TB, dir, skill, ext string) string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(layout.SkillsDir)))
	if err != nil {
		t.Fatal(err)
	}
	var m []string
	for _, e := range es {
		p, ok := layout.ParsePath(layout.SkillsDir + "/" + e.Name())
		if ok && p.Kind == layout.KindArchive && p.Skill == skill && p.Format == ext {
			m = append(m, p.String())
		}
	}
	if len(m) != 1 {
		t.Fatalf("want one %s archive of %s, found %v", ext, skill, m)
	}
	return m[0]
}

// replaceArchive puts data in place of the archive at old as a forger
// who knows the layout would: under the content-addressed name of its own
// digest, with every index, resources.json, checksums.txt and the build
// record updated, so that the only thing wrong is what data holds.
func replaceArchive(t *testing.T, dir, old string, data []byte) string {
	t.Helper()
	oldData := readFile(t, dir, old)
	oldDigest, newDigest := layout.DigestOf(oldData), layout.DigestOf(data)
	base := filepath.Base(old)
	a, ok := layout.ParsePath(old)
	if !ok || a.Kind != layout.KindArchive {
		t.Fatalf("%s is not an archive's path", old)
	}
	newPath := layout.ArchivePath(a.Skill, newDigest, a.Format)
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(old))); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, newPath, data)
	for _, doc := range []string{layout.V2Index, layout.MCPIndex, layout.MCPResources, layout.Checksums, layout.BuildRecord} {
		s := string(readFile(t, dir, doc))
		s = strings.ReplaceAll(s, oldDigest.Hex(), newDigest.Hex())
		s = strings.ReplaceAll(s, base, filepath.Base(newPath))
		writeFile(t, dir, doc, []byte(s))
	}
	// The new name may sort elsewhere, and a record out of order is
	// refused.
	var rec layout.Record
	if err := json.Unmarshal(readFile(t, dir, layout.BuildRecord), &rec); err != nil {
		t.Fatal(err)
	}
	slices.Sort(rec.Files)
	for i := range rec.Skills { // the record's size of it too
		for _, a := range []*layout.Archive{&rec.Skills[i].TarGz, &rec.Skills[i].Zip} {
			if a.Digest == newDigest {
				a.Size = int64(len(data))
			}
		}
	}
	var b bytes.Buffer
	if err := rec.Encode(&b); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, layout.BuildRecord, b.Bytes())
	reseal(t, dir)
	return newPath
}

// reseal recomputes what documents say about other documents and about
// archives (resources.json sizes and its skill://index.json entry,
// checksums.txt, and the build record's documents), as a forger would
// after changing one of them.
func reseal(t *testing.T, dir string) {
	t.Helper()
	resealServed(t, dir)
	resealRecord(t, dir)
}

// resealServed is reseal but for the build record, which is not served.
func resealServed(t *testing.T, dir string) {
	t.Helper()
	var rs []layout.Resource
	if err := json.Unmarshal(readFile(t, dir, layout.MCPResources), &rs); err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if r.URI == layout.IndexURI || strings.HasSuffix(r.Path, "."+layout.TarGz) || strings.HasSuffix(r.Path, "."+layout.Zip) {
			data := readFile(t, dir, r.Path)
			rs[i].Digest, rs[i].Size = layout.DigestOf(data), new(int64(len(data)))
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rs); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, layout.MCPResources, b.Bytes())
	var sums []layout.Sum
	for _, ln := range strings.Split(strings.TrimSpace(string(readFile(t, dir, layout.Checksums))), "\n") {
		_, p, _ := strings.Cut(ln, "  ")
		sums = append(sums, layout.Sum{Path: p, Digest: layout.DigestOf(readFile(t, dir, p))})
	}
	writeFile(t, dir, layout.Checksums, layout.ChecksumsDoc(sums))
}

// resealRecord puts the documents' digests and sizes in the build record.
func resealRecord(t *testing.T, dir string) {
	t.Helper()
	rec, err := layout.DecodeRecord(readFile(t, dir, layout.BuildRecord))
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range rec.Docs {
		data := readFile(t, dir, d.Path)
		rec.Docs[i].Digest, rec.Docs[i].Size = layout.DigestOf(data), int64(len(data))
	}
	var r bytes.Buffer
	if err := rec.Encode(&r); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, layout.BuildRecord, r.Bytes())
}

// file is one entry for the archive writers below.
type file struct {
	name string
	body []byte
	mode int64
	typ  byte   // tar type; 0 = regular
	link string // for links
}

// skillFiles returns a skill's served files as archive entries, with the
// exec bits the built archive has.
func skillFiles(t *testing.T, dir, skill string) []file {
	t.Helper()
	u := unpack(readFile(t, dir, archiveOf(t, dir, skill, layout.TarGz)), layout.TarGz, testLimits, layout.EntryFile, false)
	var fs []file
	for _, e := range u.entries {
		mode := int64(0o644)
		if e.Exec {
			mode = 0o755
		}
		fs = append(fs, file{name: e.Path, body: readFile(t, dir, layout.SkillFile(skill, e.Path)), mode: mode})
	}
	return fs
}

var testLimits = pack.Limits{}.WithDefaults()

func tarGz(t *testing.T, files ...file) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		typ := f.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := f.mode
		if mode == 0 {
			mode = 0o644
		}
		hdr := &tar.Header{Name: f.name, Mode: mode, Typeflag: typ, Linkname: f.link, Format: tar.FormatUSTAR}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(f.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zipOf(t *testing.T, files ...file) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate}
		mode := os.FileMode(0o644)
		if f.mode != 0 {
			// From Unix bits (setuid is 0o4000) to Go's mode bits.
			mode = (&tar.Header{Mode: f.mode}).FileInfo().Mode()
		}
		if f.typ == tar.TypeSymlink {
			mode |= os.ModeSymlink
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fakeSig is a stand-in for a Sigstore bundle: it names the digest it
// signs and whether it is "good".
type fakeSig struct {
	Digest string `json:"digest"`
	Good   bool   `json:"good"`
}

// fakeVerifier accepts a fakeSig that is good and names the artifact's
// digest, as a Sigstore verifier checks the bundle's message digest.
type fakeVerifier struct{ calls int }

func (v *fakeVerifier) Verify(bundleJSON, digest []byte) error {
	v.calls++
	var s fakeSig
	if err := json.Unmarshal(bundleJSON, &s); err != nil {
		return fmt.Errorf("not a bundle: %v", err)
	}
	if want := fmt.Sprintf("%x", digest); s.Digest != want {
		return fmt.Errorf("bundle is for sha256:%s, not this artifact (sha256:%s)", s.Digest, want)
	}
	if !s.Good {
		return fmt.Errorf("certificate identity does not match")
	}
	return nil
}

// fakeFolderSig is a stand-in for a folder signature: the statement it
// signs and whether it is "good".
type fakeFolderSig struct {
	Statement []byte `json:"statement"`
	Good      bool   `json:"good"`
}

// VerifyStatement returns the statement of a good fakeFolderSig, as a
// Sigstore verifier returns the DSSE payload.
func (v *fakeVerifier) VerifyStatement(bundleJSON []byte) ([]byte, error) {
	v.calls++
	var s fakeFolderSig
	if err := json.Unmarshal(bundleJSON, &s); err != nil || s.Statement == nil {
		return nil, fmt.Errorf("not a folder signature")
	}
	if !s.Good {
		return nil, fmt.Errorf("wrong identity: the certificate's identity is \"https://github.com/evil/fork\"")
	}
	return s.Statement, nil
}

// signFolder signs a statement with a good fakeFolderSig.
func signFolder(st []byte) ([]byte, error) {
	return json.Marshal(fakeFolderSig{Statement: st, Good: true})
}

// sign signs the bundle as `skillpack sign` does (build.Sign: the
// build's sign step, staged and swapped), with a good fakeSig for each
// artifact and a good fakeFolderSig for each skill folder, and returns the
// artifacts signed (the folders are those of every skill).
func sign(t *testing.T, dir string) []string {
	t.Helper()
	res, err := build.Sign(dir, func(data []byte) ([]byte, error) {
		return json.Marshal(fakeSig{Digest: layout.DigestOf(data).Hex(), Good: true})
	}, signFolder, nil)
	if err != nil {
		t.Fatal(err)
	}
	var arts []string
	for _, s := range res.Signatures {
		a, _ := layout.SignedArtifact(s)
		arts = append(arts, a)
	}
	for _, s := range res.Folders {
		name, _ := layout.ParseFolderSignature(s)
		arts = append(arts, layout.SkillDir(name))
	}
	return arts
}

// servedFiles is a skill's files as the bundle's build record lists them.
func servedFiles(t *testing.T, dir, name string) []layout.File {
	t.Helper()
	rec, err := layout.DecodeRecord(readFile(t, dir, layout.BuildRecord))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rec.Skills {
		if s.Name == name {
			return s.Files
		}
	}
	t.Fatalf("no skill %s in the record", name)
	return nil
}
