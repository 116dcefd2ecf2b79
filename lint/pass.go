package lint

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/internal/smallfile"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

// MaxScan is how much of one file content rules read. Readers refuse files
// over 10 MiB anyway (a finding of its own), so scanning more would only cost
// memory.
const MaxScan = 10 << 20

// Pass is what a per-skill check sees: the skill, its parsed SKILL.md, its
// files, and the profile in force. Checks report through it.
type Pass struct {
	Skill   *skill.Skill
	Doc     *skill.SkillMD // nil when SKILL.md could not be read
	Files   *skill.Files   // nil when the folder could not be collected
	Profile *Profile

	rule   *Rule
	report func(*Rule, Finding)
	memo   map[string]any
	names  runNames // of the run's skills; none for a skill checked alone
}

// nameTaken reports whether a skill of the run declares name, in any
// scope: a fix that gave another skill that name would trade its finding
// for name-duplicate (or name-bundle-clash, which the build refuses). A
// skill checked alone (CheckSkill) knows of no other.
func (p *Pass) nameTaken(name string) bool { return p.names.taken(NameOf(p.Skill), name) }

// Report records a finding for the rule being checked. f.Path is relative
// to the skill folder ("" means the folder itself); the runner makes it
// relative to the run and fills in the rule and severity.
func (p *Pass) Report(f Finding) { p.report(p.rule, f) }

// Refuse records a finding of what the build refuses to publish: an error
// whatever severity the rule is given (but off), since the build refuses
// the skill whatever lint's settings say.
func (p *Pass) Refuse(f Finding) {
	f.Severity = Error
	p.report(p.rule, f)
}

// Refusef is Refuse of a finding made as Reportf makes one.
func (p *Pass) Refusef(path string, line, col int, fix, format string, args ...any) {
	p.Refuse(Finding{Path: path, Line: line, Column: col, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// Reportf records a finding at a path and position inside the skill.
func (p *Pass) Reportf(path string, line, col int, fix, format string, args ...any) {
	p.Report(Finding{Path: path, Line: line, Column: col, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// ReportNode records a finding at a frontmatter node of SKILL.md.
func (p *Pass) ReportNode(n *yaml.Node, fix, format string, args ...any) {
	line, col := p.Doc.FilePos(n)
	p.Reportf(p.Skill.File, line, col, fix, format, args...)
}

// Memo returns the value cached under key, computing it once per skill. Rules
// share expensive work through it (the Markdown tree, the file index);
// file contents have Content.
func (p *Pass) Memo(key string, compute func() any) any {
	if v, ok := p.memo[key]; ok {
		return v
	}
	if p.memo == nil {
		p.memo = map[string]any{}
	}
	v := compute()
	p.memo[key] = v
	return v
}

// Content is a file's bytes, read once per skill and shared by every rule.
type Content struct {
	Data     []byte // up to MaxScan bytes
	Complete bool   // Data is the whole file
	Err      error  // the file could not be read

	mod time.Time // its modification time when opened, if known
}

// memoLimit is the largest file whose bytes are kept for the other rules of
// the skill; larger ones are read again by each rule that asks, so one
// worker holds at most one large file at a time.
const memoLimit = 1 << 20

// Content returns the first MaxScan bytes of one of the skill's files.
func (p *Pass) Content(f skill.File) *Content {
	if r, ok := p.Skill.Whole(); ok && p.Doc != nil && f.Path == p.Skill.File && int64(len(r.Data)) == f.Size {
		// The rules check the bytes parsed, with no second open and read.
		return &Content{Data: r.Data, Complete: true}
	}
	if f.Size > memoLimit {
		return readContent(f)
	}
	// Six rules ask for each file's content.
	return p.Memo("content:"+f.Path, func() any {
		c := readContent(f)
		if c.Complete && c.Err == nil && !c.mod.IsZero() && p.Files != nil {
			p.Files.Keep(f.Path, skill.Read{Data: c.Data, Mod: c.mod})
		}
		return c
	}).(*Content)
}

func readContent(f skill.File) *Content {
	fh, err := smallfile.Open(f.Disk)
	if err != nil {
		return &Content{Err: err}
	}
	defer fh.Close()
	c := &Content{}
	// Its time when opened lets the build take these bytes (Files.Keep).
	if fi, err := fh.Stat(); err == nil {
		c.mod = fi.ModTime()
	}
	// The size collected is almost always the size read: starting there,
	// plus the byte that lets the read meeting the end need no larger
	// buffer, spares io.ReadAll's growing from 512 bytes.
	c.Data, c.Err = readAll(io.LimitReader(fh, MaxScan+1), min(max(f.Size, 0), MaxScan)+1)
	c.Complete = len(c.Data) <= MaxScan
	c.Data = c.Data[:min(len(c.Data), MaxScan)]
	return c
}

// readAll is io.ReadAll with a first buffer of the given size: a file that
// changed size since it was collected is still read to its end.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the next size
		}
	}
}

// BodyPos turns a 1-based line within the body into a file line.
func (p *Pass) BodyPos(line int) int { return p.Doc.BodyLine + line - 1 }

// RunPass is what a check across a run sees: its skills, and its plugins
// with the marketplaces at its roots and plugin folders.
type RunPass struct {
	Skills       []Named
	Plugins      []*plugin.Plugin
	Marketplaces []string
	Rel          func(path string) string // a disk path made relative to the run
	Config       string                   // the skillpack.yaml in effect; "" for none
	Base         string                   // the folder Rel is relative to, absolute
	// Broken are the links where a skill would be that lead nowhere
	// (skill.Tree's), when skill-dangling reports them (Run only).
	Broken []skill.BrokenLink

	rule        *Rule
	report      func(*Rule, Finding)
	pluginFiles func(dir string) (*skill.Files, error) // Options.PluginFiles
	roots       []string                               // Options.Roots
	all         bool                                   // Options.All: the scope took every skill found
	out         string                                 // Options.Out, or dist
	markets     map[string]fileRead                    // the marketplaces read (marketplace)
}

// fileRead is a file's bytes as read, or why it could not be.
type fileRead struct {
	data []byte
	err  error
}

// marketplace is the bytes of a marketplace file, read once a run however
// many rules ask: each then sees the same bytes.
func (p *RunPass) marketplace(path string) ([]byte, error) {
	r, ok := p.markets[path]
	if !ok {
		r.data, r.err = smallfile.Read(path)
		if p.markets == nil {
			p.markets = map[string]fileRead{}
		}
		p.markets[path] = r
	}
	return r.data, r.err
}

// Ignore is the --ignore flag that leaves out the folder dir, a disk path
// (IgnoreFlag).
func (p *RunPass) Ignore(dir string) string { return IgnoreFlag(p.roots, dir) }

// Named is all the checks across skills read of a skill: where it is, the
// name it is published under and where SKILL.md spells that name. It is a
// few words, so that a caller holding thousands of skills for these checks
// (the build) need not hold their parsed frontmatter.
type Named struct {
	Dir, File    string // as in skill.Skill
	Plugin       string // as in skill.Skill: the plugin scoping the name, "" outside plugins
	Name         string // SkillName
	Line, Column int    // of the frontmatter name's value; 0 if none

	// Declared tells that SKILL.md declares Name. When it does not (the
	// file is unreadable, has no frontmatter or no string name), Name is
	// the folder's, which lint reports on its own: checks comparing names
	// skip it, or its healthy twin elsewhere would fail for a name
	// nobody wrote.
	Declared bool

	// Mirror is as in skill.Skill: the folder of the skill whose SKILL.md
	// this one's SKILL.md links to. A mirror is that skill seen twice, so its
	// name is no second use.
	Mirror string

	// CopyOf is the plugin of which this is a client's copy (ClientCopy).
	CopyOf string
	// Carrier is the plugin whose archives carry the skill (skill.Carrier).
	Carrier string
}

// NameOf is what the checks across skills read of s.
func NameOf(s *skill.Skill) Named {
	n := Named{Dir: s.Dir, File: s.File, Plugin: s.Plugin, Name: SkillName(s), Mirror: s.Mirror}
	_, n.CopyOf = s.ClientCopy()
	n.Carrier = s.Carrier()
	if s.Doc != nil {
		if _, v := s.Doc.Lookup("name"); v != nil {
			n.Line, n.Column = s.Doc.FilePos(v)
		}
		name, ok := s.Doc.String("name")
		n.Declared = ok && name != ""
	}
	return n
}

// EntryPath is the skill's SKILL.md on disk.
func (n Named) EntryPath() string { return filepath.Join(n.Dir, n.File) }

// Report records a finding; f.Path is already relative to the run.
func (p *RunPass) Report(f Finding) { p.report(p.rule, f) }

// Reportf records a finding at a position of a file on disk (a plugin's
// folder for a finding about the whole plugin).
func (p *RunPass) Reportf(disk string, line, col int, fix, format string, args ...any) {
	p.Report(Finding{Path: p.Rel(disk), Line: line, Column: col, Message: fmt.Sprintf(format, args...), Fix: fix})
}
