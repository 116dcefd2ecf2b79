package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillpack/skillpack/layout"
)

// MaxDoc is the largest document read back whole: layout.MaxDocument,
// which the build refuses to write past. Anything larger is not a
// document skillpack wrote.
const MaxDoc = layout.MaxDocument

// Opened is a built bundle as a Source holds it: its checksums.txt, read
// once, and the documents it vouches for (the v0.2 index, versions.json),
// decoded from the very bytes that were checked against it.
type Opened struct {
	layout.Published
	src Source
	max int64 // the largest document read
}

// NoBundleError is Open's error where src has no checksums.txt: no bundle
// skillpack built is there, or not yet, or not all of it.
type NoBundleError struct{ Err error }

func (e *NoBundleError) Error() string {
	return fmt.Sprintf("%v; every bundle skillpack builds has %s, so this is not one (or it is not all published)", e.Err, layout.Checksums)
}

func (e *NoBundleError) Unwrap() error { return e.Err }

// Open reads the bundle src holds, reading no document of more than max
// bytes. checksums.txt anchors it: the v0.2 index and versions.json must
// have the digests it gives, or the bundle changed after its build (or is
// half published). Without checksums.txt, or with an index that is not
// discovery v0.2.0, it is not one skillpack built; each error says which
// file and what to do.
func Open(ctx context.Context, src Source, max int64) (*Opened, error) {
	data, err := ReadAll(ctx, src, layout.Checksums, max)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NoBundleError{err}
	}
	if err != nil {
		return nil, err
	}
	list, err := layout.ParseChecksums(data)
	if err != nil {
		return nil, fmt.Errorf("not a bundle skillpack built: %w", err)
	}
	b := &Opened{Published: layout.Published{Sums: map[string]layout.Digest{}}, src: src, max: max}
	for _, s := range list {
		b.Sums[s.Path] = s.Digest
	}
	if data, err = b.Doc(ctx, layout.V2Index); err != nil {
		return nil, err
	}
	if b.Index, err = layout.DecodeIndexV2(data); err != nil {
		return nil, err
	}
	if b.Index.Schema != layout.Schema {
		return nil, fmt.Errorf("%s: \"$schema\" is %q, not discovery %q: a bundle of another format", layout.V2Index, b.Index.Schema, layout.Schema)
	}
	if _, ok := b.Sums[layout.VersionsIndex]; !ok {
		return b, nil
	}
	if data, err = b.Doc(ctx, layout.VersionsIndex); err != nil {
		return nil, err
	}
	if b.Versions, err = layout.DecodeVersions(data); err != nil {
		return nil, err
	}
	if err := errors.Join(b.Versions.Check()...); err != nil {
		return nil, fmt.Errorf("%s: %w", layout.VersionsIndex, err)
	}
	for _, r := range b.Versions.Releases {
		if b.Sums[layout.Snapshot(r.Version)] != r.Digest {
			return nil, fmt.Errorf("%s gives release %s the digest %s, and %s gives %s; publish the whole bundle again", layout.VersionsIndex, r.Version, r.Digest, layout.Checksums, b.Sums[layout.Snapshot(r.Version)])
		}
	}
	return b, nil
}

// Doc reads a document that checksums.txt lists, refusing bytes other
// than those it vouches for.
func (b *Opened) Doc(ctx context.Context, p string) ([]byte, error) {
	want, ok := b.Sums[p]
	if !ok {
		return nil, fmt.Errorf("%s does not list %s; a bundle skillpack built lists it", layout.Checksums, p)
	}
	data, err := ReadDoc(ctx, b.src, p, want, layout.Checksums, b.max)
	var changed *ChangedError
	if errors.As(err, &changed) {
		return nil, fmt.Errorf("%w: it was changed after the build (tampered with, or only half published); publish the whole bundle again", err)
	}
	return data, err
}

// ReadDoc reads the document at p whole, up to max bytes, and refuses
// (with a *ChangedError) bytes other than those of want, which by gives it.
func ReadDoc(ctx context.Context, src Source, p string, want layout.Digest, by string, max int64) ([]byte, error) {
	data, err := ReadAll(ctx, src, p, max)
	if err != nil {
		return nil, err
	}
	// The size is the one read: the digest alone vouches for a document.
	if err := Check(bytes.NewReader(data), layout.Artifact{Path: p, Digest: want, Size: int64(len(data))}, by); err != nil {
		return nil, err
	}
	return data, nil
}

// Source is where the bundle is read from.
func (b *Opened) Source() Source { return b.src }
