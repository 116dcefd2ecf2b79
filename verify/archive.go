package verify

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// entry is one file read from an archive: never written anywhere, only
// hashed on the way through.
type entry struct {
	path string
	size int64
	sum  [32]byte
	exec bool
}

// unpacked is what reading an archive found.
type unpacked struct {
	entries  []entry  // regular files that passed every check, in archive order
	problems []string // each says what is wrong and with which entry
	stopped  bool     // a limit stopped reading: entries is incomplete
}

func (u *unpacked) bad(name, format string, args ...any) {
	u.problems = append(u.problems, fmt.Sprintf("entry %q ", clipped(name))+fmt.Sprintf(format, args...))
}

// unpack reads a .tar.gz or .zip held in data, checking every entry as an
// unpacker that must not be tricked would: names, types, modes,
// duplicates, sizes and the expansion of the whole.
func unpack(data []byte, ext string, l layout.Limits) *unpacked {
	u := &unpacked{}
	l = l.WithDefaults()
	var err error
	if ext == layout.Zip {
		err = unpackZip(data, l, u)
	} else {
		err = unpackTarGz(data, l, u)
	}
	if err != nil {
		var be *layout.BombError
		u.stopped = u.stopped || errors.As(err, &be)
		u.problems = append(u.problems, err.Error())
	}
	if !u.stopped {
		u.checkSet()
	}
	return u
}

func unpackTarGz(data []byte, l layout.Limits, u *unpacked) error {
	g := l.Unpack(int64(len(data)))
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("is not a gzip stream: %w", err)
	}
	tr := tar.NewReader(g.Reader(zr))
	seen := map[string]bool{}
	for n := 1; ; n++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		// ErrInsecurePath (GODEBUG tarinsecurepath=0) still returns the
		// header; the name checks below say what is wrong with it.
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return tarErr(err)
		}
		if n > l.Entries {
			u.stopped = true
			return fmt.Errorf("has more than %d entries (the limit); stopped", l.Entries)
		}
		if !u.checkName(hdr.Name, seen) {
			continue
		}
		if hdr.Format&(tar.FormatPAX|tar.FormatGNU) != 0 {
			u.bad(hdr.Name, "has a %v header; the skills CLI reads only USTAR tar", hdr.Format)
		}
		switch hdr.Typeflag {
		case tar.TypeReg:
		case tar.TypeSymlink:
			u.bad(hdr.Name, "is a symbolic link to %q; archives may hold regular files only", hdr.Linkname)
			continue
		case tar.TypeLink:
			u.bad(hdr.Name, "is a hard link to %q; archives may hold regular files only", hdr.Linkname)
			continue
		case tar.TypeChar, tar.TypeBlock:
			u.bad(hdr.Name, "is a device; archives may hold regular files only")
			continue
		case tar.TypeFifo:
			u.bad(hdr.Name, "is a named pipe; archives may hold regular files only")
			continue
		case tar.TypeDir:
			u.bad(hdr.Name, "is a directory entry; archives hold files only, with no directory entries")
			continue
		default:
			u.bad(hdr.Name, "has tar type %q; archives may hold regular files only", hdr.Typeflag)
			continue
		}
		exec, ok := u.checkMode(hdr.Name, hdr.FileInfo().Mode())
		if hdr.Size > l.File {
			u.bad(hdr.Name, "is %d bytes, more than the %d-byte limit for one file", hdr.Size, l.File)
			ok = false
		}
		if !ok {
			continue // its bytes are skipped by Next, still through the guard
		}
		h := sha256.New()
		size, err := io.Copy(h, tr)
		if err != nil {
			return tarErr(err)
		}
		e := entry{path: hdr.Name, size: size, exec: exec}
		h.Sum(e.sum[:0])
		u.entries = append(u.entries, e)
	}
}

func tarErr(err error) error {
	var be *layout.BombError
	if errors.As(err, &be) {
		return be
	}
	return fmt.Errorf("is not a valid tar.gz: %w", err)
}

func unpackZip(data []byte, l layout.Limits, u *unpacked) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("is not a valid zip: %w", err)
	}
	if len(zr.File) > l.Entries {
		u.stopped = true
		return fmt.Errorf("has %d entries, more than the limit of %d; not unpacked", len(zr.File), l.Entries)
	}
	g := l.Unpack(int64(len(data)))
	seen := map[string]bool{}
	for _, f := range zr.File {
		if !u.checkName(f.Name, seen) {
			continue
		}
		m := f.Mode()
		switch {
		case m&fs.ModeSymlink != 0:
			u.bad(f.Name, "is a symbolic link; archives may hold regular files only")
			continue
		case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
			u.bad(f.Name, "is a device; archives may hold regular files only")
			continue
		case m&(fs.ModeNamedPipe|fs.ModeSocket) != 0:
			u.bad(f.Name, "is a named pipe or socket; archives may hold regular files only")
			continue
		case m.IsDir() || strings.HasSuffix(f.Name, "/"):
			u.bad(f.Name, "is a directory entry; archives hold files only, with no directory entries")
			continue
		}
		exec, ok := u.checkMode(f.Name, m)
		if f.UncompressedSize64 > uint64(l.File) {
			u.bad(f.Name, "says it is %d bytes, more than the %d-byte limit for one file", f.UncompressedSize64, l.File)
			ok = false
		}
		if !ok {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			u.bad(f.Name, "cannot be read: %v", err)
			continue
		}
		h := sha256.New()
		// The declared size is not trusted: the guard counts what
		// actually comes out.
		size, err := io.Copy(h, io.LimitReader(g.Reader(rc), l.File+1))
		rc.Close()
		var be *layout.BombError
		switch {
		case errors.As(err, &be):
			return be
		case err != nil:
			u.bad(f.Name, "cannot be read: %v", err)
			continue
		case size > l.File:
			u.bad(f.Name, "is more than the %d-byte limit for one file", l.File)
			continue
		}
		e := entry{path: f.Name, size: size, exec: exec}
		h.Sum(e.sum[:0])
		u.entries = append(u.entries, e)
	}
	return nil
}

// checkName reports whether name is a path an unpacker may write, saying
// why not otherwise. The traversal checks come first so that a zip-slip
// entry is called what it is.
func (u *unpacked) checkName(name string, seen map[string]bool) bool {
	why := ""
	switch {
	case slices.Contains(strings.Split(strings.ReplaceAll(name, `\`, "/"), "/"), ".."):
		why = "has a \"..\" segment: unpacking it would write outside the skill folder (path traversal)"
	case strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || len(name) > 1 && name[1] == ':':
		why = "is an absolute path: unpacking it would write outside the skill folder"
	case strings.Contains(name, `\`):
		why = "has a '\\', a path separator on Windows; archives use '/' only"
	case seen[name]:
		why = "appears twice; an unpacker would keep only one of them"
	default:
		if err := pack.CheckPath(strings.TrimSuffix(name, "/")); err != nil {
			var pe *pack.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			why = "is not a valid archive path: " + strings.TrimPrefix(err.Error(), pack.ErrBadPath.Error()+": ")
		}
	}
	seen[name] = true
	if why != "" {
		u.problems = append(u.problems, fmt.Sprintf("entry %q %s", clipped(name), why))
		return false
	}
	return true
}

// checkMode returns the exec bit of a regular file's mode, and false if
// the mode is not one the build writes.
func (u *unpacked) checkMode(name string, m fs.FileMode) (exec, ok bool) {
	switch perm := m.Perm(); {
	case m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0:
		u.bad(name, "has the setuid, setgid or sticky bit; archives use mode 0644 or 0755")
		return false, false
	case perm == 0o644:
		return false, true
	case perm == 0o755:
		return true, true
	default:
		u.bad(name, "has mode %04o; archives use 0644 or 0755", perm)
		return false, false
	}
}

// checkSet checks the entries as a whole: flat layout with SKILL.md at the
// root, sorted, no file that is also a folder, no names equal but for case.
func (u *unpacked) checkSet() {
	paths := make([]string, len(u.entries))
	for i, e := range u.entries {
		paths[i] = e.path
	}
	if !slices.IsSorted(paths) {
		u.problems = append(u.problems, "entries are not sorted by path; skillpack writes them sorted, so the archive was altered or made by something else")
	}
	if len(paths) > 0 && !slices.Contains(paths, layout.EntryFile) {
		u.problems = append(u.problems, "has no "+layout.EntryFile+" at its root; archives are flat, with no wrapper folder")
	}
	sorted := slices.Sorted(slices.Values(paths))
	folded := map[string]string{}
	for i, p := range sorted {
		if i+1 < len(sorted) && strings.HasPrefix(sorted[i+1], p+"/") {
			u.bad(p, "is both a file and the folder of %q", sorted[i+1])
		}
		low := strings.ToLower(p)
		if other, ok := folded[low]; ok {
			u.bad(p, "differs from %q only in case; case-insensitive file systems would unpack both to one file", other)
		}
		folded[low] = p
	}
}

// contentDigest is the skill's content digest as the archive's entries
// give it: the one pack.ContentDigest computes from the source.
func contentDigest(es []entry) layout.Digest {
	pes := make([]pack.Entry, len(es))
	for i, e := range es {
		pes[i] = pack.Entry{Path: e.path, Exec: e.exec, Size: e.size, Sum: e.sum}
	}
	sum := pack.ContentDigest(pes)
	return layout.SumDigest(sum[:])
}
