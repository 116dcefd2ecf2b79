package s3

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// prune deletes what the build records of releases no longer kept name,
// and nothing else: not what a kept release names (list is already cut
// to the kept ones, the new release first), not what the indexes
// published before this run named (live), and not an object that does
// not carry the digest skillpack stored with it. A path's shape proves
// nothing: a website's own llms.txt or a hand-made file under
// .well-known/agent-skills/ lives beside the bundle.
func (p *publisher) prune(ctx context.Context, list []release, live names) error {
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
			return fmt.Errorf("%s, the build record of release %s: %w; --prune must know what it names to keep it: publish without --prune, or remove the release from %s", p.url(recordCopy(r.Record)), r.Bundle.Short(), err, p.url(releasesList))
		}
	}

	// What may go is what the records of the releases no longer kept
	// name: every record copy the prefix holds, listed or not, since a
	// prune stopped after it rewrote the list, and a publish stopped
	// before it wrote the list, leave copies the list does not name.
	// A copy that cannot be read, or is not the bytes of its name, is not
	// known to be skillpack's: it and what it names are left alone. A
	// copy goes once nothing it names is left but what a kept release
	// names too: while the live indexes keep one of its files, it is
	// what will let a later prune delete that file.
	doomed := names{}
	var copies []publish.Object
	for _, path := range slices.Sorted(maps.Keys(p.existing)) {
		d, ok := recordOf(path)
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
			copies = append(copies, publish.Object{Path: path, Size: p.existing[path].size, Stage: publish.Record})
		}
	}
	var objects []publish.Object
	for _, path := range slices.Sorted(maps.Keys(doomed)) {
		objects = append(objects, publish.Object{Path: path, Size: p.existing[path].size, Stage: publish.StageOf(path)})
	}
	objects, err := p.written(ctx, objects)
	if err != nil {
		return p.explain("prune", err)
	}
	// The record copies go last, once what they name is gone: a prune
	// stopped before then finds them again, and with them what is left.
	for _, objects := range [][]publish.Object{objects, copies} {
		if err := p.runner().Run(ctx, objects, p.remove); err != nil {
			return p.explain("prune", err)
		}
	}
	return nil
}

// recordOf is the release whose record copy is at path.
func recordOf(path string) (layout.Digest, bool) {
	hex, ok := strings.CutPrefix(path, releasesDir)
	hex, json := strings.CutSuffix(hex, ".json")
	d := layout.Digest("sha256:" + hex)
	return d, ok && json && d.Valid()
}

// written keeps the objects that hold what skillpack stored there: the
// digest publish put in their metadata, and where the server keeps a
// checksum, the same one. Another tool's write over a path a release
// named (a site's own llms.txt after the bundle stopped writing one)
// keeps neither, and is not deleted. An object gone already is left out.
func (p *publisher) written(ctx context.Context, objects []publish.Object) ([]publish.Object, error) {
	var mu sync.Mutex
	ours := map[string]bool{}
	r := p.runner()
	r.Report, r.Progress = nil, nil // reads only; the deletes are reported
	err := r.Run(ctx, objects, func(ctx context.Context, o publish.Object) (publish.State, error) {
		info, err := p.c.StatObject(ctx, p.t.Bucket, p.t.Key(o.Path), minio.StatObjectOptions{Checksum: true})
		if notFound(err) {
			return publish.Present, nil
		}
		if err != nil {
			return publish.Failed, err
		}
		sum, meta := digests(info)
		if meta.Valid() && (sum == "" || sum == meta) {
			mu.Lock()
			ours[o.Path] = true
			mu.Unlock()
		}
		return publish.Present, nil
	})
	return slices.DeleteFunc(objects, func(o publish.Object) bool { return !ours[o.Path] }), err
}

// remove deletes one object.
func (p *publisher) remove(ctx context.Context, o publish.Object) (publish.State, error) {
	if p.o.DryRun {
		return publish.WouldDelete, nil
	}
	if err := p.c.RemoveObject(ctx, p.t.Bucket, p.t.Key(o.Path), minio.RemoveObjectOptions{}); err != nil {
		return publish.Failed, err
	}
	return publish.Deleted, nil
}
