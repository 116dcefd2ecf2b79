package pack

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// Unpack reads the .tar.gz in data (the .zip with zipped) as an unpacker
// that must not be tricked would, under the limits l: every entry's name,
// type, mode and size, duplicates, and the expansion of the whole, for
// verify, which hashes what it unpacks, and pull, which writes it.
//
// A regular file that passes every check goes to file, with the Size its
// header claims and a reader that fails past l.File; file's error stops
// Unpack. What is wrong with an entry goes to bad, and the entry is
// skipped; bad's error stops Unpack (pull), or it lets it go on (verify).
// bad's rule is set when only the build's rules forbid it (a GNU or PAX
// header, a mode but 0644 or 0755, a directory entry) and the entry is not
// skipped. A limit that stops the reading is a *BombError.
func Unpack(data []byte, zipped bool, l Limits, bad func(name, why string, rule bool) error, file func(e Member, r io.Reader) error) error {
	u := &unpacker{zipped: zipped, l: l.WithDefaults(), bad: bad, file: file, seen: map[string]bool{}}
	if zipped {
		return u.zip(data)
	}
	return u.tarGz(data)
}

type unpacker struct {
	zipped bool
	l      Limits
	bad    func(name, why string, rule bool) error
	file   func(Member, io.Reader) error
	seen   map[string]bool
	err    error // what stops Unpack: bad's or file's error, or the archive's
}

// say hands each why that is not "" to bad and reports whether there was
// one, to skip the entry.
func (u *unpacker) say(name string, whys ...string) bool {
	skip := false
	for _, why := range whys {
		if why != "" && u.err == nil {
			skip, u.err = true, u.bad(name, why, false)
		}
	}
	return skip || u.err != nil
}

// flag hands why, if not "", to bad as a flaw the entry is read despite.
func (u *unpacker) flag(name, why string, rule bool) {
	if why != "" && u.err == nil {
		u.err = u.bad(name, why, rule)
	}
}

func (u *unpacker) tarGz(data []byte) error {
	g := &unpacking{l: u.l, packed: int64(len(data))}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("is not a gzip stream: %w", err)
	}
	tr := tar.NewReader(g.reader(zr))
	for n := 1; u.err == nil; n++ {
		hdr, err := tr.Next()
		switch {
		case err == io.EOF:
			return nil
		// ErrInsecurePath (GODEBUG tarinsecurepath=0) still returns the
		// header; the name checks below say what is wrong with it.
		case err != nil && !errors.Is(err, tar.ErrInsecurePath):
			return tarErr(err)
		case n > u.l.Entries:
			return &BombError{fmt.Sprintf("has more than %d entries (the limit); stopped", u.l.Entries)}
		}
		if u.say(hdr.Name, u.checkName(hdr.Name)) {
			continue // its bytes are skipped by Next, still through the guard
		}
		why, rule := tarFormat(hdr)
		u.flag(hdr.Name, why, rule)
		if hdr.Typeflag == tar.TypeDir {
			u.flag(hdr.Name, dirEntry, true)
			continue
		}
		exec, modeWhy, rule := checkMode(hdr.FileInfo().Mode())
		if u.say(hdr.Name, tarType(hdr)) || !rule && u.say(hdr.Name, modeWhy) || u.say(hdr.Name, u.tooLarge("is", uint64(hdr.Size))) {
			continue
		}
		u.flag(hdr.Name, modeWhy, true)
		if g.n+hdr.Size > u.l.Unpacked {
			// A header's claim is held to the limit before file sees a
			// byte of it: pull creates no file the limit would cut short.
			return &BombError{fmt.Sprintf("decompression bomb: unpacks to more than %d bytes (the limit); stopped", u.l.Unpacked)}
		}
		u.entry(Member{Path: hdr.Name, Exec: exec, Size: hdr.Size}, tr)
	}
	return u.err
}

// tooLarge says why a file of size bytes, as its header claims, is too
// large, or "".
func (u *unpacker) tooLarge(claims string, size uint64) string {
	if size <= uint64(u.l.File) {
		return ""
	}
	return fmt.Sprintf("%s %d bytes, more than the %d-byte limit for one file", claims, size, u.l.File)
}

// tarFormat says what is wrong with hdr's format, or "": the build writes
// USTAR only. The skills CLI reads the USTAR fields and skips extension
// entries, so a GNU or PAX header breaks only the build's rule, unless a
// PAX record holds the name.
func tarFormat(hdr *tar.Header) (why string, rule bool) {
	_, paxName := hdr.PAXRecords["path"]
	switch {
	case hdr.Format&(tar.FormatPAX|tar.FormatGNU) == 0:
		return "", true
	case paxName:
		return "has its name in a PAX record, which the skills CLI does not read: it would install the file under another name. Write the name in the USTAR header (bsdtar --format ustar, GNU tar --format=ustar)", false
	}
	return fmt.Sprintf("has a %v header; skillpack writes USTAR headers only", hdr.Format), true
}

// dirEntry is why a directory entry breaks the build's rule.
const dirEntry = "is a directory entry; skillpack's archives hold files only"

// tarType says why an entry of hdr's type is not a file of a skill, or "".
func tarType(hdr *tar.Header) string {
	switch hdr.Typeflag {
	case tar.TypeReg:
		return ""
	case tar.TypeSymlink:
		return fmt.Sprintf("is a symbolic link to %q; archives may hold regular files only", hdr.Linkname)
	case tar.TypeLink:
		return fmt.Sprintf("is a hard link to %q; archives may hold regular files only", hdr.Linkname)
	case tar.TypeChar, tar.TypeBlock:
		return "is a device; archives may hold regular files only"
	case tar.TypeFifo:
		return "is a named pipe; archives may hold regular files only"
	}
	return fmt.Sprintf("has tar type %q; archives may hold regular files only", hdr.Typeflag)
}

func tarErr(err error) error {
	var be *BombError
	if errors.As(err, &be) {
		return be
	}
	return fmt.Errorf("is not a valid tar.gz: %w", err)
}

func (u *unpacker) zip(data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("is not a valid zip: %w", err)
	}
	if len(zr.File) > u.l.Entries {
		return &BombError{fmt.Sprintf("has %d entries, more than the limit of %d; not unpacked", len(zr.File), u.l.Entries)}
	}
	g := &unpacking{l: u.l, packed: int64(len(data))}
	for _, f := range zr.File {
		if u.err != nil {
			break
		}
		if u.say(f.Name, u.checkName(f.Name)) || u.say(f.Name, zipType(f)) {
			continue
		}
		if f.Mode().IsDir() || strings.HasSuffix(f.Name, "/") {
			u.flag(f.Name, dirEntry, true)
			continue
		}
		exec, modeWhy, rule := checkMode(f.Mode())
		if !rule && u.say(f.Name, modeWhy) || u.say(f.Name, u.tooLarge("says it is", f.UncompressedSize64)) {
			continue
		}
		u.flag(f.Name, modeWhy, true)
		rc, err := f.Open()
		if err != nil {
			u.say(f.Name, fmt.Sprintf("cannot be read: %v", err))
			continue
		}
		// The declared size is not trusted: the guard counts what
		// actually comes out.
		u.entry(Member{Path: f.Name, Exec: exec, Size: int64(f.UncompressedSize64)}, g.reader(rc))
		rc.Close()
	}
	return u.err
}

// zipType says why a zip entry is not a file of a skill, or "".
func zipType(f *zip.File) string {
	switch m := f.Mode(); {
	case m&fs.ModeSymlink != 0:
		return "is a symbolic link; archives may hold regular files only"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "is a device; archives may hold regular files only"
	case m&(fs.ModeNamedPipe|fs.ModeSocket) != 0:
		return "is a named pipe or socket; archives may hold regular files only"
	}
	return ""
}

// entry hands one file's bytes to u.file and tells an archive's fault
// (a limit, a corrupt stream) from file's own.
func (u *unpacker) entry(e Member, r io.Reader) {
	er := &entryReader{r: r, left: u.l.File}
	err := u.file(e, er)
	var be *BombError
	switch {
	case er.err == nil || er.err == io.EOF:
		u.err = err
	case errors.As(er.err, &be):
		u.err = be
	case er.err == errTooLarge:
		u.say(e.Path, fmt.Sprintf("is more than the %d-byte limit for one file", u.l.File))
	case u.zipped:
		// A zip's entries are apart: the next may still be read.
		u.say(e.Path, fmt.Sprintf("cannot be read: %v", er.err))
	default:
		u.err = tarErr(er.err)
	}
}

var errTooLarge = errors.New("more than the limit for one file")

// entryReader reads one entry's bytes, fails past left, and keeps the
// first error the archive gave.
type entryReader struct {
	r    io.Reader
	left int64
	err  error
}

func (er *entryReader) Read(p []byte) (int, error) {
	if er.err != nil {
		return 0, er.err
	}
	n, err := er.r.Read(p)
	if er.left -= int64(n); er.left < 0 {
		n += int(er.left)
		err = errTooLarge
	}
	er.err = err
	return n, err
}

// checkName says why name is not a path an unpacker may write, or "",
// naming a zip-slip entry first.
func (u *unpacker) checkName(name string) string {
	why := ""
	switch {
	case slices.Contains(strings.Split(strings.ReplaceAll(name, `\`, "/"), "/"), ".."):
		why = "has a \"..\" segment: unpacking it would write outside the skill folder (path traversal)"
	case strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || len(name) > 1 && name[1] == ':':
		why = "is an absolute path: unpacking it would write outside the skill folder"
	case strings.Contains(name, `\`):
		why = "has a '\\', a path separator on Windows; archives use '/' only"
	case u.seen[name]:
		why = "appears twice; an unpacker would keep only one of them"
	default:
		if err := CheckPath(strings.TrimSuffix(name, "/")); err != nil {
			var pe *PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			why = "is not a valid archive path: " + strings.TrimPrefix(err.Error(), ErrBadPath.Error()+": ")
		}
	}
	u.seen[name] = true
	return why
}

// checkMode returns the owner's exec bit of a regular file's mode, and
// why the mode is not one the build writes, or "", with rule set when only
// the build's rule is broken.
func checkMode(m fs.FileMode) (exec bool, why string, rule bool) {
	perm := m.Perm()
	exec = perm&0o100 != 0
	switch {
	case m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0:
		return false, "has the setuid, setgid or sticky bit; archives use mode 0644 or 0755", false
	case perm == 0o644 || perm == 0o755:
		return exec, "", true
	}
	return exec, fmt.Sprintf("has mode %04o; skillpack's archives use 0644 or 0755", perm), true
}
