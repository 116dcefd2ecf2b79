package lint

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/smallfile"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

// Scope decides which of the skills found below a root are the
// repository's skills: Run checks them and the build publishes them, so
// that the two never disagree about what is a skill. It leaves out the
// skills in the folders the user's ignore patterns name, in tests and
// templates folders (skill.DefaultIgnore), outside what a repository declares
// when it declares its skills (a marketplace, plugin manifests: see
// plugin.go), and in clients' install folders when there are skills
// elsewhere. The zero value applies these defaults.
type Scope struct {
	// All keeps every skill found but those the user's patterns name:
	// also those the defaults leave out.
	All bool
	// Ignore are gitignore-style patterns relative to each root (--ignore).
	Ignore []string
	// Config is skillpack.yaml's ignore list, relative to ConfigDir.
	Config    *skill.Ignore
	ConfigDir string
	// Rel spells a folder for the notes (nil: as found).
	Rel func(string) string
	// Verbose has the notes name every set of identical copies (Dedupe)
	// and every install folder left out; without it more than three sets
	// are one note, and five folders are named.
	Verbose bool
}

// Select returns the skills of t, found below root, that the scope keeps,
// and notes saying what it left out and how to take it back, and which
// manifests could not be read.
func (sc Scope) Select(root string, t *skill.Tree) ([]*skill.Skill, []string) {
	var notes []string
	for _, e := range t.Unread {
		notes = append(notes, fmt.Sprintf("warning: %v", e))
	}
	userKeeps := sc.keeps(true)
	withDefaults := skill.NewIgnore(append(slices.Clone(skill.DefaultIgnore), sc.Ignore...))
	var kept []*skill.Skill
	ignored := 0
	byDefault := map[string][]*skill.Skill{} // the default patterns, as named → skills they left out
	for _, s := range t.Skills {
		if !userKeeps(root, s.Dir) {
			ignored++
			continue
		}
		if sc.All || len(sc.Ignore) == 0 && !defaultNamed(root, s.Dir) {
			kept = append(kept, s) // the common case, without a pattern match
			continue
		}
		if dir, ok := withDefaults.Path(root, s.Dir, true); ok && !meant(root, s, dir, withDefaults) {
			p := defaultPatterns(root, s.Dir)
			byDefault[p] = append(byDefault[p], s)
			continue
		}
		kept = append(kept, s)
	}
	if ignored > 0 {
		notes = append(notes, fmt.Sprintf("left out %s that skillpack.yaml's ignore or --ignore names", human.Plural(ignored, "skill", "skills")))
	}
	if sc.All {
		return kept, notes
	}
	if len(byDefault) > 0 {
		patterns := slices.Sorted(maps.Keys(byDefault))
		var all []*skill.Skill
		for _, p := range patterns {
			all = append(all, byDefault[p]...)
		}
		var parts []string
		for _, p := range patterns {
			if len(all) == 1 { // which one: templates/ is also a skill's own name (railway/templates)
				parts = append(parts, fmt.Sprintf("%s (1: %s)", p, sc.rel(byDefault[p][0].Dir)))
			} else {
				parts = append(parts, fmt.Sprintf("%s (%d)", p, len(byDefault[p])))
			}
		}
		// Every pattern that names a folder of the skill leaves it out
		// (tests/fixtures/): each is taken back. A pattern is offered only
		// if the steps after would keep one of its skills: a marketplace
		// declaring others, or an install folder, would leave it out again.
		again, _, _ := sc.steps(root, t, append(slices.Clone(kept), all...))
		stays := map[*skill.Skill]bool{}
		for _, s := range again {
			stays[s] = true
		}
		back := "--all takes them back (an --ignore '!...' would not: the scope leaves them out for another reason too)"
		if i := slices.IndexFunc(patterns, func(p string) bool {
			return slices.ContainsFunc(byDefault[p], func(s *skill.Skill) bool { return stays[s] })
		}); i >= 0 {
			var negate []string
			for p := range strings.SplitSeq(patterns[i], " and ") {
				negate = append(negate, "--ignore '!"+p+"'")
			}
			n := "the one"
			if k := len(byDefault[patterns[i]]); k > 1 {
				n = fmt.Sprintf("the %d", k)
			}
			back = fmt.Sprintf("%s takes back %s in %s, --all every skill found", strings.Join(negate, " "), n, patterns[i])
		}
		notes = append(notes, fmt.Sprintf("left out %s in folders of tests and templates: %s; %s",
			human.Plural(len(all), "skill", "skills"), strings.Join(parts, ", "), back))
	}
	at := len(notes)
	kept, said, taking := sc.steps(root, t, kept)
	notes = append(notes, said...)
	if taking != nil { // counted among the skills every step kept
		notes = slices.Insert(notes, at, taking(kept))
	}
	return kept, notes
}

// plain maps each plugin folder of t to the folders of skills found in it
// (relative, with "/") that the scope did not take and that no manifest or
// marketplace entry declares, so that no client loads them as skills
// (edwinhu/claude-plugins' lib/skills/<phase>, which its commands read by
// path): they are files of the plugin, which its archives carry and lint
// checks as its other files. Those the user's patterns leave out stay out,
// as do tests and templates (skill.DefaultIgnore): fixtures, not the
// plugin's.
func (sc Scope) plain(root string, t *skill.Tree, taken []*skill.Skill) map[string][]string {
	took := make(map[string]bool, len(taken))
	for _, s := range taken {
		took[s.Dir] = true
	}
	keeps := sc.keeps(false)
	out := map[string][]string{}
	for _, s := range t.Skills {
		if s.Plugin == "" || s.Declared != "" || s.Mirror != "" || took[s.Dir] || !keeps(root, s.Dir) {
			continue
		}
		if rel, ok := skill.RelBelow(s.Plugin, s.Dir); ok && rel != "." {
			out[filepath.Clean(s.Plugin)] = append(out[filepath.Clean(s.Plugin)], filepath.ToSlash(rel))
		}
	}
	return out
}

// plainAlone is Plain of the plugin in dir whose manifest was passed alone
// (a hook's), as a lint of base judges it (plain). What the scope takes
// depends on the whole tree (the manifests at its root, copies elsewhere),
// so the working folder is judged (whole), and only for a plugin holding
// a SKILL.md that no manifest declares; a manifest outside it is judged in
// its plugin's tree.
func (sc Scope) plainAlone(finder *skill.Finder, base, dir string, whole func() *verdict) []string {
	t, err := finder.FindTree(dir)
	if err != nil || !slices.ContainsFunc(t.Skills, func(s *skill.Skill) bool { return s.Declared == "" }) {
		return nil
	}
	if base != "." {
		taken, _ := sc.Select(dir, t)
		return sc.plain(dir, t, taken)[filepath.Clean(dir)]
	}
	abs, _ := filepath.Abs(dir)
	if v := whole(); v != nil {
		return v.plain[abs]
	}
	return nil
}

// whole judges the working folder for the files and manifests a hook
// passes alone (nil when it cannot be walked). It walks at most once a
// run and only when asked: on a tree of 4,000 skills the walk takes a
// quarter of a second or more, which a hook run on every commit would pay.
func (sc Scope) whole(finder *skill.Finder) func() *verdict {
	return sync.OnceValue(func() *verdict {
		t, err := finder.FindTree(".")
		if err != nil {
			return nil
		}
		taken, _ := sc.Select(".", t)
		v := &verdict{kept: map[string]*skill.Skill{}, plain: map[string][]string{}, broken: map[string]skill.BrokenLink{}}
		for _, s := range taken {
			abs, _ := filepath.Abs(s.Dir)
			v.kept[abs] = s
		}
		for d, p := range sc.plain(".", t, taken) {
			abs, _ := filepath.Abs(d)
			v.plain[abs] = p
		}
		for _, b := range t.Broken {
			abs, _ := filepath.Abs(b.Path)
			v.broken[abs] = b
		}
		return v
	})
}

// verdict is what a lint of the working folder finds, each by absolute
// folder: the skills it takes, its plugins' plain folders (plain), and the
// links where a skill would be that lead nowhere.
type verdict struct {
	kept   map[string]*skill.Skill
	plain  map[string][]string
	broken map[string]skill.BrokenLink
}

// brokenAt is the link at abs that leads nowhere where a skill would be,
// which a lint of the working folder reports as skill-dangling, or nil
// (also for no verdict, and for a folder of no skills, where that lint
// says "no skills found" and names the link).
func (v *verdict) brokenAt(abs string) *skill.BrokenLink {
	if v == nil || len(v.kept) == 0 {
		return nil
	}
	if b, ok := v.broken[abs]; ok {
		return &b
	}
	return nil
}

// steps are the scope's rules after the ignore patterns, in order, on the
// skills those kept: what manifests declare, skills inside others, the
// depth, skills-lock.json and clients' install folders.
func (sc Scope) steps(root string, t *skill.Tree, kept []*skill.Skill) ([]*skill.Skill, []string, func([]*skill.Skill) string) {
	kept, notes, taking := sc.declared(root, t, kept)
	for _, step := range []func(string, []*skill.Skill) ([]*skill.Skill, []string){sc.inManifests, sc.nested, sc.deeper, sc.locked, sc.installed} {
		var said []string
		kept, said = step(root, kept)
		notes = append(notes, said...)
	}
	return kept, notes, taking
}

// Find discovers the skills at or below each root that the scope keeps,
// and reads the plugin folders met (skill.Tree's Plugins; one that cannot
// be listed is left out), each folder once and the plugins in folder
// order, and the marketplaces at each root and plugin folder; notes are
// Select's, which plugin several marketplace entries stand for and which
// was left out for want of a name (named), which links where a skill
// would be lead nowhere when no skill is found (Found.Broken), and then
// which skill.md files the walks passed over (skill.Tree's PassedOver),
// the likeliest reasons. An error is a root that cannot be walked.
func (sc Scope) Find(roots []string) (Found, error) {
	var f Found
	var err error
	f.Skills, f.Plugins, f.Markets, f.Notes, err = sc.find(roots, &f)
	if len(f.Skills) == 0 && !f.Judged {
		for _, b := range f.Broken { // a link that leads nowhere, or an empty folder, where a skill would be
			f.Notes = append(f.Notes,
				fmt.Sprintf("warning: %s is %s: %s", Printable(sc.rel(b.Path)), dangles(b), b.Fix))
		}
	}
	return f, err
}

// Found is what Scope.Find found below its roots.
type Found struct {
	Skills  []*skill.Skill
	Plugins []*plugin.Plugin
	Markets []string // the marketplace files met
	// Broken are the links, and empty folders, where a skill would be
	// that lead nowhere (skill.Tree's; those in folders the scope leaves
	// out aside): skill-dangling reports them (CheckAcross).
	Broken []skill.BrokenLink
	// Judged tells that Broken holds a link given (a hook's) that a lint
	// of the working folder, which has skills, reports: a finding, also
	// when no skill was given with it.
	Judged bool
	Notes  []string
}

// find is Find, putting the links that lead nowhere in f.Broken.
func (sc Scope) find(roots []string, f *Found) (skills []*skill.Skill, plugins []*plugin.Plugin, markets []string, notes []string, err error) {
	seenSkill, seenPlugin := map[string]bool{}, map[string]bool{}
	once := func(seen map[string]bool, dir string) bool {
		abs, _ := filepath.Abs(dir)
		first := !seen[abs]
		seen[abs] = true
		return first
	}
	// A file's skill is the one enclosing it (skill.Enclosing): a skill
	// found for one of its files, or a folder in no skill, is not looked up
	// again for the next file (a pre-commit hook passes thousands; reading
	// a skill looks at every folder above it).
	noSkill := map[string]bool{}
	// A changed marketplace, passed alone, is judged with the skills it
	// declares, as a lint of its repository judges them: a commit that
	// only adds an entry publishes skills whose own files did not change.
	// One a lint of the working folder does not read is left out, as
	// that lint leaves it out.
	var finder skill.Finder
	var unread []string // marketplaces given that a lint of the working folder does not read
	roots = slices.DeleteFunc(slices.Clone(roots), func(root string) bool {
		_, market := skill.ManifestOf(root)
		if market && !skill.IsDir(root) && below(".", root) && !readByTree(&finder, root) {
			unread = append(unread, sc.rel(root))
			return true
		}
		return false
	})
	for _, root := range roots {
		if _, market := skill.ManifestOf(root); market && !skill.IsDir(root) {
			roots = append(roots, skill.MarketplaceRoot(root))
		}
	}
	if len(unread) > 0 {
		notes = append(notes, fmt.Sprintf("left out %s, which a lint of the whole folder does not read: a marketplace is read at the root "+
			"and in a plugin's folder; lint its folder (skillpack lint %s) to check it", human.Few(unread, 3), sc.rel(skill.MarketplaceRoot(unread[0]))))
	}
	var passed []string
	whole := sc.whole(&finder)
	keeps := sc.keeps(sc.All)
	walked := 0                    // plugins found below a folder given
	var hooked skill.Tree          // the skills of the files below the working folder
	var unlistedAlone []string     // plugins of manifests given that the root's marketplace does not list
	walkedOut := map[string]bool{} // plugins a walk's note leaves out already
	// alone takes the plugin in pdir, a file of which was given (a hook's).
	alone := func(base, pdir string) {
		switch {
		case !keeps(base, pdir):
		case base == "." && !sc.All && !rootLists(&finder, pdir, whole):
			if once(seenPlugin, pdir) {
				unlistedAlone = append(unlistedAlone, sc.rel(pdir))
			}
		case once(seenPlugin, pdir):
			if p, err := plugin.Read(pdir); err == nil {
				p.Plain = sc.plainAlone(&finder, base, pdir, whole)
				plugins = append(plugins, p)
			}
		}
	}
	for _, root := range roots {
		base, in := root, "" // base: where the scope's patterns start
		fi, err := os.Lstat(root)
		if err == nil && fi.Mode()&os.ModeSymlink != 0 && skill.IsDir(root) {
			// A link to a folder of the working folder is that folder,
			// as a lint of the working folder sees it: through the link
			// (terrylica's .claude-plugin/plugins -> ../plugins, which a
			// hook passes) every plugin was seen twice, each a
			// plugin-name-duplicate; and a skill linked into a client's
			// folder is not the top of the tree, where pages that are
			// SKILL.md files of their own were skills (fraktor-rs).
			if target, ok := linkedBelow(".", root); ok {
				root = target
				base = "."
				fi, err = os.Lstat(root)
			}
		}
		// A link to a file is a file (a hook passes staged links).
		if err == nil && (fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0 && !skill.IsDir(root)) {
			// A file (a hook passes the changed ones) is judged as a lint
			// of the working folder judges it: a test's fixture is left
			// out there, so it is here.
			if below(".", root) {
				base = "."
				// A link leading nowhere where a skill would be is
				// skill-dangling, as a lint of the working folder finds
				// (kazuyaegusa's x-mined -> /Users/...): given alone, it
				// was a usage error, and beside other files, nothing.
				if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
					abs, _ := filepath.Abs(root)
					if b := whole().brokenAt(abs); b != nil && keeps(base, root) && !slices.Contains(f.Broken, *b) {
						f.Broken, f.Judged = append(f.Broken, *b), true
					}
				}
			}
			// A changed manifest, passed alone, is checked as its plugin
			// or marketplace is by a lint of the tree.
			switch pdir, market := skill.ManifestOf(root); {
			case pdir != "":
				alone(base, pdir)
			case market && keeps(base, filepath.Dir(root)) && once(seenPlugin, root):
				markets = append(markets, root)
			}
			dir, _ := filepath.Abs(filepath.Dir(root))
			if noSkill[dir] {
				continue
			}
			if in = skill.Enclosing(root); in != "" {
				in, _ = filepath.Abs(in)
			}
			if in != "" && seenSkill[in] {
				continue
			}
			if noSkill[dir] = in == ""; in == "" {
				// A plugin's file in no skill (hooks/, a plain folder's)
				// is published in its archives: checked with it.
				if pdir := finder.PluginOf(filepath.Dir(root)); pdir != "" {
					alone(base, pdir)
				}
			}
		}
		t, err := finder.FindTree(root)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if base == "." && in != "" {
			// Judged with the other files' skills below, in one note.
			hooked.Skills, seenSkill[in] = append(hooked.Skills, t.Skills...), true
			continue
		}
		for _, b := range t.Broken {
			// A link out of this root into another root given leads to
			// skills found there.
			if keeps(base, b.Path) && !slices.ContainsFunc(roots, func(r string) bool { return b.Out != "" && below(r, b.Out) }) {
				f.Broken = append(f.Broken, b)
			}
		}
		found, said := sc.Select(base, t)
		notes = append(notes, said...)
		passed = append(passed, t.PassedOver...)
		for _, s := range found {
			if once(seenSkill, s.Dir) {
				skills = append(skills, s)
			}
		}
		for _, d := range append([]string{root}, t.Plugins...) {
			for _, m := range skill.Marketplaces(d) {
				if once(seenPlugin, m) {
					markets = append(markets, m)
				}
			}
		}
		listed := sc.listed(root, t, found)
		plain := sc.plain(base, t, found)
		var unlisted []string
		for _, d := range t.Plugins {
			if !keeps(base, d) {
				continue
			}
			if !listed(d) {
				unlisted, walkedOut[sc.rel(d)] = append(unlisted, sc.rel(d)), true
				continue
			}
			if !once(seenPlugin, d) {
				continue
			}
			if p, err := plugin.Read(d); err == nil {
				e, ok := t.Entries[d]
				if ok {
					merge(p, e)
				}
				note, keep := sc.named(root, p, e)
				if note != "" {
					notes = append(notes, note)
				}
				if keep {
					p.Plain = plain[filepath.Clean(d)]
					plugins = append(plugins, p)
					walked++
				}
			}
		}
		if len(unlisted) > 0 {
			notes = append(notes, fmt.Sprintf("left out %s the marketplace does not list, with no skill taken (%s); --all takes them",
				human.Plural(len(unlisted), "plugin", "plugins"), human.Few(unlisted, 3)))
		}
	}
	unlistedAlone = slices.DeleteFunc(unlistedAlone, func(d string) bool { return walkedOut[d] })
	if len(unlistedAlone) > 0 {
		notes = append(notes, fmt.Sprintf("left out %s the marketplace does not list, with no skill of its own (%s); --all takes them",
			human.Plural(len(unlistedAlone), "plugin", "plugins"), strings.Join(unlistedAlone, ", ")))
	}
	if len(hooked.Skills) > 0 {
		tree := sc.treeFor(whole, hooked.Skills)
		found, said := sc.Select(".", &hooked)
		kept, more := sc.asTree(tree, found, skills)
		skills, notes = append(skills, kept...), append(append(notes, said...), more...)
		for _, s := range found {
			if s.Plugin != "" && !slices.Contains(kept, s) {
				alone(".", s.Plugin) // a plain folder's files are its plugin's
			}
		}
	}
	plugins, notes = sc.reachedTwice(plugins, notes)
	slices.SortFunc(plugins, func(a, b *plugin.Plugin) int { return strings.Compare(a.Dir, b.Dir) })
	if len(skills) == 0 {
		// Among skills, a skill.md that names no skill is most often a
		// page about skills (a wiki's); with none, it is the skill meant.
		seen := map[string]bool{}
		for _, p := range passed {
			if !once(seen, p) {
				continue
			}
			notes = append(notes, fmt.Sprintf("passed over %s: a skill's entry file is named SKILL.md, in capitals, "+
				"and this one has no frontmatter with a name or description; rename it to SKILL.md, and lint then says what it lacks",
				sc.rel(p)))
		}
		// A marketplace of other repositories' plugins (netresearch's 40
		// github sources) names no folder here to find skills in.
		for _, m := range markets {
			data, err := smallfile.Read(m)
			if err != nil {
				continue
			}
			if srcs, elsewhere, err := skill.MarketplaceSources(data); err == nil && len(elsewhere) > 0 && len(srcs) == 0 {
				notes = append(notes, fmt.Sprintf("%s lists %s, each from a github, git or URL source, which skillpack does not fetch: build each from its own repository",
					sc.rel(m), human.Plural(len(elsewhere), "plugin", "plugins")))
			}
		}
		if walked > 0 { // not a manifest passed alone (a hook's)
			names := human.UpTo(len(plugins), 5, func(i int) string { return sc.rel(plugins[i].Dir) }, "and %d more")
			notes = append(notes, fmt.Sprintf("found %s (%s) but no skill: skillpack publishes a plugin with its skills, "+
				"so a plugin without one is not published; give a plugin a skill (skills/NAME/SKILL.md) to publish it",
				human.Plural(len(plugins), "plugin", "plugins"), strings.Join(names, ", ")))
		}
	}
	inner(skills)
	return skills, plugins, markets, notes, nil
}

// inner sets each skill's Inner: the skills of the run inside its folder,
// found in the form the folders have (filepath.Abs asks the system for
// the working folder: a lookup a skill on a tree of thousands).
func inner(skills []*skill.Skill) {
	dirs := map[string]*skill.Skill{}
	for _, s := range skills {
		dirs[filepath.Clean(s.Dir)] = s
	}
	for dir, s := range dirs {
		for d := filepath.Dir(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
			if outer := dirs[d]; outer != nil {
				outer.Inner = append(outer.Inner, s.Dir)
			}
		}
	}
	for _, s := range skills {
		slices.Sort(s.Inner)
	}
}

// dangles says what stands where a skill would be, and holds none.
func dangles(b skill.BrokenLink) string {
	if b.Out != "" {
		return fmt.Sprintf("a symbolic link to %s, out of the folder given; skillpack follows no link to a folder, so the skills there are left out", Printable(b.Target))
	}
	if b.Target == "" {
		return "an empty folder, so no skill is there"
	}
	return fmt.Sprintf("a symbolic link to %s, which does not exist, so no skill is there", Printable(b.Target))
}

// listed returns whether the scope keeps a plugin folder of t, found
// below root, as a client installing from the repository would: when the
// root's marketplace lists plugins found here, only those, the root's own
// plugin and the plugins of skills taken (found); else every plugin. A
// repository keeps old copies of its plugins beside them (an eval's
// baselines), which no client installs.
func (sc Scope) listed(root string, t *skill.Tree, found []*skill.Skill) func(dir string) bool {
	if sc.All || len(t.Entries) == 0 {
		return func(string) bool { return true }
	}
	taken := map[string]bool{filepath.Clean(root): true}
	for _, s := range found {
		taken[s.Plugin] = true
	}
	return func(dir string) bool {
		_, ok := t.Entries[dir]
		return ok || taken[dir]
	}
}

// treeFor is the verdict of a lint of the working folder on the skills
// of the files given (found below it), by absolute folder, where only its
// whole tree shows it: what a marketplace at the root or a plugin's
// manifest declares, a client's install folder with skills elsewhere, a
// skill where no client looks (a translation's copy, ja/guides/foo,
// beside its original), a SKILL.md linked to another skill's (a mirror);
// nil elsewhere, which spares a hook's run the walk. Each skill found
// takes the tree's Declared, Loaded and Mirror, so that Select, Dedupe
// and the rules judge it as the tree's (a declared plugin skill is not
// one "where no client looks"; microsoft/skills-for-fabric's plugin copy
// is kept, not the root skills/ folder's; MemeLLC's mirrors are
// skill-mirror, not identical copies).
func (sc Scope) treeFor(whole func() *verdict, found []*skill.Skill) map[string]*skill.Skill {
	top, _ := filepath.Abs(".")
	if sc.All || len(skill.Marketplaces(".")) == 0 && !slices.ContainsFunc(found, func(s *skill.Skill) bool {
		abs, _ := filepath.Abs(s.Dir)
		f, _ := installFolder(abs)
		unseen, _ := where(top, abs, s)
		fi, err := os.Lstat(filepath.Join(s.Dir, s.File))
		mirror := err == nil && fi.Mode()&os.ModeSymlink != 0
		return s.Plugin != "" || abs != "" && f != "" || unseen != "" && !defaultNamed(".", s.Dir) || mirror
	}) {
		return nil
	}
	v := whole()
	if v == nil {
		return nil
	}
	for _, s := range found {
		abs, _ := filepath.Abs(s.Dir)
		if k := v.kept[abs]; k != nil {
			if s.Declared == "" {
				s.Declared, s.Loaded = k.Declared, k.Loaded
			}
			s.Mirror = cmp.Or(s.Mirror, k.Mirror)
		}
	}
	return v.kept
}

// asTree leaves out of found what tree (treeFor's verdict, nil for none)
// does not keep, with a note, and what a walk of a folder given took
// already (a link's to a skill's folder).
func (sc Scope) asTree(tree map[string]*skill.Skill, found, walked []*skill.Skill) ([]*skill.Skill, []string) {
	var out []*skill.Skill
	var left []string
	took := map[string]bool{}
	for _, s := range walked {
		abs, _ := filepath.Abs(s.Dir)
		took[abs] = true
	}
	for _, s := range found {
		// A skill inside a skill the tree keeps is a file of that one
		// (j5ik2o/fraktor-rs's vendored references/.../skill/SKILL.md):
		// the outer skill is linted, as lint . lints it.
		abs, _ := filepath.Abs(s.Dir)
		outer := abs
		for tree != nil && tree[outer] == nil && filepath.Dir(outer) != outer && below(".", filepath.Dir(outer)) {
			outer = filepath.Dir(outer)
		}
		switch {
		case tree != nil && tree[outer] == nil:
			left = append(left, sc.rel(s.Dir))
		case took[outer]:
		case outer == abs:
			out = append(out, s)
		default:
			out = append(out, tree[outer])
		}
		took[outer] = true
	}
	if len(left) == 0 {
		return out, nil
	}
	return out, []string{fmt.Sprintf("left out %s that a lint of the whole folder leaves out too (%s): skills no manifest declares, "+
		"in clients' install folders, or copies of skills elsewhere; --all takes %s",
		human.Plural(len(left), "skill", "skills"), human.Few(left, 5), human.Word(len(left), "it", "them"))}
}

// readByTree reports whether a lint of the working folder reads the
// marketplace file m, which is below it: it reads the root's and each
// plugin folder's, not one in another folder (ComposioHQ's
// composio-skills/.claude-plugin/marketplace.json, whose sources name
// folders beside it that are not there).
func readByTree(finder *skill.Finder, m string) bool {
	dir := filepath.Clean(skill.MarketplaceRoot(m))
	return dir == "." || finder.PluginOf(dir) == dir
}

// linkedBelow is where the link at p leads, relative to the folder dir,
// when that is inside dir.
func linkedBelow(dir, p string) (string, bool) {
	target, err := filepath.EvalSymlinks(p)
	top, err2 := filepath.EvalSymlinks(dir)
	if err != nil || err2 != nil {
		return "", false
	}
	rel, ok := skill.RelBelow(top, target)
	return filepath.Join(dir, rel), ok
}

// rootLists reports whether a lint of the working folder keeps the plugin
// in dir (see listed), read from the marketplaces at the working folder's
// root: one that lists plugins lists dir, or a skill of dir's is taken
// (whole's verdict, walked only for a plugin with skills of its own that
// the list does not name: terrylica's .claude-plugin/plugins/* copies,
// whose skills no client loads), or there is no such list (an eval's old
// copy of a listed plugin's manifest is no plugin of the repository's).
func rootLists(finder *skill.Finder, dir string, whole func() *verdict) bool {
	abs, _ := filepath.Abs(dir)
	here, _ := filepath.Abs(".")
	listed := finder.MarketPlugins(".")
	for p := range listed {
		if d, _ := filepath.Abs(p); d == abs {
			return true
		}
	}
	if len(listed) == 0 || abs == here {
		return true
	}
	if own, _ := filepath.Glob(filepath.Join(dir, "skills", "*", skill.FileName)); len(own) == 0 {
		return false
	}
	v := whole()
	if v == nil {
		return true // unwalkable: as before, by its own skills
	}
	for _, s := range v.kept {
		if p, _ := filepath.Abs(s.Plugin); s.Plugin != "" && p == abs {
			return true
		}
	}
	return false
}

// merge fills in what a plugin's manifests leave unsaid from the
// marketplace entry naming it, as the clients merge them (the manifest
// first): a plugin with no manifest of its own is named and described by
// its entry alone.
func merge(p *plugin.Plugin, e skill.PluginEntry) {
	if !slices.ContainsFunc(p.Manifests, func(m plugin.File) bool { return m.Name != "" }) && e.Name != "" {
		p.Name = e.Name
	}
	p.Description = cmp.Or(p.Description, e.Description)
	p.Version = cmp.Or(p.Version, e.Version)
	p.Listed = e.Skills
}

// named says how a plugin read in the walk of root came by its name,
// when no manifest of its own names it, and whether the scope keeps it. A
// folder several marketplace entries name (e.Of) is one plugin
// (skill.PluginEntry); the entries of one folder with a manifest are
// aliases of one plugin (expo/skills), not said, unless they declare
// other skills (yigitkonur/skills-by-yigitkonur's 13 bundles of "./"). A plugin nothing names is
// named after its folder (plugin.Read), but never after the root walked
// (unless a marketplace above it names it, skill.EntryAbove): that name is
// the checkout's, another in every clone, and would make the bundle's
// bytes hang on it, so the plugin is left out.
func (sc Scope) named(root string, p *plugin.Plugin, e skill.PluginEntry) (string, bool) {
	// A manifest that cannot be read may well name it: kept, so that the
	// plugin rules report it (lint of the plugin's own folder passed one
	// that lint of its parent failed).
	named := slices.ContainsFunc(p.Manifests, func(m plugin.File) bool { return m.Name != "" || m.Err != nil })
	if named && !e.Differ {
		return "", true
	}
	if !named && e.Name == "" && filepath.Clean(p.Dir) == filepath.Clean(root) {
		if above, ok := skill.EntryAbove(p.Dir); ok && above.Name != "" {
			merge(p, above) // its marketplace is above the folder walked
			return "", true
		}
		in := ".claude-plugin/plugin.json"
		if len(p.Manifests) > 0 {
			in = p.Manifests[0].Rel
		}
		return fmt.Sprintf("left out the plugin %s: no manifest or marketplace entry names it, and the folder given to build is not "+
			"what names a plugin (it is called another thing in every clone or copy); give it a \"name\" in %s", sc.rel(p.Dir), in), false
	}
	if len(e.Of) == 0 {
		return "", true
	}
	how := "the folder"
	switch {
	case named:
		how = "its manifest"
	case e.Name != "":
		how = "the marketplace"
	}
	return fmt.Sprintf("plugin %s (%s) stands for the %d marketplace entries that name its folder as their source (%s): "+
		"a bundle publishes a folder as one plugin, here named after %s; give each entry a folder of its own to publish them apart",
		p.Name, sc.rel(p.Dir), len(e.Of), strings.Join(human.UpTo(len(e.Of), 3, func(i int) string { return e.Of[i] }, "%d more"), ", "), how), true
}

// reachedTwice leaves out a plugin whose manifest only points into a
// plugin of its name inside its folder: one plugin reached two ways
// (microsoft/devsquad-copilot's root .github/plugin/plugin.json names
// .github/plugins/devsquad/skills/, for an install from the repository,
// beside the marketplace's plugin there, whose manifest names skills/),
// or a copy of that one's manifest whose skills paths name nothing here
// (GRCEngClub's root trust-center, which left the listed one out by name
// clash). It is published once, from the inner folder, which holds all of it.
func (sc Scope) reachedTwice(plugins []*plugin.Plugin, notes []string) ([]*plugin.Plugin, []string) {
	kept := plugins[:0:0]
	for _, p := range plugins {
		i := slices.IndexFunc(plugins, func(q *plugin.Plugin) bool { return q.Name == p.Name && pointsInto(p, q) })
		if i < 0 {
			kept = append(kept, p)
			continue
		}
		in := sc.rel(plugins[i].Dir)
		notes = append(notes, fmt.Sprintf("plugin %s (%s) is the plugin at %s, reached again: its manifest's skills paths lead into it or to nothing; published once, from %s",
			p.Name, sc.rel(p.Dir), in, in))
	}
	return kept, notes
}

// pointsInto reports whether every skills path outer's manifests give
// leads into inner, a folder inside outer's, or to nothing, and outer has
// no skills/ of its own.
func pointsInto(outer, inner *plugin.Plugin) bool {
	rel, err := filepath.Rel(outer.Dir, inner.Dir)
	if err != nil || rel == "." || !filepath.IsLocal(rel) || len(outer.Skills) > 0 || len(outer.Declared) == 0 {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, d := range outer.Declared {
		p := path.Clean(d.Path)
		if _, err := os.Lstat(filepath.Join(outer.Dir, p)); err == nil && p != rel && !strings.HasPrefix(p, rel+"/") {
			return false
		}
	}
	return true
}

// keeps returns whether the scope keeps a folder found below a root, a
// skill's or a plugin's: not one the user's patterns name, nor, unless
// all, one in the default test and template folders (a fixture).
func (sc Scope) keeps(all bool) func(root, dir string) bool {
	patterns := sc.Ignore
	if !all {
		patterns = append(slices.Clone(skill.DefaultIgnore), sc.Ignore...)
	}
	ig := skill.NewIgnore(patterns)
	return func(root, dir string) bool {
		_, byConfig := sc.Config.Path(sc.ConfigDir, dir, true)
		_, byPattern := ig.Path(root, dir, true)
		return !byConfig && !byPattern
	}
}

func (sc Scope) rel(p string) string {
	if sc.Rel == nil {
		return filepath.ToSlash(p)
	}
	return sc.Rel(p)
}

// installed leaves out the skills in clients' install folders
// (.claude/skills, .agents/skills: a hidden folder holding skills/), when
// there are skills elsewhere: those folders hold a client's copies or the
// project's own working skills, not what the repository publishes (lint's
// installed-folder says so too). A tree whose only skills are there is
// taken as it is. One whose other skills are all where no client looks
// takes the install folders' and leaves those out, as the Vercel skills
// CLI does (it searches deeper only when its first places hold none):
// skills deeper than a top-level folder's folders and not declared (an
// app's own prompts, an SDK's example below skills/), a skill.md (a docs
// page), or skills in other hidden folders (an archive of retired copies,
// .tool/archive/skills/v1/). A collection's category/name folders
// (tangledgroup/tangled-skills' misc/) are the repository's skills. Of
// the install folders taken, a sub-project's gives way to the top's (atTop).
func (sc Scope) installed(root string, found []*skill.Skill) ([]*skill.Skill, []string) {
	var kept, installs []*skill.Skill
	var in []string                                                             // the install folder of each of installs
	folders, unseen := map[string][]*skill.Skill{}, map[string][]*skill.Skill{} // unseen: by the first hidden or top-level folder
	// published: a kept skill is declared, at the top or in skills/.
	nUnseen, published := 0, false
	top, _ := filepath.Abs(root)
	for _, s := range found {
		abs, _ := filepath.Abs(s.Dir)
		// Only a folder below root: a repository cloned into a client's
		// folder is not all one install folder.
		if f := installedIn(top, abs); f != "" {
			folders[f] = append(folders[f], s)
			installs, in = append(installs, s), append(in, f)
			continue
		}
		kept = append(kept, s)
		if f, pub := where(top, abs, s); f != "" {
			unseen[f] = append(unseen[f], s)
			nUnseen++
		} else {
			published = published || pub
		}
	}
	if len(folders) > 0 && len(kept) > 0 && nUnseen == len(kept) {
		installs, said := sc.atTop(top, installs, in)
		return installs, append([]string{fmt.Sprintf("left out %s where no client looks (in hidden folders, deeper than a top-level folder's folders, or named skill.md): %s; taking the skills of clients' install folders instead; --all takes them",
			human.Plural(nUnseen, "skill", "skills"), strings.Join(sc.counted(unseen), ", "))}, said...)
	}
	if len(folders) == 0 {
		return found, nil
	}
	if len(kept) == 0 {
		return sc.atTop(top, installs, in) // found, every one in an install folder
	}
	parts := sc.counted(folders)
	// Those no skill taken shares a folder name and SKILL.md with are no
	// copies: the Vercel CLI offers them beside the rest (peparhugo's
	// .github/skills); one of another SKILL.md is another version, whose
	// clash with the one taken is the user's to settle
	// (tangledgroup/tangled-skills' .agents/skills/webfetch and misc/'s).
	taken := map[string][]*skill.Skill{}
	for _, s := range kept {
		taken[filepath.Base(s.Dir)] = append(taken[filepath.Base(s.Dir)], s)
	}
	var own []*skill.Skill
	var ownIn []string
	for i, s := range installs {
		if !slices.ContainsFunc(taken[filepath.Base(s.Dir)], func(k *skill.Skill) bool { return skill.SameEntry(k, s) }) {
			own, ownIn = append(own, s), append(ownIn, in[i])
		}
	}
	if !published && len(own) > 0 {
		// Only category/name folders (cahyo40/agent's workflows/x) and
		// skills of their own in the install folders: a client looks
		// there first, so those are what the repository publishes too.
		took, said := sc.atTop(top, own, ownIn)
		note := fmt.Sprintf("taking the %s of clients' install folders beside the collection's folders, as no skill is declared, at the top or in skills/: %s",
			human.Plural(len(took), "skill", "skills"), strings.Join(parts, ", "))
		if n := len(installs) - len(own); n > 0 {
			note += fmt.Sprintf("; left out %d there named like a skill taken (copies)", n)
		}
		return append(kept, took...), append([]string{note}, said...)
	}
	unlike := ""
	if len(own) > 0 {
		var names []string
		for _, s := range own {
			names = append(names, filepath.Base(s.Dir)+"/")
		}
		slices.Sort(names)
		names = slices.Compact(names) // one name in several clients' folders
		under := ""
		if len(names) < len(own) {
			under = ", under " + human.Plural(len(names), "name", "names")
		}
		unlike = fmt.Sprintf("; %d of them %s of a skill taken (none has %s folder's name and SKILL.md)%s: %s", len(own),
			human.Word(len(own), "is no copy", "are no copies"), human.Word(len(own), "its", "the"), under, human.Few(names, 5))
		if len(found)-len(kept) == 1 {
			unlike = "; it is no copy of a skill taken (none has its folder's name and SKILL.md)"
		}
	}
	return kept, []string{fmt.Sprintf("left out %s in clients' install folders, copies or working skills the repository does not publish: %s%s; --all takes %s",
		human.Plural(len(found)-len(kept), "skill", "skills"), strings.Join(parts, ", "), unlike, human.Word(len(found)-len(kept), "it", "them"))}
}

// where says where the skill s, found below top outside install folders
// in the folder abs (absolute, as top: filepath.Abs of a relative path
// asks the system for the working folder), is: "" when a client looks
// there (declared, or a SKILL.md in a top-level folder or one of its
// folders, outside hidden ones; published when declared, at the top or
// in skills/), else the folder holding it where no client looks, its
// first hidden or top-level folder.
func where(top, abs string, s *skill.Skill) (unseen string, published bool) {
	rel, err := filepath.Rel(top, abs)
	if err != nil {
		return "", false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	i := slices.IndexFunc(parts, hiddenName)
	// The Vercel CLI searches skills/ three folders deep; a collection's
	// skills/<category>/<name> are its skills (HoangNguyen0403/
	// agent-skills-standard), one deeper an SDK's example (oodercn/skills'
	// skills/_drivers/sdk/examples).
	if i < 0 && (s.Declared != "" || s.File == skill.FileName && (len(parts) <= 2 || parts[0] == "skills" && len(parts) == 3)) {
		return "", s.Declared != "" || len(parts) == 1 || parts[0] == "skills"
	}
	return filepath.Join(top, filepath.FromSlash(strings.Join(parts[:max(i, 0)+1], "/"))), false
}

// nested leaves out the skills inside another skill's folder, but the
// root's or a skills/ folder's (a collection's overview, which the Vercel
// skills CLI passes by for the folders beside it: grahama1970/agent-skills'
// skills/SKILL.md above 37 skills): files of that skill, which no client
// loads as skills (Claude Code loads a plugin's skills/<name>, the Vercel
// skills CLI stops at a skill's folder: mariourquia/cre-skills-plugin's
// roles/*, a skill's references/x/SKILL.md), unless a manifest names the
// folder itself (skill.Skill's Loaded); the outer skill lints their files.
// Folders are compared in the form root and Dir have: filepath.Abs asks
// the system for the working folder.
func (sc Scope) nested(root string, found []*skill.Skill) ([]*skill.Skill, []string) {
	holder := enclosing(root, found)
	return sc.leaveOut(found, "inside other skills' folders, which a client loads as files of those", func(_ int, s *skill.Skill) string {
		if s.Declared != "" && s.Loaded {
			return ""
		}
		return holder(s)
	})
}

// enclosing returns, for a skill of found below root, the folder of
// another skill of found that holds its folder, but a skills/ folder's (a
// collection's overview); "" for none.
func enclosing(root string, found []*skill.Skill) func(*skill.Skill) string {
	top := filepath.Clean(root)
	dirs := map[string]bool{}
	for _, s := range found {
		dirs[filepath.Clean(s.Dir)] = true
	}
	return func(s *skill.Skill) string {
		for d := filepath.Dir(filepath.Clean(s.Dir)); d != top && d != filepath.Dir(d); d = filepath.Dir(d) {
			if dirs[d] && filepath.Base(d) != "skills" {
				return d
			}
		}
		return ""
	}
}

// inManifests leaves out the skills inside a plugin's manifest folder
// (.claude-plugin/skills/x), unless a manifest names the folder itself:
// no client loads a skill from one.
func (sc Scope) inManifests(root string, found []*skill.Skill) ([]*skill.Skill, []string) {
	return sc.leaveOut(found, "inside plugins' manifest folders, where no client loads a skill", func(_ int, s *skill.Skill) string {
		if s.Declared != "" && s.Loaded {
			return ""
		}
		return skill.ManifestFolder(root, s.Dir)
	})
}

// deeper leaves out, of the skills found below root outside install
// folders, those where no client looks named like one where clients look
// (the folder's name and SkillName: the Vercel skills CLI lists one skill
// of a name) and not identical to it: a package's payload of older copies
// (jamiemills/opencode-skills' bootstrap/package/payload/skills), which a
// client never reaches, as the Vercel skills CLI searches deeper only when
// its first places hold none. Identical copies are Dedupe's. A skill of
// another name in a folder of the same name is no copy
// (j4flmao/agent-skills' skills/backend/universal/contract-testing beside
// skills/quality/contract-testing).
func (sc Scope) deeper(root string, found []*skill.Skill) ([]*skill.Skill, []string) {
	top, _ := filepath.Abs(root)
	seen := map[string]*skill.Skill{}
	folder := make([]string, len(found))
	for i, s := range found {
		abs, _ := filepath.Abs(s.Dir)
		if installedIn(top, abs) != "" {
			continue
		}
		if folder[i], _ = where(top, abs, s); folder[i] == "" && seen[s.Name()] == nil {
			seen[s.Name()] = s
		}
	}
	// Find has not read the entry files (the build reads each in its turn):
	// a pair is read here, on a copy.
	published := func(s *skill.Skill) string {
		if s.Doc == nil {
			c := *s
			c.Read()
			return SkillName(&c)
		}
		return SkillName(s)
	}
	return sc.leaveOut(found, "where no client looks (in hidden folders, or deeper than a top-level folder's folders) named like one where clients look, copies the repository does not publish",
		func(i int, s *skill.Skill) string {
			if like := seen[s.Name()]; folder[i] != "" && like != nil && !skill.Identical(like, s) && published(like) == published(s) {
				return folder[i]
			}
			return ""
		})
}

// leaveOut keeps the skills of found that out names no folder for, and
// says how many it left out and why, counted by the folders out named.
func (sc Scope) leaveOut(found []*skill.Skill, why string, out func(i int, s *skill.Skill) string) ([]*skill.Skill, []string) {
	kept, left := found[:0:0], map[string][]*skill.Skill{}
	for i, s := range found {
		if f := out(i, s); f != "" {
			left[f] = append(left[f], s)
			continue
		}
		kept = append(kept, s)
	}
	if len(left) == 0 {
		return found, nil
	}
	return kept, []string{fmt.Sprintf("left out %s %s: %s; --all takes them",
		human.Plural(len(found)-len(kept), "skill", "skills"), why, strings.Join(sc.counted(left), ", "))}
}

// locked leaves out the skills in the install folders at the top of root
// that its skills-lock.json records: copies the Vercel skills CLI
// installed from other repositories, which it never offers from this one
// (isInstalledProjectSkill in its dist/cli.mjs, 1.7.4: by the skill's
// name or folder, lowercased, spaces and "_" as "-"; it installs a skill
// in a folder of its name, so the folder's is compared here).
func (sc Scope) locked(root string, found []*skill.Skill) ([]*skill.Skill, []string) {
	data, err := smallfile.Read(filepath.Join(root, "skills-lock.json"))
	var lock struct {
		Version int                        `json:"version"`
		Skills  map[string]json.RawMessage `json:"skills"`
	}
	if err != nil || json.Unmarshal(data, &lock) != nil || lock.Version < 1 || len(lock.Skills) == 0 {
		return found, nil
	}
	norm := func(name string) string {
		return strings.Join(strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || unicode.IsSpace(r) }), "-")
	}
	names := map[string]bool{}
	for name := range lock.Skills {
		names[norm(name)] = true
	}
	top, _ := filepath.Abs(root)
	return sc.leaveOut(found, "that skills-lock.json records as installed from other repositories", func(_ int, s *skill.Skill) string {
		if f := installedIn(top, s.Dir); f != "" && atTopOf(top, f) && names[norm(s.Name())] {
			return f
		}
		return ""
	})
}

// atTop returns, of skills in install folders (in: each one's), those of
// the folders at the top (.gemini/skills), where a client opened on the
// repository looks, when there are any: a sub-project's
// (tools/bot/.gemini/skills) are its own working skills
// (google-gemini/gemini-cli). It says what it left out.
func (sc Scope) atTop(top string, installs []*skill.Skill, in []string) ([]*skill.Skill, []string) {
	var kept []*skill.Skill
	deep := map[string][]*skill.Skill{}
	for i, s := range installs {
		if f := in[i]; atTopOf(top, f) {
			kept = append(kept, s)
		} else {
			deep[f] = append(deep[f], s)
		}
	}
	if len(kept) == 0 || len(deep) == 0 {
		return installs, nil
	}
	parts := sc.counted(deep)
	return kept, []string{fmt.Sprintf("left out %s in sub-projects' install folders, where a client opened on the repository does not look: %s; --all takes them",
		human.Plural(len(installs)-len(kept), "skill", "skills"), strings.Join(parts, ", "))}
}

// atTopOf reports whether the install folder f, below top, is at the top
// (.gemini/skills, .posit/assistant/skills), not a sub-project's.
func atTopOf(top, f string) bool {
	rel, err := filepath.Rel(top, f)
	return err == nil && hiddenName(strings.SplitN(filepath.ToSlash(rel), "/", 2)[0])
}

// counted lists the skills left out by the folders holding them, by path:
// a folder's one skill by its own path, more as "3 in FOLDER"; the first 5
// folders, or all with -v.
func (sc Scope) counted(folders map[string][]*skill.Skill) []string {
	sorted, n := slices.Sorted(maps.Keys(folders)), 5
	if sc.Verbose {
		n = len(sorted)
	}
	return human.UpTo(len(sorted), n, func(i int) string {
		if in := folders[sorted[i]]; len(in) > 1 {
			return fmt.Sprintf("%d in %s", len(in), sc.rel(sorted[i]))
		}
		return sc.rel(folders[sorted[i]][0].Dir)
	}, "and %d more (-v lists them)")
}

// installedIn is the client's install folder below root that holds the
// skill folder dir, found below root; "" when none does.
func installedIn(root, dir string) string {
	top, _ := filepath.Abs(root)
	abs, _ := filepath.Abs(dir)
	if f, _ := installFolder(abs); f != "" && f != top && below(top, f) {
		return f
	}
	return ""
}

// below reports whether the path p is the folder dir or below it.
func below(dir, p string) bool {
	_, ok := skill.RelBelow(dir, p)
	return ok
}

// declared returns, when a repository declares what it publishes
// (t.Declares: the manifests at its root), the skills a client installing
// from it finds: those its manifests declare, and those where every
// client looks whatever the manifests say, the root's skills/ folder and
// the root's own folders (the Vercel skills CLI 1.7.4 searches these
// first and adds the plugins' skills to them: discoverSkills in its
// dist/cli.mjs). When the root's marketplace lists plugins found here,
// a plugin it does not list declares nothing (a backups/ folder of old
// copies): no client installs from it. Else it returns every skill found.
// It says what was left out, and taking says which manifests declared
// the skills of those the later steps keep.
func (sc Scope) declared(root string, t *skill.Tree, found []*skill.Skill) (kept []*skill.Skill, notes []string, taking func([]*skill.Skill) string) {
	if len(t.Declares) == 0 {
		return found, nil, nil
	}
	var left, unlisted, deep []*skill.Skill
	declared, also := map[*skill.Skill]bool{}, map[*skill.Skill]bool{}
	by, manifests := map[string]bool{}, map[string]bool{} // the manifests that declare skills taken: as shown, and on disk
	conventional := filepath.Join(root, "skills")
	// A skill is listed when the nearest plugin above it is one the
	// marketplace lists (the skill's own folder may hold a copy's
	// manifest: ulpi-io/plugin-marketplace).
	entries, plugins := map[string]bool{}, map[string]bool{}
	for dir := range t.Entries {
		entries[filepath.Clean(dir)] = true
	}
	for _, dir := range t.Plugins {
		plugins[filepath.Clean(dir)] = true
	}
	top := filepath.Clean(root)
	listed := func(s *skill.Skill) bool {
		pdir, market := skill.ManifestOf(s.Declared)
		if len(entries) == 0 || market || filepath.Clean(pdir) == top || entries[filepath.Clean(s.Dir)] {
			return true // the skill's own folder may be the plugin listed ("skills": ["./"])
		}
		for d := filepath.Dir(filepath.Clean(s.Dir)); !entries[d]; d = filepath.Dir(d) {
			if plugins[d] || d == top || d == filepath.Dir(d) {
				return false
			}
		}
		return true
	}
	holder := enclosing(root, found) // a skill inside another's folder is nested's to judge
	for _, s := range found {
		switch {
		case s.Declared != "" && !s.Loaded && listed(s) && holder(s) == "" && !below(conventional, s.Dir) && !topLevel(root, s.Dir):
			// Deeper than a folder of skills a manifest declares
			// (skills/<group>/<name> of a plugin): Claude Code loads one
			// level, the Vercel CLI a plugin's paths one level too.
			deep = append(deep, s)
		case s.Declared != "" && listed(s):
			// A listed plugin that is itself a skill (discovery's) does not
			// make the repository one that declares its skills:
			// choru-k/skills-for-ai lists only such plugins, and the Vercel
			// CLI, finding none where it looks first, lists every skill.
			if _, market := skill.ManifestOf(s.Declared); !market || !entries[filepath.Clean(s.Dir)] {
				by[sc.rel(s.Declared)] = true
			}
			manifests[s.Declared] = true
			kept = append(kept, s)
			declared[s] = true
		case installedIn(root, s.Dir) != "":
			kept = append(kept, s) // installed decides, and says why
		case below(conventional, s.Dir) || topLevel(root, s.Dir):
			kept = append(kept, s)
			also[s] = true
		case s.Declared != "":
			unlisted = append(unlisted, s)
		default:
			left = append(left, s)
		}
	}
	if len(by) == 0 {
		// Its manifests name no skill found here (a marketplace of
		// remote plugins): every skill found is taken, as the clients
		// install them.
		return found, nil, nil
	}
	taking = func(final []*skill.Skill) string {
		// A skill in skills/ identical to a declared one is that skill,
		// published once (Dedupe says so next): it is not one more.
		n, more, named := 0, 0, map[string][]*skill.Skill{}
		for _, s := range final {
			if declared[s] {
				n++
				named[s.Name()] = append(named[s.Name()], s)
			}
		}
		for _, s := range final {
			if also[s] && !slices.ContainsFunc(named[s.Name()], func(d *skill.Skill) bool { return skill.Identical(d, s) }) {
				more++
			}
		}
		others := "" // the others taken, where every client looks
		if more > 0 {
			others = fmt.Sprintf(", and the %s in skills/ and the top-level folders, where every client looks", human.Plural(more, "skill", "skills"))
		}
		return fmt.Sprintf("taking the %s that %s%s", human.Plural(n, "skill", "skills"), manifestsDeclare(slices.Sorted(maps.Keys(by))), others)
	}
	for _, l := range []struct {
		skills []*skill.Skill
		why    string
	}{{left, "that no manifest declares"}, {unlisted, "of plugins the marketplace does not list"},
		{deep, "deeper than the folders of skills their plugins declare (Claude Code loads skills/<name>, not skills/<group>/<name>)"}} {
		if len(l.skills) > 0 {
			names := human.UpTo(len(l.skills), 5, func(i int) string { return sc.rel(l.skills[i].Dir) }, "and %d more")
			notes = append(notes, fmt.Sprintf("left out %s %s, which no client installing from the repository loads as skills (%s); --all takes every skill found",
				human.Plural(len(l.skills), "skill", "skills"), l.why, strings.Join(names, ", ")))
		}
	}
	if len(left)+len(unlisted)+len(deep) > 0 {
		for _, m := range slices.Sorted(maps.Keys(manifests)) {
			if skill.GitIgnores(m) { // made by a build step (flycrum/colada)
				notes = append(notes, fmt.Sprintf("warning: git ignores %s, which leaves those out: a clone of the repository, and a build in CI, "+
					"has no such file and takes them; track it (git add -f), or delete it", sc.rel(m)))
			}
		}
	}
	return kept, notes, taking
}

// topLevel reports whether the folder dir is root or one of its own
// folders.
func topLevel(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && filepath.IsLocal(rel) && !strings.ContainsRune(rel, filepath.Separator)
}

// manifestsDeclare names the files that declare skills, one or two by
// name, more by their count, with the verb.
func manifestsDeclare(files []string) string {
	switch len(files) {
	case 1:
		return files[0] + " declares"
	case 2:
		return files[0] + " and " + files[1] + " declare"
	}
	return fmt.Sprintf("%s and %d other manifests declare", files[0], len(files)-1)
}

// meant reports whether a skill the default patterns leave out (dir: the
// topmost folder they name, relative to root) is one the repository
// means to publish all the same, where the clients load it: a manifest
// declares it (a marketplace's plugin, a plugin's skills/ or "skills"
// list), a manifest that is not itself in a folder of tests or templates
// (a test's fixture plugin); or it is a skill of a skills/ folder, or of
// a category folder in it, whose own folder alone has a test's or
// template's name (skills/templates/, skills/railway/templates/: a skill
// about templates). A template in a folder of its own elsewhere
// (template/, _template/, a skill's assets/skill-template/) stays out.
func meant(root string, s *skill.Skill, dir string, defaults *skill.Ignore) bool {
	if s.Declared != "" && s.Loaded {
		_, inDefault := defaults.Path(root, filepath.Dir(s.Declared), true)
		return !inDefault
	}
	own := filepath.ToSlash(s.Dir)
	if rel, err := filepath.Rel(root, s.Dir); err == nil {
		own = filepath.ToSlash(rel)
	}
	up := filepath.Dir(s.Dir)
	return dir == own && (filepath.Base(up) == "skills" || filepath.Base(filepath.Dir(up)) == "skills")
}

// defaultPatterns names the patterns of DefaultIgnore that leave out the
// skill folder dir, found below root, joined by " and " in the list's order.
func defaultPatterns(root, dir string) string {
	rel := filepath.ToSlash(dir)
	if r, err := filepath.Rel(root, dir); err == nil {
		rel = filepath.ToSlash(r)
	}
	var names []string
	for _, p := range skill.DefaultIgnore {
		if _, ok := skill.NewIgnore([]string{p}).Path(".", rel, true); ok {
			names = append(names, p)
		}
	}
	return strings.Join(names, " and ")
}

// defaultNames are the folder names DefaultIgnore's patterns are made of
// (each is "name/").
var defaultNames = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range skill.DefaultIgnore {
		m[strings.TrimSuffix(p, "/")] = true
	}
	return m
}()

// defaultNamed reports whether a folder below root, found by walking it,
// passes through a folder DefaultIgnore names: a test of names that
// spares the patterns' regular expressions for the skills they concern
// (ten thousand skills cost 0.2 s of matching otherwise).
func defaultNamed(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return true // let the patterns decide
	}
	return slices.ContainsFunc(strings.Split(filepath.ToSlash(rel), "/"), func(part string) bool { return defaultNames[part] })
}
