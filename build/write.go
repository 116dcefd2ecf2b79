package build

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillpack/skillpack/catalog"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// index lays out the bundle and renders every document. It only computes;
// write decides whether anything needs writing.
func (b *builder) index() error {
	b.res.Out = b.opts.Out
	b.summarize()
	b.bundleKey = b.bundleKeyOf()
	if b.fastUpToDate() {
		return nil
	}
	skills := make([]layout.Skill, len(b.work))
	for i, w := range b.work {
		skills[i] = w.out
	}
	page, err := b.catalog()
	if err != nil {
		return err
	}
	bundle, err := layout.Plan(skills, layout.Options{BaseURL: b.opts.BaseURL, NoLegacy: b.opts.NoLegacy, Generator: Generator(), Catalog: page})
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
	for _, e := range bundle.Entries {
		b.res.Artifacts = append(b.res.Artifacts, Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
	}
	b.res.Artifacts = append(b.res.Artifacts, rec)
	sort.Slice(b.res.Artifacts, func(i, j int) bool { return b.res.Artifacts[i].Path < b.res.Artifacts[j].Path })
	return nil
}

// summarize reports what the build made of each skill.
func (b *builder) summarize() {
	for _, w := range b.work {
		s := Skill{Name: w.name, Dir: w.src.Dir, Files: len(w.out.Files), ContentDigest: w.out.ContentDigest, Reused: w.reused,
			TarGz: Artifact{Path: layout.ArchivePath(w.name, w.out.TarGz.Digest, layout.TarGz), Digest: w.out.TarGz.Digest, Size: w.out.TarGz.Size},
			Zip:   Artifact{Path: layout.ArchivePath(w.name, w.out.Zip.Digest, layout.Zip), Digest: w.out.Zip.Digest, Size: w.out.Zip.Size}}
		for _, f := range w.out.Files {
			s.Size += f.Size
		}
		s.LeftOut = w.leftOut
		b.res.Skills = append(b.res.Skills, s)
	}
}

// catalog renders index.html, the page people read, straight into the
// staging folder (in a dry run, only into its digest): on a large tree it
// is the largest document by far, and it is never held in memory.
func (b *builder) catalog() (*layout.Rendered, error) {
	skills := make([]catalog.Skill, len(b.work))
	for i, w := range b.work {
		skills[i] = catalog.Skill{Skill: w.out, License: w.license, Compatibility: w.compat,
			Body: func() ([]byte, error) { return b.body(w) }}
	}
	opts := catalog.Options{BaseURL: b.opts.BaseURL, Generator: Generator()}
	page := func(w io.Writer) error { return catalog.Render(w, skills, opts) }
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

// body is a skill's SKILL.md body for the catalog. The build let go of it
// after packing, so it is read again, and must be the bytes packed.
func (b *builder) body(w *work) ([]byte, error) {
	path := w.src.EntryPath()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, f := range w.out.Files {
		if f.Path == layout.EntryFile && layout.Digest(data) != f.Digest {
			return nil, fmt.Errorf("%s changed while the bundle was being built; run the build again", path)
		}
	}
	// As lint and pack read it: the first skill.MaxRead bytes.
	return skill.Parse(data[:min(len(data), skill.MaxRead)]).Body, nil
}

// writeRecord writes the build record of this build, byte for byte as
// json.MarshalIndent(record, "", "  ") would, but one skill at a time: on
// a large tree the record is tens of megabytes.
func (b *builder) writeRecord(w io.Writer) error {
	ws := slices.Clone(b.work)
	slices.SortFunc(ws, func(x, y *work) int { return strings.Compare(x.name, y.name) })
	var files []string
	var docs []Artifact
	for _, e := range b.bundle.Entries {
		files = append(files, e.Path)
		if e.Kind == layout.KindDoc {
			docs = append(docs, Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
		}
		if b.opts.Sign != nil && layout.Signed(e) {
			files = append(files, layout.Signature(e.Path))
		}
	}
	files = append(files, layout.BuildRecord)
	sort.Strings(files)

	o := newObject(w)
	o.field("generator", Generator())
	if b.bundleKey != "" {
		o.field("bundle", b.bundleKey)
	}
	o.array("skills", len(ws), func(i int) any {
		w := ws[i]
		return cachedSkill{Name: w.name, Key: w.key, Lint: w.recordedLint(), ContentDigest: w.out.ContentDigest,
			Files: w.out.Files, TarGz: w.out.TarGz, Zip: w.out.Zip}
	})
	if len(docs) > 0 {
		o.array("docs", len(docs), func(i int) any { return docs[i] })
	}
	if ex := b.bundle.Excluded; len(ex) > 0 {
		o.array("legacyExcluded", len(ex), func(i int) any { return ex[i] })
	}
	o.array("files", len(files), func(i int) any { return files[i] })
	return o.close()
}

// upToDate reports whether the output folder already holds exactly this
// bundle, so that a no-op rebuild writes nothing: every skill was reused
// (so its archives and v0.2 files were checked by packOne), every document
// is byte-identical, and every legacy copy has its digest.
func (b *builder) upToDate() bool {
	if b.prev == nil || b.opts.Sign != nil {
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
	for _, e := range b.bundle.Entries {
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
		b.logf("• write: dry run, would write %s to %s", plural(len(b.res.Artifacts), "file", "files"), b.opts.Out)
		return nil
	}
	if b.upToDate() {
		b.res.UpToDate = true
		b.logf("• write: %s is up to date", b.opts.Out)
		return nil
	}
	byName := map[string]*work{}
	for _, w := range b.work {
		byName[w.name] = w
	}
	var total int64
	for _, e := range b.bundle.Entries {
		total += e.Size
		dst := b.stagePath(e.Path)
		w := byName[e.Skill]
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
	if n := b.made.Load(); n != int64(len(b.bundle.Entries)) {
		return fmt.Errorf("the plan has %d files but %d were written", len(b.bundle.Entries), n)
	}
	if err := b.sign(); err != nil {
		return err
	}
	if d, _, err := b.writeDoc(b.stagePath(layout.BuildRecord), b.writeRecord); err != nil {
		return err
	} else if d != b.recDigest {
		return fmt.Errorf("%s: the record changed between two renderings", layout.BuildRecord)
	}
	if err := b.swap(); err != nil {
		return err
	}
	b.logf("• write: %s (%s, %s)", b.opts.Out, plural(len(b.res.Artifacts), "file", "files"), size(total))
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
	for _, e := range b.bundle.Entries {
		if !layout.Signed(e) {
			continue
		}
		data, err := os.ReadFile(b.stagePath(e.Path))
		if err != nil {
			return err
		}
		if layout.Digest(data) != e.Digest {
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
