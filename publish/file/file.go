// Package file is the plain-folder publish target: `skillpack publish
// DIST file:///path/to/folder` copies a bundle into a folder (a static
// host's document root, a mounted share), and `skillpack verify
// file:///path` reads it back. A folder is a publish.Bucket, so it gets
// what a bucket gets: the safe order, releases and the inventory, and the
// refusal to replace what skillpack did not write. This package owns only
// the folder's side of it: listing, hashing, copying whole, reading, and
// the one rule a folder adds, that a file cannot stand where the bundle
// needs a folder.
package file

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/atomicfile"
	"github.com/skillpack/skillpack/internal/outlock"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/publish"
)

// Scheme is how a target of this package begins.
const Scheme = "file://"

// Options say how a bundle is copied.
type Options struct {
	DryRun bool // say what would be copied; copy nothing
	Prune  bool // delete what no kept release names (publish.BucketOptions)
	Keep   int  // releases Prune keeps; 0: publish.DefaultKeep
	// Retry's Jobs are the files copied at once (0: publish.DefaultJobs),
	// its Now the release's time; nothing is retried.
	publish.Retry
}

// ParseTarget is the folder a file:// URL names: file:///abs/path, or
// file://localhost/abs/path (RFC 8089). file://name/path is refused with
// the URL meant.
func ParseTarget(target string) (string, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "file" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.Port() != "" {
		return "", fmt.Errorf("%s: give file:///path/to/folder", target)
	}
	if u.Host != "" && u.Host != "localhost" {
		meant := "file:///" + u.Host + u.Path
		if home, err := os.UserHomeDir(); err == nil && u.Host == "~" {
			meant = URL(filepath.Join(home, filepath.FromSlash(u.Path))) // no shell expands ~ inside a URL
		}
		return "", fmt.Errorf("%s: a file:// URL names a folder on this machine from its root; did you mean %s?", target, meant)
	}
	if u.Path == "" || u.Path == "/" && target != "file:///" {
		return "", fmt.Errorf("%s: name the folder, such as file:///srv/www/skills", target)
	}
	return filepath.FromSlash(u.Path), nil
}

// URL is the file:// URL of the absolute path p (file:///C:/x on Windows).
func URL(p string) string {
	return "file:///" + strings.TrimPrefix(filepath.ToSlash(p), "/")
}

// Folder is the folder a file:// target names, as the publish.Bucket
// Publish writes and the bundle.Store verify reads. It may not exist
// yet.
type Folder struct {
	target string
	dir    string   // with the links in its path resolved
	stale  []string // temporary files of a killed run, as List found them
}

// Open is the folder target names; a file there, or the file system's
// root, is the user's to correct. A link to a folder is the folder it
// names: what is there is what the checks must see.
func Open(target string) (*Folder, error) {
	dir, err := ParseTarget(target)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, &usageError{fmt.Sprintf("%s is a file; publish to a folder (file:///path/to/folder)", dir)}
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if abs, _ := filepath.Abs(dir); filepath.Dir(abs) == abs {
		return nil, &usageError{fmt.Sprintf("%s is the file system's root; publish to a folder of its own, such as file:///srv/www", target)}
	}
	return &Folder{target: target, dir: dir}, nil
}

// Publish copies b into the folder target names, with
// publish.PublishBucket, and calls report with each file's fate. What
// stands in the bundle's way (blocked), and a target in DIST itself, stop
// it before anything is copied. Once the release is complete, the
// temporary files of a run killed before are removed.
func Publish(ctx context.Context, b *publish.Upload, target string, o Options, report func(publish.Result)) error {
	f, err := Open(target)
	if err != nil {
		return err
	}
	dist, _ := filepath.Abs(b.Dir)
	if real, err := filepath.EvalSymlinks(dist); err == nil {
		dist = real
	}
	if abs, _ := filepath.Abs(f.dir); abs == dist || strings.HasPrefix(abs, dist+string(filepath.Separator)) {
		return &usageError{fmt.Sprintf("%s is in the bundle %s itself; publish to a folder outside it", target, b.Dir)}
	} else if strings.HasPrefix(dist, abs+string(filepath.Separator)) {
		// The site would be the project folder (file://$PWD for
		// file://$PWD/public): the catalog's skills/ among its sources.
		return &usageError{fmt.Sprintf("%s holds the bundle %s; publish to a folder of its own beside it, such as %s", target, b.Dir, URL(filepath.Join(abs, "public")))}
	}
	if !o.DryRun {
		// A folder that cannot be made is the user's to correct.
		_, missing := os.Stat(f.dir)
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			return &usageError{fmt.Sprintf("%s: cannot make the folder: %v; publish to a folder you can write", target, err)}
		}
		if missing != nil {
			defer os.Remove(f.dir) // made for this run: it goes again if still empty
		}
		// Two publishes at once would each copy half their bundle over
		// the other's. The lock lies beside the folder, or where its
		// parent cannot be written (a web root whose parent is root's),
		// in the folder's .skillpack/, which is skillpack's own.
		unlock, err := outlock.Take(f.dir, "publish")
		if err != nil && !errors.As(err, new(*outlock.BusyError)) {
			unlock, err = outlock.Take(f.path(lockInside), "publish")
		}
		if be := (*outlock.BusyError)(nil); errors.As(err, &be) {
			return &usageError{be.Error()}
		}
		if err != nil {
			return &usageError{fmt.Sprintf("%s: %v; publish to a folder you can write", target, err)}
		}
		defer unlock()
	}
	if err := f.blocked(b); err != nil {
		return err
	}
	runner := func() *publish.Runner {
		r := o.Runner(target, publish.DefaultJobs, nil) // nothing is retried
		r.Report = report
		return r
	}
	err = publish.PublishBucket(ctx, b, f, publish.BucketOptions{DryRun: o.DryRun, Prune: o.Prune, Keep: o.Keep, Runner: runner})
	if err == nil && !o.DryRun {
		// Only in a folder the bundle writes: another publish may be
		// writing a folder below (a nested target has a lock of its own).
		dirs := map[string]bool{}
		for _, p := range own(b) {
			dirs[path.Dir(p)] = true
		}
		for _, p := range f.stale {
			if dirs[path.Dir(p)] {
				os.Remove(f.path(p))
			}
		}
	}
	return err
}

// lockInside is the lock's folder in the target, where the target's
// parent cannot hold it: outlock puts .publish.skillpack.lock beside it.
const lockInside = ".skillpack/publish"

// own is every path a run writes: the bundle's, and the run's own under
// .skillpack/ (its record's copy, the release list, the inventory).
func own(b *publish.Upload) []string {
	paths := []string{publish.RecordCopy(b.Record().Digest), publish.ReleasesList, publish.InventoryPath}
	for _, o := range b.Objects {
		paths = append(paths, o.Path)
	}
	return paths
}

// blocked refuses a bundle that f cannot take as it is: a file, or a
// link, where the bundle needs a folder (a link would carry the copy
// elsewhere, past every check), or a folder or a link where it puts a
// file.
func (f *Folder) blocked(b *publish.Upload) error {
	var paths []string
	seen := map[string]bool{}
	for _, p := range own(b) {
		for i := range len(p) {
			if p[i] != '/' || seen[p[:i]] {
				continue
			}
			seen[p[:i]] = true
			if fi, err := os.Lstat(f.path(p[:i])); err == nil && !fi.IsDir() {
				paths = append(paths, p[:i])
				break
			}
		}
		if fi, err := os.Lstat(f.path(p)); err == nil && !fi.Mode().IsRegular() {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(paths)
	return &publish.ForeignError{Target: f.target, Paths: slices.Compact(paths)}
}

func (f *Folder) String() string { return f.target }

// path is the file at a bundle path.
func (f *Folder) path(p string) string { return filepath.Join(f.dir, filepath.FromSlash(p)) }

// tmpPrefix begins the name of a file Put is writing: one left by a run
// that was killed is removed by the next run's Publish. os.CreateTemp
// ends it with digits, which a name of a site's own does not.
const tmpPrefix = ".skillpack-tmp-"

// temporary reports whether a file name is one Put gives.
func temporary(name string) bool {
	digits, ok := strings.CutPrefix(name, tmpPrefix)
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}

// List is every file in the folder, with its size and, as its ETag, its
// modification time, size and permissions: rsync's quick check, and a
// chmod. A file that is not a
// regular one has the size -1, which no object has. Put's temporary files
// are not listed, but kept for Publish to remove.
func (f *Folder) List(ctx context.Context) (map[string]publish.Stored, error) {
	out := map[string]publish.Stored{}
	f.stale = nil
	err := filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if p == f.dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll // nothing there yet
			}
			return err
		}
		rel, _ := filepath.Rel(f.dir, p)
		if temporary(d.Name()) && d.Type().IsRegular() {
			f.stale = append(f.stale, filepath.ToSlash(rel))
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = stored(info)
		return ctx.Err()
	})
	return out, err
}

// stored is what a folder keeps of a file: no headers, no digest, but
// the mode.
func stored(info fs.FileInfo) publish.Stored {
	if !info.Mode().IsRegular() {
		return publish.Stored{Size: -1}
	}
	perm := info.Mode().Perm()
	return publish.Stored{Size: info.Size(), ETag: fmt.Sprintf("%x-%x-%o", info.ModTime().UnixNano(), info.Size(), perm), Exec: perm&0o111 != 0}
}

// Stat is a file's size and ETag, and its digest as its checksum.
func (f *Folder) Stat(_ context.Context, p string) (publish.Stored, error) {
	info, err := os.Lstat(f.path(p))
	if err != nil {
		return publish.Stored{}, err
	}
	st := stored(info)
	if st.Size >= 0 {
		st.Checksum, st.Size, err = bundle.HashFile(f.path(p))
	}
	st.Plain = true
	return st, err
}

// Open is a file's bytes and their size, read as a bundle folder's are
// (bundle.Folder: inside the folder, never through a link out of it).
func (f *Folder) Open(ctx context.Context, p string) (io.ReadCloser, int64, error) {
	d, err := bundle.OpenFolder(f.dir)
	if err != nil {
		return nil, 0, err
	}
	defer d.Close() // the file opened stays open
	return d.Open(ctx, p)
}

// Put writes o's bytes at its path whole, or not at all: written beside
// it and renamed. A script keeps its execute bit (0755; else 0644), as
// the bundle's own folder has it.
func (f *Folder) Put(_ context.Context, o publish.Object, body io.Reader) (string, error) {
	dst := f.path(o.Path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), tmpPrefix+"*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = io.Copy(tmp, body)
	if err == nil {
		err = tmp.Chmod(pack.Perm(o.Exec))
	}
	err = cmp.Or(err, tmp.Close())
	var info fs.FileInfo
	if err == nil {
		info, err = os.Stat(tmp.Name())
	}
	if err == nil {
		err = atomicfile.Rename(tmp.Name(), dst)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", dst, err)
	}
	return stored(info).ETag, nil // a rename keeps the time
}

// Delete removes a file, and the folders it leaves empty up to the
// target's (a withdrawn skill's folder of served files).
func (f *Folder) Delete(_ context.Context, p string) error {
	if err := os.Remove(f.path(p)); err != nil {
		return err
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if os.Remove(f.path(d)) != nil {
			break // not empty, or not ours to judge
		}
	}
	return nil
}

// Holds is true: a folder holds every file of a bundle.
func (f *Folder) Holds(string) bool { return true }

// Files is not known: the folder may hold a site's own files too, and
// earlier releases'.
func (f *Folder) Files() ([]string, bool) { return nil, false }

// Check finds the folder and checks its release list
// (publish.CheckBucket).
func (f *Folder) Check(ctx context.Context, problem func(path, message string)) error {
	if fi, err := os.Stat(f.dir); err != nil || !fi.IsDir() {
		return &usageError{"no such folder; publish to it first, or check its path"}
	}
	publish.CheckBucket(ctx, f, problem)
	return nil
}

// usageError is a target that cannot be published to as given.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// ExitClass is the command's exit code: 2, the user's to correct.
func (*usageError) ExitClass() int { return 2 }

var (
	_ bundle.Store   = (*Folder)(nil)
	_ publish.Bucket = (*Folder)(nil)
)
