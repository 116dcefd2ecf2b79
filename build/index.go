package build

import (
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/catalog"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// index decides whether the output already holds this bundle (upToDate),
// and unless it does lays out the bundle, rendering and staging every
// document once; write writes the rest.
func (b *builder) index(p *packed, prev *previous) (*planned, string, error) {
	b.res.Out = b.opts.Out
	if err := b.summarize(p); err != nil {
		return nil, "", err
	}
	plugins, pluginRecs, staged := b.packPlugins(p)
	m := b.marketplace()
	if m != nil {
		m.Claude = b.claudePlugins(p, plugins, m)
	}
	b.unlisted(plugins, m, len(b.res.PluginsOut))
	if m != nil && slices.Contains(m.Files, layout.ClaudeMarketplace) {
		if why := layout.ClaudeRefuses(m.Name); why != "" {
			b.logf("  note: the marketplace is named %s, %s: `claude plugin marketplace add` refuses the bundle; give it another name in the repository's %s", m.Name, why, layout.ClaudeMarketplace)
		}
		var names []string
		for _, pl := range m.Listed(layout.ClaudeMarketplace, plugins) {
			if layout.ClaudeRefusesPlugin(pl.Name) {
				names = append(names, pl.Name)
			}
		}
		if len(names) > 0 {
			b.logf("  note: `claude plugin validate` fails the bundle's %s on %s, named as Anthropic's own plugins are "+
				"(claude-…, anthropic-…, cc-plugin-…, or official beside claude); Claude Code still installs them; rename them in the repository's plugin.json and marketplace",
				layout.ClaudeMarketplace, human.Plural(len(names), "plugin", "plugins")+" ("+b.some(names)+")")
		}
	}
	pl := &planned{packed: p, prev: prev, key: b.bundleKey(p, plugins, m), plugins: pluginRecs}
	if b.upToDate(pl) {
		return pl, "", nil
	}
	page, err := b.catalog(pl)
	if err != nil {
		return nil, "", err
	}
	pl.docs = map[string]bool{}
	for _, path := range staged {
		pl.docs[path] = true
	}
	var mu sync.Mutex
	render := func(path string, write func(io.Writer) error) (layout.Rendered, error) {
		r, err := b.render(path, write)
		mu.Lock()
		defer mu.Unlock()
		pl.docs[path] = err == nil
		return r, err
	}
	plan, err := layout.Plan(built{pl}, layout.Options{BaseURL: b.opts.BaseURL, NoLegacy: b.opts.NoLegacy, Generator: Generator(), Catalog: page,
		Versioned: b.versioning(pl), LLMsTxt: p.llms, AICatalog: b.opts.AICatalog,
		Signs: b.opts.Sign != nil, SignsFolders: b.opts.SignFolder != nil, Plugins: plugins,
		Marketplace: m, Render: render})
	if err != nil {
		return nil, "", err
	}
	pl.plan = plan
	b.res.Excluded, b.res.MCPExcluded = plan.Excluded, plan.OffMCP
	// The record is staged now; swap stamps it after every other file,
	// which is what makes it the proof.
	rec, err := b.render(layout.BuildRecord, func(w io.Writer) error { return b.writeRecord(pl, w) })
	if err != nil {
		return nil, "", err
	}
	if err := layout.CheckDocument(layout.BuildRecord, rec.Size); err != nil {
		return nil, "", err
	}
	b.res.Files = plan.Len() + 1
	if !b.opts.Inventory {
		return pl, "", nil
	}
	for e, err := range plan.Entries() {
		if err != nil {
			return nil, "", err
		}
		b.res.Artifacts = append(b.res.Artifacts, Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
	}
	b.res.Artifacts = append(b.res.Artifacts, Artifact{Path: layout.BuildRecord, Digest: rec.Digest, Size: rec.Size})
	slices.SortFunc(b.res.Artifacts, func(x, y Artifact) int { return strings.Compare(x.Path, y.Path) })
	return pl, "", nil
}

// render renders a document into the staging folder, or in a dry run measures it.
func (b *builder) render(path string, fn func(io.Writer) error) (layout.Rendered, error) {
	if b.opts.DryRun {
		return layout.Render(io.Discard, fn)
	}
	return b.st.writeDoc(b.st.path(path), 0o644, fn)
}

// built is the packed skills as layout reads them, each from its summary.
type built struct{ *planned }

func (s built) Len() int { return len(s.work) }

func (s built) Skill(i int) (layout.Skill, error) {
	w := s.work[i]
	sum, err := s.summary(w)
	if err != nil {
		return layout.Skill{}, err
	}
	sk := sum.skill()
	sk.Page = w.page
	return sk, nil
}

// summarize reports what the build made of each skill, if asked to.
func (b *builder) summarize(p *packed) error {
	if !b.opts.Inventory {
		return nil
	}
	for _, w := range p.work {
		sum, err := p.summary(w)
		if err != nil {
			return err
		}
		o := &sum.rec
		a := o.Archives()
		s := Skill{Name: w.name, Dir: w.src.Dir, Files: len(o.Files), ContentDigest: o.ContentDigest, Reused: w.reused,
			TarGz: a[0], Zip: a[1], LeftOut: sum.leftOut}
		for _, f := range o.Files {
			s.Size += f.Size
		}
		b.res.Skills = append(b.res.Skills, s)
	}
	return nil
}

// catalog renders index.html and each skill's page into the staging
// folder (a dry run only measures them), once each: on a large tree they
// are the slowest documents to render. Every SKILL.md a page shows is
// staged by now (see body).
func (b *builder) catalog(pl *planned) (*layout.Rendered, error) {
	var r layout.Rendered
	c, err := catalog.New(shown{b, pl}, catalog.Options{BaseURL: b.opts.BaseURL, Generator: Generator(),
		Title: b.opts.CatalogTitle, Publisher: b.opts.CatalogPublisher, Source: b.opts.CatalogSource})
	if err == nil {
		// The first document written: the spare's go now, not before
		// (a no-op gives the spare back whole, still a bundle).
		if err := b.st.held.clearOther(); err != nil {
			return nil, err
		}
		r, err = b.render(layout.Catalog, c.Render)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", layout.Catalog, err)
	}
	err = c.Pages(func(i int, page []byte) error {
		w := pl.work[i]
		r := layout.Rendered{Digest: layout.DigestOf(page), Size: int64(len(page))}
		if !b.opts.DryRun {
			if err := b.st.writeFile(b.st.path(layout.CatalogPage(w.name)), page); err != nil {
				return err
			}
		}
		w.page = &r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", layout.PagesDir, err)
	}
	return &r, nil
}

// shown is the packed skills as the catalog reads them, each from its
// summary, with SKILL.md's body read again from the source.
type shown struct {
	b  *builder
	pl *planned
}

func (s shown) Len() int { return len(s.pl.work) }

func (s shown) Skill(i int) (catalog.Skill, error) {
	w := s.pl.work[i]
	sum, err := s.pl.summary(w)
	if err != nil {
		return catalog.Skill{}, err
	}
	return catalog.Skill{Skill: sum.skill(), License: sum.license, Compatibility: sum.compat,
		Body: func() ([]byte, error) { return s.b.body(s.pl, w, sum.rec.Files) }}, nil
}

// body is a skill's SKILL.md body for the catalog, read again from the
// bundle's own served copy (staged by pack, or the last build's for a
// reused skill), so that the page shows what is published; only a dry run
// reads the source. What it reads must be the bytes packed.
func (b *builder) body(pl *planned, w *work, files []layout.File) ([]byte, error) {
	path := w.src.EntryPath()
	if !b.opts.DryRun {
		path = b.ownCopy(pl, layout.Entry{Kind: layout.KindFile, Skill: w.name, File: layout.EntryFile})
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.Path == layout.EntryFile && layout.DigestOf(data) != f.Digest {
			return nil, fmt.Errorf("%s changed while the bundle was being built; run the build again", path)
		}
	}
	// As lint and pack read it: the first skill.MaxRead bytes.
	return skill.Body(data[:min(len(data), skill.MaxRead)]), nil
}

// writeRecord writes the build record of this build, one skill and one
// file at a time: on a large tree the record is tens of megabytes.
func (b *builder) writeRecord(pl *planned, w io.Writer) error {
	var docs []layout.Artifact
	for _, e := range pl.plan.Docs() {
		docs = append(docs, layout.Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
	}
	head := layout.RecordHead{Generator: Generator(), Bundle: pl.key, Docs: docs, Excluded: pl.plan.Excluded, MCPExcluded: pl.plan.OffMCP,
		Plugins: pl.plugins, Skipped: b.skippedNames()}
	return layout.WriteRecord(w, head, pl.records(), b.files(pl.plan))
}

// records yields what the build record says of each published skill, by
// name: its summary's record, with its page in the catalog.
func (p *packed) records() iter.Seq2[layout.RecordSkill, error] {
	return func(yield func(layout.RecordSkill, error) bool) {
		for _, w := range p.named {
			sum, err := p.summary(w)
			if err != nil {
				yield(layout.RecordSkill{}, err)
				return
			}
			c := sum.rec
			if pg := w.page; pg != nil {
				c.Page = &layout.Archive{Digest: pg.Digest, Size: pg.Size}
			}
			if !yield(c, nil) {
				return
			}
		}
	}
}

// files yields the path of every file the build writes, sorted: the
// entries, the signature beside each signed one, and the record.
func (b *builder) files(plan *layout.Planned) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		// Paths the entries do not list wait here until an entry sorts
		// after them; a signature follows its artifact closely, so few wait.
		waiting := []string{layout.BuildRecord}
		flush := func(upTo string, all bool) bool {
			for len(waiting) > 0 && (all || waiting[0] < upTo) {
				if !yield(waiting[0], nil) {
					return false
				}
				waiting = waiting[1:]
			}
			return true
		}
		for e, err := range plan.Entries() {
			if err != nil {
				yield("", err)
				return
			}
			if !flush(e.Path, false) || !yield(e.Path, nil) {
				return
			}
			var sig string
			switch {
			case b.opts.Sign != nil && layout.SignedPath(e.Path):
				sig = layout.Signature(e.Path)
			case b.opts.SignFolder != nil && e.Kind == layout.KindFile && e.File == layout.EntryFile && e.Path == layout.SkillFile(e.Skill, e.File):
				// Every skill has SKILL.md, which sorts before skill.oms.sig.
				sig = layout.FolderSignature(e.Skill)
			}
			if sig != "" {
				if i, found := slices.BinarySearch(waiting, sig); !found {
					waiting = slices.Insert(waiting, i, sig)
				}
			}
		}
		flush("", true)
	}
}

func (p *packed) byName(name string) *work {
	i, ok := slices.BinarySearchFunc(p.named, name, func(w *work, n string) int { return strings.Compare(w.name, n) })
	if !ok {
		return nil
	}
	return p.named[i]
}

// bundleKey is the build's bundle key (reuse.BundleKey).
func (b *builder) bundleKey(p *packed, plugins []layout.Plugin, m *layout.Marketplace) layout.Digest {
	keys := make(map[string]layout.Digest, len(p.work))
	for _, w := range p.work {
		keys[w.name] = w.key
	}
	extra := append(b.discoveryKey(p.llms), b.pluginsKey(plugins, m)...)
	if names := b.skippedNames(); len(names) > 0 { // the record lists them
		extra = append(extra, fmt.Sprintf("skipped %q", names))
	}
	return reuse.BundleKey(Generator(), b.opts.BaseURL, b.opts.NoLegacy, keys, extra...)
}

// skippedNames are the skills --skip-invalid left out, sorted, as the record keeps them.
func (b *builder) skippedNames() []string {
	var names []string
	for _, s := range b.res.Skipped {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// discoveryKey is what the optional discovery documents add to the bundle
// key: that they are there, and the bytes of the site's llms.txt merged
// into, so that editing it makes a rebuild write the bundle again.
func (b *builder) discoveryKey(l *layout.LLMsOptions) []string {
	var extra []string
	if l != nil {
		extra = append(extra, "llms.txt")
		if l.Base != nil {
			extra = append(extra, "llms.txt merged into "+string(layout.DigestOf(l.Base)))
		}
	}
	// The catalog's masthead, when set: unset, the key is as before it existed.
	for _, m := range []struct{ key, value string }{{"title", b.opts.CatalogTitle}, {"publisher", b.opts.CatalogPublisher}, {"source", b.opts.CatalogSource}} {
		if m.value != "" {
			extra = append(extra, fmt.Sprintf("catalog %s %q", m.key, m.value))
		}
	}
	if b.opts.AICatalog {
		extra = append(extra, "ai-catalog.json")
	}
	return extra
}

// upToDate asks reuse for the one no-op decision (reuse.UpToDate). A
// signed build is never one (signatures are made afresh), nor a versioned
// one (what it carries forward depends on the previous bundle, which the
// bundle key does not cover); every skill must have been reused whole with
// the verdict the record holds. It fills the result from the record.
func (b *builder) upToDate(pl *planned) bool {
	allKept := !b.signs() && !b.opts.Versioned &&
		!slices.ContainsFunc(pl.work, func(w *work) bool { return !w.reused || !w.holds || !w.sameLint })
	last := pl.out.last
	if !last.UpToDate(pl.key, allKept) {
		return false
	}
	if b.opts.Inventory {
		arts, err := last.Artifacts()
		if err != nil {
			return false
		}
		b.res.Artifacts = arts
	}
	b.res.Files = last.Len()
	b.res.Excluded, b.res.MCPExcluded = last.Head.Excluded, last.Head.MCPExcluded
	b.res.UpToDate = true
	return true
}
