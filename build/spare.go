package build

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/internal/outlock"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
)

// A Spare keeps the bundle a build replaced, so that the next build of
// the same output stages into it instead of into an empty folder. A
// bundle is tens of thousands of folders and links (2,000 skills make
// 13,500 folders and 24,000 files), each a metadata write that waits on
// the disk: staging them all again for one edited skill took 4 s, most of
// `serve --watch`'s delay. With a spare, a build changes only what
// differs from the bundle two builds back and leaves the rest in place.
//
// What the spare holds is known from its build record: a skill whose key
// and archives are the new bundle's keeps its files; any other skill's
// files, the documents and the signatures are removed before the build
// writes its own, and what is left unclaimed at the end. The spare is a
// staging folder like any other (owner.go): locked by this process, and
// swept by the next run if this one is killed.
//
// A zero Spare is empty; a build with Options.Spare fills it when it
// replaces a bundle, and stages into it the next time. Close removes it.
// A Spare is for one output folder and one build at a time.
type Spare struct {
	out   string    // the output folder it is for, absolute
	dir   string    // the folder; "" when empty
	owner *os.File  // its owner file, locked
	held  *spareSet // what it holds
}

// Close removes the spare folder, if there is one.
func (s *Spare) Close() error {
	if s == nil || s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	if err == nil {
		outlock.RemoveHeld(s.owner, s.owner.Name())
	} else {
		s.owner.Close() // the lock goes; the file left is swept by the next run
	}
	s.dir, s.owner, s.held = "", nil, nil
	return err
}

// Prime makes an empty spare a copy of the bundle in out made of links: a
// build that replaced no bundle (the first, or a no-op) leaves no spare,
// and the build after it would stage every file afresh. It is meant to run
// while nothing builds out, as serve --watch does after its first build.
func (s *Spare) Prime(out string) error {
	if s.dir != "" {
		return nil
	}
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	last, err := reuse.Open(out, stagers)
	if err != nil || last == nil {
		return err
	}
	defer last.Close()
	var paths []string
	if err := last.EachFile(func(p string) bool { paths = append(paths, p); return true }); err != nil {
		return err
	}
	var st staging
	if err := st.make(out, func(string, ...any) {}); err != nil {
		return err
	}
	defer st.discard()
	err = parallel.Each(len(paths), stagers, func(i int) error {
		p := filepath.FromSlash(paths[i])
		return st.link(filepath.Join(out, p), filepath.Join(st.dir, p))
	})
	if err != nil {
		return err
	}
	held := describe(st.dir, last, func(c *layout.RecordSkill) bool { return last.Reusable(c, c.Key) })
	if held == nil {
		return fmt.Errorf("%s changed while it was copied, or since it was built", out)
	}
	s.give(out, st.dir, st.owner, held)
	st.dir, st.owner = "", nil
	// A link changes the time of the file it links, which the next build
	// reads as a change (reuse's trust by times): the record is stamped
	// after them, as swap does after removing a bundle.
	return reuse.StampAfter(filepath.Join(out, filepath.FromSlash(layout.BuildRecord)), time.Now())
}

// take hands the spare folder for out to a build, or nil if it has none
// for out (one for another folder is removed).
func (s *Spare) take(out string) (dir string, owner *os.File, held *spareSet) {
	if s == nil || s.dir == "" {
		return "", nil, nil
	}
	if s.out != out {
		s.Close()
		return "", nil, nil
	}
	dir, owner, held = s.dir, s.owner, s.held
	s.dir, s.owner, s.held = "", nil, nil
	return dir, owner, held
}

// give makes dir, locked by owner and holding held, the spare.
func (s *Spare) give(out, dir string, owner *os.File, held *spareSet) {
	s.Close()
	s.out, s.dir, s.owner, s.held = out, dir, owner, held
}

// spareSet is what a spare folder holds, by its record: each skill's
// files, and the rest (documents, signatures). A build settles each skill
// it packs or reuses (kept whole, or removed), and removes the rest.
type spareSet struct {
	mu     sync.Mutex
	dir    string
	skills map[string]*spareSkill
	other  []string // dist paths
	broken bool     // a removal failed: the folder may hold more than this says
}

type spareSkill struct {
	mark  spareMark
	paths map[string]bool // dist path → taken by the new bundle
	kept  bool            // settled: the new bundle has these bytes
	ships bool            // its files include a skill.oms.sig (RecordSkill.ShipsSignature)
}

// spareMark proves two records of a skill name the same bytes: the key
// covers the archives' inputs, the digests what came out.
type spareMark struct{ key, tgz, zip layout.Digest }

func markOf(c *layout.RecordSkill) spareMark {
	return spareMark{c.Key, c.TarGz.Digest, c.Zip.Digest}
}

// describe reads what the bundle of last's record holds, for the folder
// dir that bundle now is, or nil when that is not known: the folder's
// record must be the one last read, and no file may have come, gone or
// been replaced in it since (last.Intact). A skill's files are described
// only when proven holds for it; the others are removed when the spare is
// used.
func describe(dir string, last *reuse.Last, proven func(*layout.RecordSkill) bool) *spareSet {
	if !last.Intact() || !last.Describes(filepath.Join(dir, filepath.FromSlash(layout.BuildRecord))) {
		return nil
	}
	set := &spareSet{dir: dir, skills: map[string]*spareSkill{}}
	err := last.EachSkill(func(c *layout.RecordSkill) bool {
		sk := &spareSkill{paths: map[string]bool{}, ships: c.ShipsSignature()}
		if proven(c) {
			sk.mark = markOf(c)
		}
		set.skills[c.Name] = sk
		return true
	})
	if err != nil {
		return nil
	}
	err = last.EachFile(func(p string) bool {
		// A version's files go with the documents (clearOther): the
		// versions step stages them all before write takes anything. A
		// folder signature is cleared with the other signatures, but for
		// one the skill ships, which is its file.
		if pp, ok := layout.ParsePath(p); ok && (pp.Kind == layout.KindFile || pp.Kind == layout.KindArchive) {
			if s := set.skills[pp.Skill]; s != nil && (s.ships || !layout.IsSignature(p)) {
				s.paths[p] = false
				return true
			}
		}
		set.other = append(set.other, p)
		return true
	})
	if err != nil {
		return nil
	}
	return set
}

// settle decides what becomes of a skill's files in the spare before the
// build writes any of that skill: kept, when the build reuses the skill
// and the spare holds the same record of it (c), or removed.
func (s *spareSet) settle(name string, c *layout.RecordSkill) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sk := s.skills[name]
	switch {
	case sk == nil:
		return nil
	case c != nil && sk.mark != spareMark{} && sk.mark == markOf(c):
		sk.kept = true
		return nil
	}
	return s.clear(name)
}

func (s *spareSet) keeps(name string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sk := s.skills[name]
	return sk != nil && sk.kept
}

// clear removes a skill's files and folders from the spare. s.mu is held.
func (s *spareSet) clear(name string) error {
	sk := s.skills[name]
	delete(s.skills, name)
	for p := range sk.paths {
		if err := s.remove(p); err != nil {
			return err
		}
	}
	for _, d := range []string{layout.SkillDir(name), layout.LegacyDir + "/" + name} {
		if err := os.RemoveAll(filepath.Join(s.dir, filepath.FromSlash(d))); err != nil {
			s.broken = true
			return err
		}
	}
	return nil
}

// remove removes one file of the spare, if there. s.mu is held.
func (s *spareSet) remove(distPath string) error {
	err := os.Remove(filepath.Join(s.dir, filepath.FromSlash(distPath)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		s.broken = true
	}
	return err
}

// reset forgets what a build that was not swapped in settled: the folder
// holds what it did before, less the skills it removed.
func (s *spareSet) reset() {
	for _, sk := range s.skills {
		sk.kept = false
		for p := range sk.paths {
			sk.paths[p] = false
		}
	}
}

// take reports whether a kept skill's file at distPath is in the spare, and marks it taken.
func (s *spareSet) take(name, distPath string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sk := s.skills[name]
	if sk == nil || !sk.kept {
		return false
	}
	if taken, ok := sk.paths[distPath]; ok && !taken {
		sk.paths[distPath] = true
		return true
	}
	return false
}

// clearOther removes the spare's documents and signatures.
func (s *spareSet) clearOther() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.other {
		if err := s.remove(p); err != nil {
			return err
		}
	}
	s.other = nil
	return nil
}

// clearRest removes what the new bundle did not take: the skills it did
// not keep, and the files of kept skills that its plan does not list.
func (s *spareSet) clearRest() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, sk := range s.skills {
		if !sk.kept {
			if err := s.clear(name); err != nil {
				return err
			}
			continue
		}
		for p, taken := range sk.paths {
			if taken {
				continue
			}
			if err := s.remove(p); err != nil {
				return err
			}
			// And its folders, once empty; the first that is not ends it.
			for d := filepath.Dir(filepath.Join(s.dir, filepath.FromSlash(p))); d != s.dir && os.Remove(d) == nil; d = filepath.Dir(d) {
			}
		}
	}
	s.skills = nil
	return nil
}
