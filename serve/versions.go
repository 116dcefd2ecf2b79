package serve

import (
	"errors"
	"fmt"

	"github.com/skillpack/skillpack/layout"
)

// loadVersions adds what build --versioned publishes: versions.json
// names every file of every published version with its digest and size,
// and every release's snapshot, whose digest checksums.txt must give too.
// Each snapshot is read and its entries checked against versions.json,
// as checkV2 checks the index; the files are verified with the rest when
// the snapshot is held.
func (b *Bundle) loadVersions(data []byte, sums map[string]layout.Digest, doc func(string) ([]byte, error)) error {
	v, err := layout.DecodeVersions(data)
	if err != nil {
		return err
	}
	if err := errors.Join(v.Check()...); err != nil {
		return err
	}
	for _, a := range v.Artifacts() {
		if want, ok := sums[a.Path]; (ok || layout.ArchiveFormat(a.Path) != "") && want != a.Digest {
			return fmt.Errorf("%s has the digest %s, but %s gives %s; rebuild the bundle with `skillpack build`", a.Path, a.Digest, layout.Checksums, want)
		}
		b.add(&file{path: a.Path, digest: a.Digest, size: a.Size, source: layout.VersionsIndex})
	}
	for _, r := range v.Releases {
		p := layout.Snapshot(r.Version)
		data, err := doc(p) // checked against checksums.txt, and added
		if err != nil {
			return err
		}
		idx, err := layout.DecodeIndexV2(data)
		if err != nil {
			return err
		}
		for _, e := range idx.Skills {
			sv := v.Find(e.Name, e.Version)
			if sv == nil {
				return fmt.Errorf("%s: skill %q version %q is not in %s", p, e.Name, e.Version, layout.VersionsIndex)
			}
			if _, target, digest := sv.Target(e.Name); e.Digest != digest {
				return fmt.Errorf("%s: skill %q: digest %s, but %s gives %s %s", p, e.Name, e.Digest, layout.VersionsIndex, target, digest)
			} else if u, ok := layout.ResolveURL(p, e.URL); !ok || u.String() != target {
				return fmt.Errorf("%s: skill %q: url %q does not lead to %s", p, e.Name, e.URL, target)
			}
		}
	}
	return nil
}
