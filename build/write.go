package build

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpack/skillpack/catalog"
	"github.com/skillpack/skillpack/layout"
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
	rec := b.record()
	recData, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	b.recData = append(recData, '\n')

	for _, e := range bundle.Entries {
		b.res.Artifacts = append(b.res.Artifacts, Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
	}
	b.res.Artifacts = append(b.res.Artifacts, Artifact{Path: layout.BuildRecord, Digest: layout.Digest(b.recData), Size: int64(len(b.recData))})
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
		s.LeftOut = append(append(s.LeftOut, w.files.Junk...), w.files.Ignored...)
		b.res.Skills = append(b.res.Skills, s)
	}
}

// catalog renders index.html, the page people read.
func (b *builder) catalog() ([]byte, error) {
	skills := make([]catalog.Skill, len(b.work))
	for i, w := range b.work {
		license, _ := w.src.Doc.String("license")
		compat, _ := w.src.Doc.String("compatibility")
		skills[i] = catalog.Skill{Skill: w.out, License: license, Compatibility: compat, Body: w.src.Doc.Body}
	}
	return catalog.Render(skills, catalog.Options{BaseURL: b.opts.BaseURL, Generator: Generator()})
}

// record is the build record of this build.
func (b *builder) record() *record {
	rec := &record{Generator: Generator(), Bundle: b.bundleKey, Excluded: b.bundle.Excluded}
	for _, w := range b.work {
		c := cachedSkill{Name: w.name, Key: w.key, ContentDigest: w.out.ContentDigest,
			Files: w.out.Files, TarGz: w.out.TarGz, Zip: w.out.Zip}
		c.Lint = w.recordedLint()
		rec.Skills = append(rec.Skills, c)
	}
	sort.Slice(rec.Skills, func(i, j int) bool { return rec.Skills[i].Name < rec.Skills[j].Name })
	for _, e := range b.bundle.Entries {
		rec.Files = append(rec.Files, e.Path)
		if e.Kind == layout.KindDoc {
			rec.Docs = append(rec.Docs, Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
		}
		if b.opts.Sign != nil && layout.Signed(e) {
			rec.Files = append(rec.Files, layout.Signature(e.Path))
		}
	}
	rec.Files = append(rec.Files, layout.BuildRecord)
	sort.Strings(rec.Files)
	return rec
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
	if !sameBytes(filepath.Join(b.out, filepath.FromSlash(layout.BuildRecord)), b.recData) {
		return false // also catches added or removed files: the record lists them all
	}
	for _, e := range b.bundle.Entries {
		p := filepath.Join(b.out, filepath.FromSlash(e.Path))
		if e.Kind == layout.KindDoc {
			if !sameBytes(p, e.Data) {
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
			if err := b.writeFile(dst, e.Data); err != nil {
				return err
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
		if _, err := os.Stat(dst); err != nil {
			return fmt.Errorf("%s was planned but not written: %w", e.Path, err)
		}
	}
	if err := b.sign(); err != nil {
		return err
	}
	if err := b.writeFile(b.stagePath(layout.BuildRecord), b.recData); err != nil {
		return err
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
		data := e.Data
		if e.Kind != layout.KindDoc {
			var err error
			if data, err = os.ReadFile(b.stagePath(e.Path)); err != nil {
				return err
			}
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
