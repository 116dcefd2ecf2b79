package pack

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/layout"
)

// fuzzFiles derives a set of files from fuzz input. Each record is a head
// byte (bit 7: exec; bit 6: repeat the path five times, to reach the USTAR
// limits; bits 0-5: path length - 1), a content length byte, the path bytes
// and the content. Path bytes map onto a small alphabet, so that separators,
// dots, empty and ".." components, duplicates and file/folder clashes are
// common, with a Chinese character, an accent to combine, a bidirectional
// override and a byte that is not UTF-8 among them. The result is sorted
// and unique, but not filtered: Add must sort out the invalid paths itself.
func fuzzFiles(data []byte) []file {
	alphabet := []string{"a", "b", ".", "-", "/", "_", "A", "\\", "文", "\u0301", "\u202e", "\xff"}
	take := func(n int) []byte {
		n = min(n, len(data))
		b := data[:n]
		data = data[n:]
		return b
	}
	seen := map[string]bool{}
	var files []file
	for len(data) >= 2 && len(files) < 32 {
		head, size := data[0], int(data[1])
		data = data[2:]
		var p []byte
		for _, c := range take(int(head&0x3f) + 1) {
			p = append(p, alphabet[int(c)%len(alphabet)]...)
		}
		if head&0x40 != 0 {
			p = bytes.Repeat(p, 5)
		}
		content := take(size)
		if seen[string(p)] {
			continue
		}
		seen[string(p)] = true
		files = append(files, file{string(p), head&0x80 != 0, string(content)})
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.path, b.path) })
	return files
}

// wantTimes is what each format should record for Options.Time = sec.
func wantTimes(sec int64) (tarTime, zipTime time.Time) {
	tarTime = time.Unix(min(max(sec, 0), 1<<33-1), 0)
	lo := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2107, 12, 31, 23, 59, 58, 0, time.UTC).Unix()
	z := min(max(sec, lo), hi)
	zipTime = time.Unix(z-z%2, 0) // 1980 and 2107 bounds are even
	return tarTime, zipTime
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("\x08\x05SKILL.md#hi\n"), int64(0))
	f.Add([]byte("\x03\x02a/ab\x83\x01a/bx\x01\x00aa"), int64(1700000001))
	f.Add([]byte("\x00\x01aa\x02\x01a/bb"), int64(-1))                                       // "a" then "a/b": a file and a folder
	f.Add([]byte("\x02\x00../\x02\x00/ab\x01\x00\\a\x02\x00a//"), int64(1<<40))              // invalid paths
	f.Add(append([]byte("\x5f\x10"), bytes.Repeat([]byte("abcd"), 20)...), int64(315532800)) // a long path
	f.Fuzz(func(t *testing.T, data []byte, sec int64) {
		files := fuzzFiles(data)
		opts := Options{Time: time.Unix(sec, 0)}

		pack := func() (tgz, zp []byte, kept []file) {
			var tb, zb bytes.Buffer
			w := NewWriter(&tb, &zb, opts)
			added := map[string]bool{}
			for _, f := range files {
				sum, err := w.Add(f.path, f.exec, int64(len(f.data)), strings.NewReader(f.data))
				clash := false
				for d := range parents(f.path) {
					clash = clash || added[d]
				}
				switch {
				case err == nil:
					if cerr := CheckPath(f.path); cerr != nil || clash {
						t.Fatalf("Add(%q) accepted a path CheckPath refuses (%v) or a file/folder clash (%v)", f.path, cerr, clash)
					}
					if sum != sha256.Sum256([]byte(f.data)) {
						t.Fatalf("Add(%q): wrong sum", f.path)
					}
					added[f.path] = true
					kept = append(kept, f)
				case errors.Is(err, ErrBadPath) || errors.Is(err, ErrTooLong):
					if CheckPath(f.path) == nil && !clash {
						t.Fatalf("Add(%q) refused a valid path: %v", f.path, err)
					}
				default:
					t.Fatalf("Add(%q): %v", f.path, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return tb.Bytes(), zb.Bytes(), kept
		}
		tgz, zp, kept := pack()
		tgz2, zp2, _ := pack()
		if !bytes.Equal(tgz, tgz2) || !bytes.Equal(zp, zp2) {
			t.Fatal("two packs of the same files differ")
		}

		tarTime, zipTime := wantTimes(sec)
		sameFiles(t, "tar", readTar(t, tgz, tarTime), kept, "")
		sameFiles(t, "zip", readZip(t, zp, zipTime), kept, "")
	})
}

// FuzzCheckPath checks the name → header path: that a path CheckPath
// accepts is in a USTAR header that Go's reader and the skills CLI's way of
// reading one (the name and prefix fields, joined by '/') both give back
// unchanged, and that for every ASCII path archive/tar writes as USTAR the
// header is archive/tar's, byte for byte, whatever the mode, size and time
// (so ASCII archives keep their bytes). It runs thousands of paths a second.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"SKILL.md", "a/../b", strings.Repeat("d", 155) + "/" + strings.Repeat("n", 100), "caf\u00e9", "a\x00b",
		"参考/说明.md", "cafe\u0301.md", "C:x.md", "a\u202eb", "bad\xff", strings.Repeat("文", 34), strings.Repeat("目", 51) + "/" + strings.Repeat("文", 33)} {
		f.Add(s, int64(12), int64(315532800))
	}
	f.Fuzz(func(t *testing.T, p string, size, mtime int64) {
		size, mtime = max(size, -size, 0)%(MaxSize+1), max(mtime, -mtime, 0)%(tarMax.Unix()+1)
		err := CheckPath(p)
		var tb bytes.Buffer
		tw := tar.NewWriter(&tb)
		terr := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: 0o755, Size: size, ModTime: time.Unix(mtime, 0), Format: tar.FormatUSTAR})
		if err != nil {
			if !errors.Is(err, ErrBadPath) && !errors.Is(err, ErrTooLong) {
				t.Fatalf("CheckPath(%q) = %v, not ErrBadPath or ErrTooLong", p, err)
			}
		} else {
			if lerr := layout.CheckPath(p); lerr != nil {
				t.Fatalf("CheckPath(%q) accepted a path the bundle refuses: %v", p, lerr)
			}
			var blk [blockSize]byte
			ustarHeader(&blk, p, 0o755, size, mtime)
			if terr == nil && !bytes.Equal(blk[:], tb.Bytes()[:blockSize]) {
				t.Fatalf("header of %q differs from archive/tar's:\n% x\n% x", p, blk, tb.Bytes()[:blockSize])
			}
			raw := append(blk[:], make([]byte, 2*blockSize)...)
			h, err := tar.NewReader(bytes.NewReader(raw)).Next()
			if err != nil || h.Name != p || h.Size != size || h.ModTime.Unix() != mtime || h.Format != ustarFormat(p) {
				t.Fatalf("%q read back by archive/tar as %+v, %v", p, h, err)
			}
			// The skills CLI: name, and prefix + "/" + name when the prefix is not empty.
			field := func(b []byte) string { n, _, _ := bytes.Cut(b, []byte{0}); return string(n) }
			got := field(blk[0:100])
			if prefix := field(blk[345:500]); prefix != "" {
				got = prefix + "/" + got
			}
			if got != p {
				t.Fatalf("%q read back from the USTAR fields as %q", p, got)
			}
		}
		ascii := !strings.ContainsFunc(p, func(r rune) bool { return r == 0 || r >= 0x80 })
		if ascii && FitsUSTAR(p) != (terr == nil) && !strings.HasSuffix(p, "/") {
			t.Fatalf("FitsUSTAR(%q) = %v, archive/tar USTAR error %v", p, FitsUSTAR(p), terr)
		}
	})
}
