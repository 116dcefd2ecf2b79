package reuse

import (
	"errors"
	"os"
	"path"
	"strings"
	"time"

	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
)

// Trusted by times (see the package comment): the record's own times say
// when the bundle was last written; anything stamped at or after them, or
// on a system without these times, is verified by hash instead.

// since records when the record was written: the earlier of its
// modification and change times, so that touching the record can only
// make more files look changed, never fewer.
func (p *Last) since(rec os.FileInfo) {
	if st, ok := stampOf(rec); ok {
		p.recorded = st.mtime
		if st.ctime.Before(st.mtime) {
			p.recorded = st.ctime
		}
	}
}

// StampAfter makes sure the record at path is stamped strictly after t,
// the moment every other file of the bundle was written by. File times come
// from the kernel's coarse clock, a tick (1 to 10 ms) behind the wall
// clock, so a record written just after the last folder can share its
// stamp, and the next build would read the whole bundle again.
func StampAfter(path string, t time.Time) error {
	for range 100 {
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		st, ok := stampOf(info)
		if !ok || st.mtime.After(t) && st.ctime.After(t) {
			return nil
		}
		time.Sleep(time.Millisecond)
		now := time.Now()
		if err := os.Chtimes(path, now, now); err != nil {
			return err
		}
	}
	return nil // a clock this slow only costs the next build a full check
}

// Times returns a file's modification and change times, where the system
// keeps them.
func Times(info os.FileInfo) (mtime, ctime time.Time, ok bool) {
	st, ok := stampOf(info)
	return st.mtime, st.ctime, ok
}

// stamp is what the checks by times read of a file or folder (lstat).
type stamp struct {
	regular, dir bool
	size         int64
	mtime, ctime time.Time
}

// untouched reports whether a file or folder is unchanged since the record was written.
func (p *Last) untouched(st stamp) bool {
	return !p.recorded.IsZero() && st.mtime.Before(p.recorded) && st.ctime.Before(p.recorded)
}

// trusted reports whether the file at the dist path is the very file the
// previous build wrote there, unwritten since: no folder of the bundle
// changed, and its own times are before the record's.
func (p *Last) trusted(distPath string, size int64) bool {
	if !p.intact {
		return false
	}
	st, ok := p.lstat(distPath)
	return ok && st.regular && st.size == size && p.untouched(st)
}

// foldersUntouched reports whether every folder of the bundle (the output
// folder and every folder above a recorded file) is unchanged since the
// record: then no file was added, removed or replaced anywhere. The output
// folder and the record's own folder change as the record is written, so
// their few entries are listed instead.
//
// In the record's sorted file list the files under a folder come together,
// so each folder is met in one stretch and checked once, in batches on
// jobs goroutines.
func (p *Last) foldersUntouched(jobs int) bool {
	if p.recorded.IsZero() {
		return false
	}
	listed := map[string]map[string]bool{".": {}, path.Dir(layout.BuildRecord): {}} // folder → known entry → is a folder
	var open []string                                                               // the folders above the last file, outermost first
	var batch []string                                                              // met, not yet checked
	flush := func() bool {
		err := parallel.Each(len(batch), jobs, func(i int) error {
			if st, ok := p.lstat(batch[i]); !ok || !st.dir || !p.untouched(st) {
				return errChanged
			}
			return nil
		})
		batch = batch[:0]
		return err == nil
	}
	ok := true
	err := p.EachFile(func(f string) bool {
		dirs := ancestors(f)
		i := 0
		for i < len(open) && i < len(dirs) && open[i] == dirs[i] {
			i++
		}
		open = append(open[:i], dirs[i:]...)
		for _, d := range dirs[i:] {
			if _, ok := listed[d]; !ok {
				batch = append(batch, d)
			}
		}
		for d, known := range listed {
			if rel, in := strings.CutPrefix(f, d+"/"); in || d == "." {
				if d == "." {
					rel = f
				}
				first, _, deeper := strings.Cut(rel, "/")
				known[first] = deeper
			}
		}
		if len(batch) == 4096 {
			ok = flush()
		}
		return ok
	})
	if err != nil || !ok || !flush() {
		return false
	}
	for d, known := range listed {
		ents, err := os.ReadDir(p.disk(d))
		if err != nil {
			return false
		}
		for _, e := range ents {
			if isDir, ok := known[e.Name()]; !ok || isDir != e.IsDir() {
				return false
			}
		}
	}
	return true
}

var errChanged = errors.New("changed since the record")

// ancestors returns the folders above a slash path, outermost first, without ".".
func ancestors(p string) []string {
	var dirs []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			dirs = append(dirs, p[:i])
		}
	}
	return dirs
}
