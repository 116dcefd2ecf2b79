package build

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"

	"github.com/skillpack/skillpack/build/internal/scratch"
	"github.com/skillpack/skillpack/layout"
)

// previous is the build record of the bundle already in the output folder,
// read as a stream: each recorded skill goes to a scratch file as a
// summary, and the list of files to another, so that a rebuild holds a
// name and a spot per skill however large the previous bundle. (Read
// whole, the record of 10,000 skills is 24 MB of JSON and about twice that
// decoded.)
type previous struct {
	Bundle   layout.Digest
	Docs     []Artifact
	Excluded []layout.Excluded

	self   Artifact       // the record itself: the digest and size of the bytes read
	names  []string       // of the recorded skills, sorted
	spots  []scratch.Spot // of their summaries, beside names
	skills *summaries
	files  *scratch.File // every file the record lists, in its order (sorted)
}

// readPrevious reads the build record at path.
func readPrevious(path string) (p *previous, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p = &previous{}
	defer func() {
		if err != nil {
			p.close()
			p = nil
		}
	}()
	if p.skills, err = newSummaries(); err != nil {
		return p, err
	}
	if p.files, err = scratch.New(); err != nil {
		return p, err
	}
	h, err := layout.ReadRecord(f, func(c layout.RecordSkill) error {
		// The record indents the verdict; compacted, it is the bytes
		// lint.EncodeVerdict gives, which a no-op compares.
		var verdict bytes.Buffer
		if len(c.Findings) > 0 {
			if err := json.Compact(&verdict, c.Findings); err != nil {
				return err
			}
		}
		at, err := p.skills.add(&summary{key: c.Key, lint: c.Lint, verdict: verdict.Bytes(),
			out: layout.Skill{Name: c.Name, Files: c.Files, TarGz: c.TarGz, Zip: c.Zip, ContentDigest: c.ContentDigest}})
		p.names, p.spots = append(p.names, c.Name), append(p.spots, at)
		return err
	}, func(f string) error {
		_, err := p.files.Add([]byte(f))
		return err
	})
	if err != nil {
		return p, err
	}
	p.Bundle, p.Docs, p.Excluded, p.self = h.Bundle, h.Docs, h.Excluded, h.Self
	if err := p.skills.seal(); err != nil {
		return p, err
	}
	return p, p.files.Seal()
}

// skill returns the record of the skill of that name, or nil.
func (p *previous) skill(name string) *layout.RecordSkill {
	if p == nil {
		return nil
	}
	i, ok := slices.BinarySearch(p.names, name)
	if !ok {
		return nil
	}
	sum, err := p.skills.read(p.spots[i])
	if err != nil || sum.out.Name != name {
		return nil // packed afresh, which is always safe
	}
	o := &sum.out
	return &layout.RecordSkill{Name: o.Name, Key: sum.key, Lint: sum.lint, Findings: sum.verdict, ContentDigest: o.ContentDigest, Files: o.Files, TarGz: o.TarGz, Zip: o.Zip}
}

// eachFile calls fn with every file the record lists, in its order, until
// fn returns false.
func (p *previous) eachFile(fn func(path string) bool) error {
	return p.files.Scan(func(b []byte) bool { return fn(string(b)) })
}

func (p *previous) close() {
	if p != nil {
		p.skills.close()
		p.files.Close()
	}
}

// recorded says what the previous build wrote at a dist path: the
// artifact, whether it is a document, and for a legacy copy the served
// copy it repeats. It reads the path with layout.ParsePath and looks up the
// skill it names; ok is false for a path that is none of the bundle's
// (such as a signature), which no fast check can vouch for.
func (p *previous) recorded(path string, last **layout.RecordSkill) (a Artifact, doc bool, served string, ok bool) {
	at, ok := layout.ParsePath(path)
	if !ok {
		return a, false, "", false
	}
	if at.Kind == layout.KindDoc {
		for _, d := range p.Docs {
			if d.Path == path {
				return d, true, "", true
			}
		}
		return a, false, "", false
	}
	if *last == nil || (*last).Name != at.Skill {
		*last = p.skill(at.Skill)
	}
	c := *last
	if c == nil {
		return a, false, "", false
	}
	switch at.Kind {
	case layout.KindFile:
		for _, x := range c.Files {
			if x.Path == at.File {
				if at.Legacy {
					served = layout.SkillFile(at.Skill, at.File)
				}
				return Artifact{Path: path, Digest: x.Digest, Size: x.Size}, false, served, true
			}
		}
	case layout.KindArchive:
		for _, x := range []struct {
			ar  layout.Archive
			ext string
		}{{c.TarGz, layout.TarGz}, {c.Zip, layout.Zip}} {
			if layout.ArchivePath(c.Name, x.ar.Digest, x.ext) == path {
				return Artifact{Path: path, Digest: x.ar.Digest, Size: x.ar.Size}, false, "", true
			}
		}
	}
	return a, false, "", false
}
