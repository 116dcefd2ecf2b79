package serve

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
)

// A bundle is served as a snapshot: Open verifies every file once and
// keeps its verified bytes, so that a rebuild, which swaps a new folder in
// and deletes the old, cannot turn requests into "cannot be read". Small
// files (nearly every file of a bundle, a few tens of megabytes for a
// thousand skills) are kept in memory, once per digest: no system call but
// the write, and no later change on disk reaches a client. Larger ones are
// kept open: an open file survives its name's removal, and a change made
// in place (which the build never does) is caught by a stat per request.
// What fits neither budget is opened by name per request, as a static
// server does, and checked the same way; only those can fail during a
// rebuild, and Open logs how many there are.
type limits struct {
	small  int64 // files up to this size are kept in memory
	memory int64 // all in-memory bytes of a bundle
	open   int   // files kept open per bundle
}

// defaultLimits keeps a bundle's small files in up to 512 MiB of memory
// and 4096 files open: with MaxConns connections and a second bundle
// while one replaces the other, well under the usual limit of open files
// (Go raises the soft limit to the hard one at startup).
func defaultLimits() limits {
	return limits{small: 64 << 10, memory: 512 << 20, open: 4096}
}

// hold verifies every servable file and keeps its bytes as the snapshot
// says. Files that prev (the bundle this one replaces, or nil) verified
// are not hashed again: in-memory bytes are shared by digest, and an open
// file is trusted if it is the very file prev held, unchanged.
func (b *Held) hold(prev *Held, lim limits) error {
	paths := slices.Sorted(maps.Keys(b.files))
	// Decide first, in path order, so that which files are kept in memory
	// does not depend on timing.
	var mem int64
	held := 0
	for _, p := range paths {
		f := b.files[p]
		switch {
		case f.size <= lim.small && mem+f.size <= lim.memory:
			mem += f.size
			f.how = inMemory
		case held < lim.open:
			held++
			f.how = keptOpen
		default:
			f.how = byName
			b.byName++
		}
	}
	var mu sync.Mutex
	bad := make([]error, len(paths))
	parallel.Each(len(paths), 0, func(i int) error {
		f := b.files[paths[i]]
		if old := prev.held(f); f.how == inMemory && old != nil && old.how == inMemory {
			f.data, f.mod = old.data, old.mod // verified already: not even a look at the disk
		} else if bad[i] = b.take(f, prev); bad[i] != nil {
			return nil
		}
		if f.how == inMemory {
			mu.Lock()
			if d, ok := b.mem[f.digest]; ok {
				f.data = d // one copy per digest
			} else {
				b.mem[f.digest] = f.data
			}
			mu.Unlock()
		}
		return nil
	})
	if bad = slices.DeleteFunc(bad, func(err error) bool { return err == nil }); len(bad) == 0 {
		return nil
	}
	msgs := human.UpTo(len(bad), 5, func(i int) string { return bad[i].Error() }, "and %d more")
	return fmt.Errorf("the bundle does not match what the build recorded, so it is not served:\n  %s\nrebuild it with `skillpack build`",
		strings.Join(msgs, "\n  "))
}

// take opens one file, checks it and keeps what f.how says. Bytes that
// prev holds in memory with f's digest are verified already: the file's
// own are not needed.
func (b *Held) take(f *file, prev *Held) error {
	fh, info, err := b.open(f)
	if err != nil {
		return err
	}
	f.mod = info.ModTime()
	switch {
	case f.how == inMemory:
		defer fh.Close()
		if data, ok := prev.memory(f.digest); ok {
			f.data = data
			return nil
		}
		var data strings.Builder
		data.Grow(int(f.size))
		if err := f.check(io.TeeReader(fh, &data)); err != nil {
			return err
		}
		f.data = data.String()
	case f.how == keptOpen:
		// Not hashed again if it is the very file prev keeps open, unchanged.
		if old := prev.held(f); old == nil || old.fh == nil || !unchanged(old.seen, info) {
			if err := f.check(fh); err != nil {
				fh.Close()
				return err
			}
		}
		f.fh, f.seen = fh, info
		f.holders.Store(1)
	default:
		// Checked, and its stat not kept: two heap objects per file that
		// every collection marks, for files mostly never asked for (90,000
		// in a bundle of 10,000 skills). The first request keeps one.
		defer fh.Close()
		if err := f.check(fh); err != nil {
			return err
		}
	}
	return nil
}

// open opens the file of f in the folder, with what fstat says of it.
func (b *Held) open(f *file) (*os.File, fs.FileInfo, error) {
	fh, _, err := b.src.File(f.path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", f.path, err)
	}
	info, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: %w", f.path, err)
	}
	return fh, info, nil
}

// memory returns the bytes b holds in memory with digest d; b may be nil.
func (b *Held) memory(d layout.Digest) (string, bool) {
	if b == nil {
		return "", false
	}
	data, ok := b.mem[d]
	return data, ok
}

// held returns the file b serves at f's path with f's digest, or nil; b
// may be nil.
func (b *Held) held(f *file) *file {
	if b == nil {
		return nil
	}
	if old := b.files[f.path]; old != nil && old.digest == f.digest {
		return old
	}
	return nil
}

func unchanged(seen, now fs.FileInfo) bool {
	return seen != nil && os.SameFile(seen, now) && seen.Size() == now.Size() && seen.ModTime().Equal(now.ModTime())
}

// how a snapshot holds a file's bytes.
type holding uint8

const (
	inMemory holding = iota
	keptOpen
	byName
)

// content returns the verified bytes of f for one response. A file kept
// open or opened by name is checked again, by a stat, and hashed again
// only if the stat shows a change; done must be called when the response
// is written.
func (b *Held) content(f *file) (r io.ReadSeeker, done func(), err error) {
	if f.how == inMemory {
		return strings.NewReader(f.data), func() {}, nil
	}
	fh, done := f.fh, func() {}
	if f.how == byName {
		if fh, _, err = b.open(f); err != nil {
			return nil, nil, err
		}
		done = func() { fh.Close() }
	}
	if err := f.recheck(fh); err != nil {
		done()
		return nil, nil, err
	}
	// Reads at offsets, which any number of responses can share.
	return io.NewSectionReader(fh, 0, f.size), done, nil
}

// recheck hashes fh again if it is not the file as last verified.
func (f *file) recheck(fh *os.File) error {
	info, err := fh.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if unchanged(f.seen, info) {
		return nil
	}
	if err := f.check(io.NewSectionReader(fh, 0, f.size+1)); err != nil {
		return err
	}
	f.seen = info
	return nil
}

// read returns the verified bytes of a file, whole: a file in memory's
// own, not a copy.
func (b *Held) read(f *file) (string, error) {
	if f.how == inMemory {
		return f.data, nil
	}
	r, done, err := b.content(f)
	if err != nil {
		return "", err
	}
	defer done()
	data := make([]byte, f.size)
	if _, err := io.ReadFull(r, data); err != nil {
		return "", fmt.Errorf("%s: %w", f.path, err)
	}
	return string(data), nil
}

// check reads r whole and refuses bytes other than those the build
// recorded for f.
func (f *file) check(r io.Reader) error {
	err := bundle.Check(r, layout.Artifact{Path: f.path, Digest: f.digest, Size: f.size}, f.source)
	if err != nil && !errors.As(err, new(*bundle.ChangedError)) {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	return changed(err)
}

// lastModified is what Last-Modified says of a file: when it was written,
// to the second, as a static server tells from the file. It changes
// whenever the bytes at a path change, because the build writes a new
// file then and links the old one only when the bytes are the same.
func (f *file) lastModified() time.Time { return f.mod.Truncate(time.Second) }

// release drops one reference to the bundle; the last one closes its
// folder and the files it keeps open.
func (b *Held) release() {
	if b.refs.Add(-1) != 0 {
		return
	}
	if b.expire != nil {
		b.expire.Stop()
	}
	for _, f := range b.files {
		f.drop()
	}
	for _, r := range b.retired {
		r.f.drop()
	}
	b.src.Close()
}

// drop gives up one bundle's hold on the file f keeps open; the last
// closes it. A file is held by the bundle that opened it and by each later
// bundle that still serves it as retired.
func (f *file) drop() {
	if f.fh != nil && f.holders.Add(-1) == 0 {
		f.fh.Close()
	}
}

// acquire takes a reference to b unless it is already closed.
func (b *Held) acquire() bool {
	for {
		n := b.refs.Load()
		if n <= 0 {
			return false
		}
		if b.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// A client that read the previous index a moment before a rebuild asks
// for archives the new bundle no longer has; a static host or CDN keeps
// serving such immutable objects, and so does serve. A bundle keeps the
// immutable files (those layout caches as immutable) of the bundles it
// replaced for a grace period: the old snapshot's bytes, checked as every
// held file is (see content). One kept open keeps its descriptor, which
// reaches the file after the build removed its name; one opened by name
// is dropped. Retired files are bounded (see reloadBundle), newest first,
// and dropped when their grace ends, at the next switch or by the reload
// that expire schedules.
type retiredFile struct {
	f     *file
	until time.Time // served until then
}

// skew moves the clock of grace periods, for tests.
var skew atomic.Int64

func now() time.Time { return time.Now().Add(time.Duration(skew.Load())) }

// file returns the file b serves at p: one of its own, or a retired one
// whose grace period has not ended.
func (b *Held) file(p string) *file {
	if f := b.files[p]; f != nil || len(b.retired) == 0 {
		return f
	}
	if r, ok := b.retired[p]; ok && now().Before(r.until) {
		return r.f
	}
	return nil
}

// retire keeps in b, which replaces prev at the time at, the immutable
// files prev served that b does not, for grace, and those prev kept from
// earlier bundles until their own grace periods end, the newest first
// while they fit lim. It returns how many it left out for lack of room,
// and must be called before b is served.
func (b *Held) retire(prev *Held, at time.Time, grace time.Duration, lim limits) (dropped int) {
	var cands []retiredFile
	for _, p := range slices.Sorted(maps.Keys(prev.files)) {
		f := prev.files[p]
		if b.files[p] == nil && f.how != byName && (layout.Cache{}).Control(p) == layout.Immutable {
			cands = append(cands, retiredFile{f, at.Add(grace)})
		}
	}
	older := slices.SortedFunc(maps.Values(prev.retired), func(x, y retiredFile) int {
		return cmp.Or(y.until.Compare(x.until), strings.Compare(x.f.path, y.f.path))
	})
	for _, r := range older {
		if b.files[r.f.path] == nil && at.Before(r.until) {
			cands = append(cands, r)
		}
	}
	var mem int64
	open := 0
	b.retired = map[string]retiredFile{}
	for _, r := range cands {
		switch {
		case r.f.how == inMemory && mem+r.f.size <= lim.memory:
			mem += r.f.size
		case r.f.how == keptOpen && open < lim.open:
			open++
			r.f.holders.Add(1)
		default:
			dropped++
			continue
		}
		b.retired[r.f.path] = r
	}
	return dropped
}

// firstExpiry is when the first of b's retired files stops being served,
// or the zero time.
func (b *Held) firstExpiry() (first time.Time) {
	for _, r := range b.retired {
		if first.IsZero() || r.until.Before(first) {
			first = r.until
		}
	}
	return first
}
