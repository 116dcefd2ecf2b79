package serve

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillpack/skillpack/skill"
)

// A Watcher polls skills folders for changes. It takes its first
// snapshot when made, so that a caller can make it before the first build
// and miss no edit made while that build runs.
type Watcher struct {
	roots    []string
	interval time.Duration
	last     map[string]stamp
}

// NewWatcher snapshots roots now; Watch polls them every interval (0 = one
// second).
func NewWatcher(roots []string, interval time.Duration) *Watcher {
	if interval <= 0 {
		interval = time.Second
	}
	return &Watcher{roots: roots, interval: interval, last: snapshot(roots)}
}

// Watch polls w until ctx is cancelled and, whenever a file or folder
// appears, disappears, or changes size, mode or modification time, calls
// rebuild (which writes a new bundle into the served bundle's folder; serve
// itself never builds) and serves the new bundle. Polling needs no
// file-notification API, works the same on every system and on network
// folders, and costs one walk per interval. A failed rebuild or a bundle
// that fails its checks is logged and the previous bundle stays served.
func (s *Server) Watch(ctx context.Context, w *Watcher, rebuild func() error) error {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		now := snapshot(w.roots)
		if maps.Equal(now, w.last) {
			continue
		}
		w.last = now
		s.rebuild(rebuild)
	}
}

// rebuild runs one rebuild and swaps the result in.
func (s *Server) rebuild(build func() error) {
	if err := build(); err != nil {
		s.logf("rebuild failed, still serving the previous bundle: %v", err)
		return
	}
	dir := s.Bundle().Dir()
	b, err := Open(dir)
	if err != nil {
		s.logf("the rebuilt bundle is not served, still serving the previous one: %v", err)
		return
	}
	s.Swap(b)
	s.logf("rebuilt %s: %d skills", dir, b.Skills())
}

// stamp is what a poll compares of one file or folder.
type stamp struct {
	size int64
	mode fs.FileMode
	mod  int64 // nanoseconds; a time.Time would also compare its location
}

// snapshot stamps everything below roots that a build reads. Errors (a
// file removed mid-walk, an unreadable folder) become part of the picture
// rather than stopping it: they too are changes worth a rebuild, which
// will report them.
//
// Like discovery, it skips built bundles and a build's staging folders:
// the bundle may sit inside the skills folder (`skillpack build` makes
// ./dist; `skillpack serve dist --watch .`), and a rebuild that changes it
// must not trigger another. A folder is stamped by its mode only: its
// times change whenever a build makes its staging folder beside the
// bundle, and what is added to or removed from it shows as its entries.
func snapshot(roots []string) map[string]stamp {
	m := map[string]stamp{}
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				m[p] = stamp{size: -1}
				return nil
			}
			if p != root && staging(d.Name()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil // a staging folder's owner file
			}
			if d.IsDir() && p != root && isFile(filepath.Join(p, filepath.FromSlash(skill.BundleMarker))) {
				return fs.SkipDir
			}
			info, err := d.Info()
			if err != nil {
				m[p] = stamp{size: -1}
				return nil
			}
			if d.IsDir() {
				m[p] = stamp{mode: info.Mode()}
				return nil
			}
			m[p] = stamp{size: info.Size(), mode: info.Mode(), mod: info.ModTime().UnixNano()}
			return nil
		})
	}
	return m
}

// staging reports whether a name is that of a build's staging folder
// (".dist.skillpack-123", see build's stage), its owner file
// (".dist.skillpack-123.owner"), or a previous bundle it moved aside.
func staging(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".skillpack-")
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}
