package skill

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"

	"github.com/skillpack/skillpack/internal/smallfile"
)

// Identical reports whether two skill folders publish the same files: the
// same paths, execute bits and bytes. Vendor repositories ship one skill
// in several plugin folders, byte for byte; such copies are one skill. A
// folder whose files cannot all be collected or read is identical to none.
func Identical(a, b *Skill) bool {
	fa, err := Collect(a.Dir)
	if err != nil || len(fa.Refused) > 0 {
		return false
	}
	fb, err := Collect(b.Dir)
	if err != nil || len(fb.Refused) > 0 || !slices.EqualFunc(fa.Files, fb.Files, func(f, g File) bool {
		return f.Path == g.Path && f.Exec() == g.Exec() && f.Size == g.Size
	}) {
		return false
	}
	for i, f := range fa.Files {
		if !sameBytes(f.Disk, fb.Files[i].Disk) {
			return false
		}
	}
	return true
}

// SameEntry reports whether two skills' entry files hold the same bytes:
// a client's installed copy keeps the SKILL.md it copied (the Vercel CLI
// drops execute bits, so a copy is not Identical), another version of
// the skill does not.
func SameEntry(a, b *Skill) bool {
	return sameBytes(filepath.Join(a.Dir, a.File), filepath.Join(b.Dir, b.File))
}

// sameBytes reports whether two files hold the same bytes, reading both a
// block at a time.
func sameBytes(a, b string) bool {
	fa, err := smallfile.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := smallfile.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	var ba, bb [32 << 10]byte
	for {
		na, ea := io.ReadFull(fa, ba[:])
		nb, eb := io.ReadFull(fb, bb[:])
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF)
		}
	}
}
