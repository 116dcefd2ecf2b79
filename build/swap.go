package build

import (
	"time"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/layout"
)

// swap is the last step: it stamps the build record (index staged it)
// after every other file, which makes it the proof of everything before it
// (package reuse), and swaps the staged bundle in.
func (b *builder) swap(s *staged) (string, error) {
	switch {
	case b.res.UpToDate:
		return "the bundle is up to date", nil
	case b.opts.DryRun:
		return "dry run", nil
	}
	written := time.Now() // every other file of the bundle is stamped no later
	if err := reuse.StampAfter(b.st.path(layout.BuildRecord), written); err != nil {
		return "", err
	}
	// The bundle replaced is kept as the spare by its record; only the
	// skills this build reused were proven to hold their recorded bytes.
	return "", b.st.swap(func(old string) *spareSet {
		return describe(old, s.out.last, func(c *layout.RecordSkill) bool {
			w := s.byName(c.Name)
			return w != nil && w.reused
		})
	})
}
