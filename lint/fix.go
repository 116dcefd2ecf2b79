package lint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/skillpack/skillpack/internal/atomicfile"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

// A fixer repairs the findings of some rules in one file. It is handed the
// file's findings of those rules, but works out the defect again from the
// file as it is now (its bytes, mode and name), never from a message, and
// changes only the defect's bytes. A fixer that cannot be sure leaves the
// file alone: the finding stays, for a person to decide.
type fixer struct {
	rules []string
	fix   func(f *fixFile, at []Finding)
}

// fixers are the fixes, in the order they are applied to one file. Only
// fixQuoteScalars reads positions from findings, so it runs before any
// fixer that could move them; fixColonLines only acts on frontmatter that
// does not parse, when no finding of fixQuoteScalars' rules exists.
var fixers = []*fixer{
	{[]string{"frontmatter-yaml"}, fixColonLines},
	{[]string{"yaml-ambiguous-scalar", "metadata-scalar", "yaml-colon-space"}, fixQuoteScalars},
	{[]string{"allowed-tools-list"}, fixAllowedTools},
	{[]string{"yaml-flow-sequence"}, fixFlowSequences},
	{[]string{"yaml-multiline-quote", "yaml-quote-indent"}, fixMultilineQuotes},
	{[]string{"installed-metadata"}, fixInstalledMetadata},
	{[]string{"metadata-format"}, fixEmptyMetadata},
	{[]string{"invisible-unicode", "invisible-char"}, fixInvisible},
	{[]string{"skill-md-encoding", "text-encoding"}, fixBOM},
	{[]string{"script-crlf"}, fixCRLF},
	{[]string{"script-not-executable"}, fixExec},
	{[]string{"skill-md-name"}, fixEntryName},
	{[]string{"name-format", "name-non-ascii"}, fixNameFormat},
	{[]string{"name-missing"}, fixNameMissing},
	{[]string{"plugin-mcp-command"}, fixSplitCommand},
	{[]string{"link-absolute"}, fixBackslashLinks},
}

// fixerOf maps a rule ID to its fixer.
var fixerOf = func() map[string]*fixer {
	m := map[string]*fixer{}
	for _, fx := range fixers {
		for _, id := range fx.rules {
			m[id] = fx
		}
	}
	return m
}()

// Fixable reports whether Fix can repair some findings of the rule.
func Fixable(rule string) bool { return fixerOf[rule] != nil }

// FixOptions controls Fix. The zero value fixes in place with lint's defaults.
type FixOptions struct {
	// Lint is how to lint again between rounds of fixes; it must be the
	// run's, so that findings' paths and the config agree.
	Lint Options
	// DryRun computes every change and writes none.
	DryRun bool
	// Diff, when set, receives every change as a git-style unified diff
	// with paths relative to the run.
	Diff io.Writer
}

// FixReport is what Fix did, or after a dry run would do.
type FixReport struct {
	Fixed  int          // findings fixed (after a dry run: findings the changes address)
	Files  []string     // files changed, relative to the run as findings are, sorted
	Copies int          // of Files, those written as identical copies of another (Scope.Dedupe)
	Failed []FixFailure // files a fix was due for but that were left as they were
}

// FixFailure is a file that was not fixed, and why.
type FixFailure struct {
	Path string // relative to the run
	Err  error
}

func (f FixFailure) Error() string { return f.Path + ": " + f.Err.Error() }

// maxFixRounds bounds how often a file is fixed and linted again: a fix
// can reveal a finding that another fixes (a byte order mark hides a
// shebang; quoting makes frontmatter parse, so its values can be checked).
const maxFixRounds = 4

// Fix repairs the fixable findings of res, a run linted with opts.Lint.
// Each file is written whole or not at all (a temporary file in its folder,
// synced and renamed over it, mode kept); a symbolic link or a read-only
// file is never written and is reported in Failed, and the rest is still
// fixed. After each round the skills that changed are linted again, so
// that Fixed counts findings that are really gone and findings a fix
// revealed are fixed too, up to maxFixRounds. A dry run does one round.
// The error is ctx's, when it ends the work between two files, or lint's.
func Fix(ctx context.Context, res *Result, opts FixOptions) (*FixReport, error) {
	if opts.Lint.Base == "" {
		if _, err := os.Getwd(); err != nil {
			return nil, err
		}
	}
	r := newRunner(opts.Lint) // findings' paths are relative to its base
	rep := &FixReport{}
	changes := map[string]*fixChange{} // by the file's path now
	failed := map[string]bool{}
	fail := func(job *fixJob, err error) {
		failed[job.path] = true
		rep.Failed = append(rep.Failed, FixFailure{job.path, err})
	}
	defer func() { rep.writeDiff(opts.Diff, changes) }()
	// Identical copies were linted once, as one skill (Scope.Dedupe):
	// each fixed file is written to every copy, so that they stay
	// identical. The copies are the first round's; later rounds lint
	// only the skills that changed.
	copies := map[string][]string{} // by skill folder, absolute
	copied := map[string]bool{}     // the copies written, by path now
	asked := map[string]bool{}      // the skills of the run asked to fix, by folder, absolute
	for _, s := range res.Skills {
		dir, _ := filepath.Abs(s.Dir)
		asked[dir] = true
		if len(s.Copies) > 0 {
			copies[dir] = s.Copies
		}
	}
	for range maxFixRounds {
		type pair struct{ path, rule string }
		fixedBefore := map[pair]int{}
		var dirs []string
		for _, job := range fixJobs(res, r) {
			if failed[job.path] {
				continue
			}
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			f, err := loadFixFile(job)
			if err != nil {
				fail(job, err)
				continue
			}
			rules := f.run(job.findings)
			if len(rules) == 0 {
				continue
			}
			err = f.check()
			if err == nil && !opts.DryRun {
				err = f.commit()
			}
			if err != nil {
				fail(job, err)
				continue
			}
			record := func(f *fixFile) {
				c := changes[f.job.path]
				if c == nil {
					c = &fixChange{from: f.job.path, old: f.orig, oldMode: f.origMode}
				}
				delete(changes, f.job.path)
				c.to, c.data, c.mode = f.newPath(), f.data, f.mode
				changes[c.to] = c
			}
			record(f)
			for _, dir := range copies[job.dir] {
				cf, err := f.copyTo(dir, r, opts.DryRun)
				if err != nil {
					fail(cf.job, err)
				} else {
					record(cf)
					copied[cf.newPath()] = true
				}
			}
			for _, r := range rules {
				fixedBefore[pair{job.path, r}] = len(job.findings[r])
				if opts.DryRun {
					fixedBefore[pair{job.path, r}] -= f.left[r]
				}
			}
			if !slices.Contains(dirs, job.dir) {
				dirs = append(dirs, job.dir)
			}
		}
		if len(dirs) == 0 {
			break
		}
		if opts.DryRun {
			for _, n := range fixedBefore {
				rep.Fixed += n
			}
			break
		}
		var err error
		if res, err = Run(dirs, opts.Lint); err != nil {
			return rep, err
		}
		// Given a skill's folder, Run takes the skills inside it too, which
		// the run asked to fix left out: their files are not this fix's
		// (it renamed a nested skill.md that no finding had named).
		// Their findings are dropped too: judged as skills of their own,
		// their scripts drew findings the run asked to fix had not.
		var out []string
		res.Skills = slices.DeleteFunc(res.Skills, func(s *skill.Skill) bool {
			dir, _ := filepath.Abs(s.Dir)
			if !asked[dir] {
				out = append(out, r.rel(s.Dir)+"/")
			}
			return !asked[dir]
		})
		// What is left is counted first: a file of a skill the run took as
		// the outer one's still holds what its fix left (a judgement).
		left := map[pair]int{}
		for _, fd := range res.Findings {
			left[pair{fd.Path, fd.Rule}]++
		}
		res.Findings = slices.DeleteFunc(res.Findings, func(f Finding) bool {
			return slices.ContainsFunc(out, func(d string) bool { return strings.HasPrefix(f.Path, d) })
		})
		for p, n := range fixedBefore {
			now := p.path
			for _, c := range changes {
				if c.from == p.path || c.to == p.path {
					now = c.to
				}
			}
			rep.Fixed += max(n-left[pair{now, p.rule}], 0)
		}
	}
	rep.Files = slices.Sorted(maps.Keys(changes))
	for p := range copied {
		if changes[p] != nil {
			rep.Copies++
		}
	}
	return rep, nil
}

// fixJob is one file with findings that a fixer may repair.
type fixJob struct {
	path     string // as findings name it
	rel      string // inside the skill folder, with "/"
	disk     string
	dir      string // the skill folder, absolute
	entry    bool   // the skill's entry file
	findings map[string][]Finding
	names    runNames // of the run's skills, as the checks have them
	self     Named    // the skill's, for its entry file
}

// taken reports whether giving the skill name collides with another's, as
// Pass.nameTaken does for the fix the finding prints.
func (j *fixJob) taken(name string) bool { return j.names.taken(j.self, name) }

// fixJobs groups res's fixable findings by file, in path order, so that
// fixes are made in the same order on every run.
func fixJobs(res *Result, r *runner) []*fixJob {
	rel, base := r.rel, r.base
	dirs := map[string]*skill.Skill{}
	named := make([]Named, len(res.Skills))
	for i, s := range res.Skills {
		dirs[rel(s.Dir)] = s
		named[i] = NameOf(s)
	}
	names := newRunNames(named)
	plugins := map[string]*plugin.Plugin{}
	for _, p := range res.Plugins {
		plugins[rel(p.Dir)] = p
	}
	jobs := map[string]*fixJob{}
	for _, f := range res.Findings {
		if !Fixable(f.Rule) {
			continue
		}
		j := jobs[f.Path]
		if j == nil {
			// The innermost skill holding the file owns it, as lint decides.
			var s *skill.Skill
			for d := path.Dir(f.Path); ; d = path.Dir(d) {
				if s = dirs[d]; s != nil || d == "." || d == "/" || d == ".." || strings.HasSuffix(d, "/..") {
					break
				}
			}
			dir := ""
			if s != nil {
				dir, _ = filepath.Abs(s.Dir)
			} else if pl := plugins[path.Dir(f.Path)]; pl != nil {
				dir, _ = filepath.Abs(pl.Dir) // plugin.json, mcp.json
			} else {
				continue
			}
			disk := OnDisk(base, f.Path)
			inSkill, err := filepath.Rel(dir, disk)
			if err != nil || inSkill == "." {
				continue // the folder itself: no fixer acts on one
			}
			j = &fixJob{path: f.Path, rel: filepath.ToSlash(inSkill), disk: disk, dir: dir,
				entry: s != nil && inSkill == s.File, findings: map[string][]Finding{}, names: names}
			if j.entry {
				j.self = NameOf(s)
			}
			jobs[f.Path] = j
		}
		j.findings[f.Rule] = append(j.findings[f.Rule], f)
	}
	return slices.SortedFunc(maps.Values(jobs), func(a, b *fixJob) int { return strings.Compare(a.path, b.path) })
}

// fixFile is one file as the fixers see it: its state when read, and as
// fixed so far.
type fixFile struct {
	job            *fixJob
	orig, data     []byte
	origMode, mode fs.FileMode
	name           string         // the new base name, or "" when it keeps its own
	refuse         error          // why the file may be read but not written
	left           map[string]int // by rule: the findings a fixer left for a person, which a dry run does not count
}

// fixModeBits are the mode bits a fix keeps.
const fixModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

func loadFixFile(j *fixJob) (*fixFile, error) {
	fi, err := os.Lstat(j.disk)
	if err != nil {
		return nil, err
	}
	f := &fixFile{job: j, origMode: fi.Mode() & fixModeBits, left: map[string]int{}}
	f.mode = f.origMode
	// A link is reported, not written through: its target may be outside
	// the skill, or shared with other skills. The same holds for a folder
	// on the way from the skill folder to the file.
	for p := j.disk; len(p) > len(j.dir); p = filepath.Dir(p) {
		if li, err := os.Lstat(p); err == nil && li.Mode()&fs.ModeSymlink != 0 {
			f.refuse = fmt.Errorf("not fixed: %s is a symbolic link; fix the file it points to", filepath.Base(p))
			break
		}
	}
	switch {
	case f.refuse != nil:
	case !fi.Mode().IsRegular():
		return nil, errors.New("not fixed: not a regular file")
	case fi.Mode().Perm()&0o200 == 0:
		f.refuse = errors.New("not fixed: the file is read-only")
	}
	// Every fixable rule reads at most MaxScan bytes of a file: a larger
	// one is never fixed half.
	if fi.Size() > MaxScan {
		return nil, fmt.Errorf("not fixed: larger than %d MiB", MaxScan>>20)
	}
	if f.orig, err = os.ReadFile(j.disk); err != nil {
		return nil, err
	}
	f.data = f.orig
	return f, nil
}

// run applies the fixers of the file's findings and returns the rules
// whose fixer changed something.
func (f *fixFile) run(findings map[string][]Finding) []string {
	var rules []string
	for _, fx := range fixers {
		var at []Finding
		for _, id := range fx.rules {
			at = append(at, findings[id]...)
		}
		if len(at) == 0 {
			continue
		}
		data, mode, name := f.data, f.mode, f.name
		fx.fix(f, at)
		if !bytes.Equal(data, f.data) || mode != f.mode || name != f.name {
			for _, id := range fx.rules {
				if len(findings[id]) > 0 {
					rules = append(rules, id)
				}
			}
		}
	}
	return rules
}

// check refuses a change that must not be written: to a link or a
// read-only file, or one that would break frontmatter that parsed (no
// fixer should, but a bug here must not cost a user their skill).
func (f *fixFile) check() error {
	if f.refuse != nil {
		return f.refuse
	}
	if f.job.entry && !bytes.Equal(f.orig, f.data) {
		if problemKind(skill.Parse(f.orig)) == skill.NoProblem && problemKind(skill.Parse(f.data)) != skill.NoProblem {
			return errors.New("not fixed: the fix would break the frontmatter (a bug in skillpack; please report it)")
		}
	}
	return nil
}

func problemKind(d *skill.SkillMD) skill.ProblemKind {
	if d.Problem == nil {
		return skill.NoProblem
	}
	return d.Problem.Kind
}

// newPath is the file's path, relative to the run, once fixed.
func (f *fixFile) newPath() string {
	if f.name == "" {
		return f.job.path
	}
	return path.Join(path.Dir(f.job.path), f.name)
}

// commit writes the fixed file: content by rename over it, so that the
// file holds its old bytes or its new ones and never a part; mode alone by
// chmod; a new name by rename. Nothing is synced (atomicfile.Replace).
func (f *fixFile) commit() error {
	disk := f.job.disk
	if !bytes.Equal(f.orig, f.data) {
		if err := atomicfile.Replace(disk, f.data, f.mode); err != nil {
			return err
		}
	} else if f.mode != f.origMode {
		if err := os.Chmod(disk, f.mode); err != nil {
			return err
		}
	}
	if f.name != "" {
		to := filepath.Join(filepath.Dir(disk), f.name)
		// On a case-insensitive file system the new name is the old file.
		if ti, err := os.Lstat(to); err == nil {
			if fi, err := os.Lstat(disk); err != nil || !os.SameFile(fi, ti) {
				return fmt.Errorf("not renamed: %s exists already", f.name)
			}
		}
		if err := os.Rename(disk, to); err != nil {
			return err
		}
	}
	return nil
}

// copyTo makes f's fix in the identical copy of its skill at dir (in
// the form of skill.Skill's Dir): the file at the same place there, if it
// still holds the bytes f had, gets f's new bytes, mode and name.
func (f *fixFile) copyTo(dir string, r *runner, dryRun bool) (*fixFile, error) {
	job := *f.job
	job.disk = filepath.Join(dir, filepath.FromSlash(job.rel))
	job.path = r.rel(job.disk)
	job.dir, _ = filepath.Abs(dir)
	c := *f
	c.job = &job
	cur, err := os.ReadFile(job.disk)
	if err != nil || !bytes.Equal(cur, f.orig) {
		return &c, fmt.Errorf("not fixed: no longer identical to %s, the copy linted", f.job.path)
	}
	if dryRun {
		return &c, nil
	}
	return &c, c.commit()
}

// fixChange is one file's change over all rounds.
type fixChange struct {
	from, to      string // paths relative to the run
	old, data     []byte
	oldMode, mode fs.FileMode
}

// writeDiff writes the changes in path order as git does, so that
// `git apply` or `patch -p1` can take them.
func (rep *FixReport) writeDiff(w io.Writer, changes map[string]*fixChange) {
	if w == nil {
		return
	}
	for _, c := range slices.SortedFunc(maps.Values(changes), func(a, b *fixChange) int { return strings.Compare(a.from, b.from) }) {
		fmt.Fprintf(w, "diff --git %s %s\n", gitName("a/", c.from), gitName("b/", c.to))
		if c.mode != c.oldMode {
			fmt.Fprintf(w, "old mode %s\nnew mode %s\n", gitMode(c.oldMode), gitMode(c.mode))
		}
		if c.from != c.to {
			fmt.Fprintf(w, "rename from %s\nrename to %s\n", gitName("", c.from), gitName("", c.to))
		}
		// git ends a name holding a space with a tab on these two lines,
		// which is where patch finds the name's end.
		tab := func(name string) string {
			if strings.Contains(name, " ") {
				return "\t"
			}
			return ""
		}
		if d := diff.Diff(gitName("a/", c.from)+tab(c.from), c.old, gitName("b/", c.to)+tab(c.to), c.data); d != nil {
			_, d, _ = bytes.Cut(d, []byte("\n")) // go-internal's own "diff a b" line
			w.Write(d)
		}
	}
}

// gitName writes prefix+name as git writes a name in a diff: as it is,
// unless it holds a '"', a backslash or a character Printable escapes;
// then in double quotes, with C's escapes and the bytes of the others in
// octal, which git apply and patch read back. So a name with a control
// character still applies, and none reaches a terminal as it is.
func gitName(prefix, name string) string {
	s := prefix + name
	if !strings.ContainsAny(s, `"\`) && Printable(s) == s {
		return s
	}
	b := []byte{'"'}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch e := strings.IndexByte("\a\b\t\n\v\f\r\"\\", s[i]); {
		case n == 1 && e >= 0:
			b = append(b, '\\', "abtnvfr\"\\"[e])
		case acts(r, n):
			for _, c := range []byte(s[i : i+n]) {
				b = fmt.Appendf(b, "\\%03o", c)
			}
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(append(b, '"'))
}

func gitMode(m fs.FileMode) string {
	if m&0o111 != 0 {
		return "100755"
	}
	return "100644"
}
