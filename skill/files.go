package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillpack/skillpack/internal/smallfile"
)

// IgnoreFile is the optional file, in gitignore syntax, that leaves a
// skill's files out of the published bundle. It is never published itself.
const IgnoreFile = ".skillignore"

// File is one file of a skill as it will be published.
type File struct {
	Path string      // slash-separated path relative to the skill folder
	Disk string      // where to read the bytes; a symlink's resolved target
	Size int64       // size in bytes when collected
	Mode fs.FileMode // the source's permission bits
	Link bool        // the source is a symlink, dereferenced (Collect)
}

// Exec reports whether any execute bit is set in the source mode: archives
// carry 0755 for such files and 0644 for the rest.
func (f File) Exec() bool { return f.Mode&0o111 != 0 }

// RefusedKind says why a file cannot be published.
type RefusedKind int

const (
	LinkEscapes RefusedKind = iota + 1 // a symlink whose target is outside the repository (Collect)
	LinkBroken                         // a symlink whose target does not exist, or a loop
	NotRegular                         // a device, socket or named pipe
	Unreadable                         // the file or folder cannot be read
)

// Why Collect refuses a link as LinkEscapes: its target is outside the
// repository, or, in no git work tree, outside the folder collected.
var (
	ErrOutsideRepo   = errors.New("symlink points outside the repository (the git work tree)")
	ErrOutsideFolder = errors.New("symlink points outside the folder, which is in no git work tree")
)

// Refused is a file that is neither published nor harmlessly left out.
type Refused struct {
	Path string
	Kind RefusedKind
	Err  error
}

func (r Refused) Error() string { return r.Path + ": " + r.Err.Error() }

// Files is the result of collecting a skill folder.
type Files struct {
	Files   []File    // what is published, sorted bytewise by Path
	Junk    []string  // left out as junk (folders end in "/")
	Ignored []string  // left out by .skillignore (folders end in "/")
	Refused []Refused // cannot be published
	// Links are the symbolic links met, by path, each with its target as
	// written: on disk, or where git checked one out as a file (fromIndex).
	Links map[string]string

	Root   string  // the folder, absolute (its real path when it holds a link), below which the files' Disk paths are
	Ignore *Ignore // the folder's .skillignore; nil when it has none

	read       map[string]Read // whole files already read (Keep)
	gitIgnored *[]string       // GitIgnored's answer, once asked: the build's verdict key asks, then lint's rule
}

// Read is a whole file as read once, and its modification time when it
// was opened: whoever reads it next may take these bytes instead of opening
// it again, and tell by the time whether they are still the file's.
type Read struct {
	Data []byte
	Mod  time.Time
}

// Keep keeps the bytes of the file at path (a Files path), read whole, for
// Kept: lint's rules read a skill's files before the build packs them, and
// a second read of every file cost more than the rest of packing but
// deflate.
func (f *Files) Keep(path string, r Read) {
	if f.read == nil {
		f.read = map[string]Read{}
	}
	f.read[path] = r
}

// Kept returns what Keep kept of the file at path.
func (f *Files) Kept(path string) (Read, bool) {
	r, ok := f.read[path]
	return r, ok
}

// IsJunk reports whether a file or folder name is one that tools leave
// behind and no skill means to publish.
func IsJunk(name string, isDir bool) bool {
	if isDir {
		return name == "__pycache__" || name == ".git" || name == ".hg" || name == ".svn"
	}
	return name == ".DS_Store" || name == "Thumbs.db" || name == "desktop.ini" || name == ".git" ||
		strings.HasSuffix(name, ".pyc") || strings.HasSuffix(name, ".pyo") ||
		// vim's swap files; emacs's backups, lock files and autosaves
		strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".swo") || strings.HasSuffix(name, ".swn") ||
		strings.HasSuffix(name, "~") || strings.HasPrefix(name, ".#") ||
		len(name) > 2 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#") ||
		IsZoneIdentifier(name) || IsEnvFile(name)
}

// IsZoneIdentifier reports whether a file name is Windows' mark of a
// downloaded file, an alternate stream that WSL and copies out of NTFS
// leave as a file of its own ("fill.py:Zone.Identifier", the ':' at times
// U+F03A): its lines name the URLs the file came from.
func IsZoneIdentifier(name string) bool {
	return strings.HasSuffix(name, ":Zone.Identifier") || strings.HasSuffix(name, "\uf03aZone.Identifier")
}

// IsEnvFile reports whether a file name is a dotenv file, whose values are
// the credentials of whoever made it (.env, .env.local, .env.production),
// not one of placeholders made to be shared (.env.example).
func IsEnvFile(name string) bool {
	rest, ok := strings.CutPrefix(name, ".env")
	if !ok || rest != "" && rest[0] != '.' {
		return false // .envrc, .environment
	}
	shared := map[string]bool{".example": true, ".sample": true, ".template": true, ".tpl": true,
		".dist": true, ".defaults": true, ".schema": true, ".in": true}
	return !shared[path.Ext(name)]
}

// RepoPlumbing reports whether the entry at path (a Files path) of a skill
// or plugin whose folder is a git work tree's root is the repository's, not
// the skill's: .github/, which GitHub reads only at a repository's root, and
// an installed skill never is, and skillpack.yaml and the baseline the docs
// name, skillpack's own files for the repository (a root plugin's archives
// published them). Collect leaves them out there, as junk. .gitignore and
// .gitattributes stay: git reads them in any folder, so they still work
// where a client installs the skill inside a project's repository (the
// Vercel skills CLI installs them too).
func RepoPlumbing(path string, isDir bool) bool {
	return isDir && path == ".github" || !isDir && (path == "skillpack.yaml" || path == ".skillpack-baseline.json")
}

// maxFiles bounds a collection so that a hostile tree cannot exhaust memory
// or time, far above any reader's limit (the strictest accepts 512). It
// counts every entry looked at, folders included: links inside the skill
// to the same folders can multiply a tiny tree's paths exponentially. A
// variable so tests can lower it.
var maxFiles = 100_000

// Collect lists the files of the skill in dir: junk and .skillignore'd files
// are left out and reported, symlinks are dereferenced, and non-regular
// files and symlinks leaving the repository are refused. The repository is
// the git work tree holding dir (outside git, dir itself): a link to the
// repository's LICENSE or a folder of shared references is published as
// a copy of its target, as the Vercel skills CLI and Claude Code install
// it, while a link out of the checkout (~/.aws, /etc) never is. The walk
// is sorted so that everything downstream is deterministic.
func Collect(dir string) (*Files, error) { return collect(dir, nil, nil) }

// CollectOmitting is Collect leaving out, unlisted and unwalked, every
// entry whose path on disk omit reports: what a build writes inside the
// folder it packs (a plugin at a repository's root holds the output).
func CollectOmitting(dir string, omit func(disk string, isDir bool) bool) (*Files, error) {
	return collect(dir, nil, omit)
}

// Collect is Collect of the skill's folder, each folder listed as
// discovery listed it; a file gone since is left out.
func (s *Skill) Collect() (*Files, error) {
	lists := s.lists
	s.lists = nil // held no longer than needed
	return collect(s.Dir, lists, nil)
}

func collect(dir string, lists map[string][]fs.DirEntry, omit func(string, bool) bool) (*Files, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	repo := IsRepoRoot(root)
	// The error does not name dir: callers name the skill themselves.
	walk := func(root, real string) (*collector, error) {
		c := &collector{root: root, real: real, repo: repo, lists: lists, omit: omit,
			out: &Files{Root: root}, active: map[string]bool{}}
		if fromIndex {
			c.index = indexOf(root)
		}
		return c, c.walk(root, "")
	}
	c, err := walk(root, "")
	if err == errNotReal {
		c, err = walk(c.real, c.real)
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(c.out.Files, func(i, j int) bool { return c.out.Files[i].Path < c.out.Files[j].Path })
	// The walk visits a folder's contents before a sibling that sorts
	// between them bytewise ("a/x" before "a-b"), so sort every list.
	sort.Slice(c.out.Refused, func(i, j int) bool { return c.out.Refused[i].Path < c.out.Refused[j].Path })
	sort.Strings(c.out.Junk)
	sort.Strings(c.out.Ignored)
	return c.out, nil
}

type collector struct {
	root  string
	real  string // root's real path, once a link needed it
	tree  string // the real path of the folder links may point into, once a link needed it
	inGit bool   // tree is a git work tree's root, not root itself
	repo  bool   // root is a git work tree's root (RepoPlumbing)
	index *index // git's, where the disk cannot say a file's mode (fromIndex); else nil
	lists map[string][]fs.DirEntry
	omit  func(disk string, isDir bool) bool // see CollectOmitting; nil omits nothing
	// ignores are the .skillignore files of the folders being walked: the
	// root's, and those of the skill and plugin folders below it, each
	// governing its folder wherever the folder is packed (a plugin's
	// archives hold its skills as their own archives do).
	ignores []folderIgnore
	out     *Files
	active  map[string]bool // the folders being walked (real paths, once a link is met), to stop link loops
	seen    int             // entries looked at, bounded by maxFiles
}

// errNotReal stops a walk that met a link below a root that is not its
// own real path, to start again from the root's (collector.real), since a
// link's target is a real path. Most skills have no links, and are spared
// resolving the root.
var errNotReal = errors.New("the root is not a real path")

// ErrTooManyFiles is returned when a skill holds more files than any reader
// could accept, long before memory is at risk.
var ErrTooManyFiles = fmt.Errorf("more than %d files and folders; leave the bulk out with %s", maxFiles, IgnoreFile)

func (c *collector) walk(real, rel string) error {
	c.active[real] = true
	defer delete(c.active, real)
	ents, listed := c.lists[rel]
	var err error
	if !listed {
		ents, err = os.ReadDir(real)
	}
	if err != nil {
		if rel == "" {
			// A skill folder that cannot be listed at all is an error,
			// not an empty skill.
			return pathError(err)
		}
		c.refuse(rel+"/", Unreadable, pathError(err))
		return nil
	}
	// Read before any entry is judged, when the listing has one.
	own := false // the folder's .skillignore governs it: the root's, or a skill's or plugin's below it
	if named(ents, IgnoreFile) != nil && (rel == "" || named(ents, FileName) != nil || len(manifestsIn(real, ents)) > 0) {
		if data, err := smallfile.Read(filepath.Join(real, IgnoreFile)); err == nil {
			own = true
			ig, dir := ParseIgnore(data), ""
			if rel == "" {
				c.out.Ignore = ig
			} else {
				dir = rel + "/"
			}
			c.ignores = append(c.ignores, folderIgnore{dir, ig})
			defer func() { c.ignores = c.ignores[:len(c.ignores)-1] }()
		}
	}
	// os.ReadDir sorts by name, so the walk order is fixed.
	for _, e := range ents {
		name := e.Name()
		p, disk := path.Join(rel, name), filepath.Join(real, name)
		if own && name == IgnoreFile {
			continue
		}
		if c.seen++; c.seen > maxFiles {
			return ErrTooManyFiles
		}
		isDir, info := e.IsDir(), fs.FileInfo(nil)
		if !isDir {
			var err error
			if info, err = os.Lstat(disk); err != nil {
				if listed && errors.Is(err, fs.ErrNotExist) {
					continue
				}
				c.refuse(p, Unreadable, pathError(err))
				continue
			}
			isDir = info.IsDir()
		}
		// Junk and ignored entries are left out before a link is judged:
		// what is not published cannot escape the skill.
		if c.omit != nil && c.omit(disk, isDir) || c.leaveOut(p, name, isDir) {
			continue
		}
		link := info != nil && info.Mode()&fs.ModeSymlink != 0
		// A link git checked out as a file holding its target.
		asFile := info != nil && info.Mode().IsRegular() && c.index.mode(disk) == indexLink
		if link = link || asFile; link {
			if c.real == "" {
				c.real = c.root
				if real, err := filepath.EvalSymlinks(c.root); err == nil && real != c.root {
					c.real = real
					return errNotReal
				}
			}
			raw, err := readLink(disk, asFile)
			if c.out.Links == nil {
				c.out.Links = map[string]string{}
			}
			c.out.Links[p] = filepath.ToSlash(raw)
			target := disk
			if asFile {
				// A path from the link's folder; an absolute one,
				// meaningless in another checkout, is taken as it is,
				// for the check below to find outside the skill.
				target = raw
				if !path.IsAbs(raw) && !filepath.IsAbs(raw) {
					target = filepath.Join(filepath.Dir(disk), filepath.FromSlash(raw))
				}
			}
			if err == nil {
				target, err = filepath.EvalSymlinks(target)
			}
			if err != nil {
				msg := "symlink target does not exist"
				if !errors.Is(err, fs.ErrNotExist) {
					msg = "symlink cannot be resolved (" + pathError(err).Error() + "; a loop?)"
				}
				c.refuse(p, LinkBroken, errors.New(msg))
				continue
			}
			if kind, why := c.linkable(target); kind != 0 {
				c.refuse(p, kind, why)
				continue
			}
			if info, err = os.Stat(target); err != nil {
				c.refuse(p, Unreadable, pathError(err))
				continue
			}
			disk, isDir = target, info.IsDir()
			// A link to a folder is a folder for dir-only patterns.
			if isDir && c.leaveOut(p, name, true) {
				continue
			}
		}
		switch {
		case isDir:
			if c.active[disk] {
				c.refuse(p, LinkBroken, errors.New("symlink loop"))
				continue
			}
			if err := c.walk(disk, p); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			mode := info.Mode().Perm()
			if c.index.mode(disk) == indexExec {
				mode |= 0o111
			}
			c.out.Files = append(c.out.Files, File{Path: p, Disk: disk, Size: info.Size(), Mode: mode, Link: link})
		default:
			c.refuse(p, NotRegular, fmt.Errorf("not a regular file (%s)", kind(info.Mode())))
		}
	}
	return nil
}

// linkable says why a link may not point at target (a real path), or
// returns 0: it must lie inside the repository, and a folder must not
// hold the skill, which would walk the skill again (a loop).
func (c *collector) linkable(target string) (RefusedKind, error) {
	if c.tree == "" {
		c.tree, c.inGit = c.root, false
		if top, ok := WorkTree(c.root); ok {
			if real, err := filepath.EvalSymlinks(top); err == nil {
				c.tree, c.inGit = real, true
			}
		}
	}
	switch {
	case !holds(c.tree, target) && c.inGit:
		return LinkEscapes, ErrOutsideRepo
	case !holds(c.tree, target):
		return LinkEscapes, ErrOutsideFolder
	case target != c.root && holds(target, c.root):
		return LinkBroken, errors.New("symlink loop: it points at a folder holding the skill")
	}
	return 0, nil
}

// folderIgnore is a .skillignore, and its folder's path with a "/" after
// it ("" for the root's).
type folderIgnore struct {
	dir string
	ig  *Ignore
}

// ignored reports whether a .skillignore of a folder holding p leaves it
// out. The folder's entry file is the skill: a .skillignore of *.md keeps
// it (without, the build's index failed on the skill, and pack wrote an
// archive without one).
func (c *collector) ignored(p, name string, isDir bool) bool {
	for _, f := range c.ignores {
		if rel, ok := strings.CutPrefix(p, f.dir); ok && f.ig.Match(rel, isDir) && !(rel == name && !isDir && strings.EqualFold(name, FileName)) {
			return true
		}
	}
	return false
}

func (c *collector) refuse(p string, kind RefusedKind, err error) {
	c.out.Refused = append(c.out.Refused, Refused{Path: p, Kind: kind, Err: err})
}

// leaveOut records p as junk or ignored (a folder with a "/" after it) and
// reports whether it was either.
func (c *collector) leaveOut(p, name string, isDir bool) bool {
	var list *[]string
	switch {
	case IsJunk(name, isDir), c.repo && RepoPlumbing(p, isDir):
		list = &c.out.Junk
	case c.ignored(p, name, isDir):
		list = &c.out.Ignored
	default:
		return false
	}
	if isDir {
		p += "/"
	}
	*list = append(*list, p)
	return true
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}
