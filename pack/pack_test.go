package pack

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/flate"
	kgzip "github.com/klauspost/compress/gzip"

	"github.com/skillpack/skillpack/internal/testtool"
)

var update = flag.Bool("update", false, "rewrite the golden digests in testdata")

// file is one source file of a test skill.
type file struct {
	path string
	exec bool
	data string
}

// skill is a small skill covering the cases that matter to the headers:
// exec bits, nested folders, an empty file, a file over the 32 KiB copy
// buffer and the 64 KiB deflate window.
var skill = []file{
	{"SKILL.md", false, "---\nname: pdf-processing\ndescription: Extract, fill and merge PDF forms.\n---\n\n# PDF processing\n\nRun `python3 scripts/fill.py`.\n"},
	{"reference/forms.md", false, strings.Repeat("Fill each field of the form, then check it.\n", 2000)},
	{"scripts/fill.py", true, "#!/usr/bin/env python3\nprint('fill')\n"},
	{"scripts/run.sh", true, "#!/bin/sh\nexec python3 \"$(dirname \"$0\")/fill.py\" \"$@\"\n"},
	{"templates/empty.txt", false, ""},
}

// build packs files and returns the two archives and the entries.
func build(t testing.TB, files []file, opts Options) (tgz, zp []byte, entries []Member) {
	t.Helper()
	var tb, zb bytes.Buffer
	w := NewWriter(&tb, &zb, opts)
	for _, f := range files {
		sum, err := w.Add(f.path, f.exec, int64(len(f.data)), strings.NewReader(f.data))
		if err != nil {
			t.Fatalf("Add(%q): %v", f.path, err)
		}
		entries = append(entries, Member{Path: f.path, Exec: f.exec, Size: int64(len(f.data)), Sum: sum})
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return tb.Bytes(), zb.Bytes(), entries
}

func TestDeterministic(t *testing.T) {
	tgz1, zip1, _ := build(t, skill, Options{})
	tgz2, zip2, _ := build(t, skill, Options{})
	if !bytes.Equal(tgz1, tgz2) || !bytes.Equal(zip1, zip2) {
		t.Fatal("two packs of the same files differ")
	}

	// The compressors must not see how the reader chunks the bytes.
	var tb, zb bytes.Buffer
	w := NewWriter(&tb, &zb, Options{})
	for _, f := range skill {
		r := iotest.OneByteReader(strings.NewReader(f.data))
		if _, err := w.Add(f.path, f.exec, int64(len(f.data)), r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tb.Bytes(), tgz1) || !bytes.Equal(zb.Bytes(), zip1) {
		t.Error("reading one byte at a time changed the archives")
	}

	// The zero time is 1980-01-01, and zones and sub-seconds do not show.
	epoch := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	tgz3, zip3, _ := build(t, skill, Options{Time: epoch.In(time.FixedZone("X", 5*3600)).Add(300 * time.Millisecond)})
	if !bytes.Equal(tgz3, tgz1) || !bytes.Equal(zip3, zip1) {
		t.Error("zero Time, or 1980-01-01 in another zone with milliseconds, gave different archives")
	}

	// A different time must reach both archives.
	tgz4, zip4, _ := build(t, skill, Options{Time: epoch.Add(24 * time.Hour)})
	if bytes.Equal(tgz4, tgz1) || bytes.Equal(zip4, zip1) {
		t.Error("Options.Time did not change the archives")
	}
}

func TestOrder(t *testing.T) {
	w := NewWriter(nil, nil, Options{})
	add := func(p string) error {
		_, err := w.Add(p, false, 1, strings.NewReader("x"))
		return err
	}
	if err := add("b.md"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.md", "b.md", "B.md"} {
		err := add(p)
		var pe *PathError
		if !errors.Is(err, ErrOrder) || !errors.As(err, &pe) || pe.Path != p {
			t.Errorf("Add(%q) after b.md: got %v, want a *PathError for it wrapping ErrOrder", p, err)
		}
	}
	if err := add("b.md/c"); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), `"b.md" is a file`) {
		t.Errorf("Add(b.md/c) after file b.md: got %v, want ErrBadPath naming b.md", err)
	}
	// A refused path writes nothing, so the Writer goes on.
	if err := add("c.md"); err != nil {
		t.Errorf("Add after a refused path: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("Close after a refused path: %v", err)
	}
	if err := add("d.md"); err == nil {
		t.Error("Add after Close succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("second Close succeeded")
	}
}

func TestGolden(t *testing.T) {
	tgz, zp, entries := build(t, skill, Options{Time: time.Unix(1700000000, 0)})
	got := fmt.Sprintf("generator %s\ntar.gz sha256:%x\nzip sha256:%x\ncontent sha256:%x\n",
		Generator(), sha256.Sum256(tgz), sha256.Sum256(zp), ContentDigest(entries))
	golden := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("archive digests drifted from %s: a change to the headers or the compressor changes every published archive name; if it is intended, run go test -run TestGolden -update\ngot:\n%swant:\n%s", golden, got, want)
	}
}

// TestFreshCompressor checks that compressors reused across entries and
// pooled across Writers write what a new one would, so an archive's bytes
// do not depend on what was packed before it.
func TestFreshCompressor(t *testing.T) {
	// A zip entry is the file compressed on its own and sync-flushed, so
	// that the same bytes can sit inside the tar.gz's deflate stream, then
	// closed with an empty final block. An empty file has no bytes to
	// flush: its entry is the final block alone.
	fresh := func(b []byte) []byte {
		var out bytes.Buffer
		fw, err := flate.NewWriter(&out, Level)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(b); err != nil {
			t.Fatal(err)
		}
		if len(b) > 0 {
			if err := fw.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	// Fill the pool with a compressor that has seen other data.
	other := []file{{"SKILL.md", false, strings.Repeat("other words, other matches\n", 5000)}}
	build(t, other, Options{})
	tgz, zp, _ := build(t, skill, Options{})

	zr, err := zip.NewReader(bytes.NewReader(zp), int64(len(zp)))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range zr.File {
		rc, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw, fresh([]byte(skill[i].data))) {
			t.Errorf("zip entry %s: compressed bytes differ from a new compressor's", f.Name)
		}
	}

	// With the pool emptied, the Writer makes a new compressor.
	flatePool = sync.Pool{}
	tgz2, zp2, _ := build(t, skill, Options{})
	if !bytes.Equal(tgz, tgz2) || !bytes.Equal(zp, zp2) {
		t.Error("a pooled compressor and a new one wrote different archives")
	}
}

func TestGenerator(t *testing.T) {
	g := Generator()
	if !regexp.MustCompile(`^klauspost/compress v\d+\.\d+\.\d+\S* flate level 6, shared deflate/2$`).MatchString(g) {
		t.Errorf("Generator() = %q", g)
	}
}

// readTar reads a .tar.gz with Go's readers, checks every header is the
// fixed kind Add writes, and returns the files.
func readTar(t testing.TB, tgz []byte, mtime time.Time) map[string]file {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	got := map[string]file{}
	var last string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			t.Errorf("%s: type %q, want a regular file (no directory entries)", h.Name, h.Typeflag)
		}
		if h.Format != ustarFormat(h.Name) {
			t.Errorf("%s: format %v, want %v", h.Name, h.Format, ustarFormat(h.Name))
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owner %d:%d %q:%q, want 0:0 and empty names", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if h.Mode != 0o644 && h.Mode != 0o755 {
			t.Errorf("%s: mode %o", h.Name, h.Mode)
		}
		if !h.ModTime.Equal(mtime) {
			t.Errorf("%s: mtime %v, want %v", h.Name, h.ModTime, mtime)
		}
		if len(h.PAXRecords) > 0 || h.Devmajor != 0 || h.Devminor != 0 || h.Linkname != "" {
			t.Errorf("%s: unexpected header fields %+v", h.Name, h)
		}
		if h.Name <= last {
			t.Errorf("%s after %s: not sorted", h.Name, last)
		}
		last = h.Name
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		got[h.Name] = file{h.Name, h.Mode == 0o755, string(b)}
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		t.Fatal(err)
	}
	return got
}

// ustarFormat is the format Go's reader reports for a USTAR header of
// name: USTAR, but Unknown when the name is not ASCII, as it takes a USTAR
// header to be ASCII (the name reads back all the same).
func ustarFormat(name string) tar.Format {
	if strings.ContainsFunc(name, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return tar.FormatUnknown
	}
	return tar.FormatUSTAR
}

// readZip reads a .zip with Go's reader, checks every header is the fixed
// kind Add writes, and returns the files.
func readZip(t testing.TB, zp []byte, mtime time.Time) map[string]file {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(zp), int64(len(zp)))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Comment != "" {
		t.Errorf("zip comment %q", zr.Comment)
	}
	got := map[string]file{}
	var last string
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") || !f.Mode().IsRegular() {
			t.Errorf("%s: mode %v, want a regular file (no directory entries)", f.Name, f.Mode())
		}
		if m := f.Mode().Perm(); m != 0o644 && m != 0o755 {
			t.Errorf("%s: mode %o", f.Name, m)
		}
		// A ZIP64 extra field, and version 4.5, only where a test lowered
		// the thresholds (TestZIP64 checks which entries have them).
		zip64 := zip64Size < 1<<32-1 && len(f.Extra) >= 4 && binary.LittleEndian.Uint16(f.Extra) == zip64ExtraID &&
			int(binary.LittleEndian.Uint16(f.Extra[2:]))+4 == len(f.Extra)
		if len(f.Extra) != 0 && !zip64 || f.Comment != "" {
			t.Errorf("%s: extra %x, comment %q; want neither", f.Name, f.Extra, f.Comment)
		}
		if f.Method != zip.Deflate {
			t.Errorf("%s: method %d, want deflate", f.Name, f.Method)
		}
		if want := map[bool]uint16{false: 20, true: 45}[zip64]; f.CreatorVersion != 3<<8|want || f.ReaderVersion != want {
			t.Errorf("%s: creator %#x, reader %d; want Unix and %d", f.Name, f.CreatorVersion, f.ReaderVersion, want)
		}
		if !f.Modified.Equal(mtime) {
			t.Errorf("%s: mtime %v, want %v", f.Name, f.Modified, mtime)
		}
		if f.Name <= last {
			t.Errorf("%s after %s: not sorted", f.Name, last)
		}
		last = f.Name
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc) // checks the CRC too
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		got[f.Name] = file{f.Name, f.Mode().Perm() == 0o755, string(b)}
	}
	return got
}

func sameFiles(t testing.TB, what string, got map[string]file, want []file, prefix string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d files, want %d", what, len(got), len(want))
	}
	for _, w := range want {
		g, ok := got[prefix+w.path]
		switch {
		case !ok:
			t.Errorf("%s: %s missing", what, prefix+w.path)
		case g.data != w.data:
			t.Errorf("%s: %s: bytes differ", what, w.path)
		case g.exec != w.exec:
			t.Errorf("%s: %s: exec %v, want %v", what, w.path, g.exec, w.exec)
		}
	}
}

func TestGoReaders(t *testing.T) {
	for _, tc := range []struct {
		opt      time.Time
		tar, zip time.Time
	}{
		{time.Time{}, time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)},
		// DOS time counts in two seconds.
		{time.Unix(1700000001, 0), time.Unix(1700000001, 0), time.Unix(1700000000, 0)},
		// Zip clamps to 1980, tar keeps what it can hold.
		{time.Unix(100000000, 0), time.Unix(100000000, 0), time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Unix(-5, 0), time.Unix(0, 0), time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(1<<33-1, 0), time.Date(2107, 12, 31, 23, 59, 58, 0, time.UTC)},
	} {
		t.Run(tc.opt.String(), func(t *testing.T) {
			tgz, zp, _ := build(t, skill, Options{Time: tc.opt})
			sameFiles(t, "tar", readTar(t, tgz, tc.tar), skill, "")
			sameFiles(t, "zip", readZip(t, zp, tc.zip), skill, "")
		})
	}
}

func TestGzipHeader(t *testing.T) {
	tgz, _, _ := build(t, skill, Options{Time: time.Unix(1700000000, 0)})
	if len(tgz) < 10 || tgz[0] != 0x1f || tgz[1] != 0x8b || tgz[2] != 8 {
		t.Fatalf("not a deflate gzip stream: % x", tgz[:min(10, len(tgz))])
	}
	if tgz[3] != 0 {
		t.Errorf("FLG %#x, want 0 (no FNAME, FCOMMENT, FEXTRA)", tgz[3])
	}
	if !bytes.Equal(tgz[4:8], []byte{0, 0, 0, 0}) {
		t.Errorf("MTIME % x, want zero", tgz[4:8])
	}
	if tgz[9] != 255 {
		t.Errorf("OS %d, want 255 (unknown)", tgz[9])
	}
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || zr.Comment != "" || zr.Extra != nil || !zr.ModTime.IsZero() {
		t.Errorf("gzip header %+v", zr.Header)
	}
}

func TestPrefix(t *testing.T) {
	tgz, zp, flat := build(t, skill, Options{Prefix: "pdf-processing/"})
	mtime := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	sameFiles(t, "tar", readTar(t, tgz, mtime), skill, "pdf-processing/")
	sameFiles(t, "zip", readZip(t, zp, mtime), skill, "pdf-processing/")

	// The content digest is of the skill, not of its layout.
	_, _, wrapped := build(t, skill, Options{})
	if ContentDigest(flat) != ContentDigest(wrapped) {
		t.Error("the prefix changed the content digest")
	}

	for _, p := range []string{"x", "/x/", "../", "a//", strings.Repeat("p", 156) + "/"} {
		w := NewWriter(nil, nil, Options{Prefix: p})
		if _, err := w.Add("SKILL.md", false, 0, strings.NewReader("")); err == nil {
			t.Errorf("Prefix %q: Add succeeded", p)
		}
		if err := w.Close(); err == nil {
			t.Errorf("Prefix %q: Close succeeded", p)
		}
	}

	// The path fits alone but not under the prefix.
	w := NewWriter(nil, nil, Options{Prefix: strings.Repeat("p", 100) + "/"})
	p := strings.Repeat("n", 60) + "/" + strings.Repeat("m", 60)
	if _, err := w.Add(p, false, 0, strings.NewReader("")); !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), "prefix") {
		t.Errorf("Add(%d bytes) under a 101-byte prefix: %v, want ErrTooLong mentioning the prefix", len(p), err)
	}
}

func TestCheckPath(t *testing.T) {
	long120 := strings.Repeat("d", 60) + "/" + strings.Repeat("n", 59)
	for _, tc := range []struct {
		path string
		err  error
	}{
		{"SKILL.md", nil},
		{"scripts/a-b_c.v1.2.py", nil},
		{"v1..2.md", nil}, // ".." inside a name is not a component
		{long120, nil},
		{strings.Repeat("n", 100), nil},
		{strings.Repeat("d", 155) + "/" + strings.Repeat("n", 100), nil},
		{"", ErrBadPath},
		{"/etc/passwd", ErrBadPath},
		{"C:notes.md", ErrBadPath}, // another drive on Windows
		{"c:/x", ErrBadPath},
		{"1:x.md", nil},
		{"notes/C:x.md", nil}, // path-windows' warning, but inside the skill
		{"../x", ErrBadPath},
		{"a/../x", ErrBadPath},
		{"./x", ErrBadPath},
		{"a/.", ErrBadPath},
		{`a\b`, ErrBadPath},
		{"a//b", ErrBadPath},
		{"a/", ErrBadPath},
		{"a\nb", ErrBadPath},
		{"a\x00b", ErrBadPath},
		{"a\x7fb", ErrBadPath},
		{"caf\u00e9.md", nil},      // NFC
		{"cafe\u0301.md", nil},     // NFD, kept as written
		{"参考/说明.md", nil},          // any script
		{"عربي/ملف\u200c.md", nil}, // a joiner Persian spells with
		{"Screenshot 2024-05-01 at 10.15.32\u202fAM.png", nil},
		{"bad\xff.md", ErrBadPath},     // not UTF-8
		{"a/b\xe4\xb8.md", ErrBadPath}, // a cut-off UTF-8 sequence
		{"a\u0085b", ErrBadPath},       // C1 control (NEL)
		{"a\u009b31mb", ErrBadPath},    // C1 CSI, an escape sequence on some terminals
		{"notes\u202edm.exe", ErrBadPath},
		{"a\u2066b\u2069", ErrBadPath},
		{"a\u2028b", ErrBadPath},
		{strings.Repeat("文", 33) + ".md", ErrTooLong}, // 102 bytes, 35 characters
		{strings.Repeat("目", 51) + "/" + strings.Repeat("文", 33), nil},
		{strings.Repeat("目", 52) + "/" + strings.Repeat("文", 33), ErrTooLong},
		{strings.Repeat("n", 101), ErrTooLong},
		{strings.Repeat("d", 156) + "/" + strings.Repeat("n", 10), ErrTooLong},
		{strings.Repeat("d", 10) + "/" + strings.Repeat("n", 101), ErrTooLong},
		{strings.Repeat("d", 150) + "/" + strings.Repeat("n", 109), ErrTooLong}, // 260 bytes
	} {
		err := CheckPath(tc.path)
		if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("CheckPath(%q) = %v, want %v", tc.path, err, tc.err)
			continue
		}
		var pe *PathError
		if err != nil && (!errors.As(err, &pe) || pe.Path != tc.path) {
			t.Errorf("CheckPath(%q) = %#v, want a *PathError naming the path", tc.path, err)
		}
		// Add refuses exactly what CheckPath refuses.
		w := NewWriter(nil, nil, Options{})
		_, aerr := w.Add(tc.path, false, 0, strings.NewReader(""))
		if !errors.Is(aerr, tc.err) || (tc.err == nil) != (aerr == nil) {
			t.Errorf("Add(%q) = %v, want %v", tc.path, aerr, tc.err)
		}
	}
}

func TestLongPath(t *testing.T) {
	p := strings.Repeat("d", 60) + "/" + strings.Repeat("n", 59)
	if len(p) != 120 {
		t.Fatal(len(p))
	}
	files := []file{{"SKILL.md", false, "# x\n"}, {p, false, "deep\n"}}
	tgz, zp, _ := build(t, files, Options{})
	mtime := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	sameFiles(t, "tar", readTar(t, tgz, mtime), files, "")
	sameFiles(t, "zip", readZip(t, zp, mtime), files, "")

	// The split really is in the USTAR prefix field (offset 345), not a
	// GNU or PAX long name.
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	blk := raw[2*512 : 3*512] // SKILL.md takes a header block and a data block
	if name := string(bytes.TrimRight(blk[:100], "\x00")); name != p[61:] {
		t.Errorf("name field %q, want %q", name, p[61:])
	}
	if prefix := string(bytes.TrimRight(blk[345:500], "\x00")); prefix != p[:60] {
		t.Errorf("prefix field %q, want %q", prefix, p[:60])
	}
	if magic := string(blk[257:265]); magic != "ustar\x0000" {
		t.Errorf("magic %q, want USTAR", magic)
	}

	tar := gnuTar(t)
	dir := t.TempDir()
	run(t, dir, tar, "-xzf", writeTemp(t, "a.tar.gz", tgz), "-C", dir)
	sameTree(t, dir, files)

	for _, p := range []string{strings.Repeat("n", 101), strings.Repeat("d", 150) + "/" + strings.Repeat("n", 109)} {
		w := NewWriter(nil, nil, Options{})
		_, err := w.Add(p, false, 0, strings.NewReader(""))
		var pe *PathError
		if !errors.Is(err, ErrTooLong) || !errors.As(err, &pe) || pe.Path != p || !strings.Contains(err.Error(), "155") {
			t.Errorf("Add(%d-byte path) = %v, want ErrTooLong naming the path and the limits", len(p), err)
		}
	}
}

func TestFitsUSTAR(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{strings.Repeat("n", 100), true},
		{strings.Repeat("n", 101), false},
		{strings.Repeat("d", 155) + "/" + strings.Repeat("n", 100), true},
		{strings.Repeat("d", 156) + "/" + strings.Repeat("n", 100), false},
		{strings.Repeat("d", 155) + "/" + strings.Repeat("n", 101), false},
		{"a/" + strings.Repeat("d", 155) + "/n", false}, // the only fitting name is too long
		{strings.Repeat("d", 50) + "/" + strings.Repeat("e", 50) + "/" + strings.Repeat("n", 99), true},
		{"/" + strings.Repeat("n", 100), false},
	} {
		if got := FitsUSTAR(tc.path); got != tc.want {
			t.Errorf("FitsUSTAR(%d bytes %.20q...) = %v, want %v", len(tc.path), tc.path, got, tc.want)
		}
	}
}

func TestSizeMismatch(t *testing.T) {
	for _, tc := range []struct {
		size int64
		data string
		want string
	}{
		{10, "hello", "read 5 bytes, expected 10"},
		{3, "hello", "more than the expected 3 bytes"},
		{0, "x", "more than the expected 0 bytes"},
	} {
		var tb, zb bytes.Buffer
		w := NewWriter(&tb, &zb, Options{})
		_, err := w.Add("scripts/x.sh", true, tc.size, strings.NewReader(tc.data))
		if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "scripts/x.sh") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("size %d, %d bytes: %v, want ErrChanged naming scripts/x.sh and %q", tc.size, len(tc.data), err, tc.want)
		}
		// The archives are broken now, so nothing may pretend otherwise.
		if _, err2 := w.Add("z", false, 0, strings.NewReader("")); err2 == nil {
			t.Error("Add after a failed Add succeeded")
		}
		if err2 := w.Close(); err2 == nil {
			t.Error("Close after a failed Add succeeded")
		}
	}

	w := NewWriter(nil, nil, Options{})
	boom := errors.New("disk on fire")
	_, err := w.Add("a.md", false, 10, iotest.ErrReader(boom))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "a.md: reading") {
		t.Errorf("read error: %v", err)
	}
	w = NewWriter(nil, nil, Options{})
	_, err = w.Add("a.md", false, 2, io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Errorf("read error after the expected bytes: %v", err)
	}

	w = NewWriter(nil, nil, Options{})
	if _, err := w.Add("a.md", false, -1, strings.NewReader("")); !errors.Is(err, ErrBadPath) {
		t.Errorf("negative size: %v", err)
	}
}

func TestTooLarge(t *testing.T) {
	w := NewWriter(nil, nil, Options{})
	r := iotest.ErrReader(errors.New("must not read"))
	_, err := w.Add("big.bin", false, MaxSize+1, r)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "big.bin") || !strings.Contains(err.Error(), "8589934591") {
		t.Errorf("8 GiB file: %v, want ErrTooLarge naming the file and the limit, before reading", err)
	}
	// Refused before anything was written, so the Writer goes on.
	if _, err := w.Add("small.md", false, 2, strings.NewReader("hi")); err != nil {
		t.Errorf("Add after a refused size: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Error(err)
	}
	if err := CheckSize("a", MaxSize); err != nil {
		t.Errorf("CheckSize(MaxSize) = %v, want nil", err)
	}

	// A file of 5 GiB fits the tar and, with ZIP64, the zip: Add reads it
	// rather than refusing it. The reader fails at once, so that nothing
	// of 5 GiB is read; TestZIP64 checks what is written.
	stop := errors.New("stop")
	w = NewWriter(nil, nil, Options{})
	if _, err := w.Add("big.bin", false, 5<<30, iotest.ErrReader(stop)); !errors.Is(err, stop) {
		t.Errorf("5 GiB file: %v, want it read (and the reader's error)", err)
	}
}

// TestZIP64 lowers the ZIP64 thresholds so that the ZIP64 path runs on a
// small skill: its larger entries take ZIP64 sizes, the entries past the
// threshold's offset a ZIP64 offset, and the central directory, too large,
// too far and of too many entries, the ZIP64 end records. Go's reader, a
// walk of the local headers (as a streaming reader makes), unzip, bsdtar
// and Python's zipfile must read it all.
func TestZIP64(t *testing.T) {
	defer func(size uint64, count int) { zip64Size, zip64Count = size, count }(zip64Size, zip64Count)
	zip64Size, zip64Count = 4000, 100
	files := sizes()
	tgz, zp, _ := build(t, files, Options{})
	mtime := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	sameFiles(t, "zip", readZip(t, zp, mtime), files, "")

	zr, err := zip.NewReader(bytes.NewReader(zp), int64(len(zp)))
	if err != nil {
		t.Fatal(err)
	}
	var big, far int
	off := uint64(0)
	for i, f := range zr.File {
		size := uint64(len(files[i].data))
		zip64 := maxDeflated(size) >= zip64Size
		extra := f.Extra
		if zip64 {
			big++
			if len(extra) < 20 || binary.LittleEndian.Uint64(extra[4:]) != size || binary.LittleEndian.Uint64(extra[12:]) != f.CompressedSize64 {
				t.Fatalf("%s: central ZIP64 extra %x, want the sizes %d and %d", f.Name, extra, size, f.CompressedSize64)
			}
			extra = extra[16:]
		}
		if off >= zip64Size {
			far++
			if len(extra) != 12 && len(extra) != 4 || binary.LittleEndian.Uint64(extra[len(extra)-8:]) != off {
				t.Fatalf("%s: central extra %x, want the offset %d last", f.Name, f.Extra, off)
			}
		} else if !zip64 && len(f.Extra) > 0 {
			t.Fatalf("%s: central extra %x, want none", f.Name, f.Extra)
		}
		off = walkLocal(t, zp, off, f, zip64)
	}
	if big == 0 || far == 0 || big == len(files) {
		t.Fatalf("%d of %d entries with ZIP64 sizes, %d with a ZIP64 offset; the thresholds miss the cases", big, len(files), far)
	}

	// The end: a ZIP64 record and its locator, then the classic record
	// with every field that overflowed at its largest value.
	end := zp[len(zp)-22:]
	loc := zp[len(zp)-22-20:]
	rec := binary.LittleEndian.Uint64(loc[8:])
	if binary.LittleEndian.Uint32(end) != zipEndSig || binary.LittleEndian.Uint32(loc) != zip64LocatorSig ||
		binary.LittleEndian.Uint32(zp[rec:]) != zip64EndSig || rec+zip64EndLen != uint64(len(zp)-42) {
		t.Fatal("no ZIP64 end record and locator before the end record")
	}
	count, dirSize, dirOff := binary.LittleEndian.Uint64(zp[rec+32:]), binary.LittleEndian.Uint64(zp[rec+40:]), binary.LittleEndian.Uint64(zp[rec+48:])
	if count != uint64(len(files)) || dirOff != off || dirOff+dirSize != rec {
		t.Errorf("ZIP64 end record: %d entries, directory of %d bytes at %d; want %d entries, the directory at %d ending at %d", count, dirSize, dirOff, len(files), off, rec)
	}
	if binary.LittleEndian.Uint16(end[8:]) != 0xffff || binary.LittleEndian.Uint32(end[12:]) != 0xffffffff || binary.LittleEndian.Uint32(end[16:]) != 0xffffffff {
		t.Errorf("end record %x: want the count, size and offset at their largest values", end)
	}

	tools(t, tgz, zp, files)
}

// walkLocal checks the local header at off, the data and the descriptor of
// f, as a streaming reader reads them, and returns where the next entry
// starts. A ZIP64 entry says so in its local header (version 4.5, sizes
// 0xffffffff, an extra field), and its descriptor has 8-byte sizes.
func walkLocal(t *testing.T, zp []byte, off uint64, f *zip.File, zip64 bool) uint64 {
	t.Helper()
	h := zp[off:]
	version, sizes, extra := uint16(20), uint32(0), []byte{}
	if zip64 {
		version, sizes = 45, 0xffffffff
		extra = binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(nil, zip64ExtraID), 16)
		extra = append(extra, make([]byte, 16)...)
	}
	nameLen, extraLen := int(binary.LittleEndian.Uint16(h[26:])), int(binary.LittleEndian.Uint16(h[28:]))
	if binary.LittleEndian.Uint32(h) != zipLocalSig || binary.LittleEndian.Uint16(h[4:]) != version ||
		binary.LittleEndian.Uint32(h[18:]) != sizes || binary.LittleEndian.Uint32(h[22:]) != sizes ||
		string(h[30:30+nameLen]) != f.Name || !bytes.Equal(h[30+nameLen:30+nameLen+extraLen], extra) {
		t.Fatalf("%s: local header at %d is %x, want version %d, sizes %#x, extra %x", f.Name, off, h[:30+nameLen+extraLen], version, sizes, extra)
	}
	data := off + 30 + uint64(nameLen+extraLen)
	if d, err := f.DataOffset(); err != nil || uint64(d) != data {
		t.Fatalf("%s: data at %d, want %d (%v)", f.Name, d, data, err)
	}
	desc := zp[data+f.CompressedSize64:]
	want := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, zipDescriptorSig), f.CRC32)
	if zip64 {
		want = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(want, f.CompressedSize64), f.UncompressedSize64)
	} else {
		want = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(want, uint32(f.CompressedSize64)), uint32(f.UncompressedSize64))
	}
	if !bytes.Equal(desc[:len(want)], want) {
		t.Fatalf("%s: descriptor %x, want %x", f.Name, desc[:len(want)], want)
	}
	return data + f.CompressedSize64 + uint64(len(want))
}

func TestContentDigest(t *testing.T) {
	tgz, zp, entries := build(t, skill, Options{})
	for _, e := range entries {
		for _, f := range skill {
			if f.path == e.Path && e.Sum != sha256.Sum256([]byte(f.data)) {
				t.Errorf("%s: Add returned a wrong sum", e.Path)
			}
		}
	}
	d := ContentDigest(entries)

	// Entries read back from either archive, so from either compressor
	// stream, give the same digest.
	for what, m := range map[string]map[string]file{
		"tar": readTar(t, tgz, time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)),
		"zip": readZip(t, zp, time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)),
	} {
		var es []Member
		for _, f := range m {
			es = append(es, Member{f.path, f.exec, int64(len(f.data)), sha256.Sum256([]byte(f.data))})
		}
		if ContentDigest(es) != d {
			t.Errorf("digest of the files in the %s differs", what)
		}
	}

	shuffled := slices.Clone(entries)
	slices.Reverse(shuffled)
	if ContentDigest(shuffled) != d {
		t.Error("entry order changed the digest")
	}
	if shuffled[0] != entries[len(entries)-1] {
		t.Fatal("ContentDigest sorted its argument in place")
	}

	change := map[string]func(*Member){
		"exec": func(e *Member) { e.Exec = !e.Exec },
		"size": func(e *Member) { e.Size++ },
		"sum":  func(e *Member) { e.Sum[31] ^= 1 },
		"path": func(e *Member) { e.Path += "x" },
	}
	for name, f := range change {
		es := slices.Clone(entries)
		f(&es[2])
		if ContentDigest(es) == d {
			t.Errorf("changing the %s did not change the digest", name)
		}
	}

	got := string(Manifest([]Member{
		{Path: "scripts/x.sh", Exec: true, Size: 3, Sum: sha256.Sum256([]byte("abc"))},
		{Path: "SKILL.md", Size: 0, Sum: sha256.Sum256(nil)},
	}))
	want := "0644 0 sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 SKILL.md\n" +
		"0755 3 sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad scripts/x.sh\n"
	if got != want {
		t.Errorf("Manifest:\n%s\nwant:\n%s", got, want)
	}
	if ContentDigest(nil) != sha256.Sum256(nil) {
		t.Error("empty skill: digest is not of the empty manifest")
	}
}

// Real tools read what we write.

// gnuTar returns GNU tar's path (see need).
func gnuTar(t *testing.T) string {
	t.Helper()
	return testtool.Need(t, testtool.GNUTar)
}

// need returns the path of a tool, skipping the test when it is not
// installed (failing it under SKILLPACK_REQUIRE_TOOLS=1).
func need(t *testing.T, tool string) string {
	t.Helper()
	return testtool.Need(t, tool)
}

func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs a tool and fails on a non-zero exit or any warning.
func run(t *testing.T, dir, tool string, args ...string) {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s %s: %v\n%s%s", tool, strings.Join(args, " "), err, out, stderr.Bytes())
	}
}

// sameTree compares an extracted folder with the source files: the same
// regular files, byte for byte, and nothing else but folders.
//
// Modes: GNU tar as root restores the archive's mode as is, while unzip and
// bsdtar (and GNU tar as a user) apply the umask. Rather than change the
// process umask, which would reach other tests and is Unix-only, compare
// the owner bits exactly (no sane umask takes them) and require the group
// and other bits to be a subset of the archive's 0644 or 0755.
func sameTree(t *testing.T, dir string, want []file) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			t.Errorf("%s: extracted as %v, want a regular file", rel, info.Mode())
			return nil
		}
		i := slices.IndexFunc(want, func(f file) bool { return f.path == rel })
		if i < 0 {
			t.Errorf("%s: extracted but not in the source", rel)
			return nil
		}
		seen[rel] = true
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if string(b) != want[i].data {
			t.Errorf("%s: extracted bytes differ", rel)
		}
		mode := fs.FileMode(0o644)
		if want[i].exec {
			mode = 0o755
		}
		if got := info.Mode().Perm(); got&0o700 != mode&0o700 || got&^mode != 0 {
			t.Errorf("%s: extracted with mode %o, want %o", rel, got, mode)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range want {
		if !seen[f.path] {
			t.Errorf("%s: not extracted", f.path)
		}
	}
}

func TestTools(t *testing.T) {
	tgz, zp, _ := build(t, skill, Options{})
	tools(t, tgz, zp, skill)
}

// tools checks that gzip, GNU tar, bsdtar, unzip and Python read the
// archives of want, packed at the default time, without a warning, in the
// locale of the environment (LC_ALL).
//
// bsdtar alone cannot unpack a zip with non-ASCII names in a locale that
// is not UTF-8 ("Pathname cannot be converted from UTF-8 to current
// locale"): libarchive converts a name the UTF-8 flag marks to the
// locale's charset, while it writes a USTAR name's bytes as they are. So
// the zip's bsdtar checks need a UTF-8 locale there; the .tar.gz's do not.
func tools(t *testing.T, tgz, zp []byte, want []file) {
	t.Helper()
	ascii := !slices.ContainsFunc(want, func(f file) bool {
		return strings.ContainsFunc(f.path, func(r rune) bool { return r >= utf8.RuneSelf })
	})
	locale := cmp.Or(os.Getenv("LC_ALL"), os.Getenv("LC_CTYPE"), os.Getenv("LANG"))
	utf8Locale := strings.Contains(strings.ToLower(strings.ReplaceAll(locale, "-", "")), "utf8")
	bsdtarZip := func(t *testing.T) {
		if !ascii && !utf8Locale {
			t.Skip("bsdtar unpacks a zip's UTF-8 names only in a UTF-8 locale")
		}
	}
	tgzPath := writeTemp(t, "skill.tar.gz", tgz)
	zipPath := writeTemp(t, "skill.zip", zp)

	t.Run("gzip-test", func(t *testing.T) {
		run(t, t.TempDir(), need(t, "gzip"), "-t", tgzPath)
	})
	t.Run("gunzip-tar-list", func(t *testing.T) {
		if !ascii && !utf8Locale {
			t.Skip("tar lists non-ASCII names escaped outside a UTF-8 locale")
		}
		gunzip, tar := need(t, "gunzip"), need(t, "tar")
		raw, err := exec.Command(gunzip, "-c", tgzPath).Output()
		if err != nil {
			t.Fatalf("gunzip -c: %v", err)
		}
		cmd := exec.Command(tar, "-tf", "-")
		cmd.Stdin = bytes.NewReader(raw)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tar -t: %v", err)
		}
		var paths []string
		for _, f := range want {
			paths = append(paths, f.path)
		}
		if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(got, paths) {
			t.Errorf("gunzip -c | tar -t lists %d entries, want the %d files in order", len(got), len(paths))
		}
	})
	t.Run("gnu-tar", func(t *testing.T) {
		tar := gnuTar(t)
		dir := t.TempDir()
		run(t, dir, tar, "-xzf", tgzPath, "-C", dir)
		sameTree(t, dir, want)
		// The fixed time reached the files.
		info, err := os.Stat(filepath.Join(dir, want[0].path))
		if err != nil {
			t.Fatal(err)
		}
		if mtime := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC); !info.ModTime().Equal(mtime) {
			t.Errorf("mtime %v, want %v", info.ModTime(), mtime)
		}
	})
	for _, a := range []string{tgzPath, zipPath} {
		t.Run("bsdtar-"+filepath.Ext(a)[1:], func(t *testing.T) {
			if a == zipPath {
				bsdtarZip(t)
			}
			bsdtar := need(t, "bsdtar")
			dir := t.TempDir()
			run(t, dir, bsdtar, "-xf", a, "-C", dir)
			sameTree(t, dir, want)
		})
	}
	t.Run("unzip", func(t *testing.T) {
		unzip := need(t, "unzip")
		dir := t.TempDir()
		run(t, dir, unzip, "-q", zipPath, "-d", dir)
		sameTree(t, dir, want)
	})
	t.Run("unzip-test", func(t *testing.T) {
		run(t, t.TempDir(), need(t, "unzip"), "-tq", zipPath)
	})
	// A streaming reader sees only the local headers and descriptors, not
	// the central directory: bsdtar reading standard input is one. The
	// modes are in the central directory, so only the bytes are compared.
	t.Run("bsdtar-zip-stream", func(t *testing.T) {
		bsdtarZip(t)
		bsdtar := need(t, "bsdtar")
		dir := t.TempDir()
		cmd := exec.Command(bsdtar, "-xf", "-", "-C", dir)
		cmd.Stdin = bytes.NewReader(zp)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("bsdtar -xf - < zip: %v\n%s", err, out)
		}
		for _, f := range want {
			if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.path))); err != nil || string(b) != f.data {
				t.Errorf("%s: extracted %d bytes (%v), want the %d of the source", f.path, len(b), err, len(f.data))
			}
		}
	})
	t.Run("python-zipfile", func(t *testing.T) {
		pythonZip(t, need(t, "python3"), zipPath, want)
	})
	t.Run("python-tarfile", func(t *testing.T) {
		dir := t.TempDir()
		run(t, dir, need(t, "python3"), "-c", pythonTarScript, tgzPath, dir)
		sameTree(t, dir, want)
	})
}

// pythonTarScript unpacks a .tar.gz with Python's tarfile, through the
// "data" filter where the Python has it (3.12, and 3.8.17 and later): the
// one that refuses paths out of the folder, links and special files.
const pythonTarScript = `
import sys, tarfile
with tarfile.open(sys.argv[1], "r:gz") as t:
    if hasattr(tarfile, "data_filter"):
        t.extractall(sys.argv[2], filter="data")
    else:
        t.extractall(sys.argv[2])
`

// pythonZipScript checks every CRC with Python's zipfile and lists each
// entry: name, size, Unix mode and the SHA-256 of its bytes.
const pythonZipScript = `
import hashlib, json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    if bad is not None:
        sys.exit("bad CRC: " + bad)
    print(json.dumps([[i.filename, i.file_size, i.external_attr >> 16, hashlib.sha256(z.read(i)).hexdigest()]
                      for i in z.infolist()]))
`

// pythonZip checks that Python's zipfile reads the zip at path as want.
func pythonZip(t *testing.T, python, path string, want []file) {
	t.Helper()
	out, err := exec.Command(python, "-c", pythonZipScript, path).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 zipfile: %v\n%s", err, out)
	}
	var got [][4]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("python3 zipfile printed %q: %v", out, err)
	}
	if len(got) != len(want) {
		t.Fatalf("python3 zipfile lists %d entries, want %d", len(got), len(want))
	}
	for i, w := range want {
		mode := 0o100644
		if w.exec {
			mode = 0o100755
		}
		sum := sha256.Sum256([]byte(w.data))
		if g := fmt.Sprint(got[i]); g != fmt.Sprint([4]any{w.path, float64(len(w.data)), float64(mode), hex.EncodeToString(sum[:])}) {
			t.Errorf("python3 zipfile: entry %d is %s, want %s (%d bytes, mode %o)", i, g, w.path, len(w.data), mode)
		}
	}
}

// sizes returns a skill whose file sizes sit on the edges of the tar blocks
// (512 bytes) and of the compressor's blocks (64 KiB), with empty and
// one-byte files, empty files in a row, incompressible, repetitive and
// all-zero data, and many small files.
func sizes() []file {
	rnd := rand.New(rand.NewPCG(3, 4))
	random := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		return string(b)
	}
	files := []file{
		{"SKILL.md", false, string(text(rnd, 3000))},
		{"a/empty.txt", false, ""},
		{"a/one.txt", true, "x"},
		{"b/511.md", false, string(text(rnd, 511))},
		{"b/512.md", false, string(text(rnd, 512))},
		{"b/513.bin", true, random(513)},
		{"b/1024.md", false, string(text(rnd, 1024))},
		{"c/64k-1.md", false, string(text(rnd, 64<<10-1))},
		{"c/64k.bin", false, random(64 << 10)},
		{"c/64k+1.md", false, string(text(rnd, 64<<10+1))},
		{"d/random.bin", false, random(300 << 10)},
		{"d/repeat.txt", false, strings.Repeat("abcabd", 400<<10/6)},
		{"d/zeros.bin", false, string(make([]byte, 200<<10))},
		{"e/empty1", false, ""},
		{"e/empty2", false, ""},
		{"z/last", false, "z"},
	}
	for i := range 200 {
		files = append(files, file{fmt.Sprintf("f/%03d.md", i), i%7 == 0, string(text(rnd, rnd.IntN(3000)))})
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.path, b.path) })
	return files
}

func TestSizes(t *testing.T) {
	files := sizes()
	tgz, zp, _ := build(t, files, Options{})
	mtime := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	sameFiles(t, "tar", readTar(t, tgz, mtime), files, "")
	sameFiles(t, "zip", readZip(t, zp, mtime), files, "")

	// The .tar.gz is one gzip member, and its trailer holds the CRC-32 and
	// the size of the tar. Go's reader checks them too.
	br := bytes.NewReader(tgz)
	zr, err := gzip.NewReader(br)
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if br.Len() != 0 {
		t.Errorf("%d bytes after the gzip member", br.Len())
	}
	trailer := tgz[len(tgz)-8:]
	if got, want := binary.LittleEndian.Uint32(trailer), crc32.ChecksumIEEE(raw); got != want {
		t.Errorf("gzip CRC-32 %#08x, want %#08x", got, want)
	}
	if got := binary.LittleEndian.Uint32(trailer[4:]); got != uint32(len(raw)) {
		t.Errorf("gzip ISIZE %d, want %d", got, len(raw))
	}

	tgz2, zp2, _ := build(t, files, Options{})
	if !bytes.Equal(tgz, tgz2) || !bytes.Equal(zp, zp2) {
		t.Error("two packs of the same files differ")
	}
	flatePool = sync.Pool{}
	tgz3, zp3, _ := build(t, files, Options{})
	if !bytes.Equal(tgz, tgz3) || !bytes.Equal(zp, zp3) {
		t.Error("a pooled compressor and a new one wrote different archives")
	}

	tools(t, tgz, zp, files)
}

// failWriter accepts n bytes, then fails.
type failWriter struct {
	n   int
	err error
}

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, w.err
	}
	w.n -= len(p)
	return len(p), nil
}

// TestWriteError checks that an output failing anywhere (the gzip header,
// a header's piece, a file's piece, the trailer; a zip header, entry or
// the central directory) reaches the caller, and that the Writer then
// refuses to finish.
func TestWriteError(t *testing.T) {
	files := sizes()[:12]
	tgz, zp, _ := build(t, files, Options{})
	boom := errors.New("disk full")
	for _, archive := range []string{"tar.gz", "zip"} {
		total := len(tgz)
		if archive == "zip" {
			total = len(zp)
		}
		for _, limit := range []int{0, 1, 9, 10, 11, 600, total / 3, total / 2, total - 12, total - 8, total - 1} {
			out := &failWriter{n: limit, err: boom}
			w := NewWriter(out, nil, Options{})
			if archive == "zip" {
				w = NewWriter(nil, out, Options{})
			}
			var err error
			for _, f := range files {
				if _, err = w.Add(f.path, f.exec, int64(len(f.data)), strings.NewReader(f.data)); err != nil {
					break
				}
			}
			cerr := w.Close()
			if err == nil {
				err = cerr
			}
			if !errors.Is(err, boom) || cerr == nil {
				t.Errorf("%s failing after %d of %d bytes: Add or Close returned %v, then Close %v; want the write error, and Close to fail", archive, limit, total, err, cerr)
			}
		}
	}
}

// cycle reads b over and over, without allocating.
type cycle struct {
	b   []byte
	off int
}

func (c *cycle) Read(p []byte) (int, error) {
	n := copy(p, c.b[c.off:])
	c.off = (c.off + n) % len(c.b)
	return n, nil
}

// TestStreaming checks that Add streams a file through both archives
// rather than holding it, or its compressed form, in memory: a skill may
// hold a file of gigabytes.
func TestStreaming(t *testing.T) {
	if testing.Short() {
		t.Skip("packs 64 MiB")
	}
	const size = 64 << 20
	rnd := rand.New(rand.NewPCG(5, 6))
	r := io.LimitReader(&cycle{b: text(rnd, 1<<20)}, size)
	build(t, skill, Options{}) // so the Writer takes a pooled compressor
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w := NewWriter(io.Discard, io.Discard, Options{})
	if _, err := w.Add("big.md", false, size, r); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// A new compressor, should a GC have emptied the pool, takes about
	// 2 MiB; the compressed file alone would take over 20.
	if n := after.TotalAlloc - before.TotalAlloc; n > 8<<20 {
		t.Errorf("packing a %d MiB file allocated %d KiB", size>>20, n>>10)
	}
}

// text returns n bytes of Markdown-like text, compressible as prose is.
func text(rnd *rand.Rand, n int) []byte {
	words := strings.Fields("the skill reads a form and fills each field then checks the result with python3 scripts/fill.py ## Steps - run `make` for every PDF file in the folder")
	var b []byte
	for len(b) < n {
		b = append(b, words[rnd.IntN(len(words))]...)
		if rnd.IntN(12) == 0 {
			b = append(b, '\n')
		} else {
			b = append(b, ' ')
		}
	}
	return b[:n]
}

func BenchmarkPack(b *testing.B) {
	rnd := rand.New(rand.NewPCG(7, 7))
	paths := []string{"SKILL.md", "reference/api.md", "reference/forms.md", "scripts/fill.py", "scripts/merge.py"}
	sizes := []int{20 << 10, 12 << 10, 8 << 10, 4 << 10, 2 << 10}
	data := make([][]byte, len(paths))
	var total int64
	for i := range paths {
		data[i] = text(rnd, sizes[i])
		total += int64(sizes[i])
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(io.Discard, io.Discard, Options{})
		for i, p := range paths {
			if _, err := w.Add(p, false, int64(len(data[i])), bytes.NewReader(data[i])); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// baselineGzip and baselineFlate pool packBaseline's compressors, as the
// Writer pooled them before it shared one.
var baselineGzip, baselineFlate sync.Pool

// packBaseline packs files as the Writer did in format 1, compressing every
// file twice: the tar through klauspost's gzip.Writer, and each zip entry
// with a flate.Writer of its own. BenchmarkWriter measures against it.
func packBaseline(tgz, z io.Writer, files []file) error {
	gz, _ := baselineGzip.Get().(*kgzip.Writer)
	if gz == nil {
		gz, _ = kgzip.NewWriterLevel(tgz, Level)
	} else {
		gz.Reset(tgz)
	}
	defer baselineGzip.Put(gz)
	gz.Header = kgzip.Header{ModTime: time.Unix(0, 0), OS: 255}
	tw := tar.NewWriter(gz)

	zw := zip.NewWriter(z)
	var fw *flate.Writer
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		if fw == nil {
			fw, _ = baselineFlate.Get().(*flate.Writer)
		}
		if fw == nil {
			var err error
			fw, err = flate.NewWriter(out, Level)
			return fw, err
		}
		fw.Reset(out)
		return fw, nil
	})
	defer func() {
		if fw != nil {
			baselineFlate.Put(fw)
		}
	}()

	mtime := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	date, tm := dosTime(mtime)
	buf := make([]byte, 32<<10)
	for _, f := range files {
		mode := int64(0o644)
		if f.exec {
			mode = 0o755
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f.path, Mode: mode, Size: int64(len(f.data)), ModTime: mtime, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		fh := &zip.FileHeader{Name: f.path, Method: zip.Deflate, ModifiedDate: date, ModifiedTime: tm}
		fh.SetMode(fs.FileMode(mode))
		zf, err := zw.CreateHeader(fh)
		if err != nil {
			return err
		}
		h := sha256.New()
		if _, err := io.CopyBuffer(io.MultiWriter(tw, zf, h), strings.NewReader(f.data), buf); err != nil {
			return err
		}
		if err := zw.Flush(); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// BenchmarkWriter measures the Writer against packBaseline, the two
// compressors it replaced, alternating the two in each iteration so that
// both see the same machine. It reports the Writer's mean time as ns/op,
// the baseline's as baseline-ns/op, and as ratio the median of the
// iterations' ratios, which a busy machine disturbs less.
func BenchmarkWriter(b *testing.B) {
	rnd := rand.New(rand.NewPCG(7, 7))
	skills := map[string][]file{
		// BenchmarkPack's skill: five files, 46 KB.
		"typical": {
			{"SKILL.md", false, string(text(rnd, 20<<10))},
			{"reference/api.md", false, string(text(rnd, 12<<10))},
			{"reference/forms.md", false, string(text(rnd, 8<<10))},
			{"scripts/fill.py", true, string(text(rnd, 4<<10))},
			{"scripts/merge.py", true, string(text(rnd, 2<<10))},
		},
		// The size of the examples: a few KB in three files.
		"small": {
			{"SKILL.md", false, string(text(rnd, 3<<10))},
			{"scripts/check.sh", true, string(text(rnd, 600))},
			{"templates/notes.md", false, string(text(rnd, 1200))},
		},
		// One large reference file.
		"large": {
			{"SKILL.md", false, string(text(rnd, 4<<10))},
			{"reference/spec.md", false, string(text(rnd, 1<<20))},
		},
	}
	for _, name := range []string{"small", "typical", "large"} {
		files := skills[name]
		b.Run(name, func(b *testing.B) {
			// Both write the same tar, so the comparison is of like with like.
			var tb, zb bytes.Buffer
			if err := packBaseline(&tb, &zb, files); err != nil {
				b.Fatal(err)
			}
			mtime := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
			sameFiles(b, "baseline tar", readTar(b, tb.Bytes(), mtime), files, "")
			sameFiles(b, "baseline zip", readZip(b, zb.Bytes(), mtime), files, "")
			tgz, _, _ := build(b, files, Options{})
			if !bytes.Equal(gunzip(b, tb.Bytes()), gunzip(b, tgz)) {
				b.Fatal("the baseline wrote another tar")
			}

			var shared, baseline time.Duration
			var ratios []float64
			for b.Loop() {
				start := time.Now()
				w := NewWriter(io.Discard, io.Discard, Options{})
				for _, f := range files {
					if _, err := w.Add(f.path, f.exec, int64(len(f.data)), strings.NewReader(f.data)); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				if err := packBaseline(io.Discard, io.Discard, files); err != nil {
					b.Fatal(err)
				}
				s, base := mid.Sub(start), time.Since(mid)
				shared += s
				baseline += base
				ratios = append(ratios, float64(s)/float64(base))
			}
			slices.Sort(ratios)
			b.ReportMetric(float64(shared.Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(float64(baseline.Nanoseconds())/float64(b.N), "baseline-ns/op")
			b.ReportMetric(ratios[len(ratios)/2], "ratio")
		})
	}
}

// gunzip returns the bytes inside a gzip member.
func gunzip(t testing.TB, gz []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
