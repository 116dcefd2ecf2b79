package verify

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

var skillMD = file{name: "SKILL.md", body: []byte("---\nname: x\n---\n")}

func TestUnpackRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []file
		want  string // in one problem; "" = no problems
	}{
		{"clean", []file{skillMD, {name: "scripts/run.sh", body: []byte("echo"), mode: 0o755}}, ""},
		{"traversal", []file{{name: "a/../../x"}, skillMD}, `entry "a/../../x" has a ".." segment`},
		{"backslash traversal", []file{{name: `..\x`}, skillMD}, `entry "..\\x" has a ".." segment`},
		{"absolute", []file{{name: "/x"}, skillMD}, `entry "/x" is an absolute path`},
		{"drive", []file{{name: "C:/x"}, skillMD}, `entry "C:/x" is an absolute path`},
		{"backslash", []file{skillMD, {name: `a\b`}}, `has a '\', a path separator on Windows`},
		{"duplicate", []file{skillMD, skillMD}, `entry "SKILL.md" appears twice`},
		{"empty segment", []file{skillMD, {name: "a//b"}}, "is not a valid archive path: empty path component"},
		{"control", []file{skillMD, {name: "a\nb"}}, "control character"},
		{"mode", []file{{name: "SKILL.md", mode: 0o777}}, `entry "SKILL.md" has mode 0777; skillpack's archives use 0644 or 0755`},
		{"setuid", []file{{name: "SKILL.md", mode: 0o4755}}, "setuid"},
		{"file and folder", []file{skillMD, {name: "a"}, {name: "a/b"}}, `entry "a" is both a file and the folder of "a/b"`},
		{"case", []file{{name: "README.md"}, skillMD, {name: "readme.md"}}, `differs from "README.md" only in case`},
		{"unsorted", []file{{name: "b"}, skillMD}, "entries are not sorted by path"},
		{"wrapped", []file{{name: "x/SKILL.md"}}, "has no SKILL.md at its root"},
	} {
		for _, ext := range []string{layout.TarGz, layout.Zip} {
			t.Run(tc.name+"/"+ext, func(t *testing.T) {
				var data []byte
				if ext == layout.Zip {
					data = zipOf(t, tc.files...)
				} else {
					data = tarGz(t, tc.files...)
				}
				u := unpack(data, ext, testLimits, layout.EntryFile, false)
				got := strings.Join(u.problems, "\n")
				if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
					t.Errorf("problems:\n%s\nwant one containing %q", got, tc.want)
				}
			})
		}
	}
}

func TestUnpackTarTypes(t *testing.T) {
	for _, tc := range []struct {
		f    file
		want string
	}{
		{file{name: "l", typ: tar.TypeSymlink, link: "../../etc/passwd"}, `entry "l" is a symbolic link to "../../etc/passwd"`},
		{file{name: "h", typ: tar.TypeLink, link: "/etc/shadow"}, `entry "h" is a hard link to "/etc/shadow"`},
		{file{name: "d", typ: tar.TypeChar}, `entry "d" is a device`},
		{file{name: "b", typ: tar.TypeBlock}, `entry "b" is a device`},
		{file{name: "p", typ: tar.TypeFifo}, `entry "p" is a named pipe`},
		{file{name: "dir/", typ: tar.TypeDir, mode: 0o755}, `entry "dir/" is a directory entry`},
	} {
		u := unpack(tarGz(t, skillMD, tc.f), layout.TarGz, testLimits, layout.EntryFile, false)
		if got := strings.Join(u.problems, "\n"); !strings.Contains(got, tc.want) {
			t.Errorf("%s: problems:\n%s\nwant %q", tc.f.name, got, tc.want)
		}
		if len(u.entries) != 1 {
			t.Errorf("%s: entries %v, want only SKILL.md", tc.f.name, u.entries)
		}
	}
}

func TestUnpackPAX(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "SKILL.md", Mode: 0o644, Size: 1, Format: tar.FormatPAX, PAXRecords: map[string]string{"comment": "x"}})
	tw.Write([]byte("x"))
	tw.Close()
	zw.Close()
	u := unpack(b.Bytes(), layout.TarGz, testLimits, layout.EntryFile, false)
	if got := strings.Join(u.problems, "\n"); !strings.Contains(got, "skillpack writes USTAR headers only") {
		t.Errorf("problems:\n%s\nwant a USTAR problem", got)
	}
}

// TestUnpackForeign: an archive of another tool's bundle is held to what
// unpackers take, not to the build's archive rules; what no unpacker may
// take, or what the skills CLI reads otherwise, is a problem still.
func TestUnpackForeign(t *testing.T) {
	in := func(format tar.Format) func(t *testing.T, names ...string) []byte {
		return func(t *testing.T, names ...string) []byte {
			var fs []file
			for _, n := range names {
				fs = append(fs, file{name: n})
			}
			return tarIn(t, format, fs...)
		}
	}
	gnu, pax := in(tar.FormatGNU), in(tar.FormatPAX)
	for _, tc := range []struct {
		name      string
		data      func(t *testing.T) []byte
		ext       string
		ours, not string // in the problems of our archive, and of a foreign one ("": none)
	}{
		{"tar -czf", func(t *testing.T) []byte { return gnu(t, "refs/", "refs/a.md", "SKILL.md") }, layout.TarGz, "GNU header", ""},
		{"directory entry", func(t *testing.T) []byte { return gnu(t, "SKILL.md", "refs/") }, layout.TarGz, "directory entry", ""},
		{"zip directory", func(t *testing.T) []byte { return zipOf(t, skillMD, file{name: "scripts/"}) }, layout.Zip, "directory entry", ""},
		{"mode", func(t *testing.T) []byte { return zipOf(t, file{name: "SKILL.md", mode: 0o600}) }, layout.Zip, "has mode 0600", ""},
		{"unsorted", func(t *testing.T) []byte { return tarGz(t, file{name: "b"}, skillMD) }, layout.TarGz, "not sorted", ""},
		{"PAX name", func(t *testing.T) []byte { return pax(t, "SKILL.md", "réf.md") }, layout.TarGz, "PAX record", "PAX record"},
		{"symlink", func(t *testing.T) []byte { return tarGz(t, skillMD, file{name: "l", typ: tar.TypeSymlink, link: "x"}) }, layout.TarGz, "symbolic link", "symbolic link"},
		{"setuid", func(t *testing.T) []byte { return tarGz(t, skillMD, file{name: "x", mode: 0o4755}) }, layout.TarGz, "setuid", "setuid"},
		{"wrapped", func(t *testing.T) []byte { return tarGz(t, file{name: "x/SKILL.md"}) }, layout.TarGz, "no SKILL.md at its root", "no SKILL.md at its root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(t)
			for _, foreign := range []bool{false, true} {
				want := tc.ours
				if foreign {
					want = tc.not
				}
				u := unpack(data, tc.ext, testLimits, layout.EntryFile, foreign)
				got := strings.Join(u.problems, "\n")
				if want == "" && got != "" || !strings.Contains(got, want) {
					t.Errorf("foreign %v: problems:\n%s\nwant one containing %q", foreign, got, want)
				}
				if !slices.ContainsFunc(u.entries, func(e pack.Member) bool { return e.Path == "SKILL.md" }) != (tc.name == "wrapped") {
					t.Errorf("foreign %v: entries %v: SKILL.md is read in every case but the wrapped one", foreign, u.entries)
				}
			}
		})
	}
}

func TestUnpackZipDirectory(t *testing.T) {
	u := unpack(zipOf(t, skillMD, file{name: "scripts/"}), layout.Zip, testLimits, layout.EntryFile, false)
	if got := strings.Join(u.problems, "\n"); !strings.Contains(got, `entry "scripts/" is a directory entry`) {
		t.Errorf("problems:\n%s", got)
	}
}

func TestUnpackGarbage(t *testing.T) {
	for _, ext := range []string{layout.TarGz, layout.Zip} {
		u := unpack([]byte("not an archive"), ext, testLimits, layout.EntryFile, false)
		if len(u.problems) != 1 || !strings.Contains(u.problems[0], "is not a") {
			t.Errorf("%s: problems %q", ext, u.problems)
		}
	}
	// A tar header that promises more than the stream holds.
	data := tarGz(t, file{name: "SKILL.md", body: bytes.Repeat([]byte("x"), 4096)})
	u := unpack(truncateGzip(t, data, 1000), layout.TarGz, testLimits, layout.EntryFile, false)
	if got := strings.Join(u.problems, "\n"); !strings.Contains(got, "is not a valid tar.gz") {
		t.Errorf("truncated: %q", got)
	}
}

// truncateGzip returns a valid gzip stream of the first n bytes of what
// data unpacks to.
func truncateGzip(t *testing.T, data []byte, n int) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, n)
	if _, err := zr.Read(raw); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(raw)
	zw.Close()
	return b.Bytes()
}

// A zip whose entries share one entry's compressed bytes unpacks to more
// than deflate can compress: stopped by the ratio, long before the
// absolute limit. One entry of zeros as deflated as it gets is not.
func TestUnpackZipBomb(t *testing.T) {
	zeros := file{name: "a", body: make([]byte, 4<<20)}
	if u := unpack(zipOf(t, skillMD, zeros), layout.Zip, testLimits, layout.EntryFile, false); u.stopped || len(u.problems) > 0 {
		t.Fatalf("one entry of zeros: stopped %v, problems %q", u.stopped, u.problems)
	}
	u := unpack(overlapping(t, zipOf(t, zeros), 40), layout.Zip, testLimits, layout.EntryFile, false)
	if !u.stopped || !strings.Contains(strings.Join(u.problems, "\n"), "decompression bomb") {
		t.Errorf("stopped %v, problems %q", u.stopped, u.problems)
	}
	// The absolute limit stops what no ratio would.
	small := testLimits
	small.Unpacked = 2 << 20
	if u := unpack(zipOf(t, skillMD, zeros), layout.Zip, small, layout.EntryFile, false); !u.stopped || !strings.Contains(strings.Join(u.problems, "\n"), "more than 2097152 bytes") {
		t.Errorf("over the unpacked limit: stopped %v, problems %q", u.stopped, u.problems)
	}
}

// overlapping returns a zip of one entry, data, with n more entries in its
// central directory (b000, b001, ...) that point at the first one's bytes.
func overlapping(t *testing.T, data []byte, n int) []byte {
	t.Helper()
	cd := bytes.Index(data, []byte("PK\x01\x02"))
	eocd := bytes.LastIndex(data, []byte("PK\x05\x06"))
	if cd < 0 || eocd < cd {
		t.Fatal("no central directory")
	}
	rec := data[cd:eocd]
	nameLen := int(binary.LittleEndian.Uint16(rec[28:]))
	out := bytes.Clone(data[:eocd])
	for i := range n {
		r := bytes.Clone(rec[:46])
		binary.LittleEndian.PutUint16(r[28:], 4)
		r = append(r, fmt.Sprintf("b%03d", i)...)
		out = append(out, append(r, rec[46+nameLen:]...)...)
	}
	end := bytes.Clone(data[eocd:])
	binary.LittleEndian.PutUint16(end[8:], uint16(n+1))
	binary.LittleEndian.PutUint16(end[10:], uint16(n+1))
	binary.LittleEndian.PutUint32(end[12:], uint32(len(out)-cd))
	return append(out, end...)
}

// FuzzUnpack: no input makes unpacking panic, hang or exceed its limits.
func FuzzUnpack(f *testing.F) {
	f.Add(tarGzF(f), false)
	f.Add(zipF(f), true)
	f.Fuzz(func(t *testing.T, data []byte, isZip bool) {
		ext := layout.TarGz
		if isZip {
			ext = layout.Zip
		}
		l := pack.Limits{Entries: 50, Unpacked: 1 << 20, File: 1 << 20, Ratio: 100}
		u := unpack(data, ext, l, layout.EntryFile, false)
		var n int64
		for _, e := range u.entries {
			n += e.Size
		}
		if n > l.Unpacked || len(u.entries) > l.Entries {
			t.Fatalf("limits exceeded: %d bytes in %d entries", n, len(u.entries))
		}
	})
}

func tarGzF(f *testing.F) []byte {
	t := &testing.T{}
	return tarGz(t, skillMD, file{name: "../x", body: []byte("y")})
}

func zipF(f *testing.F) []byte {
	t := &testing.T{}
	return zipOf(t, skillMD, file{name: "/abs", body: []byte("y")})
}

// tarIn is a .tar.gz of files (folders: names ending in "/") written in
// format, as `tar -czf` writes them: the modes umask 002 gives, folders
// as entries of their own.
func tarIn(t *testing.T, format tar.Format, files ...file) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{Name: f.name, Mode: 0o664, Typeflag: tar.TypeReg, Size: int64(len(f.body)), Format: format}
		if strings.HasSuffix(f.name, "/") {
			hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o775
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write(f.body)
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}
