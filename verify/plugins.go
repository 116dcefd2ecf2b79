package verify

import (
	"fmt"
	"slices"

	"github.com/skillpack/skillpack/layout"
)

// plugins checks the plugins' index, if the bundle has one: each archive
// it lists is at a content-addressed path in the bundle, holds the digest
// and size the index gives (and checksums.txt, which lists it), and
// unpacks as an archive of skillpack's must, within pack's limits.
func (c *checker) plugins() {
	const p = layout.PluginsIndex
	doc, ok := optionalIndex(c, p, layout.DecodePlugins, func(d *layout.IndexPlugins) int { return len(d.Plugins) })
	if !ok {
		return
	}
	seen := map[string]bool{}
	var locs []string
	for i, e := range doc.Plugins {
		if seen[e.Name] {
			c.problem(p, "plugins[%d]: a second plugin named %q; marketplaces install plugins by name", i, clipped(e.Name))
		}
		seen[e.Name] = true
		for j, a := range e.Archives {
			label := fmt.Sprintf("plugins[%d] %q archives[%d]", i, clipped(e.Name), j)
			loc, ok := layout.PluginPath(a.URL)
			if !ok {
				c.problem(p, "%s: url %q names no plugin archive in %s", label, clipped(a.URL), layout.PluginsDir)
				continue
			}
			if want := layout.PluginArchivePath(e.Name, a.Digest, layout.ArchiveFormat(loc)); loc != want {
				c.problem(p, "%s: url names %s, but an archive of that plugin and digest is %s", label, loc, want)
			}
			c.expect(loc, p+" "+label, a.Digest, a.Size)
			if _, done := c.sums[loc]; !done && !slices.Contains(locs, loc) {
				locs = append(locs, loc)
				c.summed = append(c.summed, loc) // and signed (signatures)
			}
		}
	}
	got, us := c.unpackEach(locs, "")
	for i, loc := range locs {
		if got[i].err == nil { // else settle reports it with the claim
			for _, msg := range us[i].problems {
				c.problem(loc, "%s", msg)
			}
		}
	}
}
