package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// unpacked is what reading an archive found.
type unpacked struct {
	entries  []pack.Member // regular files that passed every check, in archive order, hashed on the way through
	problems []string      // each says what is wrong and with which entry
	stopped  bool          // a limit stopped reading: entries is incomplete
	head     []byte        // of a foreign bundle's archive, the root file up to its body
	foreign  bool          // held to what clients take (unpack)
}

func (u *unpacked) bad(name, format string, args ...any) {
	u.problems = append(u.problems, fmt.Sprintf("entry %q ", clipped(name))+fmt.Sprintf(format, args...))
}

// unpack reads a .tar.gz or .zip held in data with pack.Unpack, which
// checks every entry as a careful unpacker would, hashing each file on the
// way through, then checks the set, whose root must hold root (SKILL.md;
// "" for a plugin's, whose manifests vary). A foreign bundle's archive is
// held to what clients take, not to the build's rules, and the front of
// its root file is kept (head).
func unpack(data []byte, ext string, l pack.Limits, root string, foreign bool) *unpacked {
	u := &unpacked{foreign: foreign}
	err := pack.Unpack(data, ext == layout.Zip, l, func(name, why string, rule bool) error {
		if !rule || !foreign {
			u.bad(name, "%s", why)
		}
		return nil
	}, func(e pack.Member, r io.Reader) error {
		if e.Path == root && foreign { // asClient reads its frontmatter
			var b bytes.Buffer
			r = io.TeeReader(r, &b)
			defer func() { u.head = append([]byte{}, skill.Head(b.Bytes())...) }()
		}
		var err error
		if e.Sum, e.Size, err = bundle.Sum(r); err == nil {
			u.entries = append(u.entries, e)
		}
		return err
	})
	if err != nil {
		var be *pack.BombError
		u.stopped = errors.As(err, &be)
		u.problems = append(u.problems, err.Error())
	}
	if !u.stopped {
		u.checkSet(root)
	}
	return u
}

// checkSet checks the entries as a whole: flat layout with root at the
// root, sorted, no file that is also a folder, no names equal but for case.
func (u *unpacked) checkSet(root string) {
	paths := make([]string, len(u.entries))
	for i, e := range u.entries {
		paths[i] = e.Path
	}
	if !slices.IsSorted(paths) && !u.foreign {
		u.problems = append(u.problems, "entries are not sorted by path; skillpack writes them sorted, so the archive was altered or made by something else")
	}
	if len(paths) > 0 && root != "" && !slices.Contains(paths, root) {
		u.problems = append(u.problems, "has no "+root+" at its root; archives are flat, with no wrapper folder")
	}
	sorted := slices.Sorted(slices.Values(paths))
	folded := map[string]string{}
	for i, p := range sorted {
		if i+1 < len(sorted) && strings.HasPrefix(sorted[i+1], p+"/") {
			u.bad(p, "is both a file and the folder of %q", sorted[i+1])
		}
		low := strings.ToLower(p)
		if other, ok := folded[low]; ok {
			u.bad(p, "differs from %q only in case; case-insensitive file systems would unpack both to one file", other)
		}
		folded[low] = p
	}
}

// contentDigest is the content digest of files (an archive's entries, a
// version's list): the one pack.ContentDigest computes from the source.
func contentDigest(files []pack.Member) layout.Digest {
	sum := pack.ContentDigest(files)
	return layout.SumDigest(sum[:])
}

func (u *unpacked) byPath() map[string]pack.Member {
	m := map[string]pack.Member{}
	for _, e := range u.entries {
		m[e.Path] = e
	}
	return m
}
