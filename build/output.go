package build

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// OutputError is a refused output folder: the user's to fix, nothing was
// written.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// checkOutput refuses output folders that would destroy something: the
// input, a folder holding it, the working directory, home, the root, a
// folder holding files skillpack did not write (unless --force), and
// inside an input anything that discovery would read as skills.
//
// An output inside an input is the default (`skillpack build` builds "."
// into "dist"), and it is safe exactly when discovery skips it: when it is
// absent, empty or a built bundle (skill.BundleMarker), and sits in no
// skill (whose archives would take it in). Discovery runs at the same
// time as this check, so the check decides from the folder alone.
func (b *builder) checkOutput() error {
	if err := b.checkOutputFolder(); err != nil {
		var oe *OutputError
		if errors.As(err, &oe) {
			return err
		}
		return &OutputError{Err: err}
	}
	return nil
}

func (b *builder) checkOutputFolder() error {
	out, err := filepath.Abs(b.opts.Out)
	if err != nil {
		return err
	}
	b.out = out
	name := b.opts.Out
	// A "~" the shell did not expand (--out=~/site, or a quoted "~") would
	// make a folder named "~" here, one "rm -rf ~" away from disaster.
	if first, _, _ := strings.Cut(filepath.ToSlash(name), "/"); first == "~" {
		return fmt.Errorf("the output folder %s starts with a ~ that the shell did not expand; write $HOME%s or a path without ~", name, name[1:])
	}
	if out == filepath.VolumeName(out)+string(filepath.Separator) {
		return fmt.Errorf("refusing to write the bundle to the root folder %s; choose a new folder such as dist", name)
	}
	if home, err := os.UserHomeDir(); err == nil && sameDir(out, home) {
		return fmt.Errorf("refusing to write the bundle to your home folder %s; choose a new folder such as dist", name)
	}
	if cwd, err := os.Getwd(); err == nil && (sameDir(out, cwd) || inside(cwd, out)) {
		return fmt.Errorf("refusing to write the bundle to %s: it holds the working directory; choose a new folder such as dist", name)
	}
	// Paths are compared as given and with links resolved, so that a
	// second spelling of a folder (a link, macOS's /tmp) is no way around.
	realOut := resolved(out)
	within := "" // the input the output is inside, if any
	for _, root := range b.roots {
		abs, _ := filepath.Abs(root)
		realRoot := resolved(abs)
		switch {
		case sameDir(out, abs):
			return fmt.Errorf("the output folder %s is the input %s; choose a folder outside it, such as dist", name, root)
		case inside(abs, out), inside(realRoot, realOut):
			return fmt.Errorf("the output folder %s contains the input %s; choose a folder beside it", name, root)
		case within == "" && (inside(out, abs) || inside(realOut, realRoot)):
			within = root
		}
	}
	if err := b.outsideSkills(out, name); err != nil {
		return err
	}
	info, err := os.Lstat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if within != "" {
			return b.noStale(out, name, within)
		}
		return nil
	case err != nil:
		return fmt.Errorf("cannot use the output folder %s: %w", name, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("the output folder %s is a symbolic link; give the real folder instead", name)
	case !info.IsDir():
		return fmt.Errorf("the output %s exists and is not a folder", name)
	}
	if within != "" {
		if err := discoverySkips(out, name, within); err != nil {
			return err
		}
		if err := b.noStale(out, name, within); err != nil {
			return err
		}
	}
	recPath := filepath.Join(out, filepath.FromSlash(layout.BuildRecord))
	if info, err := os.Lstat(recPath); err == nil && info.Mode().IsRegular() {
		// Stat first: the record is the build's last write, so a record
		// that changes while it is read looks newer than the files it lists.
		if b.prev, err = readPrevious(recPath); err == nil {
			b.since(info)
		}
	}
	b.intact = b.foldersUntouched()
	if b.intact {
		return nil // no file came or went since the record listed them
	}
	foreign, err := foreignFiles(out, b.prev)
	if err != nil {
		return err
	}
	if len(foreign) > 0 && !b.opts.Force {
		return fmt.Errorf("the output folder %s holds files skillpack did not write (%s); "+
			"choose another folder, or pass --force to replace the folder and everything in it",
			name, firstFew(foreign))
	}
	if len(foreign) > 0 {
		b.prev.close()
		b.prev = nil // a folder of unknown files is nothing to reuse from
	}
	return nil
}

// outsideSkills refuses an output folder inside a skill that the build
// packs (a skill at or below an input, or the skill enclosing one): the
// skill's archives would take in the bundle, and grow with every build.
func (b *builder) outsideSkills(out, name string) error {
	dir := skill.Enclosing(filepath.Dir(out))
	if dir == "" {
		return nil
	}
	realDir := resolved(dir)
	for _, root := range b.roots {
		abs, _ := filepath.Abs(root)
		realRoot := resolved(abs)
		if sameDir(dir, abs) || inside(dir, abs) || inside(realDir, realRoot) || inside(abs, dir) || inside(realRoot, realDir) {
			return fmt.Errorf("the output folder %s is inside the skill %s, whose archives would take in the bundle; choose a folder outside every skill", name, asGiven(dir))
		}
	}
	return nil
}

// discoverySkips refuses an existing output folder inside the input
// unless discovery skips it: an empty folder, or a built bundle. Anything
// else there is the user's, and would be read as skills; --force does not
// change that.
func discoverySkips(out, name, within string) error {
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("cannot use the output folder %s: %w", name, err)
	}
	if len(ents) == 0 || isBundle(out) {
		return nil
	}
	var files []string
	for _, e := range ents {
		files = append(files, e.Name())
	}
	return fmt.Errorf("the output folder %s is inside the input %s and is not a bundle (it holds %s): "+
		"the build would take it for part of the input; choose a new or empty folder, or one outside the input",
		name, within, firstFew(files))
}

// noStale refuses a build whose output is inside the input while an
// interrupted build's staging folder lies beside it: that folder holds
// copies of the skills, which discovery would read as a second set of
// skills, and only the user can tell it from a build still running.
func (b *builder) noStale(out, name, within string) error {
	parent := filepath.Dir(out)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil // absent: nothing beside it; otherwise making it reports why
	}
	prefix := "." + filepath.Base(out) + ".skillpack-"
	for _, e := range ents {
		p := filepath.Join(parent, e.Name())
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) && !isBundle(p) {
			return fmt.Errorf("an interrupted build left its staging folder %s inside the input %s, "+
				"where its copies of the skills would be read as skills; delete it (rm -rf %s) and build again",
				filepath.Join(filepath.Dir(name), e.Name()), within, filepath.Join(filepath.Dir(name), e.Name()))
		}
	}
	return nil
}

// isBundle reports whether discovery takes dir for built output and skips it.
func isBundle(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(skill.BundleMarker)))
	return err == nil && !info.IsDir()
}

// asGiven is an absolute path as the user would write it: relative to the
// working directory when below it.
func asGiven(p string) string {
	if cwd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(cwd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	return p
}

// firstFew joins the first three names and counts the rest.
func firstFew(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
}

// resolved is p with symbolic links resolved as far as the path exists.
func resolved(p string) string {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// foreignFiles lists the files in out that the previous build did not
// write (all of them when there is no build record).
//
// It holds every recorded path in a map, so it runs only when the folders
// show that something changed since the record (see foldersUntouched).
func foreignFiles(out string, prev *previous) ([]string, error) {
	known := map[string]bool{}
	if prev != nil {
		err := prev.eachFile(func(f string) bool {
			known[f] = true
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	var foreign []string
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(out, p)
		if rel = filepath.ToSlash(rel); !known[rel] {
			foreign = append(foreign, rel)
		}
		return nil
	})
	return foreign, err
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

// inside reports whether p is strictly below dir.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// staging returns the temporary folder the bundle is built in, beside the
// output folder so that the final rename stays on one file system.
func (b *builder) staging() (string, error) {
	if b.stage != "" {
		return b.stage, nil
	}
	parent := filepath.Dir(b.out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(b.out)+".skillpack-*")
	if err != nil {
		return "", err
	}
	// MkdirTemp makes 0700; a bundle is meant to be served.
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	b.stage = dir
	return dir, nil
}

// cleanup removes the staging folder unless it became the output.
func (b *builder) cleanup() {
	b.sums.close()
	b.prev.close()
	if b.stage != "" {
		os.RemoveAll(b.stage)
		b.stage = ""
	}
}

// stagePath is where a dist path lives in the staging folder.
func (b *builder) stagePath(distPath string) string {
	return filepath.Join(b.stage, filepath.FromSlash(distPath))
}

// swap replaces the output folder with the staging folder. Where the
// kernel can exchange two folders atomically (Linux renameat2), readers see
// the old bundle or the new one and never a moment without either;
// elsewhere the old folder is moved aside first and moved back if the
// second rename fails, so the previous bundle survives any failure.
func (b *builder) swap() error {
	if _, err := os.Lstat(b.out); err != nil {
		if err := os.Rename(b.stage, b.out); err != nil {
			return fmt.Errorf("moving the new bundle into place: %w", err)
		}
		b.stage = ""
		return nil
	}
	old := b.stage
	if err := exchange(b.stage, b.out); err != nil {
		old = b.stage + ".old"
		if err := os.Rename(b.out, old); err != nil {
			return fmt.Errorf("moving the previous bundle aside: %w", err)
		}
		if err := os.Rename(b.stage, b.out); err != nil {
			os.Rename(old, b.out)
			return fmt.Errorf("moving the new bundle into place: %w", err)
		}
	}
	b.stage = ""
	// The new bundle is in place; failing to delete the old one is worth
	// a warning, not a failed build.
	if err := os.RemoveAll(old); err != nil {
		b.logf("  warning: could not remove the previous bundle at %s: %v", old, err)
	}
	return nil
}

// writeFile writes data to a new file in the staging folder.
func (b *builder) writeFile(path string, data []byte) error {
	if err := b.mkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := b.create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// A bundle is served by a user that does not own it, and two builds must
// give the same tree whatever the umask, so everything in the staging
// folder is made 0755 (folders) or 0644 (files) explicitly: the mode given
// to Mkdir and OpenFile is only an upper bound that the umask cuts.

// mkdirAll makes dir and any missing parents 0755. The staging folder
// starts empty, so a folder not made yet is most likely missing: it is made
// first and only looked at when it exists, which saves a stat per folder
// (tens of thousands in a large tree, where metadata calls dominate).
func (b *builder) mkdirAll(dir string) error {
	if b.dirs.has(dir) {
		return nil
	}
	err := os.Mkdir(dir, 0o755)
	switch {
	case err == nil:
		if b.umaskCuts(0o755) {
			if err := os.Chmod(dir, 0o755); err != nil {
				return err
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		if parent := filepath.Dir(dir); parent != dir {
			if err := b.mkdirAll(parent); err != nil {
				return err
			}
			return b.mkdirAll(dir)
		}
		return err
	case errors.Is(err, fs.ErrExist):
		// Made by another worker (which sets its mode), or there before.
		info, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return fmt.Errorf("%s is a file, not a folder", dir)
		}
	default:
		return err
	}
	b.dirs.add(dir)
	return nil
}

// dirCache remembers folders made in the staging folder, so that most
// files cost no mkdir. It forgets everything when it is full: a large
// tree has tens of thousands of folders, and remembering them all would
// make memory grow with the tree. Files arrive skill by skill, so the
// folders that matter are the recent ones, and a forgotten folder costs
// only a failed mkdir and a stat.
type dirCache struct {
	mu sync.Mutex
	m  map[string]struct{}
}

const dirCacheSize = 4096

func (c *dirCache) has(dir string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[dir]
	return ok
}

// forget empties the cache, for folders that were removed.
func (c *dirCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

func (c *dirCache) add(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= dirCacheSize {
		c.m = make(map[string]struct{}, dirCacheSize)
	}
	c.m[dir] = struct{}{}
}

// create makes a new file 0644.
func (b *builder) create(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	b.made.Add(1)
	if b.umaskCuts(0o644) {
		if err := f.Chmod(0o644); err != nil {
			f.Close()
			os.Remove(path)
			return nil, err
		}
	}
	return f, nil
}

// umaskCuts reports whether the process umask would remove bits of mode,
// so that a chmod is needed after creating a file or folder: on the
// common umask 022 it is not, which saves a system call per file. The
// umask is read once per build.
func (b *builder) umaskCuts(mode os.FileMode) bool {
	b.umaskOnce.Do(func() { b.umask = readUmask() })
	return b.umask&uint32(mode) != 0
}

// readUmask reads the process umask without changing it (syscall.Umask
// sets it, racing with every goroutine creating files); where it cannot be
// read, it is taken to cut everything, so modes are always set.
func readUmask() uint32 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0o777
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return uint32(n)
			}
		}
	}
	return 0o777
}

// link makes dst the same file as src: a hard link where the file system
// allows, else a copy. Bundle files are never modified in place, so
// sharing an inode between the old and new bundle is safe.
func (b *builder) link(src, dst string) error {
	if err := b.mkdirAll(filepath.Dir(dst)); err != nil {
		return err
	}
	if os.Link(src, dst) == nil {
		b.made.Add(1)
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := b.create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// hashesTo reports whether the file at path has the digest d.
func hashesTo(path string, d layout.Digest) bool {
	have, _, err := hashFile(path)
	return err == nil && have == d
}

// writeDoc writes a new file in the staging folder with the bytes that
// fn writes, and returns their digest and size.
func (b *builder) writeDoc(path string, fn func(io.Writer) error) (layout.Digest, int64, error) {
	if err := b.mkdirAll(filepath.Dir(path)); err != nil {
		return "", 0, err
	}
	f, err := b.create(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	d, n, err := render(f, fn)
	if err != nil {
		return "", 0, err
	}
	return d, n, f.Close()
}

// render passes what fn writes on to w, and returns its digest and size;
// with io.Discard it measures a document without keeping it.
func render(w io.Writer, fn func(io.Writer) error) (layout.Digest, int64, error) {
	h := &hashCounter{h: sha256.New()}
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 64<<10)
	if err := fn(bw); err != nil {
		return "", 0, err
	}
	if err := bw.Flush(); err != nil {
		return "", 0, err
	}
	return digest(h.h.Sum(nil)), h.n, nil
}

// hashCounter hashes and counts what is written to it.
type hashCounter struct {
	h hash.Hash
	n int64
}

func (c *hashCounter) Write(p []byte) (int, error) {
	c.h.Write(p)
	c.n += int64(len(p))
	return len(p), nil
}
