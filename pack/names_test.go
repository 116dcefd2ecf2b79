package pack

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// unicodeSkill is a skill written in Chinese, with the other names that
// reach the build: an accented letter (NFC, as git and most editors write
// it), an emoji, a macOS screenshot name (U+202F before "AM"), Persian with
// its zero-width non-joiner, and a Chinese path too long for the name
// field alone (51 characters, 153 bytes, of folder in the prefix field; 33
// characters, 99 bytes, of name).
var unicodeSkill = func() []file {
	files := []file{
		{"SKILL.md", false, "---\nname: zh-notes\ndescription: 中文技能，用于测试。\n---\n\n# 中文\n\n阅读 [说明](参考/说明.md)。\n"},
		{"assets/Screenshot 2024-05-01 at 10.15.32\u202fAM.png", false, "\x89PNG\r\n"},
		{"references/caf\u00e9.md", false, "café\n"},
		{"references/می\u200cخواهم.md", false, "فارسی\n"},
		{"scripts/🚀.sh", true, "#!/bin/sh\necho 你好\n"},
		{"参考/说明.md", false, strings.Repeat("说明：先读这个文件。\n", 400)},
		{strings.Repeat("目", 51) + "/" + strings.Repeat("文", 33), false, "长路径\n"},
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.path, b.path) })
	return files
}()

func nonASCII(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf })
}

// TestUnicodeNames checks that names in any script are in the archives as
// their UTF-8 bytes, where every reader looks: in the tar, in the USTAR
// name and prefix fields of plain file headers (no PAX or GNU long-name
// entries, which the skills CLI skips); in the zip, with the UTF-8 flag on
// exactly the non-ASCII names, in the local header and the central
// directory alike. Then GNU tar, bsdtar, unzip and Python unpack both
// archives to the same names and bytes, in a UTF-8 locale and in the C
// locale. The skills CLI installs them in serve's TestSkillsCLIUnicode.
func TestUnicodeNames(t *testing.T) {
	tgz, zp, _ := build(t, unicodeSkill, Options{})
	tgz2, zp2, _ := build(t, unicodeSkill, Options{})
	if !bytes.Equal(tgz, tgz2) || !bytes.Equal(zp, zp2) {
		t.Error("two packs of the same files differ")
	}
	mtime := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	sameFiles(t, "tar", readTar(t, tgz, mtime), unicodeSkill, "")
	sameFiles(t, "zip", readZip(t, zp, mtime), unicodeSkill, "")

	raw := gunzip(t, tgz)
	field := func(b []byte) string { s, _, _ := bytes.Cut(b, []byte{0}); return string(s) }
	var paths []string
	for off := 0; off+blockSize <= len(raw); {
		blk := raw[off : off+blockSize]
		if bytes.Equal(blk, zeroBlock[:]) {
			break
		}
		name, prefix := field(blk[0:100]), field(blk[345:500])
		if blk[156] != '0' || field(blk[257:265]) != "ustar" {
			t.Fatalf("entry %q: type %q, magic %q; want only USTAR regular files", name, blk[156], blk[257:265])
		}
		p := name
		if prefix != "" {
			p = prefix + "/" + name
		}
		paths = append(paths, p)
		size, err := strconv.ParseInt(field(blk[124:136]), 8, 64)
		if err != nil {
			t.Fatal(err)
		}
		off += blockSize + int(size+blockSize-1)/blockSize*blockSize
	}
	var want []string
	for _, f := range unicodeSkill {
		want = append(want, f.path)
	}
	if !slices.Equal(paths, want) {
		t.Errorf("the USTAR fields hold\n%q\nwant\n%q", paths, want)
	}

	zr, err := zip.NewReader(bytes.NewReader(zp), int64(len(zp)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		flag := f.Flags&zipFlagUTF8 != 0
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		local := binary.LittleEndian.Uint16(zp[off-int64(30+len(f.Name))+6:])
		if flag != nonASCII(f.Name) || f.NonUTF8 || local != f.Flags {
			t.Errorf("%q: flags %#x in the central directory, %#x in the local header; want the UTF-8 flag %#x exactly on non-ASCII names",
				f.Name, f.Flags, local, zipFlagUTF8)
		}
	}

	for _, loc := range []string{"C.UTF-8", "C"} {
		t.Run(loc, func(t *testing.T) {
			t.Setenv("LC_ALL", loc)
			tools(t, tgz, zp, unicodeSkill)
		})
	}
}

// TestNFDNames checks that a name is packed as it is written: a name in
// NFD, as macOS's older file systems write "é" (an "e" and U+0301), stays
// NFD in both archives, and beside its NFC twin is another file (lint's
// path-collision reports such a pair, which a Mac would unpack as one).
func TestNFDNames(t *testing.T) {
	files := []file{{"cafe\u0301.md", false, "nfd"}, {"caf\u00e9.md", false, "nfc"}}
	tgz, zp, _ := build(t, files, Options{})
	mtime := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	sameFiles(t, "tar", readTar(t, tgz, mtime), files, "")
	sameFiles(t, "zip", readZip(t, zp, mtime), files, "")
}
