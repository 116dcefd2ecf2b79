package build

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// What the build cannot pack is the skill's to fix, never the build's own
// failure, though lint may only warn of it, a config may have turned its
// rule off, or it is found only while packing. Each is an error-level
// finding of the skill, under lint's rule, so that the build fails as on
// lint's errors and --skip-invalid leaves the skill out.

// refusal is an error of packing that is a finding of the skill.
type refusal struct{ f lint.Finding }

func (r *refusal) Error() string { return r.f.Path + ": " + r.f.Message }

// refuse returns the refusal of the skill's file at path (in the skill's
// folder; "" for the folder), under rule.
func (b *builder) refuse(w *task, path, rule, fix, format string, args ...any) *refusal {
	p := w.src.Dir
	if path != "" {
		p = filepath.Join(p, filepath.FromSlash(path))
	}
	return &refusal{lint.Finding{Path: b.rel(p), Rule: rule, Severity: lint.Error, Fix: fix, Message: fmt.Sprintf(format, args...)}}
}

// refused makes an error of packing w that is the skill's to fix a
// finding of it, as lint's errors are (see process), and reports whether
// it was one. The finding replaces lint's of the same rule and file,
// which said less (a warning).
func (b *builder) refused(w *task, err error) bool {
	var r *refusal
	var pe *pack.PathError
	switch {
	case errors.As(err, &r):
	case errors.As(err, &pe) && errors.Is(err, pack.ErrTooLong):
		r = b.refuse(w, pe.Path, "path-too-long", "shorten the path", "the path cannot be packed into the archive of %s: %s", w.name, pe.Err)
	case errors.As(err, &pe) && (errors.Is(err, pack.ErrBadPath) || errors.Is(err, pack.ErrTooLarge)):
		r = b.refuse(w, pe.Path, "path-unpackable", "rename it, or leave it out with "+skill.IgnoreFile,
			"the path cannot be packed into the archive of %s: %s", w.name, pe.Err)
	default:
		return false
	}
	w.findings = slices.DeleteFunc(w.findings, func(f lint.Finding) bool { return f.Path == r.f.Path && f.Rule == r.f.Rule })
	w.findings = lint.Sort(append(w.findings, r.f))
	w.invalid = true
	return true
}

// checkReadable refuses what lint reports but the build cannot go on
// without: an entry file it cannot read or that clients do not look for,
// files it cannot collect, frontmatter it cannot read.
func (b *builder) checkReadable(w *task) error {
	s := w.src
	switch {
	case s.Doc == nil:
		return b.refuse(w, s.File, "skill-md-unreadable", "", "cannot read %s: %v", s.File, s.Err)
	case w.collErr != nil:
		return b.refuse(w, "", "file-unreadable", "", "cannot list the skill's files: %v", w.collErr)
	case len(w.files.Refused) > 0:
		r := w.files.Refused[0]
		rule := map[skill.RefusedKind]string{skill.LinkEscapes: "symlink-escape", skill.LinkBroken: "symlink-escape", skill.NotRegular: "file-not-regular"}[r.Kind]
		return b.refuse(w, r.Path, cmp.Or(rule, "file-unreadable"), "", "%s cannot be published: %v", r.Path, r.Err)
	case s.Doc.Problem != nil && s.Doc.Front == nil:
		// Only when lint's settings let it by (a baseline, a suppression,
		// a severity): the frontmatter is what every index is made of.
		pr := s.Doc.Problem
		r := b.refuse(w, s.File, lint.ProblemRule(pr.Kind),
			"mend the frontmatter: a baseline, a suppression or a lower severity cannot let the build publish a skill whose frontmatter it cannot read",
			"%s", pr.Msg)
		r.f.Line, r.f.Column = pr.Line, pr.Col
		return r
	case s.File != skill.FileName:
		return b.refuse(w, s.File, "skill-md-name", "rename "+s.File+" to "+skill.FileName,
			"the entry file is named %q; clients look for %q only, so the build does not publish it", s.File, skill.FileName)
	}
	return nil
}

// checkLimits refuses, before packing, a skill that a reader of the bundle
// would refuse by pack's limits (too large an archive is known only after:
// packArchives).
func (b *builder) checkLimits(w *task) error {
	if fs := lint.PackLimits("skill", w.files.Files); len(fs) > 0 {
		f := fs[0]
		return b.refuse(w, f.Path, f.Rule, f.Fix, "%s", f.Message)
	}
	return nil
}
