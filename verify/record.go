package verify

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// buildRecord checks, in a dist folder, that the files present are
// exactly those the build record lists, and that every document it lists
// has the digest and size it had (an index emptied or cut short is as
// wrong as one changed). A store (bundle.Store) is checked the same way,
// but for the files it does not hold, and for extra files only when it
// holds one bundle alone.
func (c *checker) buildRecord() {
	rec := c.record()
	if rec == nil {
		return
	}
	const p = layout.BuildRecord
	f, folder := c.src.(*bundle.Folder)
	// A path that is none is reported here, on the record, and looked
	// for nowhere.
	listed := map[string]bool{}
	for _, f := range rec.Files {
		if layout.CheckPath(f) != nil {
			c.problem(p, "lists %q, which is not a clean path inside the bundle", f)
			continue
		}
		listed[f] = true
	}
	var present map[string]bool // nil: a store that cannot list its files
	if folder {
		present = c.walk(f.Root(), listed, len(rec.Files))
	} else {
		present = c.heldFiles(listed)
	}
	// No index vouches for these two; their bytes are fixed, by the
	// documents the bundle has.
	var docs []string
	for _, d := range rec.Docs {
		docs = append(docs, d.Path)
	}
	for _, f := range []struct {
		path string
		want []byte
	}{{layout.Headers, layout.HeadersDoc(slices.ContainsFunc(rec.Files, layout.Shadowed), docs...)}, {layout.NoJekyll, nil}} {
		if listed[f.path] {
			if data := c.read(f.path, true); data != nil && !bytes.Equal(data, f.want) { // missing: reported below
				c.problem(f.path, "differs from the one skillpack writes; rebuild, or remove it from the build record if you changed it on purpose")
			}
		}
	}
	if present == nil {
		c.lookFor(listed)
	}
	c.versionedFiles(rec.Files)
	for _, f := range slices.Sorted(maps.Keys(listed)) {
		if present != nil && !present[f] && c.holds(f) {
			c.problem(f, "is listed in the build record (%s) but missing", p)
		}
	}
	for _, d := range rec.Docs {
		if layout.CheckPath(d.Path) != nil {
			c.problem(p, "lists the document %q, which is not a clean path inside the bundle", d.Path)
			continue
		}
		if present == nil || present[d.Path] || !listed[d.Path] { // else reported just above
			c.expect(d.Path, p, d.Digest, d.Size)
		}
	}
}

// record is the bundle's build record, read once; nil for a URL's (not
// served) or one that cannot be read, which says why.
func (c *checker) record() *layout.Record {
	if c.recRead {
		return c.rec
	}
	c.recRead = true
	if _, folder := c.src.(*bundle.Folder); folder || c.stored() != nil {
		if data := c.read(layout.BuildRecord, false); data != nil {
			if rec, err := layout.DecodeRecord(data); c.decoded(layout.BuildRecord, data, err) {
				c.rec = rec
			}
		}
	}
	return c.rec
}

// recordArchives claims, for each skill the indexes list, the two
// archives its build record names, so that every archive is unpacked and
// held to the skill's files: an index names at most one (superpowers-zh:
// 10 of 42 unpacked), the catalog's pages offer the other. A URL's record
// is not served: checksums.txt's lines name them (a skill left out of the
// MCP documents has its .zip named nowhere else).
func (c *checker) recordArchives() {
	rec := c.record()
	if rec == nil {
		sums, _, _ := c.checksumLines()
		for _, s := range sums {
			if pp, ok := layout.ParsePath(s.Path); ok && pp.Kind == layout.KindArchive && c.skills[pp.Skill] != nil {
				c.archive(s.Path, pp.Skill, "", "", -1)
			}
		}
		return
	}
	for _, s := range rec.Skills {
		if c.skills[s.Name] == nil {
			continue // a skill no index lists: buildRecord's to report
		}
		for _, a := range []struct {
			layout.Archive
			ext string
		}{{s.TarGz, layout.TarGz}, {s.Zip, layout.Zip}} {
			if a.Digest.Valid() {
				c.archive(layout.ArchivePath(s.Name, a.Digest, a.ext), s.Name, layout.BuildRecord, a.Digest, a.Size)
			}
		}
	}
}

// walk lists the files of a dist folder, reporting each that is not a
// regular file or that the build record does not list.
func (c *checker) walk(root *os.Root, listed map[string]bool, recorded int) map[string]bool {
	const p = layout.BuildRecord
	present := map[string]bool{}
	// A folder of far more files than its record lists is not listed to
	// the end; a bundle of 10,000 skills has more than 100,000 files.
	most, n := recorded+10*c.o.MaxEntries, 0
	err := fs.WalkDir(root.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			c.problem(path, "cannot be read: %v", err)
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if n++; n > most {
			return errors.New("stop")
		}
		present[path] = true
		if t := d.Type(); t&fs.ModeSymlink == 0 && !t.IsRegular() {
			c.problem(path, "is not a regular file (%v); a bundle holds files only", t)
		}
		switch {
		case listed[path]:
		case strings.HasPrefix(path, ".skillpack/"):
			// publish's release list and inventory, in a folder it
			// published to: verify reads that as a target.
			c.problem(path, "is not in the build record (%s): if skillpack publish wrote it, this folder is a publish target; "+
				"verify it as one (skillpack verify file:///path/to/folder), else remove it or rebuild", p)
		default:
			c.problem(path, "is not in the build record (%s): skillpack did not write it; remove it or rebuild", p)
		}
		return nil
	})
	if err != nil {
		c.problem(".", "more than %d files; stopped listing the folder", most)
	}
	return present
}
