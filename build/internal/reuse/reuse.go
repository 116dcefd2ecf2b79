// Package reuse decides what a build may take from the bundle the last
// build left in its output folder (Last), and whether there is anything
// to do at all. It is the one place that makes the three proofs:
// reusable by key (ArchiveKey, BundleKey, Reusable; lint.VerdictKey for
// findings), trusted by times (the record is stamped after every other file,
// StampAfter, and a file or folder whose modification and change times
// are both before it is untouched; Intact for the whole bundle) and
// verified by hash (Verified; Holds tries times, then the hash). A no-op
// (UpToDate) is decided from the record alone, nothing laid out or rendered.
//
// It must not be reached from outside build, or trust times where the
// system has no change time: what times cannot see (a disk corrupting a
// file, a clock stepped back) is what `skillpack verify` is for. Why each
// proof holds: ARCHITECTURE.md, "Reuse: the three proofs".
package reuse

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/skillpack/skillpack/build/internal/scratch"
	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// keyVersion changes whenever the archive bytes for the same input could
// change without the generator string changing (a header decision in
// package pack, say), so that old archives are never reused for new rules.
const keyVersion = "skillpack-archive-key/1"

// ArchiveKey is what a skill's archive bytes are a function of: the
// format, the generator, the fixed time and the files.
func ArchiveKey(generator string, t time.Time, entries []pack.Member) layout.Digest {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%d\n", keyVersion, generator, t.Unix())
	h.Write(pack.Manifest(entries))
	return layout.SumDigest(h.Sum(nil))
}

// BundleKey is what every document of the bundle is a function of: the
// generator, the addressing options, each skill's archive key (keys maps
// names to keys), and extra, a line each for the inputs of the documents
// a build adds only when asked (llms.txt, say); a build that adds none has
// the key it had before they existed.
func BundleKey(generator, baseURL string, noLegacy bool, keys map[string]layout.Digest, extra ...string) layout.Digest {
	h := sha256.New()
	fmt.Fprintf(h, "skillpack-bundle/1\n%s\n%s\n%t\n", generator, baseURL, noLegacy)
	for _, n := range slices.Sorted(maps.Keys(keys)) {
		fmt.Fprintf(h, "%s %s\n", n, keys[n])
	}
	for _, e := range extra {
		// After the skills, on lines no skill's can be: a name never
		// starts with '+'.
		fmt.Fprintf(h, "+ %s\n", e)
	}
	return layout.SumDigest(h.Sum(nil))
}

// Last is the bundle the last build left in the output folder, as its build
// record describes it, read as a stream into scratch files, so that a
// rebuild holds a name and a spot per skill (read whole, the record of
// 10,000 skills is 24 MB of JSON, twice that decoded). A nil *Last is no
// such bundle: nothing is reusable.
type Last struct {
	Head layout.RecordHead // the record's generator, bundle key, documents, and its own digest

	out      string      // the output folder, absolute
	root     *os.File    // out, open: the checks by times look its files up from it
	record   os.FileInfo // the record as it was read
	recorded time.Time   // when the record was written; zero if unknown
	intact   bool        // no folder of the bundle changed since the record
	names    []string    // of the recorded skills, sorted
	spots    []scratch.Spot
	skills   *scratch.File
	files    *scratch.File // every file the record lists, sorted

	listed    int             // files the record lists
	accounted int             // the record's, the documents' and the skills' files (see UpToDate)
	signed    int             // signatures the record lists (layout.IsSignature), not a skill's own file
	hasLegacy bool            // the bundle has the legacy v0.1 tree
	excluded  map[string]bool // skills left out of it
}

// Open reads the build record of the bundle in the folder out, and checks
// its folders on jobs goroutines. It returns nil and no error when there is
// none; an unreadable record is an error the caller may ignore (nothing is
// then reused).
func Open(out string, jobs int) (p *Last, err error) {
	recPath := filepath.Join(out, filepath.FromSlash(layout.BuildRecord))
	// Stat first: the record is the build's last write, so a record that
	// changes while it is read looks newer than the files it lists.
	info, err := os.Lstat(recPath)
	if err != nil || !info.Mode().IsRegular() {
		return nil, nil
	}
	f, err := os.Open(recPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p = &Last{out: out, record: info}
	defer func() {
		if err != nil {
			p.Close()
			p = nil
		}
	}()
	if p.skills, err = scratch.New(); err != nil {
		return p, err
	}
	if p.files, err = scratch.New(); err != nil {
		return p, err
	}
	// One buffer each for every skill: Add copies what it is given, and
	// growing fresh ones was most of the cost of encoding.
	var v bytes.Buffer
	var e scratch.Encoder
	served := 0 // the skills' files, served again in the legacy tree
	p.Head, err = layout.ReadRecord(f, func(c layout.RecordSkill) error {
		served += len(c.Files)
		if c.ShipsSignature() {
			p.signed-- // its file, counted among the signatures below
		}
		p.accounted += len(c.Files) + len(c.Archives())
		if c.Page != nil {
			p.accounted++
		}
		// The record indents the verdict; compacted, it is the bytes
		// lint.EncodeVerdict gives, which a no-op compares.
		if len(c.Findings) > 0 {
			v.Reset()
			if err := json.Compact(&v, c.Findings); err != nil {
				return err
			}
			c.Findings = v.Bytes()
		}
		e.B = e.B[:0]
		e.RecordSkill(&c)
		at, err := p.skills.Add(e.B)
		p.names, p.spots = append(p.names, c.Name), append(p.spots, at)
		return err
	}, func(f string) error {
		p.listed++
		if layout.IsSignature(f) {
			p.signed++
		}
		_, err := p.files.Add([]byte(f))
		return err
	})
	if err != nil {
		return p, err
	}
	if err := p.skills.Seal(); err != nil {
		return p, err
	}
	p.accounted += 1 + len(p.Head.Docs)
	p.hasLegacy = slices.ContainsFunc(p.Head.Docs, func(d layout.Artifact) bool { return d.Path == layout.V1Index })
	if p.hasLegacy {
		p.accounted += served
	}
	p.excluded = map[string]bool{}
	for _, e := range p.Head.Excluded {
		if c := p.Skill(e.Name); c != nil && p.hasLegacy && !p.excluded[e.Name] {
			p.accounted -= len(c.Files)
		}
		p.excluded[e.Name] = true
	}
	if err := p.files.Seal(); err != nil {
		return p, err
	}
	p.since(info)
	p.root = openOut(out) // without it nothing is trusted by times
	p.intact = p.foldersUntouched(jobs)
	return p, nil
}

// Close removes the scratch files.
func (p *Last) Close() {
	if p != nil {
		p.skills.Close()
		p.files.Close()
		if p.root != nil {
			p.root.Close()
		}
	}
}

// Skill returns the record of the skill of that name, or nil.
func (p *Last) Skill(name string) *layout.RecordSkill {
	if p == nil {
		return nil
	}
	i, ok := slices.BinarySearch(p.names, name)
	if !ok {
		return nil
	}
	var c *layout.RecordSkill
	err := p.skills.Read(p.spots[i], func(data []byte) error {
		d := scratch.NewDecoder(data)
		c = d.RecordSkill()
		return d.End()
	})
	if err != nil || c.Name != name {
		return nil // packed afresh, which is always safe
	}
	return c
}

// EachSkill calls fn with every skill's record, in name order, until fn returns false.
func (p *Last) EachSkill(fn func(*layout.RecordSkill) bool) error {
	if p == nil {
		return nil
	}
	for _, name := range p.names {
		c := p.Skill(name)
		if c == nil {
			return fmt.Errorf("the scratch record of %s cannot be read", name)
		}
		if !fn(c) {
			return nil
		}
	}
	return nil
}

// EachFile calls fn with every file the record lists, sorted, until fn returns false.
func (p *Last) EachFile(fn func(path string) bool) error {
	if p == nil {
		return nil
	}
	return p.files.Scan(func(b []byte) bool { return fn(string(b)) })
}

// Describes reports whether the file at path is the very record p read,
// unchanged since: the same file, size and modification time.
func (p *Last) Describes(path string) bool {
	info, err := os.Lstat(path)
	return p != nil && err == nil && os.SameFile(info, p.record) && info.Size() == p.record.Size() && info.ModTime().Equal(p.record.ModTime())
}

// Skipped reports whether the previous build left out a skill of this name.
func (p *Last) Skipped(name string) bool {
	if p == nil {
		return false
	}
	_, ok := slices.BinarySearch(p.Head.Skipped, name)
	return ok
}

// Plugin returns the archives the previous build made of the plugin of
// this name, when they had the key and the output still holds their
// bytes; else nil.
func (p *Last) Plugin(name string, key layout.Digest) *layout.RecordPlugin {
	if p == nil {
		return nil
	}
	i := slices.IndexFunc(p.Head.Plugins, func(r layout.RecordPlugin) bool { return r.Name == name })
	if i < 0 || p.Head.Plugins[i].Key != key {
		return nil
	}
	r := &p.Head.Plugins[i]
	for _, a := range []struct {
		arc layout.Archive
		ext string
	}{{r.TarGz, layout.TarGz}, {r.Zip, layout.Zip}} {
		if !p.Holds(layout.PluginArchivePath(name, a.arc.Digest, a.ext), a.arc.Digest, a.arc.Size) {
			return nil
		}
	}
	return r
}

// Intact reports whether no folder of the bundle changed since the record
// was written (trusted by times): then no file came or went, and the
// folder holds exactly the files the record lists.
func (p *Last) Intact() bool { return p != nil && p.intact }

// Reusable reports whether a skill's recorded archives may be reused for
// a build whose archive key for it is key: the key is the recorded one,
// and its archives and served copies still hold their recorded bytes, so
// that a tampered or truncated file is packed again rather than served on.
func (p *Last) Reusable(c *layout.RecordSkill, key layout.Digest) bool {
	if p == nil || c == nil || c.Key != key {
		return false
	}
	for _, a := range c.Archives() {
		if !p.Holds(a.Path, a.Digest, a.Size) {
			return false
		}
	}
	for _, f := range c.Files {
		if !p.Holds(layout.SkillFile(c.Name, f.Path), f.Digest, f.Size) {
			return false
		}
	}
	return true
}

// Holds reports whether the file at the dist path still holds the bytes
// of the digest and size: trusted by times, or else verified by hash.
func (p *Last) Holds(distPath string, d layout.Digest, size int64) bool {
	return p.trusted(distPath, size) || Verified(p.disk(distPath), d, size)
}

// Verified reports whether the file at path hashes to the digest and has
// the size: the proof that needs no record.
func Verified(path string, d layout.Digest, size int64) bool {
	have, n, err := bundle.HashFile(path)
	return err == nil && have == d && (size < 0 || n == size)
}

func (p *Last) disk(distPath string) string {
	return filepath.Join(p.out, filepath.FromSlash(distPath))
}
