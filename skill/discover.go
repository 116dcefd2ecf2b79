package skill

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/internal/smallfile"
)

// MaxDepth bounds how deep discovery walks below a root. Real trees are a few
// levels deep; the bound keeps a pathological tree from costing unbounded time.
const MaxDepth = 32

// MaxRead is how much of a SKILL.md is read. The strictest reader accepts
// 256 KiB; reading four times that lets lint report the real size class
// without letting a 100 MB file cost 100 MB of memory.
const MaxRead = 1 << 20

// Skill is one skill folder: a folder that holds a SKILL.md.
type Skill struct {
	Dir  string // the folder as found on disk (joined onto the root given)
	File string // the entry file's name: "SKILL.md", or a case variant such as "skill.md"
	Size int64  // the entry file's size on disk
	// Mod is the entry file's modification time when Read opened it.
	Mod time.Time

	// Plugin is the folder of the plugin holding the skill, in the form of
	// Dir ("../.." when the plugin is above it), or "" outside any plugin.
	// A plugin scopes its skills' names: see plugin.go.
	Plugin string

	// Mirror is set when the entry file is a symbolic link to the entry
	// file of another skill found by the same walk (a client's install
	// folder mirroring a repository's skills): it is that skill's Dir,
	// and only that one is the skill.
	Mirror string

	// Declared is the manifest that declares the skill (see plugin.go), in
	// the form of Dir; "" when none does. A repository that declares its
	// skills publishes those.
	Declared string
	// Loaded tells that Declared names the skill's folder itself, or the
	// folder of skills just above it (no skill itself), where a client
	// installing the plugin loads it; not a folder deeper down (a skill's
	// assets/template/).
	Loaded bool

	// Copies are the folders, in the form of Dir, of the skills identical
	// to this one that were left out for it (lint's Scope.Dedupe): what
	// lint --fix changes here, it changes there too.
	Copies []string
	// Inner are the folders, in the form of Dir, of the skills inside this
	// one's folder that are skills of the run too (lint's Scope.Find): their
	// files are theirs to lint. Those the scope leaves out are this one's.
	Inner []string

	Doc *SkillMD // nil when the entry file could not be read
	Err error    // why the entry file could not be read

	lists map[string][]fs.DirEntry // discovery's listing of each folder, by its path in the skill, until Collect
}

// Name is the folder's base name, which the spec requires to equal the
// frontmatter name. A Dir of "." or ".." (lint run inside the skill) is
// resolved through the working folder, since "." is no folder's name.
func (s *Skill) Name() string {
	dir := filepath.Clean(s.Dir)
	if b := filepath.Base(dir); b != "." && b != ".." {
		return b
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return filepath.Base(abs)
	}
	return filepath.Base(dir)
}

// EntryPath is the path of the skill's entry file on disk.
func (s *Skill) EntryPath() string { return filepath.Join(s.Dir, s.File) }

// skipDirs are folders that never hold skills of their own.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true}

// Discover finds every skill at or below root, sorted by folder. root may
// also be a skill folder, or a file or a folder inside a skill, in which
// case the enclosing skill is returned (a pre-commit hook passes changed
// files). Symbolic links to folders below root are not followed, so link
// loops cannot trap the walk. Folders holding a built bundle are skipped.
//
// A symlink named as root is a file of the folder it sits in (as git sees
// it): the skill holding the link is returned, even when the link dangles.
// A symlink to a folder outside any skill is walked.
func Discover(root string) ([]*Skill, error) {
	found, err := Find(root)
	ReadAll(found, 0) // none on an error
	return found, err
}

// ReadAll reads every skill's entry file (Read), on jobs goroutines (0:
// one per CPU): reading ten thousand SKILL.md files is most of discovery's
// time.
func ReadAll(skills []*Skill, jobs int) {
	parallel.Each(len(skills), jobs, func(i int) error {
		skills[i].Read()
		return nil
	})
}

// Find is Discover without reading the entry files, so that a caller that
// handles skills one at a time (the build) holds only the skills in hand.
func Find(root string) ([]*Skill, error) {
	t, err := FindTree(root)
	if err != nil {
		return nil, err
	}
	return t.Skills, nil
}

// Tree is what discovery found at or below a root.
type Tree struct {
	Skills []*Skill // as Find returns them
	// Unread holds what a marketplace names that cannot be built (a
	// source outside the repository), each error naming its file. A
	// manifest that cannot be read is lint's to report (readJSON).
	Unread []error
	// Plugins lists the plugin folders the walk met, in the form of
	// Skill.Dir, sorted: each holds a manifest, or a marketplace names it.
	Plugins []string
	// Declares lists the manifests at the root walked (marketplaces and
	// the root's own plugin manifests), in the form of Skill.Dir: when there
	// are any, the repository declares what it publishes.
	Declares []string
	// PassedOver lists the entry files under another case (skill.md)
	// outside any skill whose frontmatter names no skill, in the form of
	// Skill.Dir joined with the file's name: when nothing else is found,
	// the likeliest reason why.
	PassedOver []string
	// Broken lists the symbolic links where a skill would be that lead
	// nowhere, sorted by path.
	Broken []BrokenLink
	// Entries are the marketplace entries that name plugins of Plugins,
	// by folder in its form (PluginEntry.Of when several name one).
	Entries map[string]PluginEntry
}

// BrokenLink is a symbolic link where a skill would be, outside any skill
// (in a skills/ folder, a folder a manifest names for skills, or one
// holding skill folders), whose target does not exist (a git submodule
// not checked out, a link to the machine of whoever made it), or is a
// skill, or a folder of them, outside the folder walked: the walk follows
// no link, so its skills are not found.
type BrokenLink struct {
	Path   string // the link, in the form of Skill.Dir
	Target string // what it holds, as written
	Fix    string // the likeliest fix
	Out    string // for a link out of the folder walked: the real path of the folder it leads to
}

// A Finder finds the skills of many roots in one run, and reads each
// folder above them once for all: whether it is a plugin's root, and what
// a repository's marketplaces name (else a folder of thousands of skills
// is listed once a root). It takes the tree not to change while it is
// used; the zero Finder is ready, a nil one reads afresh each time.
type Finder struct {
	pluginRoots map[string]bool
	markets     map[string]map[string]bool
}

// FindTree is Find, with what else the walk met.
func FindTree(root string) (*Tree, error) { return (*Finder)(nil).FindTree(root) }

// ready makes the caches a zero Finder lacks.
func (f *Finder) ready() {
	if f != nil && f.pluginRoots == nil {
		f.pluginRoots, f.markets = map[string]bool{}, map[string]map[string]bool{}
	}
}

// FindTree is Find, with what else the walk met.
func (f *Finder) FindTree(root string) (*Tree, error) {
	f.ready()
	one := func(dir string) (*Tree, error) { return &Tree{Skills: []*Skill{f.find(dir)}}, nil }
	info, err := os.Lstat(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, pathError(err))
	}
	walk := root
	if !info.IsDir() { // a file, or a link
		if dir := Enclosing(root); dir != "" {
			return one(dir)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return &Tree{}, nil
		}
		target, err := filepath.EvalSymlinks(root)
		if err == nil {
			info, err = os.Stat(target)
		}
		if err != nil || !info.IsDir() {
			return &Tree{}, nil // a dangling link outside any skill names no skill, nor a link to a file
		}
		walk = target
	}
	w := newWalker(root, walk)
	declares := Marketplaces(walk) // read before the walk meets the plugins they name
	for _, m := range declares {
		w.readMarketplace(m)
	}
	if pluginIn := w.plugins[filepath.Clean(walk)]; !pluginIn && !IsRepoRoot(walk) {
		// The folder named may be a plugin the repository's marketplace
		// names, without a manifest of its own.
		if p := f.pluginAbove(filepath.Join(walk, "x")); p != "" && holds(walk, p) {
			w.plugins[filepath.Clean(walk)] = true
		}
	}
	if err := w.dir(walk, 0, f.pluginAbove(root), false); err != nil {
		return nil, fmt.Errorf("%s: %w", root, pathError(err))
	}
	out := make([]*Skill, len(w.found))
	for i, e := range w.found {
		out[i] = &Skill{Dir: e.dir, File: e.name, Plugin: e.plugin, lists: e.lists}
	}
	w.settleDeclared(out)
	if slices.ContainsFunc(w.found, func(e entry) bool { return e.link }) {
		findMirrors(out, w.found, root, walk)
	}
	if len(out) == 0 {
		// A folder inside a skill ("lint pdf/scripts") means that skill;
		// answering "no skills" would pass it unchecked.
		if dir := Enclosing(root); dir != "" {
			return one(dir)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	if ents, err := os.ReadDir(walk); err == nil {
		declares = append(declares, manifestsIn(walk, ents)...)
	}
	for i, m := range declares {
		declares[i] = w.reported(m)
	}
	sort.Strings(declares)
	return &Tree{Skills: out, Unread: w.unread, Declares: declares, Plugins: slices.Sorted(maps.Keys(w.roots)), PassedOver: w.passed,
		Broken: w.brokenDeclared(), Entries: w.entries}, nil
}

// Enclosing returns the nearest folder at or above path that holds a skill
// entry file, or "" when there is none, looking no higher than the top of
// a git checkout. A symlink in path's last element belongs to the folder
// it sits in. The answer is relative when path is.
func Enclosing(path string) string {
	dir := filepath.Clean(path)
	if info, err := os.Lstat(dir); err != nil || !info.IsDir() {
		dir = filepath.Dir(dir)
	}
	first := "" // a SKILL.md that declares no skill, which a skill above may hold
	for range MaxDepth * 4 {
		if name := entryName(dir); name != "" {
			if declaresSkill(filepath.Join(dir, name)) {
				return dir
			}
			first = cmp.Or(first, dir)
		}
		parent, ok := up(dir)
		if !ok || IsRepoRoot(dir) {
			break // a checkout's files are no part of a skill above it
		}
		dir = parent
	}
	return first
}

// up returns the folder above dir, in dir's form, and false at the
// file-system root.
func up(dir string) (string, bool) {
	if b := filepath.Base(dir); b == "." || b == ".." {
		// Out of names: climb on lexically until the file-system root.
		parent := filepath.Join(dir, "..")
		a, err1 := filepath.Abs(dir)
		p, err2 := filepath.Abs(parent)
		return parent, err1 == nil && err2 == nil && a != p
	}
	parent := filepath.Dir(dir)
	return parent, parent != dir
}

// Load reads the skill in dir. It never fails: an unreadable entry file is
// recorded in Err for lint to report.
func Load(dir string) *Skill {
	s := (*Finder)(nil).find(dir)
	s.Read()
	return s
}

// find is the unread skill in dir.
func (f *Finder) find(dir string) *Skill {
	return &Skill{Dir: dir, File: cmp.Or(entryName(dir), FileName), Plugin: f.PluginOf(dir)}
}

// Whole returns the entry file as Read read it, when it read it whole, for
// whoever would read the file again (see Files.Keep).
func (s *Skill) Whole() (Read, bool) {
	if d := s.Doc; d != nil && !d.Truncated && int64(len(d.Raw)) == s.Size {
		return Read{Data: d.Raw, Mod: s.Mod}, true
	}
	return Read{}, false
}

// Read reads and parses the entry file, filling in Size and Doc, or Err
// when it cannot be read.
func (s *Skill) Read() {
	s.Size, s.Mod, s.Doc, s.Err = 0, time.Time{}, nil, nil
	if info, err := os.Stat(s.EntryPath()); err == nil && !info.Mode().IsRegular() {
		s.Err = fmt.Errorf("%s is not a regular file", s.File)
		return
	}
	f, err := smallfile.Open(s.EntryPath())
	if err != nil {
		s.Err = pathError(err)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		s.Err = pathError(err)
		return
	}
	if !info.Mode().IsRegular() {
		s.Err = fmt.Errorf("%s is not a regular file", s.File)
		return
	}
	s.Size, s.Mod = info.Size(), info.ModTime()
	// Sized from the stat, so that reading does not grow a buffer many
	// times over; one byte past the limit tells a file cut there.
	buf := bytes.NewBuffer(make([]byte, 0, min(s.Size, MaxRead)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxRead+1)); err != nil {
		s.Err = pathError(err)
		return
	}
	data := buf.Bytes()
	s.Doc = parse(data[:min(len(data), MaxRead)], len(data) > MaxRead)
}

// walker finds skills below a folder, listing each folder once.
type walker struct {
	root, walk string  // the folder as given, and as walked (a link's target)
	found      []entry // skills found, not yet loaded

	open     []int                  // the skills (in found) whose folders hold the folder walked
	plugins  map[string]bool        // folders a marketplace names as plugins, cleaned, in the walk's form
	roots    map[string]bool        // plugin folders met, as reported
	decl     []declared             // folders of skills the manifests read declare
	unread   []error                // manifests that could not be read
	passed   []string               // case variants of SKILL.md taken for no skill, outside any skill, as reported
	broken   map[string]BrokenLink  // links where a skill would be that lead nowhere, by path as reported
	empty    map[string]bool        // the empty folders walked, outside any skill
	inSkills int                    // how many skills/ folders outside any skill hold the folder walked
	declDirs map[string]bool        // the folders of decl, cleaned
	entries  map[string]PluginEntry // marketplace entries of plugins, by folder as reported
	listsTop bool                   // an entry naming the folder walked lists its skills (readMarketplace)
}

func newWalker(root, walk string) *walker {
	return &walker{root: root, walk: walk, plugins: map[string]bool{}, roots: map[string]bool{}, entries: map[string]PluginEntry{},
		broken: map[string]BrokenLink{}, empty: map[string]bool{}}
}

// entry is a skill folder, the name of its entry file and the plugin
// holding it.
type entry struct {
	dir, name, plugin string
	walked            string // dir in the walk's form
	link              bool   // the entry file is a symbolic link
	lists             map[string][]fs.DirEntry
}

// dir walks a folder; plugin is the plugin holding it, as reported, and
// inSkill tells that a skill holds it.
func (w *walker) dir(dir string, depth int, plugin string, inSkill bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if depth == 0 {
			return err
		}
		// A folder below root that cannot be listed is skipped; a
		// SKILL.md in it can still be read if it opens.
		if fileExists(filepath.Join(dir, FileName)) {
			w.add(dir, FileName, plugin)
		}
		return nil
	}
	if len(ents) == 0 && depth > 0 && !inSkill {
		w.empty[dir] = true
	}
	if depth > 0 && named(ents, ".well-known") != nil && IsBundle(dir) {
		return nil // built output, not source
	}
	// A manifest inside a skill's folder, or in the folder of a skill of
	// another plugin, that no marketplace names is a file of that skill:
	// no client reads it (Prometheus-AGS/prometheus-skill-system's
	// skills/evolver, a plugin copied into a plugin as a skill, declared 33
	// skills no client offers). A skill's folder that is a plugin of its
	// own is one.
	ms, listed := manifestsIn(dir, ents), w.plugins[filepath.Clean(dir)]
	name, passed := entryIn(dir, ents)
	if depth > 0 && (inSkill || name != "" && plugin != "") && !listed {
		ms = nil
	}
	if len(ms) > 0 || listed || isVariant(dir, ents) {
		plugin = w.reported(dir)
		if len(ms) > 0 || listed {
			w.roots[plugin] = true
		}
		for _, m := range ms {
			w.readManifest(m, filepath.Clean(dir))
		}
	}
	// Inside a skill, a SKILL.md that neither names nor describes a skill
	// (a sample in assets/, a template) is a file of that skill.
	if name == "" && len(passed) > 0 && !w.heldBySkill(dir, depth, inSkill) {
		for _, v := range passed {
			w.passed = append(w.passed, filepath.Join(w.reported(dir), v))
		}
	}
	if name != "" && !(w.heldBySkill(dir, depth, inSkill) && !declaresSkill(filepath.Join(dir, name))) {
		w.add(dir, name, plugin)
		e := named(ents, name)
		w.found[len(w.found)-1].link = e != nil && e.Type()&fs.ModeSymlink != 0
		inSkill = true
		defer func(n int) { w.open = w.open[:n] }(len(w.open))
		w.open = append(w.open, len(w.found)-1)
	}
	// Kept for Skill.Collect of the skills that hold the folder.
	for _, i := range w.open {
		e := &w.found[i]
		if rel, err := filepath.Rel(e.walked, dir); err == nil {
			if rel == "." {
				rel = "" // the skill's folder, as Collect names it
			}
			e.lists[filepath.ToSlash(rel)] = ents
		}
	}
	if depth == MaxDepth {
		return nil
	}
	base := filepath.Base(dir)
	if depth == 0 {
		abs, _ := filepath.Abs(dir)
		base = filepath.Base(abs) // "." walked from inside skills/
	}
	if base == "skills" && !inSkill {
		w.inSkills++
		defer func() { w.inSkills-- }()
	}
	found := len(w.found)
	// A symlink's entry is not a folder here, so links are never followed.
	for _, e := range ents {
		if e.IsDir() && !skipDirs[e.Name()] {
			if err := w.dir(filepath.Join(dir, e.Name()), depth+1, plugin, inSkill); err != nil {
				return err
			}
		}
	}
	// A skills/ folder that is a link leading nowhere is where skills would be.
	if e := named(ents, "skills"); !inSkill && e != nil && e.Type()&fs.ModeSymlink != 0 {
		w.brokenLink(filepath.Join(dir, "skills"))
	}
	// A folder of skills: a skills/ folder or one in it (a category:
	// skills/popular/), one a manifest names, or one holding skill folders
	// (a repository of top-level skills).
	if !inSkill && (w.inSkills > 0 || w.declDirs[filepath.Clean(dir)] ||
		slices.ContainsFunc(w.found[found:], func(e entry) bool { return filepath.Dir(e.walked) == filepath.Clean(dir) })) {
		w.brokenIn(dir, ents, depth)
	}
	return nil
}

// brokenIn records the links of a folder of skills, given its listing,
// that lead nowhere.
func (w *walker) brokenIn(dir string, ents []fs.DirEntry, depth int) {
	asked := false // whether a skill holds the folder walked, asked once
	for _, e := range ents {
		empty := e.IsDir() && w.empty[filepath.Join(dir, e.Name())]
		if e.Type()&fs.ModeSymlink == 0 && !empty {
			continue
		}
		if depth == 0 && !asked {
			if asked = true; w.heldBySkill(dir, depth, false) {
				return
			}
		}
		if empty {
			at := w.reported(filepath.Join(dir, e.Name()))
			w.broken[at] = BrokenLink{Path: at, Fix: emptyFix(filepath.Join(dir, e.Name()), at)}
			continue
		}
		w.brokenLink(filepath.Join(dir, e.Name()))
	}
}

// brokenLink records the path p when it is a symbolic link that leads
// nowhere.
func (w *walker) brokenLink(p string) {
	info, err := os.Lstat(p)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return
	}
	target, err := os.Readlink(p)
	if err != nil {
		return
	}
	at := w.reported(p)
	switch _, err := os.Stat(p); {
	case errors.Is(err, fs.ErrNotExist):
		w.broken[at] = BrokenLink{Path: at, Target: target, Fix: brokenFix(w.walk, p, at, target)}
	case err == nil:
		// A link that leads somewhere is a file of its folder, not
		// followed: the skills it leads to are found where they are,
		// unless that is outside the folder walked.
		out, _ := filepath.EvalSymlinks(p)
		walk, _ := filepath.EvalSymlinks(w.walk)
		if _, below := RelBelow(walk, out); !below && out != "" && HoldsSkill(out) {
			shown := target // the folder, in the form of the link's path
			if !filepath.IsAbs(target) {
				shown = filepath.Join(filepath.Dir(at), target)
			}
			w.broken[at] = BrokenLink{Path: at, Target: target, Out: out,
				Fix: fmt.Sprintf("give the folder it leads to as well (%s), or copy the skill in place of the link", filepath.ToSlash(shown))}
		}
	}
}

// HoldsSkill reports whether dir is a skill's folder or holds one just below it.
func HoldsSkill(dir string) bool {
	if entryName(dir) != "" {
		return true
	}
	ents, _ := os.ReadDir(dir)
	return slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return e.IsDir() && entryName(filepath.Join(dir, e.Name())) != "" })
}

// brokenDeclared adds the folders the manifests read name for skills (a
// plugin's skills/, its "skills" list) that are links leading nowhere, and
// returns every broken link recorded, sorted.
func (w *walker) brokenDeclared() []BrokenLink {
	for _, d := range w.decl {
		w.brokenLink(d.dir)
	}
	return slices.SortedFunc(maps.Values(w.broken), func(a, b BrokenLink) int { return strings.Compare(a.Path, b.Path) })
}

// brokenFix is the likeliest fix for the link p, below the folder walked
// (at, as reported), that leads nowhere: one to an absolute path was made
// on another machine, and where the path's end names a folder of the tree
// (/home/someone/repo/.agents/skills, a client's folder linked to the
// repository's own) the relative link is the fix; one inside the
// repository most often leads into a git submodule not checked out.
func brokenFix(walk, p, at, target string) string {
	if filepath.IsAbs(target) {
		parts := strings.Split(filepath.ToSlash(filepath.Clean(target)), "/")
		for i := 1; i < len(parts)-1; i++ { // the longest end of two parts or more
			here := filepath.Join(walk, filepath.FromSlash(strings.Join(parts[i:], "/")))
			if rel, err := filepath.Rel(filepath.Dir(p), here); err == nil && IsDir(here) {
				return fmt.Sprintf("it names a folder on the machine where it was made; %s here is that folder: link to it by a relative path (ln -sfn %s %s)",
					strings.Join(parts[i:], "/"), filepath.ToSlash(rel), at)
			}
		}
		return "it names a folder on the machine where it was made; copy the skill into the repository, or link to it by a relative path inside the repository"
	}
	if twin := caseTwin(filepath.Dir(p), target); twin != "" {
		// Made on macOS or Windows, which ignore case.
		return fmt.Sprintf("%s exists, differing only in letter case, which Linux and archives do not ignore: ln -sfn %s %s", twin, twin, at)
	}
	return "a git submodule not checked out? run git submodule update --init; else correct the link, or remove it"
}

// caseTwin returns the relative path target, from dir, spelled as the
// folders and files that match each of its parts but for letter case are
// (../Skills/PDF for ../skills/pdf), or "" when one does not match.
func caseTwin(dir, target string) string {
	var out []string
	at := dir
	for part := range strings.SplitSeq(filepath.ToSlash(filepath.Clean(target)), "/") {
		if part == "." || part == ".." {
			at, out = filepath.Join(at, part), append(out, part)
			continue
		}
		ents, _ := os.ReadDir(at)
		i := slices.IndexFunc(ents, func(e fs.DirEntry) bool { return strings.EqualFold(e.Name(), part) })
		if i < 0 {
			return ""
		}
		at, out = filepath.Join(at, ents[i].Name()), append(out, ents[i].Name())
	}
	return strings.Join(out, "/")
}

// emptyFix is the fix for the empty folder p (at, as reported). Git keeps
// no empty folder: one in a checkout is most often a submodule not checked
// out, which git's index tells for sure where git is at hand.
func emptyFix(p, at string) string {
	if strings.EqualFold(filepath.Base(p), FileName) {
		return fmt.Sprintf("it is named like a skill's file: remove the folder, and write %s as a file in %s", FileName, filepath.Dir(at))
	}
	switch ix := indexOf(p); {
	case ix.mode(p) == indexSubmodule:
		return fmt.Sprintf("it is a git submodule, not checked out: run git submodule update --init -- %s", at)
	case ix != nil:
		return "remove it: git keeps no empty folder, so it is no submodule, and no clone has it"
	}
	return "a git submodule not checked out? run git submodule update --init; else remove it"
}

// heldBySkill reports whether a skill holds the folder dir, which inSkill
// tells below the folder walked; for that folder, a skill above it does.
func (w *walker) heldBySkill(dir string, depth int, inSkill bool) bool {
	if inSkill || depth > 0 {
		return inSkill
	}
	parent, ok := up(dir)
	return ok && Enclosing(parent) != ""
}

func (w *walker) add(dir, name, plugin string) {
	w.found = append(w.found, entry{dir: w.reported(dir), walked: dir, name: name, plugin: plugin, lists: map[string][]fs.DirEntry{}})
}

// reported is a walked folder's path under the name the user gave, not
// the link's target, so that findings read as they typed.
func (w *walker) reported(dir string) string {
	if w.walk == w.root {
		return dir
	}
	rel, _ := filepath.Rel(w.walk, dir)
	return filepath.Join(w.root, rel)
}

// entryName returns the name of the entry file in dir: "SKILL.md" when
// present, else a case variant (which lint asks the author to rename), else "".
func entryName(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		// A folder that can be searched but not listed still has a
		// SKILL.md if one opens.
		if fileExists(filepath.Join(dir, FileName)) {
			return FileName
		}
		return ""
	}
	name, _ := entryIn(dir, ents)
	return name
}

// entryIn picks the entry file from the listing of the folder dir: on a
// case-insensitive file system a stat of "SKILL.md" also finds
// "skill.md", and only the listing tells the real name. A case variant is
// an entry file only when its frontmatter names or describes the skill
// (declaresSkill); the others are returned as passed over.
func entryIn(dir string, ents []fs.DirEntry) (name string, passed []string) {
	var variants []string
	for _, e := range ents {
		if e.IsDir() || !strings.EqualFold(e.Name(), FileName) {
			continue
		}
		if e.Name() == FileName {
			return FileName, nil
		}
		variants = append(variants, e.Name())
	}
	for _, v := range variants {
		if declaresSkill(filepath.Join(dir, v)) {
			return v, nil
		}
	}
	return "", variants
}

// declaresSkill reports whether an entry file's frontmatter has a name or
// a description; one that cannot be read is taken as a skill, for lint to
// say why. Discovery asks it of a case variant such as skill.md, and of a
// SKILL.md inside another skill.
func declaresSkill(path string) bool {
	f, err := smallfile.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	// The frontmatter opens the file; 64 KiB holds any that names a skill.
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return true
	}
	d := Parse(data)
	k1, _ := d.Lookup("name")
	k2, _ := d.Lookup("description")
	return k1 != nil || k2 != nil
}

// findMirrors sets Mirror on each skill whose entry file links to another
// skill's. The walk follows no link, so a skill's real path is the walked
// folder's real path joined with the skill's path below it: only the
// links cost a look at the disk.
func findMirrors(out []*Skill, found []entry, root, walk string) {
	real, err := filepath.EvalSymlinks(walk)
	if err != nil {
		return
	}
	if real, err = filepath.Abs(real); err != nil {
		return
	}
	realEntry := func(s *Skill) string {
		rel, _ := filepath.Rel(root, s.Dir)
		return filepath.Join(real, rel, s.File)
	}
	byEntry := make(map[string]*Skill, len(out))
	for i, s := range out {
		if !found[i].link {
			byEntry[realEntry(s)] = s
		}
	}
	for i, s := range out {
		if !found[i].link {
			continue
		}
		// A dangling link mirrors nothing: lint reports it as such.
		target, err := filepath.EvalSymlinks(realEntry(s))
		if err != nil {
			continue
		}
		if o := byEntry[target]; o != nil {
			s.Mirror = o.Dir
		}
	}
}

// named returns the entry of a folder's listing named name, or nil.
func named(ents []fs.DirEntry, name string) fs.DirEntry {
	if i := slices.IndexFunc(ents, func(e fs.DirEntry) bool { return e.Name() == name }); i >= 0 {
		return ents[i]
	}
	return nil
}

// BundleMarker is the file, relative to a bundle's root, whose presence
// marks a folder as built output: layout.V2Index, spelled here too since
// skill stays below layout (a layout test keeps the two equal).
const BundleMarker = ".well-known/agent-skills/index.json"

// IsBundle reports whether dir is built output, which discovery skips and
// a build may replace.
func IsBundle(dir string) bool {
	return fileExists(filepath.Join(dir, filepath.FromSlash(BundleMarker)))
}

// Built reports whether the file or folder at p is what a build writes,
// not source: a bundle, or beside an output folder the build's staging
// folders (.dist.skillpack-123), their owner files, a bundle moved aside,
// and its lock (.dist.skillpack.lock).
func Built(p string, dir bool) bool {
	name := filepath.Base(p)
	return strings.HasPrefix(name, ".") && (strings.Contains(name, ".skillpack-") || strings.HasSuffix(name, ".skillpack.lock")) ||
		dir && IsBundle(p)
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}

// IsDir reports whether p is a folder, or a link to one.
func IsDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// pathError drops the operation and path from an *fs.PathError, since
// callers name the path themselves, and turns the commonest causes into
// plain words.
func pathError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file or folder")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
