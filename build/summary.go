package build

import (
	"fmt"

	"github.com/skillpack/skillpack/build/internal/scratch"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// summary is what the documents, the catalog and the build record say
// about a skill. Summaries go to the scratch file as workers finish, and
// each is read back when a document reaches its skill, so that a build
// holds a few strings per skill however large the tree.
type summary struct {
	// rec is what the build record keeps: the reuse key, lint's verdict
	// key (lint.VerdictKey) and the per-skill findings under it
	// (lint.EncodeVerdict), the files and archives.
	rec             layout.RecordSkill
	description     string
	frontmatter     []byte // as JSON (layout.Skill.Frontmatter)
	version         string
	license, compat string   // frontmatter values the catalog shows
	leftOut         []string // junk and .skillignore'd paths
	// offMCP is why MCP hosts refuse the skill's entry, and mcpFix the
	// fix (skill.CheckMCP): the MCP documents leave it out.
	offMCP, mcpFix string
}

// skill is what layout needs of it.
func (sum *summary) skill() layout.Skill {
	r := &sum.rec
	return layout.Skill{Name: r.Name, Description: sum.description, Frontmatter: sum.frontmatter, Version: sum.version,
		Files: r.Files, TarGz: r.TarGz, Zip: r.Zip, ContentDigest: r.ContentDigest, OffMCP: sum.offMCP, OffMCPFix: sum.mcpFix}
}

// checkMCP is whether MCP hosts refuse the skill's entry (skill.CheckMCP),
// of its published files: the MCP documents leave such a skill out.
func checkMCP(w *task) (*skill.MCPRefusal, error) {
	served, err := w.files.ServedBytes(skill.MCPMaxBytes)
	if err != nil {
		return nil, err
	}
	return w.src.Doc.CheckMCP(len(w.files.Files), served), nil
}

// summary reads back what the build kept of a packed skill.
func (p *packed) summary(w *work) (*summary, error) {
	var sum *summary
	err := p.sums.Read(w.at, func(data []byte) error {
		var err error
		if sum, err = decodeSummary(data); err != nil {
			return fmt.Errorf("reading the scratch file: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sum.rec.Name != w.name {
		return nil, fmt.Errorf("the scratch file holds %q where %q should be", sum.rec.Name, w.name)
	}
	return sum, nil
}

func (p *packed) close() {
	if p != nil {
		p.sums.Close()
	}
}

// encode writes the summary in scratch's encoding (scratch.Encoder),
// private to one build.
func (sum *summary) encode() []byte {
	var e scratch.Encoder
	e.RecordSkill(&sum.rec)
	for _, s := range []string{sum.description, string(sum.frontmatter), sum.version, sum.license, sum.compat, sum.offMCP, sum.mcpFix} {
		e.Str(s)
	}
	e.Num(int64(len(sum.leftOut)))
	for _, p := range sum.leftOut {
		e.Str(p)
	}
	return e.B
}

func decodeSummary(data []byte) (*summary, error) {
	d := scratch.NewDecoder(data)
	sum := &summary{rec: *d.RecordSkill()}
	var fm string
	for _, s := range []*string{&sum.description, &fm, &sum.version, &sum.license, &sum.compat, &sum.offMCP, &sum.mcpFix} {
		*s = d.Str()
	}
	if fm != "" {
		sum.frontmatter = []byte(fm)
	}
	if n := d.Count(); n > 0 {
		sum.leftOut = make([]string, n)
		for i := range sum.leftOut {
			sum.leftOut[i] = d.Str()
		}
	}
	return sum, d.End()
}
