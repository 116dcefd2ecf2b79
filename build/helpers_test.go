package build

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// withSeam sets one of the build's test seams (steps.go) for the rest of
// the test.
func withSeam[T any](t *testing.T, seam *T, v T) {
	old := *seam
	*seam = v
	t.Cleanup(func() { *seam = old })
}

// countLinted counts, for the rest of the test, the skills whose
// per-skill lint rules run (those whose verdict the record did not keep).
func countLinted(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	withSeam(t, &onLint, func() { n.Add(1) })
	return &n
}

// examples is the repository's example skills, relative to this package.
const examples = "../examples"

// copyOpts says how copyTree varies the things a build must not depend on.
type copyOpts struct {
	mtime   time.Time // every file's and folder's modification time
	umask   int       // in force while the copy is made
	reverse bool      // create files in reverse order
}

// copyTree copies the regular files and folders of src to dst as cp would:
// files are created with the source's permission bits under o.umask, so
// exec bits survive while everything else varies.
func copyTree(t testing.TB, src, dst string, o copyOpts) {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		paths = append(paths, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.reverse {
		slices.Reverse(paths)
	}
	defer umask(umask(o.umask))
	for _, rel := range paths {
		from, to := filepath.Join(src, rel), filepath.Join(dst, rel)
		info, err := os.Lstat(from)
		if err != nil {
			t.Fatal(err)
		}
		if info.IsDir() {
			if err := os.MkdirAll(to, 0o777); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm()|0o666)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(data)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if !o.mtime.IsZero() {
		// Children sort after their folder, so in reverse order a
		// folder's time is set last and nothing moves it again.
		sort.Sort(sort.Reverse(sort.StringSlice(paths)))
		for _, rel := range paths {
			if err := os.Chtimes(filepath.Join(dst, rel), o.mtime, o.mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// copyExamples copies examples/ into a new temporary folder and returns it.
func copyExamples(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skills")
	copyTree(t, examples, dir, copyOpts{umask: 0o022})
	return dir
}

// node is one file or folder of a snapshot.
type node struct {
	Mode  fs.FileMode
	Data  string // files only
	MTime time.Time
	Ino   uint64
}

// snapshot reads every file and folder below dir (dir itself excluded).
func snapshot(t testing.TB, dir string) map[string]node {
	t.Helper()
	tree := map[string]node{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		n := node{Mode: info.Mode(), MTime: info.ModTime()}
		n.Ino = ino(info)
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			n.Data = string(data)
		}
		rel, _ := filepath.Rel(dir, p)
		tree[filepath.ToSlash(rel)] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// sameTree fails unless a and b hold the same paths with the same modes
// and bytes; with strict, also the same inodes and modification times
// (nothing was rewritten).
func sameTree(t testing.TB, what string, a, b map[string]node, strict bool) {
	t.Helper()
	bad := 0
	for _, p := range sortedKeys(a, b) {
		x, okx := a[p]
		y, oky := b[p]
		var why string
		switch {
		case !okx:
			why = "appeared"
		case !oky:
			why = "disappeared"
		case x.Mode != y.Mode:
			why = "mode " + x.Mode.String() + " became " + y.Mode.String()
		case x.Data != y.Data:
			why = "bytes differ"
		case strict && (x.Ino != y.Ino || !x.MTime.Equal(y.MTime)):
			why = "was rewritten (inode or mtime changed)"
		default:
			continue
		}
		if bad++; bad <= 10 {
			t.Errorf("%s: %s %s", what, p, why)
		}
	}
}

func sortedKeys(ms ...map[string]node) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// noStaging fails if a staging folder of any build is left in dir.
func noStaging(t testing.TB, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".skillpack-") {
			t.Errorf("staging folder left behind: %s", filepath.Join(dir, e.Name()))
		}
	}
}

// mustBuild runs a build that must succeed, with Options.Inventory so that
// tests can look at every skill and artifact it made.
func mustBuild(t testing.TB, roots []string, o Options) *Result {
	t.Helper()
	o.Inventory = true
	res, err := Run(roots, o)
	if err != nil {
		t.Fatalf("build %v -o %s: %v", roots, o.Out, err)
	}
	return res
}

// entry is one member of an archive as a reader sees it.
type entry struct {
	Name string
	Mode fs.FileMode // permission bits
	Data string
}

// readTarGz reads a .tar.gz with Go's readers and checks every header
// against the design: plain gzip header, USTAR regular files only, owner
// 0 with no names, one fixed time.
func readTarGz(t testing.TB, path string, mtime time.Time) []entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if gz.Name != "" || gz.Comment != "" || !gz.ModTime.IsZero() || gz.Extra != nil || gz.OS != 255 {
		t.Errorf("%s: gzip header carries host data: %+v", path, gz.Header)
	}
	tr := tar.NewReader(gz)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Typeflag != tar.TypeReg || h.Format != tar.FormatUSTAR {
			t.Errorf("%s: %s: type %q format %v, want a USTAR regular file", path, h.Name, h.Typeflag, h.Format)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: %s: owner %d/%d %q/%q, want 0/0 and no names", path, h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if !h.ModTime.Equal(mtime) {
			t.Errorf("%s: %s: mtime %v, want %v", path, h.Name, h.ModTime.UTC(), mtime)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%s: %s: %v", path, h.Name, err)
		}
		out = append(out, entry{Name: h.Name, Mode: fs.FileMode(h.Mode), Data: string(data)})
	}
	if err := gz.Close(); err != nil {
		t.Errorf("%s: %v", path, err)
	}
	return out
}

// readZip reads a .zip with Go's reader and checks every header: deflate,
// no extra fields, no ZIP64, files only, one fixed DOS time.
func readZip(t testing.TB, path string, mtime time.Time) []entry {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer zr.Close()
	var out []entry
	for _, f := range zr.File {
		if f.Method != zip.Deflate || len(f.Extra) != 0 || f.Comment != "" {
			t.Errorf("%s: %s: method %d, %d extra bytes, comment %q", path, f.Name, f.Method, len(f.Extra), f.Comment)
		}
		if f.Mode().Type() != 0 {
			t.Errorf("%s: %s: mode %v, want a regular file", path, f.Name, f.Mode())
		}
		if got := f.Modified.UTC(); !got.Equal(mtime) {
			t.Errorf("%s: %s: DOS time %v, want %v", path, f.Name, got, mtime)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("%s: %s: %v", path, f.Name, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %s: %v", path, f.Name, err)
		}
		out = append(out, entry{Name: f.Name, Mode: f.Mode().Perm(), Data: string(data)})
	}
	return out
}

// sourceEntries is what an archive of the skill in dir must hold: every
// collected file, sorted, with mode 0755 for any exec bit and 0644 else.
func sourceEntries(t testing.TB, dir, prefix string) []entry {
	t.Helper()
	var out []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, entry{Name: prefix + filepath.ToSlash(rel), Mode: mode, Data: string(data)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// sameEntries fails unless got and want list the same files, in order,
// with the same modes and bytes.
func sameEntries(t testing.TB, what string, got, want []entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d files, want %d: %v", what, len(got), len(want), names(got))
		return
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.Mode != w.Mode || g.Data != w.Data {
			t.Errorf("%s: file %d is %s %v (%d bytes), want %s %v (%d bytes)", what, i, g.Name, g.Mode, len(g.Data), w.Name, w.Mode, len(w.Data))
		}
	}
}

func names(es []entry) []string {
	var ns []string
	for _, e := range es {
		ns = append(ns, e.Name)
	}
	return ns
}

// extracted reads a folder a real tool extracted into, as entries. It
// fails on anything but regular files and folders.
func extracted(t testing.TB, dir string) []entry {
	t.Helper()
	var out []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			t.Errorf("%s: extracted a %v", p, info.Mode().Type())
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, entry{Name: filepath.ToSlash(rel), Mode: info.Mode().Perm(), Data: string(data)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// tool returns the path of a real archive tool (testtool.GNUTar for GNU
// tar), skipping the test when it is not installed, or failing it under
// SKILLPACK_REQUIRE_TOOLS=1.
func tool(t testing.TB, name string) string {
	t.Helper()
	return testtool.Need(t, name)
}

// run runs a command in dir and fails with its output if it fails.
func run(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// epoch1980 is the archives' default fixed time.
var epoch1980 = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// writeSkillFile writes one file of a skill under root.
func writeSkillFile(t testing.TB, root, skill, name, data string) {
	t.Helper()
	p := filepath.Join(root, skill, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
