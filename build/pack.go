package build

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/build/internal/scratch"
	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/internal/smallfile"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// pack takes every skill from its folder to its archives, one worker per
// job (see process). Once a skill has an error-level finding no more are
// packed, but every skill is still linted, so that all findings are
// reported at once. A worker holds one skill's bytes at a time.
func (b *builder) pack(d *discovered) (*packed, string, error) {
	if !b.opts.DryRun {
		b.st.spare = b.opts.Spare
		if err := b.st.make(d.out.dir, b.logf); err != nil {
			return nil, "", err
		}
		b.st.swapped = b.opts.Swapped
	}
	sums, err := scratch.New()
	if err != nil {
		return nil, "", err
	}
	p := &packed{discovered: d, sums: sums}
	wait := mayShare(d.skills)
	for i, s := range d.skills {
		p.work = append(p.work, &work{src: s, wait: wait[i]})
	}
	var done atomic.Int64
	var mu sync.Mutex
	err = parallel.Each(len(p.work), b.opts.Jobs, func(i int) error {
		if err := b.interrupted(); err != nil {
			return err
		}
		b.process(p, p.work[i])
		if n := done.Add(1); b.opts.Progress != nil {
			mu.Lock()
			fmt.Fprintf(b.opts.Progress, "\r  packing %d/%d", n, len(p.work))
			mu.Unlock()
		}
		return nil
	})
	if b.opts.Progress != nil {
		fmt.Fprint(b.opts.Progress, "\r\033[K")
	}
	if err != nil {
		return p, "", err
	}
	fresh, reused, waiting, invalid := 0, 0, 0, 0
	for _, w := range p.work {
		switch {
		case w.reused:
			reused++
		case w.kept:
			fresh++
		case w.invalid:
			invalid++
		default: // held back (mayShare), or another skill had its name (claim)
			waiting++
		}
	}
	if p.failed.Load() {
		// How many were packed before the error depends on the workers'
		// timing; nothing packed is written.
		b.logf("• pack: %s linted, packing stopped at the first error", human.Plural(len(p.work), "skill", "skills"))
		return p, "", nil
	}
	held := ""
	if invalid > 0 { // so that the figures add up: lint says they are left out
		held = fmt.Sprintf(", %d with errors", invalid)
	}
	if waiting > 0 {
		held += fmt.Sprintf("; %d that may lose their name wait for lint", waiting)
	}
	b.logf("• pack: %s (%d packed, %d reused%s)", human.Plural(len(p.work), "skill", "skills"), fresh, reused, held)
	return p, "", nil
}

// mayShare tells, for each skill, whether it may lose its name to another
// once lint has judged them all: a name two skills share leaves both out,
// and a skill inside another's folder leaves it to a skill outside
// (lint.Shadowed). Such a skill is packed only once lint has said it is
// published (leaveOut), or every build would pack it and throw it away.
// Names are read as each skill is packed, so the folders' names stand for
// them, as in lint.Scope.Dedupe (see claim for a skill named otherwise).
func mayShare(skills []*skill.Skill) []bool {
	dirs := make([]string, len(skills))
	folders := map[string]int{}
	for i, s := range skills {
		dirs[i] = s.Dir
		folders[s.Name()]++
	}
	out := make([]bool, len(skills))
	for i, in := range lint.Nesting(dirs) {
		out[i] = in != "" || folders[skills[i].Name()] > 1
	}
	return out
}

// process takes one skill through the per-skill steps: read SKILL.md,
// collect the files, hash them when the previous build may have packed the
// same, lint, then pack or reuse. A lint or pack error stops later skills
// from being packed; which error the build reports is decided later, in
// skill order, so that it does not depend on the workers' timing.
func (b *builder) process(p *packed, wk *work) {
	w := &task{work: wk}
	s := w.src
	s.Read()
	w.name = lint.SkillName(s)
	if !b.opts.NoReuse {
		w.last = p.out.last.Skill(w.name)
		// Left out last time, it is likely left out again (a name two
		// skills share whose folders are named apart, unseen by mayShare).
		wk.wait = wk.wait || p.out.last.Skipped(w.name)
	}
	w.files, w.collErr = s.Collect()
	if r, ok := s.Whole(); ok && w.files != nil {
		w.files.Keep(s.File, r) // packed from the bytes parsed
	}
	onCollected(w.name)
	if w.last != nil && w.files != nil && sameShape(w.last.Files, w.files.Files) {
		// Lint says what is wrong with a file that cannot be hashed.
		if w.hashed, w.err = hashFiles(w); w.err == nil {
			w.lintKey = b.lintKey(w, w.hashed)
		}
	}

	w.verdict, w.findings = lint.CheckSkill(s, w.files, w.collErr, func() ([]lint.Finding, bool) {
		if fs, ok := b.keptVerdict(w); ok {
			w.asKept = true
			return fs, true
		}
		onLint()
		return nil, false
	}, b.lintOpts)
	if errs, _, _ := lint.Count(w.findings); errs > 0 || b.refused(w, cmp.Or(b.checkReadable(w), b.checkLimits(w))) {
		w.invalid = true
	}
	switch {
	case w.invalid, w.err != nil, p.failed.Load():
	case w.wait && !p.settled: // packed once lint has said it is published (mayShare)
	case !p.claim(w.work): // another skill has its name
	default:
		if w.err = b.packOne(p, w); w.err == nil {
			w.err = b.keep(p, w)
		}
		if b.refused(w, w.err) {
			w.err = nil
		}
	}
	// With SkipInvalid an invalid skill is left out, and the others go on.
	if w.err != nil || w.invalid && !b.opts.SkipInvalid {
		p.failed.Store(true)
	}
	// The checks across skills read only the name and where it is.
	w.rootRef = s.Doc != nil && bytes.Contains(s.Doc.Raw, []byte("${CLAUDE_PLUGIN_ROOT}"))
	w.named, s.Doc = lint.NameOf(s), nil
}

// keptVerdict is the previous record's verdict on the skill, when its
// verdict key is this build's (see lint.VerdictKey).
func (b *builder) keptVerdict(w *task) ([]lint.Finding, bool) {
	if w.lintKey == "" || w.last == nil || w.last.Lint != w.lintKey {
		return nil, false
	}
	fs, err := lint.DecodeVerdict(w.src, w.last.Findings, b.lintOpts)
	return fs, err == nil
}

// keep writes the summary of a packed skill, all the later steps read of it.
func (b *builder) keep(p *packed, w *task) error {
	sum := &w.sum
	sum.rec.Key = w.key
	// A verdict the record gave back is kept as the record spells it.
	if w.asKept {
		sum.rec.Lint, sum.rec.Findings = w.lintKey, w.last.Findings
	} else if v, ok := lint.EncodeVerdict(w.src, w.verdict, b.lintOpts); ok {
		sum.rec.Lint, sum.rec.Findings = w.lintKey, v
	}
	sum.license, _ = w.src.Doc.String("license")
	sum.compat, _ = w.src.Doc.String("compatibility")
	sum.leftOut = append(slices.Clone(w.files.Junk), w.files.Ignored...)
	if off, err := checkMCP(w); err != nil {
		return err
	} else if off != nil {
		sum.offMCP, sum.mcpFix = off.Reason, off.Fix
	}
	w.sameLint = w.last != nil && w.last.Lint == sum.rec.Lint && bytes.Equal(w.last.Findings, sum.rec.Findings)
	var err error
	w.at, err = p.sums.Add(sum.encode())
	w.kept = err == nil
	return err
}

// packOne packs one skill, or proves that the previous build's archives
// can be reused: the files hashed before lint match the record (same key)
// and the archives and served copies still hash to their digests.
func (b *builder) packOne(p *packed, w *task) error {
	if err := b.prepare(w); err != nil {
		return err
	}
	if w.hashed != nil {
		if key := b.key(w.hashed); p.out.last.Reusable(w.last, key) {
			w.key, w.reused = key, true
			w.holds = p.out.last.Unchanged(w.last)
			w.sum.rec.Files = layoutFiles(w.hashed)
			w.sum.rec.TarGz, w.sum.rec.Zip = w.last.TarGz, w.last.Zip
			w.sum.rec.ContentDigest = w.last.ContentDigest
			return b.st.held.settle(w.name, w.last)
		}
	}
	if err := b.st.held.settle(w.name, nil); err != nil {
		return err
	}
	return b.packFresh(w)
}

func layoutFiles(entries []pack.Member) []layout.File {
	files := make([]layout.File, len(entries))
	for i, e := range entries {
		files[i] = layout.File{Path: e.Path, Digest: layout.SumDigest(e.Sum[:]), Size: e.Size, Exec: e.Exec}
	}
	return files
}

// packFresh packs a skill into the staging folder.
func (b *builder) packFresh(w *task) error {
	tgz, zip, entries, err := b.packArchives(w, pack.Options{Time: b.opts.Time}, !b.opts.DryRun)
	defer tgz.discard()
	defer zip.discard()
	if err != nil {
		return err
	}
	r := &w.sum.rec
	r.Files = layoutFiles(entries)
	if r.TarGz, err = tgz.finish(); err != nil {
		return b.outputError(err)
	}
	if r.Zip, err = zip.finish(); err != nil {
		return b.outputError(err)
	}
	cd := pack.ContentDigest(entries)
	r.ContentDigest = layout.SumDigest(cd[:])
	w.key = b.key(entries)
	w.lintKey = b.lintKey(w, entries)
	return nil
}

// packArchives reads each file once for the tar, the zip, the file's
// digest and, when serve is set, its served copy; it refuses archives
// larger than a reader of the bundle holds (pack.MaxFile: incompressible
// files can outgrow the files' own limit). The caller finishes or
// discards the archives.
func (b *builder) packArchives(w *task, po pack.Options, serve bool) (tgz, zip *archive, entries []pack.Member, err error) {
	tgz, zip = b.newArchive(w.name, layout.TarGz), b.newArchive(w.name, layout.Zip)
	pw := pack.NewWriter(tgz, zip, po)
	for _, f := range w.files.Files {
		sum, err := b.addFile(pw, w, f, serve)
		if err != nil {
			return tgz, zip, nil, err
		}
		entries = append(entries, pack.Member{Path: f.Path, Exec: f.Exec(), Size: f.Size, Sum: sum})
	}
	if err := pw.Close(); err != nil {
		return tgz, zip, nil, fmt.Errorf("%s: %w", w.src.Dir, err)
	}
	for _, a := range []*archive{tgz, zip} {
		if a.n > pack.MaxFile {
			return tgz, zip, nil, b.refuse(w, "", "skill-too-large", "leave large files out with "+skill.IgnoreFile+" and fetch them at run time, or split the skill",
				"the skill's %s archive is %d bytes; verify and pull read no file over %d bytes (64 MiB)", a.ext, a.n, int64(pack.MaxFile))
		}
	}
	return tgz, zip, entries, nil
}

func (b *builder) addFile(pw *pack.Writer, w *task, f skill.File, serve bool) ([32]byte, error) {
	src := filepath.Join(w.src.Dir, filepath.FromSlash(f.Path))
	// The bytes lint read whole are packed as they are, if the file still
	// has the time it had then (checked below, as for a file read here).
	var r io.Reader
	var modTime time.Time
	if kept, ok := w.files.Kept(f.Path); ok && int64(len(kept.Data)) == f.Size {
		r, modTime = bytes.NewReader(kept.Data), kept.Mod
	} else {
		onRead(f.Disk)
		in, err := smallfile.Open(f.Disk)
		if err != nil {
			return [32]byte{}, fmt.Errorf("%s: %w", src, err)
		}
		defer in.Close()
		before, err := in.Stat()
		if err != nil {
			return [32]byte{}, fmt.Errorf("%s: %w", src, err)
		}
		r, modTime = in, before.ModTime()
	}
	var copyOut *os.File
	var out *served
	if serve {
		var err error
		if copyOut, err = b.st.create(b.st.path(layout.SkillFile(w.name, f.Path)), pack.Perm(f.Exec())); err != nil {
			return [32]byte{}, b.outputError(err)
		}
		defer copyOut.Close()
		out = &served{w: wrapServed(copyOut)}
		r = io.TeeReader(r, out)
	}
	sum, err := pw.Add(f.Path, f.Exec(), f.Size, r)
	if err != nil {
		if out != nil && out.err != nil {
			return sum, b.outputError(out.err)
		}
		if errors.Is(err, pack.ErrChanged) {
			return sum, &InputChangedError{src}
		}
		return sum, fmt.Errorf("%s: %w", src, err)
	}
	// A file rewritten in place with the same size is caught by its time.
	if after, err := os.Stat(f.Disk); err != nil || !after.ModTime().Equal(modTime) || after.Size() != f.Size {
		return sum, &InputChangedError{src}
	}
	if copyOut != nil {
		if err := copyOut.Close(); err != nil {
			return sum, b.outputError(err)
		}
	}
	return sum, nil
}

// served is the served copy of a file as it is packed. Its write error
// is kept as the output's: through the tee, it looked like the input's.
type served struct {
	w   io.Writer
	err error
}

func (s *served) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// outputError says that writing the output failed, and for a full disk where.
func (b *builder) outputError(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("writing the output: no space left on the device of %s (%w); free some space there, or build into a folder on another device with -o", b.st.out, err)
	}
	return fmt.Errorf("writing the output: %w", err)
}

// hashFiles reads and hashes a skill's files without packing them.
func hashFiles(w *task) ([]pack.Member, error) {
	var entries []pack.Member
	for _, f := range w.files.Files {
		if kept, ok := w.files.Kept(f.Path); ok && int64(len(kept.Data)) == f.Size {
			// SKILL.md was read whole to be parsed: hash what lint checks.
			entries = append(entries, pack.Member{Path: f.Path, Exec: f.Exec(), Size: f.Size, Sum: sha256.Sum256(kept.Data)})
			continue
		}
		onRead(f.Disk)
		sum, n, err := bundle.SumFile(f.Disk)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(w.src.Dir, f.Path), err)
		}
		entries = append(entries, pack.Member{Path: f.Path, Exec: f.Exec(), Size: n, Sum: sum})
	}
	return entries, nil
}

// sameShape reports whether the record lists the collected files' paths,
// sizes and exec bits: only then is hashing worth trying.
func sameShape(rec []layout.File, files []skill.File) bool {
	return slices.EqualFunc(rec, files, func(r layout.File, f skill.File) bool {
		return r.Path == f.Path && r.Size == f.Size && r.Exec == f.Exec()
	})
}

// key is the skill's archive key (reuse.ArchiveKey).
func (b *builder) key(entries []pack.Member) layout.Digest {
	return reuse.ArchiveKey(Generator(), b.opts.Time, entries)
}

// archive collects one archive while hashing it; finish writes it under
// its content-addressed name. Most are small and kept in memory, written
// once under their final name: a temporary file and a rename would double
// the metadata calls, which dominate a large build. One that outgrows
// spillSize moves to a temporary file. In a dry run it only hashes.
type archive struct {
	b    *builder
	name string
	ext  string
	buf  *bytes.Buffer // the archive, until it outgrows spillSize
	f    *os.File      // the archive after that
	w    *bufio.Writer // the compressors write in small pieces; one syscall each would dominate
	sum  hash.Hash     // of every byte written
	n    int64         // bytes written
}

// spillSize is the largest archive kept in memory (a variable for tests).
var spillSize = 8 << 20

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (b *builder) newArchive(name, ext string) *archive {
	a := &archive{b: b, name: name, ext: ext, sum: sha256.New()}
	if !b.opts.DryRun {
		a.buf = bufPool.Get().(*bytes.Buffer)
	}
	return a
}

func (a *archive) Write(p []byte) (int, error) {
	a.sum.Write(p)
	a.n += int64(len(p))
	switch {
	case a.f != nil:
		return a.w.Write(p)
	case a.buf == nil:
		return len(p), nil
	case a.buf.Len()+len(p) > spillSize:
		if err := a.spill(); err != nil {
			return 0, err
		}
		return a.w.Write(p)
	}
	return a.buf.Write(p)
}

func (a *archive) spill() error {
	a.b.st.touched.Store(true)
	f, err := os.CreateTemp(a.b.st.dir, "."+a.name+"-*."+a.ext+".part")
	if err != nil {
		return err
	}
	a.f = f
	a.w = bufio.NewWriterSize(f, 64<<10)
	_, err = a.w.Write(a.buf.Bytes())
	a.release()
	return err
}

func (a *archive) release() {
	if a.buf != nil {
		a.buf.Reset()
		bufPool.Put(a.buf)
		a.buf = nil
	}
}

func (a *archive) result() layout.Archive {
	return layout.Archive{Digest: layout.SumDigest(a.sum.Sum(nil)), Size: a.n}
}

// finish writes the archive under its content-addressed name.
func (a *archive) finish() (layout.Archive, error) {
	ar := a.result()
	return ar, a.finishAt(a.b.st.path(layout.ArchivePath(a.name, ar.Digest, a.ext)), false)
}

// finishAt writes the archive to path: from memory, or from its temporary
// file in one rename, always with replace, so that a file already there is
// replaced at once (skillpack pack writes beside the user's files).
func (a *archive) finishAt(path string, replace bool) error {
	if a.buf != nil && replace {
		if err := a.spill(); err != nil {
			return err
		}
	}
	switch {
	case a.buf != nil:
		defer a.release()
		return a.b.st.writeFile(path, a.buf.Bytes())
	case a.f == nil:
		return nil // a dry run
	}
	if err := a.w.Flush(); err != nil {
		return err
	}
	// CreateTemp makes 0600; a bundle is meant to be served.
	if err := a.f.Chmod(0o644); err != nil {
		return err
	}
	if err := a.f.Close(); err != nil {
		return err
	}
	if err := a.b.st.mkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	if err := os.Rename(a.f.Name(), path); err != nil {
		return err
	}
	a.f = nil
	a.b.st.made.Add(1)
	return nil
}

// InputChangedError is a source file that changed while it was packed. Nothing was written.
type InputChangedError struct{ Path string }

func (e *InputChangedError) Error() string {
	return e.Path + " changed while it was being packed; run the build again"
}

// ExitClass is the command's exit code: 1, a failed check.
func (*InputChangedError) ExitClass() int { return 1 }

func (a *archive) discard() {
	a.release()
	if a.f != nil {
		a.f.Close()
		os.Remove(a.f.Name())
	}
}

// prepare checks what lint reports but the build cannot go on without,
// and reads the frontmatter as JSON.
func (b *builder) prepare(w *task) error {
	s := w.src
	fm, err := s.Doc.FrontmatterJSON()
	if err != nil {
		return b.refuse(w, s.File, "yaml-complex-key", "", "the frontmatter has no faithful JSON form: %v", err)
	}
	desc, _ := s.Doc.String("description")
	// A top-level version counts where the profile knows the key (Claude
	// Code's); elsewhere lint calls it unknown.
	topLevel := b.lintOpts.Settings.Profile.KnownKey("version")
	w.sum = summary{rec: layout.RecordSkill{Name: w.name}, description: desc, frontmatter: fm, version: layout.VersionOf(fm, topLevel)}
	return nil
}

// lintKey is lint's verdict key for the skill (lint.VerdictKey).
func (b *builder) lintKey(w *task, entries []pack.Member) layout.Digest {
	return layout.Digest(lint.VerdictKey(w.src, w.files, entries, b.lintOpts))
}
