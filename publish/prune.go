package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// prune deletes what the build records of releases no longer kept name,
// and nothing else: not what a kept release names (list holds the kept
// ones), not what the indexes published before this run named (live),
// not what the inventory says is theirs, and not an object without the
// digest skillpack stored with it. A path's
// shape proves nothing: a site's own llms.txt lives beside the bundle.
func (p *bucketRun) prune(ctx context.Context, list []release, live names) error {
	keep := names{}
	for _, o := range p.b.Objects {
		keep[o.Path] = true
	}
	current := p.b.Record().Digest
	kept := map[layout.Digest]bool{}
	for _, r := range list {
		kept[r.Record] = true
		if r.Record == current {
			continue // its files are the bundle's, above
		}
		if err := p.recordNames(ctx, r.Record, keep); err != nil {
			return fmt.Errorf("%s, the build record of release %s: %w; --prune must know what it names to keep it: publish without --prune, or remove the release from %s", p.url(RecordCopy(r.Record)), r.Bundle.Short(), err, p.url(ReleasesList))
		}
	}

	// What may go is what the record copies of releases no longer kept
	// name: every copy the prefix holds, listed or not (a stopped run
	// leaves copies the list does not name). A copy that cannot be read,
	// or is not the bytes of its name, is not known to be skillpack's: it
	// and what it names are left alone. A copy goes once nothing it names
	// is left but what a kept release names: while the live indexes keep
	// one of its files, it lets a later prune delete that file.
	doomed := names{}
	var copies []Object
	for _, path := range slices.Sorted(maps.Keys(p.existing)) {
		d, ok := RecordOf(path)
		named := names{}
		if !ok || kept[d] || p.recordNames(ctx, d, named) != nil {
			continue
		}
		done := true
		for f := range named {
			if _, ok := p.existing[f]; !ok || keep[f] {
				continue
			}
			if live[f] {
				done = false
			} else {
				doomed[f] = true
			}
		}
		if done {
			copies = append(copies, Object{Path: path, Size: p.existing[path].Size, Stage: Record})
		}
	}
	var objects []Object
	for _, path := range slices.Sorted(maps.Keys(doomed)) {
		objects = append(objects, Object{Path: path, Size: p.existing[path].Size, Stage: StageOf(path)})
	}
	objects, err := p.written(ctx, objects)
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	// The record copies go last, once what they name is gone: a prune
	// stopped before then finds them again, and with them what is left.
	for _, objects := range [][]Object{objects, copies} {
		if err := p.o.Runner().Run(ctx, objects, p.remove); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
	}
	return nil
}

// RecordOf is the release whose record copy is at path.
func RecordOf(path string) (layout.Digest, bool) {
	hex, ok := strings.CutPrefix(path, releasesDir)
	hex, json := strings.CutSuffix(hex, ".json")
	d := layout.Digest("sha256:" + hex)
	return d, ok && json && d.Valid()
}

// written keeps the objects that hold what skillpack stored there: the
// digest publish put in their metadata, one a record gave the path, and
// where the server keeps a checksum, the same one; another tool's write
// over a path a release named keeps neither, a copy of another object
// of skillpack's keeps a digest no record gave it. In a Plain store (a
// folder), a file is skillpack's if its bytes are those a record read
// gives its path, and a signature if the file it signs is, or is gone (a
// prune stopped between the two). An object gone already is left out.
func (p *bucketRun) written(ctx context.Context, objects []Object) ([]Object, error) {
	var mu sync.Mutex
	plain := map[string]bool{}
	ours, err := p.sift(ctx, objects, func(ctx context.Context, o Object) (bool, error) {
		if p.theirs[o.Path] {
			return false, nil
		}
		st, err := p.bk.Stat(ctx, o.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if st.Plain {
			mu.Lock()
			plain[o.Path] = true
			mu.Unlock()
			return p.sums[o.Path][st.Checksum], nil
		}
		// Where a record gave the path its digests, the one stored must be
		// among them: another of skillpack's objects copied over it (aws
		// s3 cp keeps the metadata) holds a digest of its own.
		recorded := p.sums[o.Path] == nil || p.sums[o.Path][st.Digest]
		return st.Digest.Valid() && recorded && (st.Checksum == "" || st.Checksum == st.Digest), nil
	})
	for path := range plain {
		if signed, ok := signedBy(path); ok && !ours[path] {
			_, there := p.existing[signed]
			ours[path] = ours[signed] || !there
		}
	}
	return slices.DeleteFunc(objects, func(o Object) bool { return !ours[o.Path] }), err
}

// signedBy is the file the signature at path signs: an artifact beside
// its .sigstore.json, or a skill's SKILL.md beside skill.oms.sig, which
// signs the skill's folder.
func signedBy(p string) (string, bool) {
	if signed, ok := strings.CutSuffix(p, layout.SignatureSuffix); ok {
		return signed, true
	}
	if path.Base(p) == layout.FolderSignatureFile {
		return path.Join(path.Dir(p), layout.EntryFile), true
	}
	return "", false
}

// remove deletes one object.
func (p *bucketRun) remove(ctx context.Context, o Object) (State, error) {
	if p.o.DryRun {
		return WouldDelete, nil
	}
	if err := p.bk.Delete(ctx, o.Path); err != nil {
		return Failed, err
	}
	return Deleted, nil
}

// names is a set of dist paths.
type names map[string]bool

// add puts p in the set with its signature, which goes wherever p goes.
func (n names) add(p string) {
	n[p] = true
	if layout.SignedPath(p) {
		n[layout.Signature(p)] = true
	}
}

// published is what the documents at the target name before the run
// changes anything: every path a reader holding one may still fetch. A
// document that cannot be read stops the run: what it names cannot be
// kept.
func (p *bucketRun) published(ctx context.Context) (names, error) {
	n := names{}
	for _, doc := range layout.Naming {
		if _, ok := p.existing[doc]; !ok {
			continue
		}
		data, err := p.get(ctx, doc, bundle.MaxDoc)
		var named []string
		if err == nil {
			if named, err = layout.Names(doc, data); err != nil {
				err = Refused{Err: err, Class: 1} // what is there, not how it was reached
			}
		}
		for _, f := range named {
			n.add(f)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: the published document cannot be read (%w); --prune must know what it names to keep it: publish without --prune, or remove the document", p.url(doc), err)
		}
	}
	return n, nil
}

// recordNames adds every file the record copy of release d lists to n,
// once the copy has been read whole and holds the bytes of its name; with
// d "", the published record (layout.BuildRecord), which has none.
func (p *bucketRun) recordNames(ctx context.Context, d layout.Digest, n names) error {
	path := layout.BuildRecord
	if d != "" {
		path = RecordCopy(d)
	}
	// Held whole: a record of 10,000 skills is tens of megabytes, read
	// once per release, and a retry must start from its beginning.
	data, err := p.get(ctx, path, bundle.MaxDoc)
	if err != nil {
		return err
	}
	if got := layout.DigestOf(data); d != "" && got != d {
		return fmt.Errorf("its bytes are %s, not the record its name says", got)
	}
	sum := func(a layout.Artifact) {
		if p.sums == nil {
			p.sums = map[string]map[layout.Digest]bool{}
		}
		if p.sums[a.Path] == nil {
			p.sums[a.Path] = map[layout.Digest]bool{}
		}
		p.sums[a.Path][a.Digest] = true
	}
	h, err := layout.ReadRecord(bytes.NewReader(data), func(s layout.RecordSkill) error {
		for _, a := range s.Artifacts() {
			sum(a)
		}
		return nil
	}, func(f string) error { n[f] = true; return nil })
	for _, a := range h.Docs {
		sum(a)
	}
	return err
}
