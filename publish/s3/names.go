package s3

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// maxDoc is the largest published document read back (bundle.MaxDoc).
const maxDoc = bundle.MaxDoc

// names is a set of bundle paths.
type names map[string]bool

// add puts p in the set with its signature, which goes wherever p goes.
func (n names) add(p string) {
	n[p] = true
	if layout.SignedPath(p) {
		n[layout.Signature(p)] = true
	}
}

// maxList is the largest release list read: maxReleases short entries.
const maxList = 1 << 20

// get reads a published object whole, up to limit bytes, with retries.
func (p *publisher) get(ctx context.Context, path string, limit int) (data []byte, err error) {
	err = p.runner().Call(ctx, func(ctx context.Context) error {
		data, err = p.getOnce(ctx, path, limit)
		return err
	})
	return data, err
}

func (p *publisher) getOnce(ctx context.Context, path string, limit int) ([]byte, error) {
	obj, err := p.c.GetObject(ctx, p.t.Bucket, p.t.Key(path), minio.GetObjectOptions{})
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	data, err := io.ReadAll(io.LimitReader(obj, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("larger than %d bytes: not what skillpack wrote", limit)
	}
	return data, nil
}

// published is what the documents at the target name, as this run
// found them before it changed anything: every path a reader holding
// one of them may still fetch. Each document is read with layout's
// decoder; one that cannot be read stops the run, since what it names
// cannot be kept.
func (p *publisher) published(ctx context.Context) (names, error) {
	n := names{}
	for _, doc := range layout.Naming {
		if _, ok := p.existing[doc]; !ok {
			continue
		}
		data, err := p.get(ctx, doc, maxDoc)
		var named []string
		if err == nil {
			named, err = layout.Names(doc, data)
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
// once the copy has been read whole and holds the bytes of its name: the
// record skillpack stored, and not another's file at its path.
func (p *publisher) recordNames(ctx context.Context, d layout.Digest, n names) error {
	// Held whole: a record of 10,000 skills is tens of megabytes, read
	// once per release, and a retry must start from its beginning.
	data, err := p.get(ctx, recordCopy(d), maxDoc)
	if err != nil {
		return err
	}
	if got := layout.DigestOf(data); got != d {
		return fmt.Errorf("its bytes are %s, not the record its name says", got)
	}
	var files []string
	if _, err := layout.ReadRecord(bytes.NewReader(data), func(layout.RecordSkill) error { return nil },
		func(f string) error { files = append(files, f); return nil }); err != nil {
		return err
	}
	for _, f := range files {
		n[f] = true
	}
	return nil
}
