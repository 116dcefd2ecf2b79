package build

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/smallfile"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

// packPlugins packs each plugin lint kept into its .tar.gz and .zip, by
// the skills' archive rules (pack.Writer), of every file of its folder
// that a skill folder would publish (skill.Collect), its skills among
// them. Their digests are in the bundle key. As a skill's, a plugin's
// files are hashed first: archives the last build made of the same files
// (by their key) are taken from the output, and only others packed, as a
// skill's are (archive: in memory up to a size, then in a file), up to
// pack.MaxFile each, and staged at once. It returns the plugins, what the
// record keeps of them, and the archives it staged.
func (b *builder) packPlugins(p *packed) ([]layout.Plugin, []layout.RecordPlugin, []string) {
	var out []layout.Plugin
	var recs []layout.RecordPlugin
	var staged []string
	ok := b.vouchedDirs(p)
	for _, pl := range p.plugins {
		lp, rec, err := b.packPlugin(p, pl, ok, &staged)
		if err != nil {
			// As for a plugin with a lint error, the skills are built
			// whatever becomes of the plugin (at times a whole repository).
			b.leaveOutPlugin(pl, err.Error())
			continue
		}
		out, recs = append(out, lp), append(recs, rec)
	}
	slices.SortFunc(recs, func(x, y layout.RecordPlugin) int { return strings.Compare(x.Name, y.Name) })
	return out, recs, staged
}

// leaveOutPlugin leaves pl out of the bundle's plugins, and says why: in
// the step log, and in the result, which the command says under -q too.
func (b *builder) leaveOutPlugin(pl *plugin.Plugin, why string) {
	b.logf("  plugin %s (%s) left out: %s", pl.Name, b.rel(pl.Dir), why)
	b.res.PluginsOut = append(b.res.PluginsOut, PluginOut{Name: pl.Name, Dir: pl.Dir, Reason: why})
}

// below reports whether the skill's folder, or an identical copy's, lies
// in one of paths, each relative to dir with "/" (a manifest's or a
// marketplace entry's skills paths). dir is absolute or in the form of
// the skills' folders (a plugin's Dir).
func (w *work) below(dir string, paths []string) bool {
	return len(paths) > 0 && slices.ContainsFunc(append([]string{w.src.Dir}, w.src.Copies...), func(d string) bool {
		if filepath.IsAbs(dir) {
			d = absPath(d)
		}
		return slices.ContainsFunc(paths, func(sp string) bool {
			r, err := filepath.Rel(filepath.Join(dir, filepath.FromSlash(sp)), d)
			return err == nil && filepath.IsLocal(r)
		})
	})
}

func (b *builder) packPlugin(p *packed, pl *plugin.Plugin, ok map[string]bool, staged *[]string) (layout.Plugin, layout.RecordPlugin, error) {
	var none layout.RecordPlugin
	collected, err := b.lintOpts.PluginFiles(pl.Dir)
	if err != nil {
		return layout.Plugin{}, none, err
	}
	files := collected.Files
	// One line a reason (thereisnotime/skills-collection: 109 lines of
	// links, a plugin's commands each); no file, the key is the reason.
	var refused leftOut
	linkedOut := false // a skill of it is a link out of its folder, which its archives leave out
	for _, r := range collected.Refused {
		why, link := r.Err.Error(), true
		switch {
		case errors.Is(r.Err, skill.ErrOutsideFolder):
			why = "a symbolic link out of the plugin's folder, which is in no git work tree; copy what it leads to into it"
		case r.Kind == skill.LinkEscapes:
			why = "a symbolic link out of the repository; copy what it leads to into it"
		default:
			link = false
		}
		linkedOut = linkedOut || link && skill.HoldsSkill(filepath.Join(pl.Dir, filepath.FromSlash(r.Path)))
		refused.add("", why, r.Path)
	}
	for _, k := range refused.keys {
		b.logf("  plugin %s (%s): its archives leave out %s: %s", pl.Name, b.rel(pl.Dir), b.some(refused.names[k]), k[1])
	}
	var out bool
	if files, out, err = b.vouched(pl, files, ok); err != nil {
		return layout.Plugin{}, none, err
	}
	linkedOut = linkedOut || out
	vouched := len(files) == len(collected.Files) // no skill folder of it left out
	// The checks verify makes of an archive's names, made before packing.
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	if errs := layout.CheckPaths(paths); len(errs) > 0 {
		return layout.Plugin{}, none, errs[0]
	}
	if fs := lint.PackLimits("plugin", files); len(fs) > 0 {
		msg := fs[0].Message
		if fs[0].Path != "" {
			msg = fs[0].Path + ": " + msg
		}
		return layout.Plugin{}, none, fmt.Errorf("%s; %s", msg, fs[0].Fix)
	}
	// A plugin is served as a folder too when a marketplace naming plugin
	// folders is asked for and every client takes its name as a path.
	folder := b.servesFolders()
	if err := layout.CheckName(pl.Name); folder && err != nil {
		folder = false
		b.logf("  plugin %s (%s) is left out of the Codex, Cursor and Copilot marketplaces, which take a kebab-case name (%v): rename it in %s",
			pl.Name, b.rel(pl.Dir), err, manifestOf(pl))
	}
	lp := layout.Plugin{Name: pl.Name, Version: pl.Version, Description: pl.Description}
	// A skill in the folder of a plugin whose entry lists its skills, that
	// none declares (one where every client looks, published for that), is
	// not one Claude Code loads with the plugin (see skill's listsTop).
	in := func(s *skill.Skill) bool {
		return s.Plugin != "" && filepath.Clean(s.Plugin) == filepath.Clean(pl.Dir) && (s.Declared != "" || len(pl.Listed) == 0)
	}
	// An identical copy published from another plugin is the plugin's
	// skill too: its archives and folder hold it, and Claude Code's entry,
	// made of the served skills, must name it.
	mine := map[string]bool{}
	for _, c := range p.copies {
		if in(c) {
			mine[c.Dir] = true
		}
	}
	// So is a skill of a plugin inside this one's folder where a manifest
	// of this one names it: Codex loads every skill below a manifest's
	// skills path ("./plugins/", HDeibler/universal-design-principles).
	var declared []string
	for _, d := range pl.Declared {
		if pl.Contains(d.Path) {
			declared = append(declared, d.Path)
		}
	}
	for _, w := range p.work {
		if in(w.src) || slices.ContainsFunc(w.src.Copies, func(d string) bool { return mine[d] }) || w.below(pl.Dir, declared) {
			lp.Skills = append(lp.Skills, w.name)
		}
	}
	slices.Sort(lp.Skills)
	lp.Skills = slices.Compact(lp.Skills)
	if (!vouched || linkedOut) && len(lp.Skills) == 0 && !slices.ContainsFunc(files, func(f skill.File) bool {
		// A client loads a plugin's parts from its folders (commands/,
		// hooks/) and its JSON files (.mcp.json), not from a README.
		return (strings.Contains(f.Path, "/") || path.Ext(f.Path) == ".json") &&
			!slices.ContainsFunc(pl.Manifests, func(m plugin.File) bool { return m.Rel == f.Path })
	}) {
		// Its skills left out (invalid: a repository's AxonIQ, suwa-sh's
		// distillery; links out of its folder: arkhe's), it would install
		// as its manifests and a README.
		if linkedOut {
			return layout.Plugin{}, none, errors.New("its skills are symbolic links out of its folder, which its archives leave out, and it holds nothing else a client loads")
		}
		return layout.Plugin{}, none, errors.New("the bundle publishes none of its skills, and it holds nothing else a client loads")
	}
	if folder && !vouched && len(lp.Skills) == 0 {
		// As Claude Code's entry, made of its skills, leaves it out: its
		// folder would be its manifests (AxonIQ's app-development plugin,
		// whose one skill was skipped, installed as an empty plugin).
		folder = false
		b.logf("  plugin %s (%s) is left out of the Codex, Cursor and Copilot marketplaces: the bundle publishes none of its skills",
			pl.Name, b.rel(pl.Dir))
	}
	entries := make([]pack.Member, len(files))
	for i, f := range files {
		sum, n, err := bundle.SumFile(f.Disk)
		if err != nil {
			return layout.Plugin{}, none, fmt.Errorf("%s: %w", f.Path, err)
		}
		entries[i] = pack.Member{Path: f.Path, Exec: f.Exec(), Size: n, Sum: sum}
		if folder {
			lp.Files = append(lp.Files, layout.PluginFile{Path: f.Path, Exec: f.Exec(), PluginBytes: layout.PluginBytes{
				Digest: layout.SumDigest(sum[:]), Size: n, Write: copyFile(f.Disk)}})
		}
	}
	rec := layout.RecordPlugin{Name: pl.Name, Key: b.key(entries)}
	if last := p.out.last.Plugin(pl.Name, rec.Key); last != nil {
		rec.TarGz, rec.Zip = last.TarGz, last.Zip
		last := func(a layout.Archive, ext string) layout.PluginBytes {
			at := filepath.Join(p.out.dir, filepath.FromSlash(layout.PluginArchivePath(pl.Name, a.Digest, ext)))
			return layout.PluginBytes{Digest: a.Digest, Size: a.Size, Write: copyFile(at)}
		}
		lp.TarGz, lp.Zip = last(rec.TarGz, layout.TarGz), last(rec.Zip, layout.Zip)
		return lp, rec, nil
	}
	onPackPlugin(pl.Name)
	tgz, zip := b.newArchive(pl.Name, layout.TarGz), b.newArchive(pl.Name, layout.Zip)
	defer tgz.discard()
	defer zip.discard()
	pw := pack.NewWriter(tgz, zip, pack.Options{Time: b.opts.Time})
	for _, f := range files {
		in, err := smallfile.Open(f.Disk)
		if err != nil {
			return layout.Plugin{}, none, err
		}
		_, err = pw.Add(f.Path, f.Exec(), f.Size, in) // its errors name the path
		in.Close()
		if err != nil {
			return layout.Plugin{}, none, err
		}
	}
	if err := pw.Close(); err != nil {
		return layout.Plugin{}, none, err
	}
	for _, a := range []*archive{tgz, zip} {
		if a.n > pack.MaxFile {
			return layout.Plugin{}, none, fmt.Errorf("an archive of %d bytes; verify and pull read no file over %d bytes", a.n, int64(pack.MaxFile))
		}
	}
	for _, a := range []struct {
		a   *archive
		to  *layout.PluginBytes
		rec *layout.Archive
	}{{tgz, &lp.TarGz, &rec.TarGz}, {zip, &lp.Zip, &rec.Zip}} {
		*a.rec = a.a.result()
		path := layout.PluginArchivePath(pl.Name, a.rec.Digest, a.a.ext)
		at := b.st.path(path)
		if err := a.a.finishAt(at, false); err != nil {
			return layout.Plugin{}, none, b.outputError(err)
		}
		*staged = append(*staged, path)
		*a.to = layout.PluginBytes{Digest: a.rec.Digest, Size: a.rec.Size, Write: copyFile(at)}
	}
	return lp, rec, nil
}

// vouched leaves out of a plugin's files the skill folders the bundle does
// not vouch for: a skill left out for errors of its own, or one the scope
// did not take (a fixture, a template). Its archives carry the skills the
// bundle publishes, their identical copies, those left out only for a name
// another plugin's skill has (a plugin names its skills within itself),
// and every file outside a skill's folder, which lint's secret rule reads.
// linked tells that one left out is a link out of the plugin's folder to
// a skill the bundle publishes on its own.
func (b *builder) vouched(pl *plugin.Plugin, files []skill.File, ok map[string]bool) (_ []skill.File, linked bool, err error) {
	dir := absPath(pl.Dir)
	// A folder of a kept skill is kept whole, a skill nested in it too, as
	// that skill's own archives hold it; so is a folder of the plugin's
	// files that holds a SKILL.md (plugin.Plugin's Plain), which lint
	// checked as the plugin's.
	kept := func(d string) bool {
		for ; ; d = path.Dir(d) {
			if ok[filepath.Join(dir, filepath.FromSlash(d))] || slices.Contains(pl.Plain, d) {
				return true
			}
			if d == "." {
				return false
			}
		}
	}
	var out []string // skill folders left out, relative to the plugin
	for _, f := range files {
		if d := path.Dir(f.Path); path.Base(f.Path) == skill.FileName && !kept(d) {
			if d == "." {
				return nil, false, errors.New("it is itself a skill the bundle leaves out")
			}
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return files, false, nil
	}
	// A skill nested in one left out goes with it, unnamed.
	all := slices.Clone(out)
	out = slices.DeleteFunc(out, func(d string) bool {
		return slices.ContainsFunc(all, func(o string) bool { return strings.HasPrefix(d, o+"/") })
	})
	// One reached by a link inside the plugin to its own skills (canva's
	// .cursor/skills -> ../skills) is that skill again: its link is said,
	// and the skill as itself.
	// One reached by a link out of the plugin to a skill the bundle
	// publishes (arkhe's skills/x -> ../../shared/x) is said as that.
	var links, gone, outside []string
	real, _ := filepath.EvalSymlinks(dir)
	for _, d := range out {
		to, err := filepath.EvalSymlinks(filepath.Join(dir, filepath.FromSlash(d)))
		rel, rerr := filepath.Rel(real, to)
		if err == nil && rerr == nil && !filepath.IsLocal(rel) && ok[to] {
			outside = append(outside, d)
			continue
		}
		if err != nil || rerr != nil || !filepath.IsLocal(rel) || filepath.ToSlash(rel) == d {
			gone = append(gone, d)
			continue
		}
		for l := d; l != "."; l = path.Dir(l) {
			if info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(l))); err == nil && info.Mode()&os.ModeSymlink != 0 && !slices.Contains(links, l) {
				links = append(links, l)
			}
		}
	}
	if len(links) > 0 {
		what := "a symbolic link"
		if len(links) > 1 {
			what = "symbolic links"
		}
		b.logf("  plugin %s (%s): its archives leave out %s, %s to the plugin's own skill folders (an archive carries no links)", pl.Name, b.rel(pl.Dir),
			b.some(links), what)
	}
	if len(outside) > 0 {
		b.logf("  plugin %s (%s): its archives leave out %s, %s out of the plugin's folder to skills the bundle publishes on their own "+
			"(an archive carries no links); copy the skill into the plugin", pl.Name, b.rel(pl.Dir), b.some(outside),
			human.Word(len(outside), "a symbolic link", "symbolic links"))
	}
	if len(gone) > 0 {
		b.logf("  plugin %s (%s): its archives leave out %s the bundle does not publish: %s", pl.Name, b.rel(pl.Dir),
			human.Plural(len(gone), "skill folder", "skill folders"), b.some(gone))
	}
	return slices.DeleteFunc(slices.Clone(files), func(f skill.File) bool {
		return slices.ContainsFunc(out, func(d string) bool { return strings.HasPrefix(f.Path, d+"/") })
	}), len(outside) > 0, nil
}

// vouchedDirs maps the absolute folders of skills to whether a plugin's
// archives may carry them (vouched); made once a build.
func (b *builder) vouchedDirs(p *packed) map[string]bool {
	ok := map[string]bool{}
	for _, w := range p.work {
		ok[absPath(w.src.Dir)] = true
	}
	for _, c := range p.copies {
		ok[absPath(c.Dir)] = true
	}
	for _, d := range p.inside {
		ok[absPath(d)] = true
	}
	for _, s := range b.res.Skipped {
		ok[absPath(s.Dir)] = !slices.ContainsFunc(s.Findings, func(f lint.Finding) bool { return f.Rule != "name-bundle-clash" })
	}
	return ok
}

// written reports whether a path met in a plugin's folder is what builds
// write: this build's output folder, before it is a bundle, and what
// skill.Built names. A plugin at a repository's root holds them, and its
// archives, taking them in, would grow with every build.
func written(out string) func(disk string, isDir bool) bool {
	parents := []string{filepath.Dir(out)}
	if real, err := filepath.EvalSymlinks(parents[0]); err == nil {
		parents = append(parents, real)
	}
	return func(disk string, isDir bool) bool {
		return filepath.Base(disk) == filepath.Base(out) && slices.Contains(parents, filepath.Dir(disk)) || skill.Built(disk, isDir)
	}
}

// copyFile writes a plugin's file from its source, or an archive from the
// last bundle; the write step checks the bytes against the digest given.
func copyFile(disk string) func(io.Writer) error {
	return func(w io.Writer) error { return smallfile.Copy(w, disk) }
}

// manifestOf names the manifest that gives a plugin its name, or its folder.
func manifestOf(pl *plugin.Plugin) string {
	for _, m := range pl.Manifests {
		if m.Name != "" {
			return m.Rel
		}
	}
	return "the folder's name"
}

// pluginsKey is what the plugins add to the bundle key: each one's name
// and archives' digests, and the marketplace files asked for.
func (b *builder) pluginsKey(ps []layout.Plugin, m *layout.Marketplace) []string {
	var out []string
	if m != nil {
		out = append(out, fmt.Sprintf("marketplace %q %q %q %q", m.Name, m.Owner, m.Title, m.Files))
		if m.Description != "" { // unset, the key is as before it was read
			out = append(out, fmt.Sprintf("marketplace description %q", m.Description))
		}
		for _, c := range m.Claude { // the repository's entries, which no archive need hold
			out = append(out, fmt.Sprintf("claude %q %q %q %q", c.Name, c.Description, c.Version, c.Skills))
		}
		for _, name := range slices.Sorted(maps.Keys(m.Codex)) {
			out = append(out, fmt.Sprintf("codex %q %s %q", name, m.Codex[name].Policy, m.Codex[name].Category))
		}
	}
	for _, p := range ps {
		out = append(out, fmt.Sprintf("plugin %s %s %s", p.Name, p.TarGz.Digest, p.Zip.Digest))
	}
	return out
}

// marketplace names the marketplace files asked for as the first folder
// built names its own (if kebab-case), else after that folder made
// kebab-case (not as is: a checkout's name differs in every clone). The
// owner is the catalog's publisher, else that marketplace's, else the name.
func (b *builder) marketplace() *layout.Marketplace {
	var files []string
	for _, m := range b.opts.Marketplaces {
		if f, ok := layout.Marketplaces[m]; ok && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	if files == nil {
		return nil
	}
	slices.Sort(files)
	name, owner, desc := skill.MarketplaceOf(b.roots[0])
	if layout.CheckName(name) != nil {
		abs, _ := filepath.Abs(b.roots[0])
		name, owner = skill.SuggestName(filepath.Base(abs)), "" // "Café Skills": cafe-skills
	}
	if layout.CheckName(name) != nil {
		name = "skills"
	}
	m := &layout.Marketplace{Name: name, Owner: cmp.Or(b.opts.CatalogPublisher, owner, name), Title: b.opts.CatalogTitle, Description: desc, Files: files}
	// The repository's own Codex marketplace says what the build cannot
	// know: each plugin's policy and category, and the title Codex shows
	// (Scandit/skills: ON_USE became ON_INSTALL, "Scandit Plugins" its name).
	if data, err := smallfile.Read(filepath.Join(b.roots[0], filepath.FromSlash(layout.CodexMarketplace))); err == nil && slices.Contains(files, layout.CodexMarketplace) {
		if own, err := layout.DecodeCodexMarketplace(data); err == nil {
			m.Title = cmp.Or(m.Title, own.Interface.DisplayName)
			m.Codex = map[string]layout.CodexPlugin{}
			for _, e := range own.Plugins {
				m.Codex[e.Name] = e
			}
		}
	}
	return m
}

// claudePlugins are the plugins Claude Code's file lists (Marketplace.Claude)
// when it is asked for and a folder built has a Claude Code marketplace of
// its own: its entries whose source is a folder here (the first of a name,
// in the order the folders were given), by their names, as Claude Code
// installs NAME@MARKETPLACE, not by a manifest's name. An entry's skills
// are the served skills below its "skills" paths, else those of the plugin
// built from its folder. A plugin built that no entry offers is said to be
// left out. nil otherwise: then each plugin built is an entry. Either way,
// noteParts says what an entry made of served skills cannot carry.
func (b *builder) claudePlugins(p *packed, ps []layout.Plugin, m *layout.Marketplace) []layout.Plugin {
	if m == nil || !slices.Contains(m.Files, layout.ClaudeMarketplace) {
		return nil
	}
	built := map[string]*plugin.Plugin{} // the plugins packed, by name
	for _, pl := range p.plugins {
		if slices.ContainsFunc(ps, func(lp layout.Plugin) bool { return lp.Name == pl.Name }) {
			built[pl.Name] = pl
		}
	}
	type own struct { // a folder's Claude Code marketplace
		file      string
		entries   []skill.MarketplaceSource
		elsewhere []skill.MarketplaceSource // entries that name no folder
	}
	var owns []own
	var files []string
	for _, root := range b.roots {
		file := filepath.Join(root, filepath.FromSlash(layout.ClaudeMarketplace))
		data, err := smallfile.Read(file)
		var o own
		if err == nil {
			o.entries, o.elsewhere, err = skill.MarketplaceSources(data)
		}
		if err == nil { // else none, or one discovery and lint said cannot be read
			o.file = file
			owns = append(owns, o)
			files = append(files, b.rel(file))
		}
	}
	if len(owns) == 0 {
		for _, lp := range ps {
			if len(lp.Skills) > 0 {
				b.noteParts(p, lp.Name, built[lp.Name], nil)
			}
		}
		return nil
	}
	byDir := map[string]layout.Plugin{}
	for _, lp := range ps {
		if pl := built[lp.Name]; pl != nil {
			byDir[absPath(pl.Dir)] = lp
		}
	}
	out := []layout.Plugin{}
	offered := map[string]bool{} // the plugins built that an entry offers, by name
	for _, o := range owns {
		for _, e := range o.entries {
			dir, ok := e.Dir(skill.MarketplaceRoot(o.file))
			if !ok || e.Name == "" || slices.ContainsFunc(out, func(c layout.Plugin) bool { return c.Name == e.Name }) {
				continue // discovery said so of one that leads out; Claude Code takes the first of a name
			}
			dir = absPath(dir)
			lp, ok := byDir[dir]
			if ok {
				offered[lp.Name] = true
			}
			c := layout.Plugin{Name: e.Name, Description: cmp.Or(lp.Description, e.Description), Version: cmp.Or(lp.Version, e.Version), Skills: lp.Skills}
			if len(e.Skills) > 0 {
				// Claude Code adds an entry's skills paths to the plugin's
				// skills/ folder (kivilaid/plugin-marketplace's paths name
				// nothing, and its plugins' skills load all the same); an
				// entry of the marketplace's own folder ("source": "./",
				// anthropics/skills) is a set of that folder's skills.
				if dir == absPath(skill.MarketplaceRoot(o.file)) {
					c.Skills = nil
				}
				c.Skills = slices.Clone(c.Skills)
				for _, w := range p.work {
					if w.below(dir, e.Skills) {
						c.Skills = append(c.Skills, w.name)
					}
				}
				slices.Sort(c.Skills)
				c.Skills = slices.Compact(c.Skills)
			}
			out = append(out, c)
			if len(c.Skills) > 0 {
				b.noteParts(p, c.Name, built[lp.Name], &e)
			}
		}
		var l leftOut
		for _, e := range o.elsewhere {
			l.add(layout.ClaudeMarketplace, fmt.Sprintf("its entry in the repository's own (%s) has a source that is no folder (a repository, a URL or a package), none the bundle serves", b.rel(o.file)), e.Name)
			offered[e.Name] = true // said
		}
		b.sayLeftOut(&l)
	}
	for _, lp := range ps {
		if pl := built[lp.Name]; !offered[lp.Name] && len(lp.Skills) > 0 && pl != nil {
			b.logf("  plugin %s (%s) is left out of %s: the repository's own (%s) offers no entry of its folder; its archives are in %s",
				lp.Name, b.rel(pl.Dir), layout.ClaudeMarketplace, strings.Join(files, ", "), layout.PluginsIndex)
		}
	}
	return out
}

// noteParts says what Claude Code's entry of a plugin, made of its served
// skills, does not carry: the commands, agents, hooks, MCP and LSP servers
// that its entry e or its folder (pl, nil for none) has. Codex, Cursor and
// Copilot install the served folder whole.
func (b *builder) noteParts(p *packed, name string, pl *plugin.Plugin, e *skill.MarketplaceSource) {
	var parts []string
	if e != nil {
		parts = slices.Clone(e.Parts)
	}
	if pl != nil {
		// Each part as a manifest's field, or as its default file.
		for f, in := range map[string]string{"commands": "commands", "agents": "agents", "hooks": "hooks/hooks.json", "mcpServers": ".mcp.json", "lspServers": ".lsp.json"} {
			declared := slices.ContainsFunc(pl.Manifests, func(m plugin.File) bool { _, ok := m.Fields()[f]; return ok })
			if declared || pl.Exists(in) {
				parts = append(parts, f)
			}
		}
		// A skill that runs the plugin's own files (QuantEcon/skills:
		// ${CLAUDE_PLUGIN_ROOT}/scripts/fetch-copilot.sh) finds none there.
		for _, w := range p.work {
			if w.rootRef && filepath.Clean(w.src.Plugin) == filepath.Clean(pl.Dir) {
				parts = append(parts, "plugin files ("+w.name+" reaches them by ${CLAUDE_PLUGIN_ROOT})")
				break
			}
		}
	}
	if len(parts) == 0 {
		return
	}
	slices.Sort(parts)
	b.logf("  plugin %s: its entry in %s is made of its served skills, and does not carry its %s: installed from the bundle, it goes without them",
		name, layout.ClaudeMarketplace, strings.Join(slices.Compact(parts), ", "))
}

// unlisted says which plugins each marketplace asked for leaves out
// (layout.Lists), and why (one not served as a folder was said already).
// A marketplace that would list no plugin is not written (Codex's, when
// no plugin has a manifest Codex reads: phuryn/pm-skills), and the result
// says so;
// when no marketplace naming plugin folders is left, no folder is served.
func (b *builder) unlisted(ps []layout.Plugin, m *layout.Marketplace, out int) {
	if m == nil {
		return
	}
	var files []string
	for _, f := range m.Files {
		listed := ps
		if f == layout.ClaudeMarketplace && m.Claude != nil {
			listed = m.Claude
		}
		n := 0
		var l leftOut
		for _, lp := range listed {
			if ok, why := layout.Lists(f, lp); ok {
				n++
			} else if !(layout.NamesFolders(f) && lp.Files == nil) {
				l.add(f, why, lp.Name)
			}
		}
		b.sayLeftOut(&l)
		if n == 0 {
			why := fmt.Sprintf("it would list none of the bundle's %s (the build's notes, without -q, say why each is left out)",
				human.Plural(len(ps), "plugin", "plugins"))
			switch {
			case len(ps) == 0 && out > 0: // whatever entries Claude Code's file had
				why = fmt.Sprintf("the bundle has no plugin: the input's %s left out (the build's notes, without -q, say why)", human.Plural(out, "plugin was", "plugins were"))
			case len(ps) == 0:
				why = "the bundle has no plugin: no folder of the input holds a plugin's manifest (.claude-plugin/plugin.json, .codex-plugin/plugin.json, …), nor does a marketplace name one"
			case len(listed) == 0:
				// Claude Code's file is made of the repository's entries
				// (claudePlugins), of which none names a folder built.
				why = fmt.Sprintf("no entry of the repository's own names the folder of a plugin the bundle has (%d; the build's notes, without -q, say why each is left out)", len(ps))
			}
			b.res.Unwritten = append(b.res.Unwritten, layout.Excluded{Name: f, Reason: why})
			continue
		}
		files = append(files, f)
	}
	m.Files = files
	if !slices.ContainsFunc(files, layout.NamesFolders) {
		for i := range ps {
			ps[i].Files = nil
		}
	}
}

// leftOut gathers the plugins a marketplace file leaves out (or the files
// a plugin's archives do), by reason, so that each reason is said once: a
// marketplace of 300 entries leaves out hundreds
// (anthropics/claude-plugins-official: 397 lines).
type leftOut struct {
	keys  [][2]string // file and reason, in the order met
	names map[[2]string][]string
}

func (l *leftOut) add(file, why, name string) {
	k := [2]string{file, why}
	if l.names == nil {
		l.names = map[[2]string][]string{}
	}
	if l.names[k] == nil {
		l.keys = append(l.keys, k)
	}
	l.names[k] = append(l.names[k], name)
}

// sayLeftOut logs l: a plugin by name, several by their count and five
// names (all with -v).
func (b *builder) sayLeftOut(l *leftOut) {
	for _, k := range l.keys {
		names := l.names[k]
		if len(names) == 1 {
			b.logf("  plugin %s is left out of %s: %s", names[0], k[0], k[1])
			continue
		}
		b.logf("  %d plugins are left out of %s (%s), each as %s", len(names), k[0], b.some(names), k[1])
	}
}

// some names the first five of names for a note, all with -v.
func (b *builder) some(names []string) string {
	n := 5
	if b.opts.Verbose {
		n = len(names)
	}
	return strings.Join(human.UpTo(len(names), n, func(i int) string { return names[i] }, "and %d more; -v lists them"), ", ")
}

// servesFolders reports whether a marketplace asked for names plugin
// folders, which the bundle then serves. It asks the options, not
// marketplace(), which reads the repository's Codex marketplace.
func (b *builder) servesFolders() bool {
	return slices.ContainsFunc(b.opts.Marketplaces, func(m string) bool {
		f, ok := layout.Marketplaces[m]
		return ok && layout.NamesFolders(f)
	})
}
