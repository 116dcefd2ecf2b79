package build

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/skill"
)

// Options.SkipInvalid publishes a tree in which some skills are broken. A
// skill with an error-level finding is not packed; one that the checks
// across skills find in error is known only once every skill is packed,
// so what was staged of it is removed again. Skipped skills are in neither
// the documents nor the record's skills, so a later build packs them as
// soon as they are fixed, and a no-op rebuild still reports them.

// skipInvalid marks the skills to leave out: those with an error-level
// finding of their own, and those an error of across names. An error that
// names no skill, or an invalid tree, is a LintError still.
func (b *builder) skipInvalid(p *packed, across []lint.Finding, errs int) error {
	more := map[*work][]lint.Finding{}
	if len(across) > 0 {
		named := b.namedBy(p)
		for _, f := range across {
			if f.Severity != lint.Error {
				continue
			}
			ws := named(f.Path)
			if len(ws) == 0 {
				b.logf("  %s: the %s error names no skill to leave out", f.Path, f.Rule)
				return &LintError{Errors: errs}
			}
			for _, w := range ws {
				more[w] = append(more[w], f)
			}
		}
	}
	for _, w := range p.work {
		if w.skipped || !w.invalid && more[w] == nil {
			continue
		}
		w.skipped = true
		fs := slices.DeleteFunc(slices.Clone(w.findings), func(f lint.Finding) bool { return f.Severity != lint.Error })
		b.res.Skipped = append(b.res.Skipped, Skipped{Name: w.name, Dir: w.src.Dir, Findings: lint.Sort(append(fs, more[w]...))})
	}
	if len(b.res.Skipped) == len(p.work) {
		return &LintError{Errors: errs, All: true}
	}
	return nil
}

// skipEnclosing leaves out, with SkipInvalid, every skill whose archive
// holds a file for which a skill below it was left out by a security rule
// (a secret, hidden text): lint reports the file once, as the nested
// skill's. It runs once the summaries can be read.
func (b *builder) skipEnclosing(p *packed) error {
	byDir := map[string]*work{} // the folders of the skills still published
	for _, w := range p.work {
		if !w.skipped {
			byDir[b.rel(w.src.Dir)] = w
		}
	}
	for _, in := range p.work {
		if !in.skipped {
			continue
		}
		for _, f := range in.findings {
			if r := lint.Lookup(f.Rule); f.Severity != lint.Error || r == nil || r.Category != lint.CatSecurity {
				continue
			}
			// Every folder above the file, up to the one lint's paths
			// start from, which may be a skill too.
			for dir := path.Dir(f.Path); ; dir = path.Dir(dir) {
				w := byDir[dir]
				if w != nil && !w.skipped {
					held, err := b.holds(p, w, strings.TrimPrefix(f.Path, dir+"/"))
					if err != nil {
						return err
					}
					if held {
						b.skipHolder(w, in, f)
					}
				}
				if dir == "." || dir == "/" {
					break
				}
			}
		}
	}
	if len(b.res.Skipped) == len(p.work) {
		errs, _, _ := lint.Count(b.res.Findings)
		return &LintError{Errors: errs, All: true}
	}
	return nil
}

// skipHolder leaves out w, whose archive holds the file of finding f, for
// which in was left out.
func (b *builder) skipHolder(w, in *work, f lint.Finding) {
	w.skipped = true
	e := lint.Finding{Path: b.rel(w.named.EntryPath()), Rule: f.Rule, Severity: lint.Error,
		Message: fmt.Sprintf("its archive holds %s, for which %s (%s) is left out: %s", f.Path, in.name, b.rel(in.src.Dir), f.Message),
		Fix:     f.Fix}
	b.res.Findings = lint.Sort(append(b.res.Findings, e))
	b.res.Skipped = append(b.res.Skipped, Skipped{Name: w.name, Dir: w.src.Dir, Findings: []lint.Finding{e}})
}

// holds reports whether w's archive holds the file at rel, a path in w's
// folder that .skillignore may have left out.
func (b *builder) holds(p *packed, w *work, rel string) (bool, error) {
	if !w.kept {
		// Not packed yet (leaveOut packs it): the files it will hold.
		files, err := w.src.Collect()
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(files.Files, func(f skill.File) bool { return f.Path == rel }), nil
	}
	sum, err := p.summary(w)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(sum.rec.Files, func(f layout.File) bool { return f.Path == rel }), nil
}

// namedBy returns a function that gives the skills a finding of the
// checks across skills names by its path: the skill whose SKILL.md or
// folder it is, or every skill below a folder (installed-folder's).
func (b *builder) namedBy(p *packed) func(path string) []*work {
	at := make(map[string]*work, 2*len(p.work))
	dirs := make([]string, len(p.work))
	for i, w := range p.work {
		dirs[i] = b.rel(w.named.Dir)
		at[dirs[i]] = w
		at[b.rel(w.named.EntryPath())] = w
	}
	return func(path string) []*work {
		if w := at[path]; w != nil {
			return []*work{w}
		}
		var below []*work
		for i, d := range dirs {
			if strings.HasPrefix(d, path+"/") || path == "." {
				below = append(below, p.work[i])
			}
		}
		return below
	}
}

// rel spells a path as lint's findings do: with slashes, relative to
// lint's base folder.
func (b *builder) rel(p string) string {
	base, _ := filepath.Abs(b.lintOpts.Base)
	return lint.Rel(base, p)
}

// claim gives w its name in the staging folder, unless another skill has
// it: at most one of them is published (see checkClashes), and if that one
// lost its name to a skill that is skipped, leaveOut packs it.
func (p *packed) claim(w *work) bool {
	p.claimMu.Lock()
	defer p.claimMu.Unlock()
	if p.claims == nil {
		p.claims = map[string]*work{}
	}
	if o, ok := p.claims[w.name]; ok && o != w {
		return false
	}
	p.claims[w.name] = w
	return true
}

// leaveOut drops the skipped skills from the build: what was staged of
// them is removed, and a published skill that was not packed because of
// them (it lost its name to one, or packing stopped at one's error) is
// packed now.
func (b *builder) leaveOut(p *packed) error {
	if !slices.ContainsFunc(p.work, func(w *work) bool { return w.skipped || !w.kept }) {
		return nil
	}
	// The staging folder's archives by skill, listed once: a listing per
	// skill left out made thousands of them quadratic (18,000 skills,
	// 8,000 left out: 42 s).
	archives := map[string][]string{}
	if !b.opts.DryRun {
		ents, err := os.ReadDir(b.st.path(layout.SkillsDir))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for _, e := range ents {
			if name, _, _, ok := layout.ParseArchiveName(e.Name()); ok {
				archives[name] = append(archives[name], e.Name())
			}
		}
	}
	for _, w := range p.work {
		if w.skipped {
			if err := b.unstage(p, w, archives[w.name]); err != nil {
				return err
			}
		}
	}
	p.work = slices.DeleteFunc(p.work, func(w *work) bool { return w.skipped })
	p.failed.Store(false)
	p.settled = true
	later := slices.DeleteFunc(slices.Clone(p.work), func(w *work) bool { return w.kept })
	err := parallel.Each(len(later), b.opts.Jobs, func(i int) error {
		if err := b.interrupted(); err != nil {
			return err
		}
		w := later[i]
		name := w.name
		w.err = nil
		b.process(p, w)
		switch {
		case w.err != nil:
			return w.err
		case w.invalid || w.name != name || !w.kept:
			return fmt.Errorf("%s changed while the bundle was being built; run the build again", w.src.Dir)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n := len(later); n > 0 {
		reused := 0
		for _, w := range later {
			if w.reused {
				reused++
			}
		}
		b.logf("  %d packed, %d reused once lint had settled their names", n-reused, reused)
	}
	return p.sums.Seal()
}

// unstage removes what pack staged of a skipped skill: its served copies
// and the archives of its name. Only the skill that claimed a name wrote
// under it; a reused skill wrote nothing.
func (b *builder) unstage(p *packed, w *work, archives []string) error {
	if p.claims[w.name] != w {
		return nil
	}
	delete(p.claims, w.name)
	if b.opts.DryRun {
		return nil
	}
	if b.st.held.keeps(w.name) {
		return nil // its files are the spare's, none made: clearRest removes them
	}
	n := 0
	dir := b.st.path(layout.SkillDir(w.name))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	b.st.dirs.forget() // of the folders removed here
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, a := range archives {
		if err := os.Remove(b.st.path(layout.SkillsDir + "/" + a)); err != nil {
			return err
		}
		n++
	}
	b.st.made.Add(int64(-n))
	return nil
}
