package reuse

import (
	"os"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/layout"
)

// UpToDate is the one no-op decision, from the record alone. The output
// folder already holds the bundle a build would write when:
//
//   - bundle, the build's bundle key, is the recorded one, so every
//     document would be the same bytes;
//   - allKept: every skill was Reusable with the verdict the record holds,
//     and Unchanged, so the record would be the same bytes too;
//   - and the record lists no file but the documents', the skills' and
//     signatures (no version's), each document trusted by times or
//     verified by hash; signatures (skillpack sign's, kept: they still
//     vouch for the same bytes) only in a bundle whose folders are Intact.
func (p *Last) UpToDate(bundle layout.Digest, allKept bool) bool {
	if p == nil || p.Head.Bundle == "" || p.Head.Bundle != bundle || !allKept || p.listed != p.accounted+p.signed || p.signed > 0 && !p.intact {
		return false
	}
	// The record itself, which the file list names too, is what was read:
	// the same size on disk still.
	if info, err := os.Lstat(p.disk(layout.BuildRecord)); err != nil || info.Size() != p.Head.Self.Size {
		return false
	}
	for _, d := range p.Head.Docs {
		if !p.Holds(d.Path, d.Digest, d.Size) {
			return false
		}
	}
	return true
}

// Unchanged reports whether the files of a reused skill that Reusable
// does not check, its legacy copies and its page, still hold what the
// record says: a legacy copy trusted by times, the served copy's own
// inode, or verified by hash, the page as Holds proves it. A worker asks
// as it reuses the skill, so that the files are checked in parallel.
func (p *Last) Unchanged(c *layout.RecordSkill) bool {
	if p == nil || c == nil {
		return false
	}
	if p.legacy(c.Name) {
		for _, f := range c.Files {
			if !p.holdsCopy(layout.LegacyFile(c.Name, f.Path), layout.SkillFile(c.Name, f.Path), f.Digest, f.Size) {
				return false
			}
		}
	}
	return c.Page == nil || p.Holds(layout.CatalogPage(c.Name), c.Page.Digest, c.Page.Size)
}

// holdsCopy reports whether the legacy copy at distPath still holds the
// bytes of the served copy it repeats.
func (p *Last) holdsCopy(distPath, served string, d layout.Digest, size int64) bool {
	if p.trusted(distPath, size) {
		return true
	}
	disk := p.disk(distPath)
	info, err := os.Stat(disk)
	if err != nil || info.Size() != size {
		return false
	}
	if v2, err := os.Stat(p.disk(served)); err == nil && os.SameFile(info, v2) {
		return true
	}
	return Verified(disk, d, size)
}

// legacy reports whether the bundle serves the skill's files in the v0.1 tree too.
func (p *Last) legacy(name string) bool {
	return p.hasLegacy && !p.excluded[name]
}

// Signed is the number of signatures the record lists.
func (p *Last) Signed() int {
	if p == nil {
		return 0
	}
	return p.signed
}

// Len is the number of files the record lists, itself included.
func (p *Last) Len() int { return p.listed }

// Artifacts lists every file of the bundle with its digest and size,
// sorted by path, as UpToDate found them.
func (p *Last) Artifacts() ([]layout.Artifact, error) {
	out := append([]layout.Artifact{p.Head.Self}, p.Head.Docs...)
	err := p.EachSkill(func(c *layout.RecordSkill) bool {
		legacy := p.legacy(c.Name)
		for _, a := range c.Artifacts() {
			if legacy || !strings.HasPrefix(a.Path, layout.LegacyDir+"/") {
				out = append(out, a)
			}
		}
		return true
	})
	slices.SortFunc(out, func(x, y layout.Artifact) int { return strings.Compare(x.Path, y.Path) })
	return out, err
}
