package build

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// discover finds the skills to build: every skill below the roots, less
// those a user's ignore patterns or skill.DefaultIgnore leave out, only
// those a repository declares when it declares any (a marketplace, plugin
// manifests: see skill/plugin.go), and each skill once when several
// folders hold identical copies of it. Each choice is said in the output,
// with the way to undo it.
func (b *builder) discover() (string, error) {
	seen := map[string]bool{}
	var notes []string
	for _, root := range b.roots {
		t, err := skill.FindTree(root)
		if err != nil {
			return "", err
		}
		for _, e := range t.Unread {
			notes = append(notes, fmt.Sprintf("warning: %v", e))
		}
		in, said := b.scope(root, t)
		notes = append(notes, said...)
		for _, s := range in {
			abs, _ := filepath.Abs(s.Dir)
			if !seen[abs] {
				seen[abs] = true
				b.skills = append(b.skills, s)
			}
		}
	}
	if len(b.skills) == 0 {
		return "", &NoSkillsError{Roots: b.roots}
	}
	same, err := b.dedupe()
	if err != nil {
		return "", err
	}
	notes = append(notes, same...)
	b.logf("• discover: %s", human.Plural(len(b.skills), "skill", "skills"))
	for _, n := range notes {
		b.logf("  %s", n)
	}
	return "", nil
}

// scope returns the skills below root to build, and notes saying which
// it leaves out.
func (b *builder) scope(root string, t *skill.Tree) ([]*skill.Skill, []string) {
	found := t.Skills
	if b.opts.All {
		return found, nil
	}
	var notes []string
	var cfg *skill.Ignore
	cfgDir := ""
	if c := b.opts.Lint.Config; c != nil {
		cfg, cfgDir = c.Ignore, c.Dir()
	}
	user := skill.NewIgnore(b.opts.Ignore)
	withDefaults := skill.NewIgnore(append(slices.Clone(skill.DefaultIgnore), b.opts.Ignore...))
	var kept []*skill.Skill
	ignored := 0
	byDefault := map[string]int{} // the default pattern → skills it left out
	for _, s := range found {
		if _, ok := cfg.Folder(cfgDir, s.Dir); ok {
			ignored++
			continue
		}
		if _, ok := user.Folder(root, s.Dir); ok {
			ignored++
			continue
		}
		if len(b.opts.Ignore) == 0 && !defaultNamed(root, s.Dir) {
			kept = append(kept, s) // the common case, without a pattern match
			continue
		}
		if dir, ok := withDefaults.Folder(root, s.Dir); ok {
			byDefault[defaultPattern(dir)]++
			continue
		}
		kept = append(kept, s)
	}
	if ignored > 0 {
		notes = append(notes, fmt.Sprintf("left out %s that skillpack.yaml's ignore or --ignore names", human.Plural(ignored, "skill", "skills")))
	}
	if len(byDefault) > 0 {
		var parts []string
		for _, p := range slices.Sorted(maps.Keys(byDefault)) {
			parts = append(parts, fmt.Sprintf("%s (%d)", p, byDefault[p]))
		}
		first := slices.Sorted(maps.Keys(byDefault))[0]
		notes = append(notes, fmt.Sprintf("left out %s in folders of tests and templates: %s; --ignore '!%s' builds one, --all every skill found",
			human.Plural(sum(byDefault), "skill", "skills"), strings.Join(parts, ", "), first))
	}
	kept, said := b.declared(root, t.Declares, kept)
	notes = append(notes, said...)
	kept, said = b.installed(root, kept)
	return kept, append(notes, said...)
}

// installed leaves out the skills in clients' install folders
// (.claude/skills, .agents/skills: a hidden folder holding skills/), when
// there are skills elsewhere: those folders hold a client's copies or the
// project's own working skills, not what the repository publishes (lint's
// installed-folder says so too). A tree whose only skills are there is
// built as it is.
func (b *builder) installed(root string, found []*skill.Skill) ([]*skill.Skill, []string) {
	var kept []*skill.Skill
	folders := map[string]int{}
	for _, s := range found {
		if f := installFolder(root, s.Dir); f != "" {
			folders[f]++
			continue
		}
		kept = append(kept, s)
	}
	if len(folders) == 0 || len(kept) == 0 {
		return found, nil
	}
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(folders)) {
		parts = append(parts, fmt.Sprintf("%s (%d)", b.rel(f), folders[f]))
	}
	return kept, []string{fmt.Sprintf("left out %s in clients' install folders, copies or working skills the repository does not publish: %s; --all builds them",
		human.Plural(len(found)-len(kept), "skill", "skills"), strings.Join(parts, ", "))}
}

// installFolder returns the client's install folder holding dir below
// root (a hidden folder's skills/ or skill/ folder: .claude/skills), or "".
func installFolder(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := 0; i+1 < len(parts); i++ {
		if len(parts[i]) > 1 && parts[i][0] == '.' && (parts[i+1] == "skills" || parts[i+1] == "skill") {
			return filepath.Join(root, filepath.FromSlash(strings.Join(parts[:i+2], "/")))
		}
	}
	return ""
}

// declared returns the skills a repository declares when it declares
// what it publishes (declares: the manifests at its root), with the root's
// skills/ folder, which every client reads; else all of them. It says
// which manifests declared them and what was left out.
func (b *builder) declared(root string, declares []string, found []*skill.Skill) ([]*skill.Skill, []string) {
	if len(declares) == 0 {
		return found, nil
	}
	var kept, left []*skill.Skill
	by := map[string]bool{}
	conventional := filepath.Join(root, "skills")
	for _, s := range found {
		switch {
		case s.Declared != "":
			by[b.rel(s.Declared)] = true
			kept = append(kept, s)
		case within(conventional, s.Dir):
			kept = append(kept, s)
		default:
			left = append(left, s)
		}
	}
	if len(by) == 0 {
		// Its manifests name no skill found here (a marketplace of
		// remote plugins): every skill found is built, as the clients
		// install them.
		return found, nil
	}
	notes := []string{fmt.Sprintf("building the %s that %s %s", human.Plural(len(kept), "skill", "skills"), manifests(slices.Sorted(maps.Keys(by))), verbDeclare(len(by)))}
	if len(left) > 0 {
		var names []string
		for i, s := range left {
			if i == 5 {
				names = append(names, fmt.Sprintf("and %d more", len(left)-5))
				break
			}
			names = append(names, b.rel(s.Dir))
		}
		notes = append(notes, fmt.Sprintf("left out %s that no manifest declares (%s); --all builds every skill found", human.Plural(len(left), "skill", "skills"), strings.Join(names, ", ")))
	}
	return kept, notes
}

// manifests names the files that declare skills: one or two by name,
// more by their count.
func manifests(files []string) string {
	if len(files) <= 2 {
		return strings.Join(files, " and ")
	}
	return fmt.Sprintf("%s and %d other manifests", files[0], len(files)-1)
}

func verbDeclare(n int) string {
	if n == 1 {
		return "declares"
	}
	return "declare"
}

// defaultPattern names the pattern of skill.DefaultIgnore that ignores the
// folder dir (relative, with "/"), as the user would re-include it.
func defaultPattern(dir string) string {
	for _, p := range skill.DefaultIgnore {
		if _, ok := skill.NewIgnore([]string{p}).Folder(".", dir); ok {
			return p
		}
	}
	return dir + "/"
}

// defaultNames are the folder names skill.DefaultIgnore's patterns are
// made of (each is "name/").
var defaultNames = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range skill.DefaultIgnore {
		m[strings.TrimSuffix(p, "/")] = true
	}
	return m
}()

// defaultNamed reports whether a folder below root, found by walking it,
// passes through a folder skill.DefaultIgnore names: a test of names that
// spares the patterns' regular expressions for the skills they concern
// (ten thousand skills cost 0.2 s of matching otherwise).
func defaultNamed(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return true // let the patterns decide
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if defaultNames[part] {
			return true
		}
	}
	return false
}

// within reports whether the folder p is dir or below it.
func within(dir, p string) bool {
	d, err1 := filepath.Abs(dir)
	a, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, a)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// Identical copies: vendor repositories ship one skill in several plugin
// folders (one skill in six providers' plugins), byte for byte. They are
// one skill, published once. Skills are copies when their folders have one
// name and the files they publish are equal: same paths, same bytes, same
// modes (pack.ContentDigest). Which copy is published does not depend on
// the workers' timing: the one a manifest declares, else one outside
// hidden folders (.claude/skills is a client's working copy), else the
// first in path order.

// dedupe keeps one skill of each set of identical copies, and returns a
// note for each set.
func (b *builder) dedupe() ([]string, error) {
	byName := map[string][]int{}
	for i, s := range b.skills {
		if s.Mirror == "" { // a mirror is reported by lint (skill-mirror)
			byName[s.Name()] = append(byName[s.Name()], i)
		}
	}
	var cand []int
	for _, g := range byName {
		if len(g) > 1 {
			cand = append(cand, g...)
		}
	}
	if len(cand) == 0 {
		return nil, nil
	}
	slices.Sort(cand)
	sums := make([]string, len(b.skills))
	err := parallel.Each(len(cand), b.opts.Jobs, func(i int) error {
		if err := b.interrupted(); err != nil {
			return err
		}
		sums[cand[i]] = b.contentOf(b.skills[cand[i]])
		return nil
	})
	if err != nil {
		return nil, err
	}
	type set struct{ name, sum string }
	copies := map[set][]int{}
	for _, i := range cand {
		if sums[i] != "" {
			k := set{b.skills[i].Name(), sums[i]}
			copies[k] = append(copies[k], i)
		}
	}
	drop := map[int]bool{}
	var notes []string
	for _, g := range copies {
		if len(g) < 2 {
			continue
		}
		keep, why := b.pick(g)
		var others []string
		for _, i := range g {
			if i != keep {
				drop[i] = true
				others = append(others, b.rel(b.skills[i].Dir))
			}
		}
		notes = append(notes, fmt.Sprintf("%s: %d identical copies, published once, from %s (%s); not from %s",
			b.skills[keep].Name(), len(g), b.rel(b.skills[keep].Dir), why, strings.Join(others, ", ")))
	}
	slices.Sort(notes)
	kept := b.skills[:0:0]
	for i, s := range b.skills {
		if !drop[i] {
			kept = append(kept, s)
		}
	}
	b.skills = kept
	return notes, nil
}

// contentOf is the content digest of the files a skill publishes, or ""
// when they cannot all be read (lint and pack say why).
func (b *builder) contentOf(s *skill.Skill) string {
	files, err := skill.Collect(s.Dir)
	if err != nil || len(files.Refused) > 0 {
		return ""
	}
	entries, err := b.hashFiles(&task{work: &work{src: s}, files: files})
	if err != nil {
		return ""
	}
	d := pack.ContentDigest(entries)
	return string(digest(d[:]))
}

// pick chooses the copy to publish among identical ones (indexes into
// b.skills, in path order), and says why.
func (b *builder) pick(g []int) (int, string) {
	var why []string
	if d := slices.DeleteFunc(slices.Clone(g), func(i int) bool { return b.skills[i].Declared == "" }); len(d) > 0 && len(d) < len(g) {
		g, why = d, append(why, "declared by "+b.rel(b.skills[d[0]].Declared))
	}
	if v := slices.DeleteFunc(slices.Clone(g), func(i int) bool { return hidden(b.rel(b.skills[i].Dir)) }); len(v) > 0 && len(v) < len(g) {
		g, why = v, append(why, "outside hidden folders")
	}
	if len(g) > 1 {
		why = append(why, "the first in path order")
	}
	return g[0], strings.Join(why, ", ")
}

// hidden reports whether a slash path passes through a hidden folder.
func hidden(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if len(part) > 1 && part[0] == '.' && part != ".." {
			return true
		}
	}
	return false
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
