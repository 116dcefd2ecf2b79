package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpack/skillpack/internal/outlock"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// pulling is what the command passes Pull: pack's limits.
var pulling = Options{}

// tree is every file under dir, by slash path, with its bytes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Pull gives back every skill of a published bundle as DIST's tree has
// it, or one skill by name or by its version tag; it does not overwrite.
func TestPull(t *testing.T) {
	f := published(t)
	ctx := context.Background()
	out := t.TempDir()
	got, err := Pull(ctx, f.target, out, "", pulling)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(f.b.Skills) {
		t.Fatalf("pulled %d skills, the bundle has %d", len(got), len(f.b.Skills))
	}
	for _, s := range f.b.Skills {
		want := tree(t, filepath.Join(f.b.Dir, filepath.FromSlash(layout.SkillDir(s.Name))))
		have := tree(t, filepath.Join(out, s.Name))
		if len(want) == 0 || !maps.Equal(want, have) {
			t.Errorf("skill %s: pulled %d files, DIST has %d, or their bytes differ", s.Name, len(have), len(want))
		}
	}
	// The archives' execute bit comes out (examples' profile.py is committed 100755).
	if info, err := os.Stat(filepath.Join(out, "csv-profiler", "scripts", "profile.py")); err != nil || info.Mode()&0o111 == 0 {
		t.Errorf("pulled scripts/profile.py without its execute bit (%v)", err)
	}
	if _, err := Pull(ctx, f.target, out, "csv-profiler", pulling); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("pulling over a skill: %v", err)
	}
	// A folder holding one skill of the bundle is refused before any
	// other skill is written into it.
	some := t.TempDir()
	last := f.b.Skills[len(f.b.Skills)-1].Name
	if err := os.Mkdir(filepath.Join(some, last), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(ctx, f.target, some, "", pulling); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("pulling into a folder holding skill %s: %v", last, err)
	}
	if entries, _ := os.ReadDir(some); len(entries) != 1 {
		t.Errorf("a refused pull wrote %d entries into the folder, which held 1", len(entries))
	}

	one := t.TempDir()
	if got, err := Pull(ctx, f.target, one, "csv-profiler", pulling); err != nil || len(got) != 1 || got[0].Name != "csv-profiler" {
		t.Errorf("one skill by name: %v, %v", got, err)
	}
	if _, err := Pull(ctx, f.target, one, "no-such-skill", pulling); err == nil || !strings.Contains(err.Error(), "no-such-skill") {
		t.Errorf("a skill the collection does not list: %v", err)
	}
	for _, s := range f.b.Skills {
		if tag, ok := VersionTag(s.Name, s.Version); ok {
			got, err := Pull(ctx, "oci://"+f.px.host+"/acme/skills:"+tag, t.TempDir(), "", pulling)
			if err != nil || len(got) != 1 || got[0].Name != s.Name {
				t.Errorf("by its tag %s: %v, %v", tag, got, err)
			}
		}
	}
}

// An archive that would write outside its folder, a link, or no SKILL.md
// is refused, and nothing is left in the folder.
func TestPullRefusesHostileArchives(t *testing.T) {
	f := published(t)
	ctx := context.Background()
	for name, entries := range map[string][]tar.Header{
		"dotdot":   {{Name: "SKILL.md", Typeflag: tar.TypeReg}, {Name: "../escape", Typeflag: tar.TypeReg}},
		"absolute": {{Name: "SKILL.md", Typeflag: tar.TypeReg}, {Name: "/etc/x", Typeflag: tar.TypeReg}},
		"symlink":  {{Name: "SKILL.md", Typeflag: tar.TypeReg}, {Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}},
		"twice":    {{Name: "SKILL.md", Typeflag: tar.TypeReg}, {Name: "SKILL.md", Typeflag: tar.TypeReg}},
		"no-entry": {{Name: "README.md", Typeflag: tar.TypeReg}},
		"file-dir": {{Name: "SKILL.md", Typeflag: tar.TypeReg}, {Name: "a", Typeflag: tar.TypeReg}, {Name: "a/b", Typeflag: tar.TypeReg}},
	} {
		archive := tarGz(t, entries)
		tag := pushSkill(t, f, "evil-"+name, archive)
		out := t.TempDir()
		_, err := Pull(ctx, "oci://"+f.px.host+"/acme/skills:"+tag, out, "", pulling)
		if err == nil {
			t.Errorf("%s: pulled", name)
		}
		if left, _ := os.ReadDir(out); len(left) > 0 {
			t.Errorf("%s: left %v in the folder", name, left)
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(out), "escape")); err == nil {
			t.Errorf("%s: wrote outside the folder", name)
		}
	}
}

func tarGz(t *testing.T, entries []tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range entries {
		body := "x"
		if h.Typeflag != tar.TypeReg {
			body = ""
		}
		h.Size, h.Mode = int64(len(body)), 0o644
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// pushSkill pushes a hand-made skill artifact and tags it; it returns
// the tag.
func pushSkill(t *testing.T, f *fixture, name string, archive []byte) string {
	t.Helper()
	ctx := context.Background()
	layer := descriptorOf(MediaTypeSkillContent, archive)
	cfg := []byte(`{}`)
	config := descriptorOf(MediaTypeSkillConfig, cfg)
	m := ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactTypeSkill, Config: config, Layers: []ocispec.Descriptor{layer},
		Annotations: map[string]string{annSkillName: name},
	}
	data, _ := json.Marshal(m)
	for _, b := range []struct {
		d    ocispec.Descriptor
		data []byte
	}{{layer, archive}, {config, cfg}} {
		if err := f.repo.Blobs().Push(ctx, b.d, bytes.NewReader(b.data)); err != nil {
			t.Fatal(err)
		}
	}
	tag := name + "-1.0"
	if err := f.repo.Manifests().PushReference(ctx, descriptorOf(ocispec.MediaTypeImageManifest, data), bytes.NewReader(data), tag); err != nil {
		t.Fatal(err)
	}
	return tag
}

// Each of Pull's limits stops an archive before its files are written
// past it, and says which limit: the bytes a header claims are held to
// the limits before its file is created.
func TestUnpackLimits(t *testing.T) {
	zeros := func(name string, n int) tarFile { return tarFile{name, bytes.Repeat([]byte{0}, n)} }
	l := pack.Limits{File: 3 << 20, Unpacked: 4 << 20, Entries: 3, Ratio: 100}
	const total = 8 << 20
	for _, tc := range []struct {
		name   string
		files  []tarFile
		budget int64
		want   string
	}{
		{"ratio", []tarFile{zeros("SKILL.md", 10), zeros("big.bin", 3<<20)}, total, "decompression bomb: "},
		{"one file", []tarFile{zeros("SKILL.md", 10), noise("a.bin", 3<<20+1)}, total, "more than the 3145728-byte limit for one file"},
		{"one skill", []tarFile{zeros("SKILL.md", 10), noise("a.bin", 3<<20), noise("b.bin", 2<<20)}, total, "decompression bomb: unpacks to more than 4194304 bytes (the limit)"},
		{"all skills", []tarFile{zeros("SKILL.md", 10), noise("a.bin", 1<<20)}, 1 << 19, "more than 8388608 bytes, every skill together"},
		{"files", []tarFile{zeros("SKILL.md", 1), zeros("a", 1), zeros("b", 1), zeros("c", 1)}, total, "has more than 3 entries (the limit)"},
	} {
		dir := t.TempDir()
		archive := tarGzFiles(t, tc.files)
		n, err := unpack(archive, dir, l, total, tc.budget)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
		var written int64
		for _, data := range tree(t, dir) {
			written += int64(len(data))
		}
		// The read that crosses a limit is written: up to one buffer more.
		if written > min(tc.budget, l.Unpacked, max(pack.RatioFloor, l.Ratio*int64(len(archive))))+64<<10 || n < written {
			t.Errorf("%s: wrote %d bytes, counted %d; the limits allow no more than %d", tc.name, written, n, min(tc.budget, l.Unpacked))
		}
	}
	// Within every limit, it unpacks and counts what it unpacked.
	n, err := unpack(tarGzFiles(t, []tarFile{zeros("SKILL.md", 10), noise("a.bin", 1<<20)}), t.TempDir(), l, total, total)
	if err != nil || n < 1<<20 {
		t.Errorf("within the limits: %d bytes, %v", n, err)
	}
}

type tarFile struct {
	name string
	data []byte
}

// noise is a file of n bytes that gzip cannot shrink.
func noise(name string, n int) tarFile {
	data := make([]byte, n)
	var seed [32]byte
	seed[0] = byte(n)
	rand.NewChaCha8(seed).Read(data)
	return tarFile{name, data}
}

// tarGzFiles packs files, in sorted order, with pack, as the build does.
func tarGzFiles(t *testing.T, files []tarFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, nil, pack.Options{})
	for _, f := range files {
		if _, err := w.Add(f.name, false, int64(len(f.data)), bytes.NewReader(f.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The folder pulled into: a file there is refused before anything is
// fetched (exit 2; it was exit 3 after fetching everything), another pull
// holding it turns this one away, what a killed pull left (.NAME.pull-N)
// goes while a user's folder named alike stays, and each skill's folder
// gets the mode a folder made there gets (it was 0700).
func TestPullInto(t *testing.T) {
	f := published(t)
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(ctx, f.target, file, "", pulling); exitClass(err) != 2 || !strings.Contains(fmt.Sprint(err), "give a folder") {
		t.Errorf("into a file: %v (exit class %d), want the user's error", err, exitClass(err))
	}

	// A pull that fetched nothing leaves no folder it made.
	fresh := filepath.Join(t.TempDir(), "new")
	_, err := Pull(ctx, f.target+"-missing", fresh, "", pulling)
	if msg := fmt.Sprint(err); !strings.HasSuffix(msg, ": not found: the registry has no such repository or tag") || strings.Count(msg, "acme/skills-missing") != 1 || exitClass(err) != 1 {
		t.Errorf("a pull of a repository that is not there: %v, want it named once, exit 1", err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a failed pull left the folder it made: %v", err)
	}

	out := t.TempDir()
	unlock, err := outlock.Take(out, "pull")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(ctx, f.target, out, "", pulling); exitClass(err) != 2 || !strings.Contains(fmt.Sprint(err), "another skillpack is writing") {
		t.Errorf("while another pull holds the folder: %v", err)
	}
	unlock()

	killed, mine := filepath.Join(out, ".csv-profiler.pull-123"), filepath.Join(out, ".notes.pull-draft")
	for _, d := range []string{killed, mine} {
		if err := os.MkdirAll(filepath.Join(d, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Pull(ctx, f.target, out, "csv-profiler", pulling); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("a killed pull's folder stayed: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a folder of the user's went: %v", err)
	}
	probe := filepath.Join(t.TempDir(), "probe")
	if err := os.Mkdir(probe, 0o755); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(probe)
	if info, err := os.Stat(filepath.Join(out, "csv-profiler")); err != nil || info.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("the skill's folder: %v (%v), want %v as a folder made there", info.Mode().Perm(), err, want.Mode().Perm())
	}
}
