package lint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	"golang.org/x/text/unicode/bidi"
	"gopkg.in/yaml.v3"

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
	{[]string{"installed-metadata"}, fixInstalledMetadata},
	{[]string{"invisible-unicode", "invisible-char"}, fixInvisible},
	{[]string{"skill-md-encoding", "text-encoding"}, fixBOM},
	{[]string{"script-crlf"}, fixCRLF},
	{[]string{"script-not-executable"}, fixExec},
	{[]string{"skill-md-name"}, fixEntryName},
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

// maxFixSize is the largest file a fixer reads: every fixable rule reads
// at most MaxScan bytes of a file, so larger files are never fixed half.
const maxFixSize = MaxScan

// Fix repairs the fixable findings of res, a run linted with opts.Lint.
// Each file is written whole or not at all (a temporary file in its folder,
// synced and renamed over it, mode kept); a symbolic link or a read-only
// file is never written and is reported in Failed, and the rest is still
// fixed. After each round the skills that changed are linted again, so
// that Fixed counts findings that are really gone and findings a fix
// revealed are fixed too, up to maxFixRounds. A dry run does one round.
// The error is ctx's, when it ends the work between two files, or lint's.
func Fix(ctx context.Context, res *Result, opts FixOptions) (*FixReport, error) {
	base := opts.Lint.Base
	if base == "" {
		var err error
		if base, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	base, _ = filepath.Abs(base)
	rep := &FixReport{}
	changes := map[string]*fixChange{} // by the file's path now
	failed := map[string]bool{}
	defer func() { rep.writeDiff(opts.Diff, changes) }()
	for round := 0; round < maxFixRounds; round++ {
		type pair struct{ path, rule string }
		fixedBefore := map[pair]int{}
		var dirs []string
		for _, job := range fixJobs(res, base) {
			if failed[job.path] {
				continue
			}
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			f, err := loadFixFile(job)
			if err != nil {
				failed[job.path] = true
				rep.Failed = append(rep.Failed, FixFailure{job.path, err})
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
				failed[job.path] = true
				rep.Failed = append(rep.Failed, FixFailure{job.path, err})
				continue
			}
			to := f.newPath()
			c := changes[job.path]
			if c == nil {
				c = &fixChange{from: job.path, old: f.orig, oldMode: f.origMode}
			}
			delete(changes, job.path)
			c.to, c.data, c.mode = to, f.data, f.mode
			changes[to] = c
			for _, r := range rules {
				fixedBefore[pair{job.path, r}] = len(job.findings[r])
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
		left := map[pair]int{}
		for _, fd := range res.Findings {
			left[pair{fd.Path, fd.Rule}]++
		}
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
	for p := range changes {
		rep.Files = append(rep.Files, p)
	}
	sort.Strings(rep.Files)
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
}

// fixJobs groups res's fixable findings by file, in path order, so that
// fixes are made in the same order on every run.
func fixJobs(res *Result, base string) []*fixJob {
	rel := func(p string) string {
		abs, _ := filepath.Abs(p)
		r, err := filepath.Rel(base, abs)
		if err != nil {
			return filepath.ToSlash(abs)
		}
		return filepath.ToSlash(r)
	}
	dirs := map[string]*skill.Skill{}
	for _, s := range res.Skills {
		dirs[rel(s.Dir)] = s
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
			if s == nil {
				continue
			}
			dir, _ := filepath.Abs(s.Dir)
			disk := filepath.Join(base, filepath.FromSlash(f.Path))
			inSkill, err := filepath.Rel(dir, disk)
			if err != nil || inSkill == "." {
				continue // the folder itself: no fixer acts on one
			}
			j = &fixJob{path: f.Path, rel: filepath.ToSlash(inSkill), disk: disk, dir: dir,
				entry: inSkill == s.File, findings: map[string][]Finding{}}
			jobs[f.Path] = j
		}
		j.findings[f.Rule] = append(j.findings[f.Rule], f)
	}
	var out []*fixJob
	for _, j := range jobs {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].path < out[b].path })
	return out
}

// fixFile is one file as the fixers see it: its state when read, and as
// fixed so far.
type fixFile struct {
	job            *fixJob
	orig, data     []byte
	origMode, mode fs.FileMode
	name           string // the new base name, or "" when it keeps its own
	refuse         error  // why the file may be read but not written
}

// fixModeBits are the mode bits a fix keeps.
const fixModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

func loadFixFile(j *fixJob) (*fixFile, error) {
	fi, err := os.Lstat(j.disk)
	if err != nil {
		return nil, err
	}
	f := &fixFile{job: j, origMode: fi.Mode() & fixModeBits}
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
	if fi.Size() > maxFixSize {
		return nil, fmt.Errorf("not fixed: larger than %d MiB", maxFixSize>>20)
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

func problemKind(d *skill.Document) skill.ProblemKind {
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
// chmod; a new name by rename.
func (f *fixFile) commit() error {
	disk := f.job.disk
	if !bytes.Equal(f.orig, f.data) {
		if err := writeFileAtomic(disk, f.data, f.mode); err != nil {
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
		syncDir(filepath.Dir(disk))
	}
	return nil
}

// writeFileAtomic replaces path with data and mode through a temporary
// file in the same folder, which is removed if anything fails.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".fix-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir makes a rename in dir durable where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
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
	var cs []*fixChange
	for _, c := range changes {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].from < cs[j].from })
	for _, c := range cs {
		fmt.Fprintf(w, "diff --git a/%s b/%s\n", c.from, c.to)
		if c.mode != c.oldMode {
			fmt.Fprintf(w, "old mode %s\nnew mode %s\n", gitMode(c.oldMode), gitMode(c.mode))
		}
		if c.from != c.to {
			fmt.Fprintf(w, "rename from %s\nrename to %s\n", c.from, c.to)
		}
		if d := diff.Diff("a/"+c.from, c.old, "b/"+c.to, c.data); d != nil {
			_, d, _ = bytes.Cut(d, []byte("\n")) // go-internal's own "diff a b" line
			w.Write(d)
		}
	}
}

func gitMode(m fs.FileMode) string {
	if m&0o111 != 0 {
		return "100755"
	}
	return "100644"
}

// The frontmatter fixers edit bytes by the positions of yaml.v3's nodes,
// then parse the result and compare it with the tree they meant to make:
// the old tree with exactly the intended change. Anything else (a value
// that reads differently, a key gone, a body moved) drops the edit.

// fixEdit replaces data[start:end] with text.
type fixEdit struct {
	start, end int
	text       string
}

// frontFix is a set of edits and the change they must make to the tree.
type frontFix struct {
	edits []fixEdit
	// mutate applies the intended change to a fresh parse of the old bytes;
	// false when it cannot find what it changes.
	mutate func(d *skill.Document) bool
}

func applyEdits(data []byte, edits []fixEdit) ([]byte, bool) {
	edits = slices.Clone(edits)
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b bytes.Buffer
	at := 0
	for _, e := range edits {
		if e.start < at || e.end < e.start || e.end > len(data) {
			return nil, false
		}
		b.Write(data[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(data[at:])
	return b.Bytes(), true
}

// applyFront applies the fixes whose result is the tree intended: all of
// them when they agree, else each that does on its own, in order.
func (f *fixFile) applyFront(fixes []frontFix) {
	try := func(set []frontFix) ([]byte, bool) {
		var edits []fixEdit
		old := skill.Parse(f.data)
		for _, fx := range set {
			if !fx.mutate(old) {
				return nil, false
			}
			edits = append(edits, fx.edits...)
		}
		data, ok := applyEdits(f.data, edits)
		if !ok {
			return nil, false
		}
		d := skill.Parse(data)
		if old.Front == nil || d.Front == nil || problemKind(old) != problemKind(d) ||
			!bytes.Equal(old.Body, d.Body) || !sameYAML(old.Front, d.Front, 0) {
			return nil, false
		}
		return data, true
	}
	if data, ok := try(fixes); ok {
		f.data = data
		return
	}
	if len(fixes) < 2 {
		return
	}
	var kept []frontFix
	for _, fx := range fixes {
		if _, ok := try(append(slices.Clone(kept), fx)); ok {
			kept = append(kept, fx)
		}
	}
	if data, ok := try(kept); ok && len(kept) > 0 {
		f.data = data
	}
}

// sameYAML compares what readers see of two trees: kinds, tags, values and
// the order of keys and items, not styles, comments or positions.
func sameYAML(a, b *yaml.Node, depth int) bool {
	if a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || a.Value != b.Value ||
		len(a.Content) != len(b.Content) || depth > 10000 {
		return false
	}
	if a.Kind == yaml.AliasNode {
		return true // the anchor's name is its Value; yaml-anchor reports it anyway
	}
	for i := range a.Content {
		if !sameYAML(a.Content[i], b.Content[i], depth+1) {
			return false
		}
	}
	return true
}

// lineStart returns the byte offset at which 1-based file line n starts.
func lineStart(data []byte, n int) (int, bool) {
	off := 0
	for ; n > 1; n-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	return off, true
}

// lineEnd returns the offset of the end of the line holding off, before
// its "\r\n" or "\n".
func lineEnd(data []byte, off int) int {
	end := len(data)
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		end = off + i
	}
	if end > off && data[end-1] == '\r' {
		end--
	}
	return end
}

// nodeOffset turns a node's position into a byte offset in data. yaml.v3
// counts columns in characters.
func nodeOffset(data []byte, d *skill.Document, n *yaml.Node) (int, bool) {
	line, col := d.FilePos(n)
	off, ok := lineStart(data, line)
	if !ok {
		return 0, false
	}
	for ; col > 1; col-- {
		if off >= len(data) || data[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off, true
}

// scalarSpan returns the bytes of a plain scalar written on one line: its
// value exactly as written, or false.
func scalarSpan(data []byte, d *skill.Document, n *yaml.Node) (int, int, bool) {
	off, ok := nodeOffset(data, d, n)
	if !ok || n.Value == "" || !bytes.HasPrefix(data[off:], []byte(n.Value)) {
		return 0, 0, false
	}
	return off, off + len(n.Value), true
}

// doubleQuote writes s as a YAML double-quoted scalar that reads back as s.
func doubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 && r != '\t' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// yamlScalar writes s plain when every reader takes it for that string and
// no rule would object, else double-quoted.
func yamlScalar(s string) string {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte("k: "+s+"\n"), &root); err == nil && len(root.Content) == 1 {
		m := root.Content[0]
		if len(m.Content) == 2 {
			v := m.Content[1]
			if v.Kind == yaml.ScalarNode && v.Style == 0 && v.ShortTag() == "!!str" && v.Value == s &&
				ambiguous(s, v.ShortTag()) == "" && !strings.Contains(s, ": ") && !strings.HasSuffix(s, ":") &&
				!strings.Contains(s, " #") {
				return s
			}
		}
	}
	return doubleQuote(s)
}

// walkYAML calls fn on every node below n, keys before their values.
func walkYAML(n *yaml.Node, fn func(n *yaml.Node)) {
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fn(n)
		if n.Kind == yaml.AliasNode {
			continue
		}
		for i := len(n.Content) - 1; i >= 0; i-- {
			stack = append(stack, n.Content[i])
		}
	}
}

// fixQuoteScalars quotes the plain scalars that the findings point at: a
// value that YAML readers type differently (yes, 010, 2024-01-02), a
// metadata value that is not a string (count: 28), or one holding ": ".
// The quoted text is the text as written, so a YAML 1.2 reader gets the
// string it already read as a string, or the very characters it read as
// a number. A value cut short by " #" is left alone: whether the rest is a
// comment or text is the author's call.
func fixQuoteScalars(f *fixFile, at []Finding) {
	if !f.job.entry || !bytes.Equal(f.data, f.orig) {
		return // positions are the linted bytes'
	}
	type pos struct{ line, col int }
	want := map[pos]string{}
	for _, fd := range at {
		want[pos{fd.Line, fd.Column}] = fd.Rule
	}
	d := skill.Parse(f.data)
	if d.Front == nil {
		return
	}
	var fixes []frontFix
	walkYAML(d.Front, func(n *yaml.Node) {
		line, col := d.FilePos(n)
		rule, ok := want[pos{line, col}]
		if !ok || !quotable(n, rule) {
			return
		}
		start, end, ok := scalarSpan(f.data, d, n)
		if !ok {
			return
		}
		fixes = append(fixes, frontFix{
			edits: []fixEdit{{start, end, doubleQuote(n.Value)}},
			mutate: func(old *skill.Document) bool {
				found := false
				walkYAML(old.Front, func(m *yaml.Node) {
					if l, c := old.FilePos(m); l == line && c == col && m.Kind == yaml.ScalarNode {
						m.Tag, found = "!!str", true
					}
				})
				return found
			},
		})
	})
	f.applyFront(fixes)
}

// quotable reports whether quoting n keeps its text and ends rule's finding.
func quotable(n *yaml.Node, rule string) bool {
	const styled = yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle | yaml.TaggedStyle
	if n.Kind != yaml.ScalarNode || n.Style&styled != 0 || n.Anchor != "" || specialFloat(n) {
		return false
	}
	switch n.ShortTag() {
	case "!!str", "!!int", "!!float", "!!bool", "!!timestamp":
	default:
		return false // null has no text to keep: "" or removing the key is the author's call
	}
	if rule == "yaml-colon-space" {
		return strings.Contains(n.Value, ": ") || strings.Contains(n.Value, ":\t") || strings.HasSuffix(n.Value, ":")
	}
	return true
}

// colonLine is a "key: value" line whose value may hold ": ".
var colonLine = regexp.MustCompile(`^( *(?:- +)?)([A-Za-z0-9_][A-Za-z0-9_.-]*) *: +(\S.*?)[ \t]*$`)

// keyLike is a line that starts with a one-word key.
var keyLike = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*:(\s|$)`)

// colonCause reports whether a plain value is invalid YAML for a reason
// that quoting ends without changing its text: a ": " inside it, or a
// reserved indicator ("`" or "@") that no plain value may start with.
// A value with " #" is not: the rest may be a comment or text.
func colonCause(val string) bool {
	if strings.Contains(val, " #") || strings.Contains(val, "\t#") {
		return false
	}
	if val[0] == '`' || val[0] == '@' {
		return true
	}
	return (strings.Contains(val, ": ") || strings.Contains(val, ":\t")) && !strings.ContainsAny(val[:1], "'\"[]{}>|*&!%#,?-")
}

// fixColonLines quotes the plain value that made the frontmatter invalid
// (description: Use when: the user asks; see colonCause), on one line or
// several, where yaml.v3 stops, while each quote moves the error on. The
// result must parse, and each quoted value read back as its text.
func fixColonLines(f *fixFile, _ []Finding) {
	if !f.job.entry {
		return
	}
	data := f.data
	type quotedLine struct {
		line     int
		key, val string
	}
	var done []quotedLine
	for {
		d := skill.Parse(data)
		if d.Problem == nil || d.Problem.Kind != skill.BadYAML {
			break
		}
		ln := d.Problem.Line
		if len(done) == 16 || slices.ContainsFunc(done, func(q quotedLine) bool { return q.line == ln }) {
			return // no progress, or not this cause
		}
		if ln < d.FrontLine {
			return
		}
		span, ok := plainSpan(data, d, ln)
		if !ok || !colonCause(span.val) {
			return
		}
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(string(data[span.start:span.end])) + `"`
		if data, ok = applyEdits(data, []fixEdit{{span.start, span.end, quoted}}); !ok {
			return
		}
		key, val := span.key, span.val
		ln = span.line
		done = append(done, quotedLine{ln, key, val})
	}
	d := skill.Parse(data)
	if d.Front == nil || len(done) == 0 {
		return
	}
	for _, q := range done {
		found := false
		walkYAML(d.Front, func(n *yaml.Node) {
			if n.Kind != yaml.MappingNode {
				return
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if l, _ := d.FilePos(v); l == q.line && k.Value == q.key && v.Value == q.val && v.ShortTag() == "!!str" {
					found = true
				}
			}
		})
		if !found {
			return
		}
	}
	f.data = data
}

// plainValue is a plain scalar value in the source: the bytes from its
// first character to the end of its last line, and the text YAML reads
// from them.
type plainValue struct {
	line       int // the file line of its key
	key, val   string
	start, end int
}

// plainSpan finds the plain value that file line ln is part of: the value
// of a "key: value" line ln, or of the nearest line above that is indented
// less, when ln and the lines between continue its value. The value runs
// on over the following lines indented deeper than its key. A double-quoted
// scalar folds its lines as a plain one does (line breaks become spaces,
// the indentation goes), so the same bytes quoted read as the same text.
func plainSpan(data []byte, d *skill.Document, ln int) (plainValue, bool) {
	text := func(n int) ([]byte, int, bool) {
		s, ok := lineStart(data, n)
		if !ok || n >= d.BodyLine-1 {
			return nil, 0, false
		}
		return data[s:lineEnd(data, s)], s, true
	}
	indent := func(l []byte) int { return len(l) - len(bytes.TrimLeft(l, " ")) }
	continues := func(l []byte, under int) bool {
		t := bytes.TrimSpace(l)
		// A line that reads as a key may be one indented wrongly: which
		// it is, is the author's call.
		return len(t) > 0 && indent(l) > under && t[0] != '#' && !bytes.HasPrefix(t, []byte("- ")) &&
			!bytes.Contains(l, []byte(" #")) && !bytes.Contains(l, []byte("\t#")) && !keyLike.Match(t)
	}
	l, _, ok := text(ln)
	if !ok {
		return plainValue{}, false
	}
	owner := ln
	for k := ln - 1; k >= d.FrontLine && indent(l) > 0; k-- {
		lk, _, ok := text(k)
		if !ok || len(bytes.TrimSpace(lk)) == 0 {
			break
		}
		if indent(lk) < indent(l) {
			if colonLine.Match(lk) {
				owner = k
			}
			break
		}
	}
	ol, start, _ := text(owner)
	m := colonLine.FindSubmatchIndex(ol)
	if m == nil {
		return plainValue{}, false
	}
	v := plainValue{line: owner, key: string(ol[m[4]:m[5]]), start: start + m[6], end: start + m[7]}
	vals := []string{string(ol[m[6]:m[7]])}
	for k := owner + 1; ; k++ {
		lk, s, ok := text(k)
		if !ok || !continues(lk, indent(ol)) {
			if k <= ln {
				return plainValue{}, false // ln is not part of the value
			}
			break
		}
		vals = append(vals, string(bytes.TrimSpace(lk)))
		v.end = s + len(bytes.TrimRight(lk, " \t"))
	}
	v.val = strings.Join(vals, " ")
	return v, true
}

// fixAllowedTools writes an allowed-tools list, block or flow, as the one
// space-separated string the specification defines, when every item is
// one word of text and nothing in the list is a comment that would be lost.
func fixAllowedTools(f *fixFile, _ []Finding) {
	if !f.job.entry {
		return
	}
	d := skill.Parse(f.data)
	k, v := d.Lookup("allowed-tools")
	if v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return
	}
	var tools []string
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode || it.ShortTag() != "!!str" || it.Value == "" ||
			strings.ContainsAny(it.Value, " \t\n\r") || it.Anchor != "" {
			return
		}
		tools = append(tools, it.Value)
	}
	joined := strings.Join(tools, " ")
	koff, kend, ok := scalarSpan(f.data, d, k)
	if !ok || koff == kend {
		return
	}
	colon := kend
	for colon < len(f.data) && f.data[colon] == ' ' {
		colon++
	}
	if colon >= len(f.data) || f.data[colon] != ':' {
		return
	}
	var end int
	if v.Style&yaml.FlowStyle != 0 {
		voff, ok := nodeOffset(f.data, d, v)
		if !ok || f.data[voff] != '[' {
			return
		}
		if end = closingBracket(f.data, voff); end < 0 {
			return
		}
		end++
	} else {
		last, ok := nodeOffset(f.data, d, v.Content[len(v.Content)-1])
		if !ok {
			return
		}
		end = lineEnd(f.data, last)
	}
	if bytes.IndexByte(f.data[colon:end], '#') >= 0 {
		return // a comment, which a one-line string cannot keep
	}
	f.applyFront([]frontFix{{
		edits: []fixEdit{{colon, end, ": " + yamlScalar(joined)}},
		mutate: func(old *skill.Document) bool {
			_, v := old.Lookup("allowed-tools")
			if v == nil {
				return false
			}
			*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: joined}
			return true
		},
	}})
}

// closingBracket returns the offset of the "]" closing the flow sequence
// opened at data[open], skipping quoted text, or -1.
func closingBracket(data []byte, open int) int {
	depth := 0
	for i := open; i < len(data); i++ {
		switch data[i] {
		case '[', '{':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				return i
			}
		case '\'':
			for i++; i < len(data) && data[i] != '\''; i++ {
			}
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}

// fixInstalledMetadata deletes the metadata keys gh skill install wrote,
// line by line, and metadata itself when nothing else is left in it.
func fixInstalledMetadata(f *fixFile, _ []Finding) {
	if !f.job.entry {
		return
	}
	d := skill.Parse(f.data)
	if d.Front == nil {
		return
	}
	mi := -1
	for i := 0; i+1 < len(d.Front.Content); i += 2 {
		if d.Front.Content[i].Value == "metadata" {
			mi = i
			break
		}
	}
	if mi < 0 {
		return
	}
	m := d.Front.Content[mi+1]
	if m.Kind != yaml.MappingNode || m.Style&yaml.FlowStyle != 0 {
		return
	}
	// A key's lines run to the next key of its mapping, or of the mapping
	// above, less trailing blank and comment lines (the next key's).
	next := d.BodyLine - 1 // the closing fence
	if mi+2 < len(d.Front.Content) {
		next, _ = d.FilePos(d.Front.Content[mi+2])
	}
	lines := func(from, to int) (fixEdit, bool) {
		for ; to > from; to-- {
			s, _ := lineStart(f.data, to-1)
			if l := strings.TrimSpace(string(f.data[s:lineEnd(f.data, s)])); l != "" && !strings.HasPrefix(l, "#") {
				break
			}
		}
		s, ok1 := lineStart(f.data, from)
		e, ok2 := lineStart(f.data, to)
		if !ok1 || !ok2 || e <= s {
			return fixEdit{}, false
		}
		return fixEdit{start: s, end: e}, true
	}
	var edits []fixEdit
	var drop []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !contains(installedKeys, k.Value) {
			continue
		}
		// Only a key that starts its line, after its indentation.
		from, col := d.FilePos(k)
		s, ok := lineStart(f.data, from)
		if !ok {
			return
		}
		if line := f.data[s:lineEnd(f.data, s)]; col != len(line)-len(bytes.TrimLeft(line, " "))+1 {
			return
		}
		to := next
		if i+2 < len(m.Content) {
			to, _ = d.FilePos(m.Content[i+2])
		}
		e, ok := lines(from, to)
		if !ok {
			return
		}
		edits = append(edits, e)
		drop = append(drop, k.Value)
	}
	if len(drop) == 0 {
		return
	}
	all := len(drop) == len(m.Content)/2
	if all {
		from, _ := d.FilePos(d.Front.Content[mi])
		e, ok := lines(from, next)
		if !ok {
			return
		}
		edits = []fixEdit{e}
	}
	f.applyFront([]frontFix{{
		edits: edits,
		mutate: func(old *skill.Document) bool {
			for i := 0; i+1 < len(old.Front.Content); i += 2 {
				if old.Front.Content[i].Value != "metadata" {
					continue
				}
				if all {
					old.Front.Content = slices.Delete(old.Front.Content, i, i+2)
					return true
				}
				m := old.Front.Content[i+1]
				for j := 0; j+1 < len(m.Content); {
					if contains(drop, m.Content[j].Value) {
						m.Content = slices.Delete(m.Content, j, j+2)
					} else {
						j += 2
					}
				}
				return true
			}
			return false
		},
	}})
}

// fixInvisible deletes invisible characters that change nothing a reader
// sees: tag characters, zero-width spaces and joiners, word joiners, stray
// byte order marks, and left-to-right marks in text without right-to-left
// script. It keeps what does show: bidirectional embeddings, overrides,
// isolates and right-to-left marks (removing one reorders the text on
// screen, so which order was meant is for a person to say), and a run at
// the start of a line before a code fence, the idiom for showing ``` inside
// a code block. In Markdown, a deletion that changes how the file renders
// (an invisible character keeping "_" from closing emphasis, or a line
// from being a heading) is not made either.
func fixInvisible(f *fixFile, at []Finding) {
	rules := map[string]bool{}
	for _, fd := range at {
		rules[fd.Rule] = true
	}
	data := f.data
	if binaryData(data) {
		return
	}
	rtl := hasRTL(data)
	var runs, alone [][]fixEdit
	for _, h := range findInvisible(data) {
		if h.hiding && !rules["invisible-unicode"] || !h.hiding && !rules["invisible-char"] {
			continue
		}
		end := invisibleRunEnd(data, h.off)
		if fenceIdiom(data, h.off, end) {
			continue
		}
		var cuts []fixEdit
		for i := h.off; i < end; {
			r, n := utf8.DecodeRune(data[i:])
			if isTag(r) || r == 0x200E && !rtl || r != 0x200E && r != 0x200F && !isOverride(r) {
				cuts = append(cuts, fixEdit{start: i, end: i + n})
			}
			i += n
		}
		switch {
		case len(cuts) == 0:
		case aloneOnLine(data, h.off, end):
			alone = append(alone, cuts)
		default:
			runs = append(runs, cuts)
		}
	}
	if len(runs)+len(alone) == 0 {
		return
	}
	apply := func(set [][]fixEdit) []byte {
		out, _ := applyEdits(data, slices.Concat(append(slices.Clone(alone), set...)...))
		return out
	}
	if out := apply(runs); !isMarkdown(f.job.path) || sameRendering(data, out) {
		f.data = out
		return
	}
	// Some deletion changes the rendering: keep the runs that do not.
	// A run alone on its line is deleted whatever the rendering says: the
	// line looks blank to whoever reads the file, and renders as blank once
	// it is, where the invisible run kept two paragraphs together.
	var kept [][]fixEdit
	for i, r := range runs {
		if i == 64 {
			break // enough renders for one file; another --fix goes on
		}
		if sameRendering(data, apply(append(slices.Clone(kept), r))) {
			kept = append(kept, r)
		}
	}
	f.data = apply(kept)
}

// aloneOnLine reports whether data[i:j] is all a line holds but blanks.
func aloneOnLine(data []byte, i, j int) bool {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	end := len(data)
	if k := bytes.IndexByte(data[j:], '\n'); k >= 0 {
		end = j + k
	}
	return len(bytes.TrimSpace(data[start:i])) == 0 && len(bytes.TrimSpace(data[j:end])) == 0
}

// invisibleRunEnd returns where the run of invisible characters that
// findInvisible reported at off ends.
func invisibleRunEnd(data []byte, off int) int {
	r, n := utf8.DecodeRune(data[off:])
	tags := isTag(r)
	j := off + n
	for j < len(data) {
		r2, n2 := utf8.DecodeRune(data[j:])
		if tags && !isTag(r2) || !tags && (invisibleNames[r2] == "" || joinerAllowed(data, j, r2, n2)) {
			break
		}
		j += n2
	}
	return j
}

// fenceIdiom reports whether data[i:j] stands at the start of a line
// (after indentation) before a code fence.
func fenceIdiom(data []byte, i, j int) bool {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	if len(bytes.TrimLeft(data[start:i], " \t")) != 0 {
		return false
	}
	rest := bytes.TrimLeft(data[j:], " \t")
	return bytes.HasPrefix(rest, []byte("```")) || bytes.HasPrefix(rest, []byte("~~~"))
}

// hasRTL reports whether text holds a right-to-left letter or control,
// next to which a left-to-right mark can change the display order.
func hasRTL(data []byte) bool {
	for i := asciiPrefix(data); i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		i += n
		if r < 0x0590 {
			continue
		}
		p, _ := bidi.LookupRune(r)
		switch p.Class() {
		case bidi.R, bidi.AL, bidi.AN, bidi.RLE, bidi.RLO, bidi.RLI, bidi.FSI:
			return true
		}
	}
	return false
}

// maxRender is the largest Markdown file rendered to check a deletion.
const maxRender = 1 << 20

var fixMarkdown = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))

// sameRendering reports whether two versions of a Markdown file render to
// the same HTML once the characters fixInvisible deletes are taken out.
func sameRendering(a, b []byte) bool {
	if len(a) > maxRender {
		return false
	}
	render := func(src []byte) ([]byte, bool) {
		var out bytes.Buffer
		if err := fixMarkdown.Convert(src, &out); err != nil {
			return nil, false
		}
		return bytes.Map(func(r rune) rune {
			if isTag(r) || r == 0x200E || invisibleNames[r] != "" && r != 0x200F && !isOverride(r) {
				return -1
			}
			return r
		}, out.Bytes()), true
	}
	ra, ok1 := render(a)
	rb, ok2 := render(b)
	return ok1 && ok2 && bytes.Equal(ra, rb)
}

// fixBOM strips the UTF-8 byte order marks a file starts with.
func fixBOM(f *fixFile, _ []Finding) {
	for bytes.HasPrefix(f.data, utf8BOM) {
		f.data = f.data[len(utf8BOM):]
	}
}

// fixCRLF turns a script's CRLF line ends into LF; a lone CR is kept.
func fixCRLF(f *fixFile, _ []Finding) {
	if !strings.HasPrefix(f.job.rel, "scripts/") || windowsScripts[strings.ToLower(path.Ext(f.job.path))] || binaryData(f.data) {
		return
	}
	f.data = bytes.ReplaceAll(f.data, crlfLine, []byte("\n"))
}

// fixExec sets the execute bit of a script that starts with "#!": for its
// owner, and for group and others where they may read it, as chmod +x
// does under the usual umask.
func fixExec(f *fixFile, _ []Finding) {
	if f.mode&0o111 != 0 || !bytes.HasPrefix(f.data, []byte("#!")) {
		return
	}
	f.mode |= 0o100 | f.mode&0o044>>2
}

// fixEntryName renames a case variant of SKILL.md to SKILL.md.
func fixEntryName(f *fixFile, _ []Finding) {
	if name := path.Base(f.job.path); f.job.entry && name != skill.FileName && strings.EqualFold(name, skill.FileName) {
		f.name = skill.FileName
	}
}
