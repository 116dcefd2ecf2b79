package verify

import (
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"slices"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// versions checks what build --versioned adds, when there is a
// versions.json: the document (layout's Check); every file and archive of
// every published version against the digest and size it gives, each
// archive unpacked and compared with the version's files; each release's
// snapshot; and that the v0.2 index's versions are among those it lists,
// with the same content.
func (c *checker) versions() {
	const p = layout.VersionsIndex
	doc, ok := optionalIndex(c, p, layout.DecodeVersions, func(d *layout.IndexVersions) int { return len(d.Skills) })
	if !ok {
		return
	}
	if errs := doc.Check(); len(errs) > 0 {
		for _, err := range errs {
			c.problem(p, "%v", err)
		}
		return
	}
	c.versioned = map[string]bool{}
	for _, a := range doc.Artifacts() {
		c.versioned[a.Path] = true
	}
	for _, name := range c.names {
		s := c.skills[name]
		if s.version == "" {
			continue
		}
		switch sv := doc.Find(name, s.version); {
		case sv == nil:
			c.problem(p, "skill %q: %s lists it at version %s, which is not here; a --versioned build lists every version it publishes", name, layout.V2Index, s.version)
		case sv.ContentDigest != s.contentDigest:
			c.problem(p, "skill %q version %s: contentDigest %s, but %s gives %s; one version has one content", name, s.version, sv.ContentDigest, layout.V2Index, s.contentDigest)
		}
	}
	for _, s := range doc.Skills {
		for i := range s.Versions {
			c.version(s.Name, &s.Versions[i])
		}
	}
	for _, r := range doc.Releases {
		c.snapshot(doc, r)
	}
}

// version queues the checks of one published version's files, and
// computes its content digest from the list, as the build does.
func (c *checker) version(name string, sv *layout.SkillVersion) {
	var es []pack.Member
	for _, f := range sv.Files {
		c.expect(layout.VersionFile(name, sv.Version, f.Path), layout.VersionsIndex, f.Digest, *f.Size)
		var sum [32]byte
		hex.Decode(sum[:], []byte(f.Digest.Hex())) // Check has made it 64 hex digits
		es = append(es, pack.Member{Path: f.Path, Size: *f.Size, Exec: f.Exec, Sum: sum})
	}
	if got := contentDigest(es); got != sv.ContentDigest {
		c.problem(layout.VersionsIndex, "skill %q version %s: contentDigest %s, but its files make %s", name, sv.Version, sv.ContentDigest, got)
	}
	for _, a := range []struct {
		ext string
		ar  layout.Archive
	}{{layout.TarGz, sv.TarGz}, {layout.Zip, sv.Zip}} {
		loc := layout.VersionArchive(name, sv.Version, a.ar.Digest, a.ext)
		c.summed = append(c.summed, loc)
		c.versionArchives = append(c.versionArchives, versionArchive{loc: loc, name: name, ext: a.ext, want: a.ar, files: sv.Files})
	}
}

// versionArchive is one archive of a published version, and the files
// versions.json says it holds.
type versionArchive struct {
	loc, name, ext string
	want           layout.Archive
	files          []layout.VersionedFile
}

// unpackVersions reads every archive of every published version on the
// workers, unpacked in memory as the top-level archives are, and checks
// each against its digest and size and its entries against the version's
// files.
func (c *checker) unpackVersions() {
	locs := make([]string, len(c.versionArchives))
	for i, a := range c.versionArchives {
		locs[i] = a.loc
	}
	got, unpacked := c.unpackEach(locs, layout.EntryFile)
	for i, a := range c.versionArchives {
		s := got[i]
		if s.err != nil {
			c.failed(a.loc, layout.VersionsIndex)
			continue
		}
		if c.differs(s, claim{a.loc, layout.VersionsIndex, a.want.Digest, a.want.Size}) && s.digest != a.want.Digest {
			continue
		}
		if want := layout.ArchiveName(a.name, s.digest, a.ext); path.Base(a.loc) != want {
			c.problem(a.loc, "name does not carry its own digest; it should be %s", want)
		}
		u := unpacked[i]
		for _, msg := range u.problems {
			c.problem(a.loc, "%s", msg)
		}
		if u.stopped {
			continue
		}
		c.sameFiles(a, u.byPath())
	}
}

// sameFiles compares an archive's entries with the version's files.
func (c *checker) sameFiles(a versionArchive, in map[string]pack.Member) {
	for _, f := range a.files {
		e, ok := in[f.Path]
		delete(in, f.Path)
		switch {
		case !ok:
			c.problem(a.loc, "has no entry %q, a file of the version in %s", f.Path, layout.VersionsIndex)
		case layout.SumDigest(e.Sum[:]) != f.Digest || e.Size != *f.Size:
			c.problem(a.loc, "entry %q differs from the version's file in %s", f.Path, layout.VersionsIndex)
		case e.Exec != f.Exec:
			c.problem(a.loc, "entry %q has exec bit %v, but %s says %v", f.Path, e.Exec, layout.VersionsIndex, f.Exec)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(in)) {
		c.problem(a.loc, "has entry %q, which is no file of the version in %s", p, layout.VersionsIndex)
	}
}

// snapshot checks one release's snapshot: the digest and size
// versions.json gives it, and that each entry is a version versions.json
// lists, with the type, url and digest of that version.
func (c *checker) snapshot(doc *layout.IndexVersions, r layout.Release) {
	p := layout.Snapshot(r.Version)
	data := c.read(p, false)
	if data == nil {
		return
	}
	c.docs = append(c.docs, p)
	c.rep.Checked.Indexes++
	if s := c.sums[p]; s.digest != r.Digest || s.size != *r.Size {
		c.problem(p, "is %s (%d bytes), but %s says %s (%d bytes); a release's snapshot never changes", s.digest, s.size, layout.VersionsIndex, r.Digest, *r.Size)
	}
	idx, err := layout.DecodeIndexV2(data)
	if !c.decoded(p, data, err) || c.tooMany(p, len(idx.Skills)) {
		return
	}
	if idx.Schema != layout.Schema {
		c.problem(p, "\"$schema\" is %q; readers accept exactly %q", idx.Schema, layout.Schema)
	}
	for i, e := range idx.Skills {
		label := fmt.Sprintf("skills[%d] %q", i, clipped(e.Name))
		sv := doc.Find(e.Name, e.Version)
		if sv == nil {
			c.problem(p, "%s: version %q is not in %s; a snapshot lists published versions only", label, e.Version, layout.VersionsIndex)
			continue
		}
		typ, target, digest := sv.Target(e.Name)
		u, ok := layout.ResolveURL(p, e.URL)
		switch {
		case !ok || u.String() != target:
			c.problem(p, "%s: url %q does not lead to %s", label, e.URL, target)
		case e.Type != typ || e.Digest != digest || e.ContentDigest != sv.ContentDigest:
			c.problem(p, "%s: type, digest or contentDigest differ from version %s in %s", label, e.Version, layout.VersionsIndex)
		}
		if err := layout.CheckDescription(e.Description); err != nil {
			c.problem(p, "%s: %v; readers drop this entry", label, err)
		}
	}
}

// versionedFiles checks, in a folder, that every file of a version's
// folder and every snapshot the build record lists is one versions.json
// names: a file there that it does not is in no published version.
func (c *checker) versionedFiles(files []string) {
	for _, f := range files {
		pp, ok := layout.ParsePath(f)
		if !ok || pp.Kind != layout.KindVersion && pp.Release == "" {
			continue
		}
		if c.versioned == nil {
			c.problem(f, "is a published version's file, but the bundle has no %s that lists it", layout.VersionsIndex)
		} else if !c.versioned[f] {
			c.problem(f, "is not in %s, which lists every file of every published version", layout.VersionsIndex)
		}
	}
}
