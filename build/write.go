package build

import (
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/skillpack/skillpack/catalog"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// index lays out the bundle and renders every document. It only computes;
// write decides whether anything needs writing.
func (b *builder) index() error {
	b.res.Out = b.opts.Out
	if err := b.summarize(); err != nil {
		return err
	}
	b.bundleKey = b.bundleKeyOf()
	if b.fastUpToDate() {
		return nil
	}
	page, err := b.catalog()
	if err != nil {
		return err
	}
	bundle, err := layout.Plan(built{b}, layout.Options{BaseURL: b.opts.BaseURL, NoLegacy: b.opts.NoLegacy, Generator: Generator(), Catalog: page})
	if err != nil {
		return err
	}
	b.bundle = bundle
	b.res.Excluded = bundle.Excluded
	for _, e := range bundle.Excluded {
		b.logf("  warning: %s is left out of the legacy v0.1 index: %s", e.Name, e.Reason)
	}
	rec := Artifact{Path: layout.BuildRecord}
	if rec.Digest, rec.Size, err = render(io.Discard, b.writeRecord); err != nil {
		return err
	}
	b.recDigest = rec.Digest
	b.res.Files = bundle.Len() + 1
	if !b.opts.Inventory {
		return nil
	}
	for e, err := range bundle.Entries() {
		if err != nil {
			return err
		}
		b.res.Artifacts = append(b.res.Artifacts, Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
	}
	b.res.Artifacts = append(b.res.Artifacts, rec)
	sort.Slice(b.res.Artifacts, func(i, j int) bool { return b.res.Artifacts[i].Path < b.res.Artifacts[j].Path })
	return nil
}

// built is the packed skills as layout reads them, each from its summary.
type built struct{ b *builder }

func (s built) Len() int { return len(s.b.work) }

func (s built) Skill(i int) (layout.Skill, error) {
	sum, err := s.b.summary(s.b.work[i])
	if err != nil {
		return layout.Skill{}, err
	}
	return sum.out, nil
}

// summarize reports what the build made of each skill, if asked to.
func (b *builder) summarize() error {
	if !b.opts.Inventory {
		return nil
	}
	for _, w := range b.work {
		sum, err := b.summary(w)
		if err != nil {
			return err
		}
		o := &sum.out
		s := Skill{Name: w.name, Dir: w.src.Dir, Files: len(o.Files), ContentDigest: o.ContentDigest, Reused: w.reused,
			TarGz:   Artifact{Path: layout.ArchivePath(w.name, o.TarGz.Digest, layout.TarGz), Digest: o.TarGz.Digest, Size: o.TarGz.Size},
			Zip:     Artifact{Path: layout.ArchivePath(w.name, o.Zip.Digest, layout.Zip), Digest: o.Zip.Digest, Size: o.Zip.Size},
			LeftOut: sum.leftOut}
		for _, f := range o.Files {
			s.Size += f.Size
		}
		b.res.Skills = append(b.res.Skills, s)
	}
	return nil
}

// catalog renders index.html, the page people read, straight into the
// staging folder (in a dry run, only into its digest): on a large tree it
// is the largest document by far, and it is never held in memory.
func (b *builder) catalog() (*layout.Rendered, error) {
	opts := catalog.Options{BaseURL: b.opts.BaseURL, Generator: Generator()}
	page := func(w io.Writer) error { return catalog.Render(w, shown{b}, opts) }
	var r layout.Rendered
	var err error
	if b.opts.DryRun {
		r.Digest, r.Size, err = render(io.Discard, page)
	} else {
		r.Digest, r.Size, err = b.writeDoc(b.stagePath(layout.Catalog), page)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", layout.Catalog, err)
	}
	return &r, nil
}

// shown is the packed skills as the catalog reads them, each from its
// summary, with SKILL.md's body read again from the source.
type shown struct{ b *builder }

func (s shown) Len() int { return len(s.b.work) }

func (s shown) Skill(i int) (catalog.Skill, error) {
	w := s.b.work[i]
	sum, err := s.b.summary(w)
	if err != nil {
		return catalog.Skill{}, err
	}
	return catalog.Skill{Skill: sum.out, License: sum.license, Compatibility: sum.compat,
		Body: func() ([]byte, error) { return body(w.src, sum.out.Files) }}, nil
}

// body is a skill's SKILL.md body for the catalog. The build let go of it
// after packing, so it is read again, and must be the bytes packed.
func body(src *skill.Skill, files []layout.File) ([]byte, error) {
	path := src.EntryPath()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.Path == layout.EntryFile && layout.DigestOf(data) != f.Digest {
			return nil, fmt.Errorf("%s changed while the bundle was being built; run the build again", path)
		}
	}
	// As lint and pack read it: the first skill.MaxRead bytes.
	return skill.Parse(data[:min(len(data), skill.MaxRead)]).Body, nil
}

// writeRecord writes the build record of this build, one skill and one
// file at a time: on a large tree the record is tens of megabytes.
func (b *builder) writeRecord(w io.Writer) error {
	head := layout.RecordHead{Generator: Generator(), Bundle: b.bundleKey, Docs: docArtifacts(b.bundle.Docs()), Excluded: b.bundle.Excluded}
	skills := func(yield func(layout.RecordSkill, error) bool) {
		for _, w := range b.named {
			sum, err := b.summary(w)
			if err != nil {
				yield(layout.RecordSkill{}, err)
				return
			}
			c := layout.RecordSkill{Name: w.name, Key: sum.key, Lint: sum.lint, Findings: sum.verdict, ContentDigest: sum.out.ContentDigest,
				Files: sum.out.Files, TarGz: sum.out.TarGz, Zip: sum.out.Zip}
			if !yield(c, nil) {
				return
			}
		}
	}
	return layout.WriteRecord(w, head, skills, b.files())
}

// docArtifacts lists the bundle's documents as the record keeps them.
func docArtifacts(docs []layout.Entry) []layout.Artifact {
	var out []layout.Artifact
	for _, e := range docs {
		out = append(out, layout.Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
	}
	return out
}

// files yields the path of every file the build writes, sorted: the
// bundle's entries, the signature beside each signed one, and the record.
func (b *builder) files() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		// Paths the entries do not list wait here until an entry sorts
		// after them; a signature follows its artifact closely, so few wait.
		waiting := []string{layout.BuildRecord}
		flush := func(upTo string, all bool) bool {
			for len(waiting) > 0 && (all || waiting[0] < upTo) {
				if !yield(waiting[0], nil) {
					return false
				}
				waiting = waiting[1:]
			}
			return true
		}
		for e, err := range b.bundle.Entries() {
			if err != nil {
				yield("", err)
				return
			}
			if !flush(e.Path, false) || !yield(e.Path, nil) {
				return
			}
			if b.opts.Sign != nil && layout.Signed(e) {
				sig := layout.Signature(e.Path)
				i, _ := slices.BinarySearch(waiting, sig)
				waiting = slices.Insert(waiting, i, sig)
			}
		}
		flush("", true)
	}
}

// byName returns the packed skill of that name.
func (b *builder) byName(name string) *work {
	i, ok := slices.BinarySearchFunc(b.named, name, func(w *work, n string) int { return strings.Compare(w.name, n) })
	if !ok {
		return nil
	}
	return b.named[i]
}

// upToDate reports whether the output folder already holds exactly this
// bundle, so that a no-op rebuild writes nothing: every skill was reused
// (so its archives and v0.2 files were checked by packOne), every document
// is byte-identical, and every legacy copy has its digest.
func (b *builder) upToDate() bool {
	if b.prev == nil || b.opts.Sign != nil || b.opts.NoReuse {
		return false // signatures are made afresh on every signed build
	}
	for _, w := range b.work {
		if !w.reused {
			return false
		}
	}
	if !hashesTo(filepath.Join(b.out, filepath.FromSlash(layout.BuildRecord)), b.recDigest) {
		return false // also catches added or removed files: the record lists them all
	}
	for e, err := range b.bundle.Entries() {
		if err != nil {
			return false
		}
		p := filepath.Join(b.out, filepath.FromSlash(e.Path))
		if e.Kind == layout.KindDoc {
			if !hashesTo(p, e.Digest) {
				return false
			}
			continue
		}
		if e.Kind == layout.KindFile && e.Path != layout.SkillFile(e.Skill, e.File) {
			if d, n, err := hashFile(p); err != nil || d != e.Digest || n != e.Size {
				return false
			}
			continue
		}
		if info, err := os.Stat(p); err != nil || info.Size() != e.Size {
			return false
		}
	}
	return true
}

func (b *builder) write() error {
	if b.res.UpToDate {
		b.logf("• write: %s is up to date", b.opts.Out)
		return nil
	}
	if b.opts.DryRun {
		b.logf("• write: dry run, would write %s to %s", plural(b.res.Files, "file", "files"), b.opts.Out)
		return nil
	}
	if b.upToDate() {
		b.res.UpToDate = true
		b.logf("• write: %s is up to date", b.opts.Out)
		return nil
	}
	var total int64
	for e, err := range b.bundle.Entries() {
		if err != nil {
			return err
		}
		total += e.Size
		dst := b.stagePath(e.Path)
		w := b.byName(e.Skill)
		switch e.Kind {
		case layout.KindDoc:
			if e.Write == nil {
				break // written by the build itself: the catalog
			}
			if _, _, err := b.writeDoc(dst, e.Write); err != nil {
				return fmt.Errorf("%s: %w", e.Path, err)
			}
		case layout.KindArchive:
			if w.reused {
				if err := b.link(filepath.Join(b.out, filepath.FromSlash(e.Path)), dst); err != nil {
					return err
				}
			}
		case layout.KindFile:
			v2 := layout.SkillFile(e.Skill, e.File)
			switch {
			case e.Path != v2: // the legacy tree repeats the v0.2 tree
				if err := b.link(b.stagePath(v2), dst); err != nil {
					return err
				}
			case w.reused:
				if err := b.link(filepath.Join(b.out, filepath.FromSlash(e.Path)), dst); err != nil {
					return err
				}
			}
		}
	}
	// Pack and this loop make every planned file and nothing else; a
	// mismatch is a bug, and a bundle missing a file must not be swapped in.
	if n := b.made.Load(); n != int64(b.bundle.Len()) {
		return fmt.Errorf("the plan has %d files but %d were written", b.bundle.Len(), n)
	}
	if err := b.sign(); err != nil {
		return err
	}
	written := time.Now() // every other file of the bundle is stamped no later
	if d, _, err := b.writeDoc(b.stagePath(layout.BuildRecord), b.writeRecord); err != nil {
		return err
	} else if d != b.recDigest {
		return fmt.Errorf("%s: the record changed between two renderings", layout.BuildRecord)
	}
	if err := stampAfter(b.stagePath(layout.BuildRecord), written); err != nil {
		return err
	}
	if err := b.swap(); err != nil {
		return err
	}
	b.logf("• write: %s (%s, %s)", b.opts.Out, plural(b.res.Files, "file", "files"), size(total))
	return nil
}

// sign signs every artifact of the staged bundle and writes each
// signature beside it, before the swap, so that a bundle is never served
// half signed.
func (b *builder) sign() error {
	if b.opts.Sign == nil {
		return nil
	}
	n := 0
	for e, err := range b.bundle.Entries() {
		if err != nil {
			return err
		}
		if !layout.Signed(e) {
			continue
		}
		data, err := os.ReadFile(b.stagePath(e.Path))
		if err != nil {
			return err
		}
		if layout.DigestOf(data) != e.Digest {
			return fmt.Errorf("%s changed before it could be signed", e.Path)
		}
		sig, err := b.opts.Sign(data)
		if err != nil {
			return fmt.Errorf("signing %s: %w", e.Path, err)
		}
		if err := b.writeFile(b.stagePath(layout.Signature(e.Path)), sig); err != nil {
			return err
		}
		n++
	}
	b.logf("• sign: %s, %s beside each", plural(n, "artifact", "artifacts"), layout.SignatureSuffix)
	return nil
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
