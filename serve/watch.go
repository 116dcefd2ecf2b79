package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// settle is how long a Watcher waits after the last change before it
// reports: an editor's save, or a `git checkout`, is a burst of events
// that should make one rebuild.
const settle = 50 * time.Millisecond

// maxDropped is how many rebuilds in a row Watch drops because the skills
// changed while they ran: a tree that never keeps still (another
// program's log inside it) must still be served.
const maxDropped = 3

// errChanged stops a rebuild whose skills changed while it ran.
var errChanged = errors.New("the skills changed during the rebuild")

// A Watcher tells when skills folders change: by the system's file
// notifications (inotify, kqueue, ReadDirectoryChangesW) where it can, so
// that an edit shows at once and an idle tree costs nothing, else by
// polling (the system is out of watches, or a file system has none). It
// watches from when it is made, so that an edit during the first build is
// not missed.
type Watcher struct {
	roots    []string
	parents  map[string]string // each root's folder, watched for the root itself: a root replaced (rm -rf, a checkout) is watched again
	interval time.Duration     // between polls
	fsw      *fsnotify.Watcher
	last     map[string]stamp // when polling
	locks    []string         // the index lock of each git work tree holding a root (see busy)
	pending  bool             // a change that no build has read whole
	waited   bool             // busy found a lock last time it looked, and said so
	logf     func(format string, args ...any)
	// Polling says why the Watcher polls, or "" when it is notified.
	Polling string
}

// NewWatcher starts watching roots; when it has to poll, it polls every
// interval.
func NewWatcher(roots []string, interval time.Duration) *Watcher {
	w := &Watcher{roots: roots, interval: interval, parents: map[string]string{}}
	for _, root := range roots {
		if abs, err := filepath.Abs(root); err == nil {
			if dir := skill.GitDir(abs); dir != "" {
				if lock := filepath.Join(dir, "index.lock"); !slices.Contains(w.locks, lock) {
					w.locks = append(w.locks, lock)
				}
			}
		}
	}
	fsw, err := fsnotify.NewWatcher()
	if err == nil {
		w.fsw = fsw
		for _, root := range roots {
			if err = w.add(root); err != nil {
				break
			}
			// The root's own watch ends with the folder: its parent's
			// says when a folder of its name is back.
			if abs, aerr := filepath.Abs(root); aerr == nil && filepath.Dir(abs) != abs {
				w.parents[abs] = root
				if err = w.fsw.Add(filepath.Dir(abs)); err != nil {
					break
				}
			}
		}
	}
	if err != nil {
		w.poll(err)
	}
	return w
}

// Close stops the Watcher's notifications.
func (w *Watcher) Close() error {
	if w.fsw != nil {
		return w.fsw.Close()
	}
	return nil
}

// poll switches the Watcher to polling, saying why.
func (w *Watcher) poll(why error) {
	if w.fsw != nil {
		w.fsw.Close()
		w.fsw = nil
	}
	w.Polling = fmt.Sprintf("file notifications unavailable (%v); polling every %v", why, w.interval)
	w.last = snapshot(w.roots)
}

// add watches dir and every folder below it that a build reads.
func (w *Watcher) add(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // gone already (its parent's event says so), or unreadable (the build reports it)
		case !d.IsDir():
			return nil
		case p != dir && ignored(p, true):
			return fs.SkipDir
		}
		if err := w.fsw.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watching %s: %w", p, err)
		}
		return nil
	})
}

// ignored reports whether the file or folder at p is one a build does not
// read: what a build writes (skill.Built: the bundle may sit inside the
// skills folder, as with `serve dist --watch .`, and each build makes and
// removes its staging folder and lock, which would rebuild for ever), and
// git's own files (a `git status` rewrites the index).
func ignored(p string, dir bool) bool {
	return skill.Built(p, dir) || filepath.Base(p) == ".git" || !dir && ownLog(p)
}

// ownLog reports whether p is the file this process's standard output or
// error goes to: `serve dist --watch . > serve.log` logs into the watched
// tree, and each line would make a rebuild.
func ownLog(p string) bool {
	var info os.FileInfo
	for _, f := range stdFiles {
		l, err := f.Stat()
		if err != nil || !l.Mode().IsRegular() {
			continue
		}
		if info == nil {
			if info, err = os.Lstat(p); err != nil {
				return false
			}
		}
		if os.SameFile(info, l) {
			return true
		}
	}
	return false
}

// stdFiles are where the process logs (a test's seam).
var stdFiles = []*os.File{os.Stdout, os.Stderr}

// wait blocks until something a build reads has changed and then settled,
// and git is not writing the tree (see busy), and reports true; or until
// ctx ends, and reports false.
func (w *Watcher) wait(ctx context.Context) bool {
	if w.fsw == nil {
		return w.waitPoll(ctx)
	}
	var quiet <-chan time.Time
	if w.pending {
		quiet = time.After(settle)
	}
	for {
		var ev fsnotify.Event
		var err error
		var ok bool
		select {
		case <-ctx.Done():
			return false
		case <-quiet:
			if w.busy() {
				quiet = time.After(settle) // the lock's removal is no event here: look again
				continue
			}
			w.pending = false
			return true
		case ev, ok = <-w.fsw.Events:
		case err, ok = <-w.fsw.Errors:
		}
		switch {
		case !ok:
			return false
		case !w.note(ev, err):
			continue
		case w.fsw == nil:
			return w.waitPoll(ctx) // note fell back to polling: rebuild, then poll
		}
		quiet = time.After(settle)
	}
}

// note takes one notification, an event or else an error, and reports
// whether it may be a change a build would see, which is then pending.
func (w *Watcher) note(ev fsnotify.Event, err error) bool {
	switch {
	case err == nil && !w.relevant(ev):
		return false
	case err != nil && !errors.Is(err, fsnotify.ErrEventOverflow):
		w.poll(err) // the system stopped a watch; an overflow lost events: either way, changes unseen
	}
	w.pending = true
	return true
}

// busy reports whether git is writing a work tree that holds a root (it
// holds the index's lock through a checkout, pull, merge or reset, which
// on a busy machine can pause longer than settle between two files).
func (w *Watcher) busy() bool {
	for _, lock := range w.locks {
		if _, err := os.Lstat(lock); err == nil {
			if !w.waited && w.logf != nil { // a lock a killed git left stays: say so, once
				w.logf("watch: waiting for git to finish writing the skills (%s); if no git command runs, remove that file", lock)
			}
			w.waited = true
			return true
		}
	}
	w.waited = false
	return false
}

// relevant reports whether an event is a change a build would see, and
// watches a folder that appeared.
func (w *Watcher) relevant(ev fsnotify.Event) bool {
	if w.inParent(ev.Name) {
		// From a parent's watch: only a root itself counts, made again
		// (watched anew) or gone.
		root, ok := w.parents[ev.Name]
		if ok {
			if err := w.add(root); err != nil {
				w.poll(err)
			}
		}
		return ok
	}
	info, err := os.Lstat(ev.Name)
	dir := err == nil && info.IsDir()
	if ignored(ev.Name, dir) {
		return false // a staging folder's, or a bundle built or replaced inside the tree
	}
	// A folder made or moved in: watch it (files that appeared before are
	// read by the rebuild this event causes).
	if dir {
		if err := w.add(ev.Name); err != nil {
			w.poll(err)
		}
	}
	return true
}

// inParent reports whether name is an entry of a folder the Watcher
// watches as a root's parent.
func (w *Watcher) inParent(name string) bool {
	if !filepath.IsAbs(name) {
		return false
	}
	for root := range w.parents {
		if filepath.Dir(root) == filepath.Dir(name) {
			return true
		}
	}
	return false
}

// waitPoll polls until the tree differs from the last snapshot and git is
// not writing it.
func (w *Watcher) waitPoll(ctx context.Context) bool {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		if w.pending && !w.busy() {
			w.pending = false
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		if now := snapshot(w.roots); !maps.Equal(now, w.last) {
			w.last = now
			w.pending = true
		}
	}
}

// during runs rebuild while it reads the notifications, and calls changed
// at each one that may be a change the build would see.
func (w *Watcher) during(ctx context.Context, rebuild func(context.Context) error, changed func()) error {
	done := make(chan error, 1)
	go func() { done <- rebuild(ctx) }()
	for w.fsw != nil {
		var ev fsnotify.Event
		var err error
		var ok bool
		select {
		case built := <-done:
			return built
		case ev, ok = <-w.fsw.Events:
		case err, ok = <-w.fsw.Errors:
		}
		if !ok {
			break // closed
		}
		if w.note(ev, err) {
			changed()
		}
	}
	return <-done // polling: the next poll sees what changed
}

// Watch waits for changes under w until ctx is cancelled and, after each,
// calls rebuild (which writes a new bundle into the served folder) and
// serves the new bundle. A failed rebuild, or a bundle that fails its
// checks, is logged and the previous bundle stays served.
//
// A change during rebuild cancels its context: the build may have read
// part of a checkout or a file mid-write, and failed on findings that are
// not the user's. It is dropped, and another runs once the tree is quiet.
// After maxDropped drops in a row, rebuilds are served however the tree
// changes under them, until one runs on a still tree.
func (s *Server) Watch(ctx context.Context, w *Watcher, rebuild func(context.Context) error) error {
	w.logf = s.logf
	if w.Polling != "" {
		s.logf("watch: %s", w.Polling)
	}
	dropped := 0 // rebuilds dropped since the last that ran on a still tree
	for w.wait(ctx) {
		bctx, cancel := context.WithCancelCause(ctx)
		moved := false
		err := w.during(bctx, rebuild, func() {
			if moved {
				return
			}
			moved = true
			switch {
			case dropped < maxDropped:
				cancel(errChanged)
			case dropped == maxDropped:
				dropped++ // said once
				s.warnf("the skills keep changing while they are rebuilt: serving rebuilds however they change, until one runs while they keep still (does a program write into the folder?)")
			}
		})
		cancel(nil)
		if ctx.Err() != nil {
			return nil // the build was interrupted: no failure
		}
		switch {
		case !moved:
			dropped = 0
		case err != nil && dropped < maxDropped:
			// Stopped, or failed on what changed under it (one that ended
			// before the change could stop it was swapped in, and is served).
			if dropped++; dropped == 1 {
				s.logf("%v: not served, still serving the previous bundle; rebuilding once they are quiet", errChanged)
			}
			continue
		}
		if err != nil {
			s.warnf("rebuild failed, still serving the previous bundle: %v", err)
			continue
		}
		if err := s.Reload(); err != nil {
			s.warnf("the rebuilt bundle is not served, still serving the previous one: %v", err)
		}
	}
	return nil
}

// Reload opens the served folder again and serves what it holds, once it
// is complete and verified; until then, or if it is not, the current
// bundle stays. What it verified is not hashed again (see hold), and its
// immutable files the new one lacks stay served for a while (see retire).
func (s *Server) Reload() error { return s.reloadBundle(nil) }

// reloadBundle is Reload; with expired, the bundle whose first grace period
// has ended, it opens the folder again even if it holds the same build,
// unless another bundle has replaced it already.
func (s *Server) reloadBundle(expired *Held) error {
	s.reload.Lock()
	defer s.reload.Unlock()
	cur := s.acquire()
	defer cur.release()
	if expired != nil && cur != expired {
		return nil
	}
	// Each build writes a new record (see sameRecord).
	info, err := os.Stat(filepath.Join(cur.dir, filepath.FromSlash(layout.BuildRecord)))
	same := err == nil && sameRecord(cur.record, info)
	if same && expired == nil {
		return nil
	}
	lim := defaultLimits()
	b, err := openHeld(cur.dir, cur, lim)
	if err != nil {
		return err
	}
	// The grace period is twice the index's lifetime (a client may fetch
	// what an index that old names), and at least a minute, for a client
	// told not to cache. Retired files may hold an eighth of the process's
	// file limit open (the live bundle and its successor a quarter each),
	// and a quarter of the in-memory budget.
	grace := max(2*s.opts.Cache.Index, time.Minute)
	if n := b.retire(cur, now(), grace, limits{memory: lim.memory / 4, open: lim.open / 2}); n > 0 {
		s.logf("%d archives of earlier builds are no longer served before their grace period ends: they do not fit the memory and open files set aside for them", n)
	}
	if first := b.firstExpiry(); !first.IsZero() {
		b.expire = time.AfterFunc(first.Sub(now()), func() {
			if err := s.reloadBundle(b); err != nil {
				s.logf("the archives of earlier builds stay held until the next build is served: %v", err)
			}
		})
	}
	s.Swap(b)
	b.Close()
	if same {
		return nil
	}
	s.logf("serving %s: %s", b.dir, b.Tally())
	if b.byName > 0 {
		s.logf("%d files did not fit the snapshot and are read by name: requests for them can fail while the folder is rebuilt", b.byName)
	}
	return nil
}

// Follow reloads the bundle whenever the folder holds a new build, told
// by the build record every interval: it is written last and the build
// swaps the whole folder in at once. A bundle that fails its checks is
// logged once and left until the folder changes again.
func (s *Server) Follow(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var failed fs.FileInfo
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur := s.Held()
		info, err := os.Stat(filepath.Join(cur.dir, filepath.FromSlash(layout.BuildRecord)))
		if err != nil || sameRecord(cur.record, info) || sameRecord(failed, info) {
			continue
		}
		if err := s.Reload(); err != nil {
			failed = info
			s.warnf("a new build in %s is not served, still serving the previous one: %v", cur.dir, err)
		}
	}
}

// sameRecord reports whether two looks at the build record saw the same
// file. Every build writes a new one, so its identity is enough; its times
// are not, since a build touches its record once the old bundle is gone.
func sameRecord(a, b fs.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size()
}

// stamp is what a poll compares of one file or folder.
type stamp struct {
	size int64
	mode fs.FileMode
	mod  int64 // nanoseconds; a time.Time would also compare its location
}

// snapshot stamps everything below roots that a build reads. An error (a
// file removed mid-walk, an unreadable folder) is stamped too: a change
// worth a rebuild, which reports it. A folder is stamped by its mode only:
// its times change whenever a build makes its staging folder beside the
// bundle, and what it gains or loses shows as its entries.
func snapshot(roots []string) map[string]stamp {
	m := map[string]stamp{}
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != root && ignored(p, d.IsDir()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil // a staging folder's owner file, a lock
			}
			var info fs.FileInfo
			if err == nil {
				info, err = d.Info()
			}
			switch {
			case err != nil:
				m[p] = stamp{size: -1}
			case d.IsDir():
				m[p] = stamp{mode: info.Mode()}
			default:
				m[p] = stamp{size: info.Size(), mode: info.Mode(), mod: info.ModTime().UnixNano()}
			}
			return nil
		})
	}
	return m
}
