package build

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// keyVersion changes whenever the archive bytes for the same input could
// change without the generator string changing (a header decision in
// package pack, say), so that old archives are never reused for new rules.
const keyVersion = "skillpack-archive-key/1"

// pack packs every skill, one worker per job. A skill whose files match the
// previous build's record (same key, intact archives) is not packed again.
func (b *builder) pack() error {
	if !b.opts.DryRun {
		if _, err := b.staging(); err != nil {
			return err
		}
	}
	var done atomic.Int64
	var mu sync.Mutex
	err := b.each(func(w *work) error {
		err := b.packOne(w)
		if n := done.Add(1); b.opts.Progress != nil {
			mu.Lock()
			fmt.Fprintf(b.opts.Progress, "\r  packing %d/%d", n, len(b.work))
			mu.Unlock()
		}
		return err
	})
	if b.opts.Progress != nil {
		fmt.Fprint(b.opts.Progress, "\r\033[K")
	}
	if err != nil {
		return err
	}
	for _, w := range b.work {
		if w.reused {
			b.res.Reused++
		} else {
			b.res.Packed++
		}
	}
	b.logf("• pack: %s (%d packed, %d reused)", plural(len(b.work), "skill", "skills"), b.res.Packed, b.res.Reused)
	return nil
}

// each runs fn on every skill, one worker per job, and returns the first
// error; after an error no further skill is started.
func (b *builder) each(fn func(*work) error) error {
	return parallel.Each(len(b.work), b.opts.Jobs, func(i int) error { return fn(b.work[i]) })
}

// packOne packs one skill, or proves that the previous build's archives
// can be reused: the files hashed before lint match the record (same key)
// and the archives and served copies still hash to their digests.
func (b *builder) packOne(w *work) error {
	if err := b.prepare(w); err != nil {
		return err
	}
	if w.hashed != nil {
		if key := b.key(w.hashed); key == w.prev.Key && b.archivesIntact(w.prev) && b.filesIntact(w.prev) {
			w.key, w.reused = key, true
			w.out.Files = layoutFiles(w.hashed)
			w.out.TarGz, w.out.Zip = w.prev.TarGz, w.prev.Zip
			w.out.ContentDigest = w.prev.ContentDigest
			return nil
		}
	}
	return b.packFresh(w)
}

// layoutFiles turns pack's entries into layout's files.
func layoutFiles(entries []pack.Entry) []layout.File {
	files := make([]layout.File, len(entries))
	for i, e := range entries {
		files[i] = layout.File{Path: e.Path, Digest: digest(e.Sum[:]), Size: e.Size, Exec: e.Exec}
	}
	return files
}

// packFresh reads each file once and feeds the tar, the zip, the file's
// digest and the served copy from that one read.
func (b *builder) packFresh(w *work) error {
	tgz, err := b.newArchive(w.name, layout.TarGz)
	if err != nil {
		return err
	}
	defer tgz.discard()
	zip, err := b.newArchive(w.name, layout.Zip)
	if err != nil {
		return err
	}
	defer zip.discard()
	pw := pack.NewWriter(tgz, zip, pack.Options{Time: b.opts.Time})
	var entries []pack.Entry
	for _, f := range w.files.Files {
		sum, err := b.addFile(pw, w, f)
		if err != nil {
			return err
		}
		entries = append(entries, pack.Entry{Path: f.Path, Exec: f.Exec(), Size: f.Size, Sum: sum})
		w.out.Files = append(w.out.Files, layout.File{Path: f.Path, Digest: digest(sum[:]), Size: f.Size, Exec: f.Exec()})
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("%s: %w", w.src.Dir, err)
	}
	if w.out.TarGz, err = tgz.finish(); err != nil {
		return err
	}
	if w.out.Zip, err = zip.finish(); err != nil {
		return err
	}
	cd := pack.ContentDigest(entries)
	w.out.ContentDigest = digest(cd[:])
	w.key = b.key(entries)
	w.lintKey = b.lintKey(w, entries)
	return nil
}

func (b *builder) addFile(pw *pack.Writer, w *work, f skill.File) ([32]byte, error) {
	src := filepath.Join(w.src.Dir, filepath.FromSlash(f.Path))
	in, err := skill.OpenFile(f.Disk)
	if err != nil {
		return [32]byte{}, fmt.Errorf("%s: %w", src, err)
	}
	defer in.Close()
	before, err := in.Stat()
	if err != nil {
		return [32]byte{}, fmt.Errorf("%s: %w", src, err)
	}
	var r io.Reader = in
	var copyOut *os.File
	if !b.opts.DryRun {
		dst := b.stagePath(layout.SkillFile(w.name, f.Path))
		if err := b.mkdirAll(filepath.Dir(dst)); err != nil {
			return [32]byte{}, err
		}
		if copyOut, err = b.create(dst); err != nil {
			return [32]byte{}, err
		}
		defer copyOut.Close()
		r = io.TeeReader(in, copyOut)
	}
	sum, err := pw.Add(f.Path, f.Exec(), f.Size, r)
	if err != nil {
		if errors.Is(err, pack.ErrChanged) {
			return sum, fmt.Errorf("%s changed while it was being packed; run the build again", src)
		}
		return sum, fmt.Errorf("%s: %w", src, err)
	}
	// A file rewritten in place with the same size is caught by its time.
	if after, err := os.Stat(f.Disk); err != nil || !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		return sum, fmt.Errorf("%s changed while it was being packed; run the build again", src)
	}
	if copyOut != nil {
		if err := copyOut.Close(); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// hashFiles reads and hashes a skill's files without packing them.
func hashFiles(w *work) ([]pack.Entry, error) {
	var entries []pack.Entry
	h := sha256.New()
	buf := make([]byte, 64<<10)
	for _, f := range w.files.Files {
		in, err := skill.OpenFile(f.Disk)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(w.src.Dir, f.Path), err)
		}
		h.Reset()
		n, err := io.CopyBuffer(h, in, buf)
		in.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(w.src.Dir, f.Path), err)
		}
		var sum [32]byte
		h.Sum(sum[:0])
		entries = append(entries, pack.Entry{Path: f.Path, Exec: f.Exec(), Size: n, Sum: sum})
	}
	return entries, nil
}

// sameShape reports whether the record lists the same paths, sizes and
// exec bits as the collected files: only then is hashing worth trying.
func sameShape(rec []layout.File, files []skill.File) bool {
	if len(rec) != len(files) {
		return false
	}
	for i, f := range files {
		if rec[i].Path != f.Path || rec[i].Size != f.Size || rec[i].Exec != f.Exec() {
			return false
		}
	}
	return true
}

// key is what archive bytes are a function of: the format, the generator,
// the fixed time and the files.
func (b *builder) key(entries []pack.Entry) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%d\n", keyVersion, Generator(), b.opts.Time.Unix())
	h.Write(pack.Manifest(entries))
	return digest(h.Sum(nil))
}

// archivesIntact checks the previous bundle's archives against the record
// before they are reused: a tampered or truncated archive is packed again.
func (b *builder) archivesIntact(c *cachedSkill) bool {
	for _, a := range []struct {
		ar  layout.Archive
		ext string
	}{{c.TarGz, layout.TarGz}, {c.Zip, layout.Zip}} {
		p := filepath.Join(b.out, filepath.FromSlash(layout.ArchivePath(c.Name, a.ar.Digest, a.ext)))
		d, n, err := hashFile(p)
		if err != nil || d != a.ar.Digest || n != a.ar.Size {
			return false
		}
	}
	return true
}

// filesIntact checks the previous bundle's served copies of a skill's
// files, which a reused skill links rather than copies: a damaged copy
// must not outlive the build.
func (b *builder) filesIntact(c *cachedSkill) bool {
	for _, f := range c.Files {
		p := filepath.Join(b.out, filepath.FromSlash(layout.SkillFile(c.Name, f.Path)))
		d, n, err := hashFile(p)
		if err != nil || d != f.Digest || n != f.Size {
			return false
		}
	}
	return true
}

func hashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return digest(h.Sum(nil)), n, err
}

func digest(sum []byte) string { return "sha256:" + hex.EncodeToString(sum) }

// archive streams one archive into a temporary file in the staging folder
// while hashing it; finish renames it to its content-addressed name. In a
// dry run it only hashes.
type archive struct {
	b    *builder
	name string
	ext  string
	f    *os.File
	w    *bufio.Writer // the compressors write in small pieces; one syscall each would dominate
	h    hash.Hash
	n    int64
}

func (b *builder) newArchive(name, ext string) (*archive, error) {
	a := &archive{b: b, name: name, ext: ext, h: sha256.New()}
	if b.opts.DryRun {
		return a, nil
	}
	f, err := os.CreateTemp(b.stage, "."+name+"-*."+ext+".part")
	if err != nil {
		return nil, err
	}
	a.f = f
	a.w = bufio.NewWriterSize(f, 64<<10)
	return a, nil
}

func (a *archive) Write(p []byte) (int, error) {
	a.h.Write(p)
	a.n += int64(len(p))
	if a.f == nil {
		return len(p), nil
	}
	return a.w.Write(p)
}

func (a *archive) finish() (layout.Archive, error) {
	return a.finishAs(func(ar layout.Archive) string {
		return a.b.stagePath(layout.ArchivePath(a.name, ar.Digest, a.ext))
	})
}

// finishAs closes the archive and renames it to the path that dst derives
// from its digest.
func (a *archive) finishAs(dst func(layout.Archive) string) (layout.Archive, error) {
	ar := layout.Archive{Digest: digest(a.h.Sum(nil)), Size: a.n}
	if a.f == nil {
		return ar, nil
	}
	if err := a.w.Flush(); err != nil {
		return ar, err
	}
	if err := a.f.Chmod(0o644); err != nil {
		return ar, err
	}
	if err := a.f.Close(); err != nil {
		return ar, err
	}
	path := dst(ar)
	if err := a.b.mkdirAll(filepath.Dir(path)); err != nil {
		return ar, err
	}
	if err := os.Rename(a.f.Name(), path); err != nil {
		return ar, err
	}
	a.f = nil
	return ar, nil
}

// discard removes an archive that was not finished.
func (a *archive) discard() {
	if a.f != nil {
		a.f.Close()
		os.Remove(a.f.Name())
	}
}
