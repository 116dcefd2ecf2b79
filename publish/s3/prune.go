package s3

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// prune deletes what no kept release names (list is already cut to the
// kept ones, the new release first) and the indexes published before
// this run did not name (live). Only skillpack's objects are candidates.
func (p *publisher) prune(ctx context.Context, list []release, live names) error {
	keep := names{releasesList: true, inventoryPath: true}
	for path := range live {
		keep[path] = true
	}
	for _, o := range p.b.Objects {
		keep[o.Path] = true
	}
	current := p.b.Record().Digest
	for _, r := range list {
		keep[recordCopy(r.Record)] = true
		if r.Record == current {
			continue // its files are the bundle's, above
		}
		if err := p.recordNames(ctx, r, keep); err != nil {
			return err
		}
	}
	var doomed []publish.Object
	for _, path := range slices.Sorted(maps.Keys(p.existing)) {
		if !keep[path] && ours(path) {
			doomed = append(doomed, publish.Object{Path: path, Size: p.existing[path].size, Stage: publish.StageOf(path)})
		}
	}
	if err := p.runner().Run(ctx, doomed, p.remove); err != nil {
		return p.explain("prune", err)
	}
	return nil
}

// ours reports whether a path under the prefix is one skillpack writes:
// a bundle path, a signature, or a release's record. Pruning touches
// nothing else.
func ours(path string) bool {
	if _, ok := layout.ParsePath(path); ok {
		return true
	}
	if _, ok := layout.SignedArtifact(path); ok {
		return true
	}
	hex, ok := strings.CutPrefix(path, releasesDir)
	hex, json := strings.CutSuffix(hex, ".json")
	return ok && json && layout.Digest("sha256:"+hex).Valid()
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
