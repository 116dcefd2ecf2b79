package layout

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"slices"
)

// Record is the build record kept in every bundle at BuildRecord: every
// file the build wrote, so that a later build (and verify, serve and sign)
// can tell its output from a user's files, and what a later build may
// reuse of each skill. It holds no times or host paths.
//
// Field order is key order in the file. The skills and files arrays grow
// with the tree (tens of megabytes for 10,000 skills), so a build streams
// them (WriteRecord, ReadRecord); DecodeRecord reads a small one whole.
type Record struct {
	Generator   string        `json:"generator"`
	Bundle      Digest        `json:"bundle,omitempty"` // the bundle key: what every document depends on
	Skills      []RecordSkill `json:"skills"`           // sorted by name
	Docs        []Artifact    `json:"docs,omitempty"`   // every generated document, with its digest
	Excluded    []Excluded    `json:"legacyExcluded,omitempty"`
	MCPExcluded []Excluded    `json:"mcpExcluded,omitempty"` // Skill.OffMCP
	// Plugins are the plugins' archives, by name, with the key of what
	// they hold: a rebuild whose plugin has that key reuses them.
	Plugins []RecordPlugin `json:"plugins,omitempty"`
	// Skipped are the skills --skip-invalid left out, sorted: a rebuild
	// packs one of those names only once lint has said it is published.
	Skipped []string `json:"skipped,omitempty"`
	Files   []string `json:"files"` // every file of the bundle, sorted, the record included
}

// RecordPlugin is what the record keeps of one plugin's archives.
type RecordPlugin struct {
	Name  string  `json:"name"`
	Key   Digest  `json:"key"` // the reuse key of its files, as a skill's
	TarGz Archive `json:"tarGz"`
	Zip   Archive `json:"zip"`
}

// RecordSkill is what the record keeps of one skill: the keys a later
// build compares (package build's reuse), and the files and archives it
// may reuse.
type RecordSkill struct {
	Name string `json:"name"`
	Key  Digest `json:"key"` // the reuse key: everything the archives depend on
	// Lint is lint's verdict key (lint.Verdict), and Findings the per-skill
	// findings it gave, in lint's own encoding; absent when the skill was
	// not linted with reuse in mind.
	Lint          Digest          `json:"lint,omitempty"`
	Findings      json.RawMessage `json:"findings,omitempty"`
	ContentDigest Digest          `json:"contentDigest"`
	Files         []File          `json:"files"`
	TarGz         Archive         `json:"tarGz"`
	Zip           Archive         `json:"zip"`
	Page          *Archive        `json:"page,omitempty"` // its catalog page, if any
}

// Archives are the skill's archives as files of the bundle: .tar.gz, .zip.
func (c *RecordSkill) Archives() [2]Artifact {
	return [2]Artifact{{ArchivePath(c.Name, c.TarGz.Digest, TarGz), c.TarGz.Digest, c.TarGz.Size},
		{ArchivePath(c.Name, c.Zip.Digest, Zip), c.Zip.Digest, c.Zip.Size}}
}

// ShipsSignature reports whether the skill's own files include a
// skill.oms.sig (its author's folder signature): at FolderSignature(name)
// the bundle then serves that file, not one a build wrote.
func (c *RecordSkill) ShipsSignature() bool {
	return slices.ContainsFunc(c.Files, func(f File) bool { return f.Path == FolderSignatureFile })
}

// Artifacts are the files of the bundle the record says the skill has:
// its files in both trees (a build without the legacy one writes none
// there), its archives and its catalog page.
func (c *RecordSkill) Artifacts() []Artifact {
	var out []Artifact
	for _, f := range c.Files {
		out = append(out, Artifact{SkillFile(c.Name, f.Path), f.Digest, f.Size}, Artifact{LegacyFile(c.Name, f.Path), f.Digest, f.Size})
	}
	a := c.Archives()
	out = append(out, a[:]...)
	if c.Page != nil {
		out = append(out, Artifact{CatalogPage(c.Name), c.Page.Digest, c.Page.Size})
	}
	return out
}

// Artifact is one file of the bundle with its digest and size.
type Artifact struct {
	Path   string `json:"path"`
	Digest Digest `json:"digest"`
	Size   int64  `json:"size"`
}

// RecordHead is a record without its two long arrays.
type RecordHead struct {
	Generator   string
	Bundle      Digest
	Docs        []Artifact
	Excluded    []Excluded
	MCPExcluded []Excluded
	Plugins     []RecordPlugin
	Skipped     []string
	Self        Artifact // the digest and size of what ReadRecord read; WriteRecord ignores it
}

// WriteRecord writes a record as jsonenc would encode it whole, streaming
// skills and files; the first error of either stops it.
func WriteRecord(w io.Writer, h RecordHead, skills iter.Seq2[RecordSkill, error], files iter.Seq2[string, error]) error {
	shell := Record{Generator: h.Generator, Bundle: h.Bundle, Skills: []RecordSkill{}, Docs: h.Docs, Excluded: h.Excluded, MCPExcluded: h.MCPExcluded, Plugins: h.Plugins, Skipped: h.Skipped, Files: []string{}}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := stream(bw, shell, array{"skills", values(skills)}, array{"files", values(files)}); err != nil {
		return err
	}
	return bw.Flush()
}

// values adapts a typed sequence for stream.
func values[T any](seq iter.Seq2[T, error]) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for v, err := range seq {
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// ReadRecord reads a record from r in bounded memory, calling skill for
// each of its skills and file for each file, in order, until either
// returns an error. It checks that both are sorted, and skips unknown
// fields, reading a newer skillpack's record as far as it understands it.
func ReadRecord(r io.Reader, skill func(RecordSkill) error, file func(string) error) (RecordHead, error) {
	var h RecordHead
	h256 := sha256.New()
	sum := &counter{w: h256}
	tee := io.TeeReader(r, sum)
	dec := json.NewDecoder(bufio.NewReaderSize(tee, 64<<10))
	if err := expect(dec, json.Delim('{')); err != nil {
		return h, err
	}
	head := map[string]any{"generator": &h.Generator, "bundle": &h.Bundle, "docs": &h.Docs, "legacyExcluded": &h.Excluded,
		"mcpExcluded": &h.MCPExcluded, "plugins": &h.Plugins, "skipped": &h.Skipped}
	var lastName, lastFile string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return h, err
		}
		key, _ := t.(string)
		switch field, ok := head[key]; {
		case ok:
			err = dec.Decode(field)
		case key == "skills":
			err = sortedArray(dec, &lastName, func(s RecordSkill) string { return s.Name }, "skill %q: the skills are not sorted by name", skill)
		case key == "files":
			err = sortedArray(dec, &lastFile, func(f string) string { return f }, "file %q: the files are not sorted", file)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return h, err
		}
	}
	if err := expect(dec, json.Delim('}')); err != nil {
		return h, err
	}
	if _, err := io.Copy(io.Discard, tee); err != nil { // the rest, past what the decoder needed
		return h, err
	}
	h.Self = Artifact{Path: BuildRecord, Digest: SumDigest(h256.Sum(nil)), Size: sum.n}
	return h, nil
}

// DecodeRecord reads a whole record held in data.
func DecodeRecord(data []byte) (*Record, error) {
	rec := &Record{}
	h, err := ReadRecord(bytes.NewReader(data),
		func(s RecordSkill) error { rec.Skills = append(rec.Skills, s); return nil },
		func(f string) error { rec.Files = append(rec.Files, f); return nil })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", BuildRecord, err)
	}
	rec.Generator, rec.Bundle, rec.Docs, rec.Excluded, rec.MCPExcluded, rec.Plugins, rec.Skipped = h.Generator, h.Bundle, h.Docs, h.Excluded, h.MCPExcluded, h.Plugins, h.Skipped
	return rec, nil
}

// Encode writes rec whole, the bytes WriteRecord writes.
func (rec *Record) Encode(w io.Writer) error {
	return WriteRecord(w, RecordHead{Generator: rec.Generator, Bundle: rec.Bundle, Docs: rec.Docs, Excluded: rec.Excluded, MCPExcluded: rec.MCPExcluded,
		Plugins: rec.Plugins, Skipped: rec.Skipped},
		noErrors(rec.Skills), noErrors(rec.Files))
}

func noErrors[T any](s []T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, v := range s {
			if !yield(v, nil) {
				return
			}
		}
	}
}

// expect reads the next token, which must be want.
func expect(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("want %v, found %v", want, t)
	}
	return nil
}

// sortedArray reads an array, calling f with each element, whose key
// must come after last's (else the error unsorted says, of the key).
func sortedArray[T any](dec *json.Decoder, last *string, key func(T) string, unsorted string, f func(T) error) error {
	if err := expect(dec, json.Delim('[')); err != nil {
		return err
	}
	for dec.More() {
		var v T
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if k := key(v); k <= *last && *last != "" {
			return fmt.Errorf(unsorted, k)
		}
		*last = key(v)
		if err := f(v); err != nil {
			return err
		}
	}
	return expect(dec, json.Delim(']'))
}
