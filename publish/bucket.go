package publish

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"mime"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
)

// A Bucket is an object store under a prefix, keyed by dist path: what
// the store-generic half of a bucket target (PublishBucket, CheckBucket)
// asks of it. publish/s3 is one, over minio-go. Every error of an object
// that is not there wraps fs.ErrNotExist.
type Bucket interface {
	// String names the target (s3://bucket/prefix); String()+"/"+path
	// names an object in messages.
	String() string
	// List is every key under the prefix, as a dist path, with the size
	// and ETag a listing gives.
	List(ctx context.Context) (map[string]Stored, error)
	// Stat is what the store keeps of an object beside its bytes.
	Stat(ctx context.Context, path string) (Stored, error)
	// Open is an object's bytes and their size (bundle.Store's Open).
	Open(ctx context.Context, path string) (io.ReadCloser, int64, error)
	// Put stores body (o.Size bytes) at o.Path with o's headers, its
	// digest as the object's checksum where the store keeps one and in
	// its metadata (Stored.Digest), and returns its ETag.
	Put(ctx context.Context, o Object, body io.Reader) (etag string, err error)
	Delete(ctx context.Context, path string) error
}

// Stored is what a Bucket keeps of an object.
type Stored struct {
	Size         int64
	ETag         string        // without quotes
	Checksum     layout.Digest // the store's sha256 checksum; "" where it keeps none
	Digest       layout.Digest // the digest publish put in its metadata; "" for another tool's write
	ContentType  string
	CacheControl string // "" where the store keeps none (gofakes3)
	// Plain is a store that keeps nothing beside a file's bytes and mode
	// (a folder): Checksum is the bytes' digest, Exec the mode's execute
	// bit, and no Digest shows whose the file is.
	Plain bool
	Exec  bool
}

// ErrNoBucket is in the chain of the error of a target whose bucket the
// server does not have: the user's to fix, not the server's failure.
var ErrNoBucket = errors.New("no such bucket")

// BucketOptions say what PublishBucket does besides uploading.
type BucketOptions struct {
	DryRun bool // list and compare, report what would change, change nothing
	Prune  bool // delete what no kept release names (prune)
	Keep   int  // releases Prune keeps, the new one included; 0: DefaultKeep
	// Runner is a new Runner of the target's for each batch of requests;
	// its clock gives the release's time in the release list.
	Runner func() *Runner
}

// DefaultKeep is the releases Prune keeps unless told otherwise.
const DefaultKeep = 3

// bucketRun is one PublishBucket.
type bucketRun struct {
	b  *Upload
	bk Bucket
	o  BucketOptions

	existing map[string]Stored // every key under the prefix when the run began
	// inv is the inventory of the last complete run (nil: none, or
	// unreadable), and etags this run's, to write at its end.
	inv      map[string]entry
	etags    etags
	inMemory map[string][]byte // the run's own objects (release list, inventory) by path
	// sums are the digests the records read so far give each path: in a
	// Plain store, the bytes a release put there show that it is skillpack's.
	sums map[string]map[layout.Digest]bool
	// theirs are the objects another wrote with the bundle's bytes at
	// its paths (checkForeign), this run's and the inventory's: left as
	// they are, never taken for skillpack's by a later run or prune.
	theirs map[string]bool
	// stored is what checkForeign's Stat found of the objects in doubt,
	// which upload takes rather than ask again.
	stored map[string]Stored
}

// PublishBucket publishes the bundle b to bk: nothing when an object at
// one of the bundle's paths is another's (ForeignError); else the build
// record's copy under .skillpack/releases/, then the objects in the safe
// order, each sent unless the listing and the last run's inventory, or
// else its Stat, show it there; then the release list, the inventory, and
// with Prune what no kept release names. It returns the first error that
// retries did not overcome; a rerun completes the release.
func PublishBucket(ctx context.Context, b *Upload, bk Bucket, o BucketOptions) error {
	p := &bucketRun{b: b, bk: bk, o: o, inMemory: map[string][]byte{}, theirs: map[string]bool{}, stored: map[string]Stored{}}
	var err error
	if p.existing, err = Retried(ctx, o.Runner(), bk.List); err != nil {
		return fmt.Errorf("%s: %w", bk, err)
	}
	list, err := p.releases(ctx)
	if err != nil {
		return err
	}
	p.inventory(ctx)
	known := len(p.theirs)
	var live names
	if o.Prune {
		// Read before anything changes: the indexes readers hold now.
		if live, err = p.published(ctx); err != nil {
			return err
		}
	}
	if err := p.checkForeign(ctx); err != nil {
		return err
	}
	if err := p.checkVersioned(ctx, list); err != nil {
		return err
	}

	if !o.DryRun {
		if err := p.checkSent(); err != nil {
			return err
		}
		if len(p.theirs) > known {
			// Before anything is written: to a run after one stopped
			// part way, a file its record names is its own to replace.
			if err := p.saveInventory(ctx, slices.Collect(maps.Values(p.inv))); err != nil {
				return err
			}
		}
	}

	rec := b.Record()
	copyObj := rec
	copyObj.Path = RecordCopy(rec.Digest)
	copyObj.CacheControl = layout.Immutable // named by its digest
	// The record's copy first, on its own: whatever a run stopped part
	// way leaves is then named by a release record, which prune goes by.
	run := o.Runner()
	if err := run.Run(ctx, []Object{copyObj}, p.upload); err != nil {
		for _, obj := range b.Objects {
			if run.Report != nil {
				run.Report(Result{Object: obj, State: Skipped, Err: ctx.Err()})
			}
		}
		return err
	}
	if !o.DryRun {
		if err := p.checkKept(ctx, copyObj); err != nil {
			return err
		}
	}
	if err := o.Runner().Run(ctx, b.Objects, p.upload); err != nil {
		return err
	}

	// The release is complete: list it.
	max := maxReleases
	if o.Prune {
		max = cmp.Or(o.Keep, DefaultKeep)
	}
	this := release{Record: rec.Digest, Bundle: b.Key, Published: run.now().UTC().Truncate(time.Second)}
	if len(list) > 0 && list[0].Record == rec.Digest {
		this = list[0] // the newest release again: not even its time changes
	}
	newList := withRelease(list, this, max)
	if err := o.Runner().Run(ctx, []Object{p.own(ReleasesList, encodeReleases(newList))}, p.upload); err != nil {
		return err
	}
	if !o.DryRun {
		// The inventory last: the next run's shortcut, and its list of
		// theirs.
		if err := p.saveInventory(ctx, p.etags.entries(slices.Concat(b.Objects, []Object{copyObj}))); err != nil {
			return err
		}
	}
	if o.Prune {
		return p.prune(ctx, newList, live)
	}
	return nil
}

// UnversionedError refuses a bundle built without --versioned for a
// prefix whose last release published versions: it would stop listing the
// versions clients pin, as the build's guard says of such a build.
type UnversionedError struct{ Target string }

func (e *UnversionedError) Error() string {
	return fmt.Sprintf("%s publishes versions (its last release has %s); this bundle was built without --versioned and would stop publishing the versions clients pin: build with --versioned --previous and the URL or folder published last, then publish that", e.Target, layout.VersionsIndex)
}

// ExitClass is the command's exit code: 2, the user's to fix; nothing was sent.
func (*UnversionedError) ExitClass() int { return 2 }

// checkVersioned refuses a bundle without versions.json for a prefix
// that holds one, when its last release, as its record says, had it.
func (p *bucketRun) checkVersioned(ctx context.Context, list []release) error {
	if _, held := p.existing[layout.VersionsIndex]; !held || len(list) == 0 ||
		slices.ContainsFunc(p.b.Objects, func(o Object) bool { return o.Path == layout.VersionsIndex }) {
		return nil // a prefix that was never versioned costs no read of its record
	}
	named := names{}
	if p.recordNames(ctx, list[0].Record, named) != nil || !named[layout.VersionsIndex] {
		return nil // a record that cannot be read says nothing here; prune refuses it
	}
	return &UnversionedError{Target: p.bk.String()}
}

// checkSent hashes every file of the bundle the run may send against the
// build record, before the first write: a file changed since the build
// with its size would be found only as it is sent, after other new files
// replaced live ones, which a rerun could not mend.
func (p *bucketRun) checkSent() error {
	var maybe []Object
	for _, o := range p.b.Objects {
		if _, ok := p.inventoried(o); !ok {
			maybe = append(maybe, o)
		}
	}
	errs := make([]error, len(maybe))
	parallel.Each(len(maybe), 8, func(i int) error {
		o := maybe[i]
		name := filepath.Join(p.b.Dir, filepath.FromSlash(o.Path))
		d, n, err := bundle.HashFile(name)
		if err == nil && d != o.Digest {
			err = &StaleError{File: name, Err: &bundle.ChangedError{Artifact: layout.Artifact{Path: o.Path, Digest: o.Digest, Size: o.Size},
				By: "the build record", Got: d, Read: n}}
		}
		errs[i] = err
		return nil
	})
	return errors.Join(firstFew(errs, 5)...)
}

// own is an object of the run's own, in the record's stage, held in
// memory.
func (p *bucketRun) own(path string, data []byte) Object {
	p.inMemory[path] = data
	return Object{Path: path, Digest: layout.DigestOf(data), Size: int64(len(data)),
		ContentType: layout.ContentType(path), CacheControl: "no-cache", Stage: Record}
}

func (p *bucketRun) url(path string) string { return p.bk.String() + "/" + path }

// releases reads the release list, or nothing when there is none yet.
func (p *bucketRun) releases(ctx context.Context) ([]release, error) {
	if _, ok := p.existing[ReleasesList]; !ok {
		return nil, nil
	}
	data, err := p.get(ctx, ReleasesList, maxList)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.url(ReleasesList), err)
	}
	list, err := decodeReleases(data)
	if err != nil {
		return nil, Refused{Err: fmt.Errorf("%s: not a release list skillpack wrote (%v); remove it, and the next publish starts a new one", p.url(ReleasesList), err), Class: 1}
	}
	return list, nil
}

// inventory reads the last complete run's inventory into inv, and the
// paths it says are theirs and still hold something into theirs (one
// gone leaves the path free). None, or one that cannot be read, costs a
// Stat per object and the list of theirs.
func (p *bucketRun) inventory(ctx context.Context) {
	if _, ok := p.existing[InventoryPath]; !ok {
		return
	}
	data, err := p.get(ctx, InventoryPath, maxInventory)
	if err != nil {
		return
	}
	var theirs []string
	p.inv, theirs = decodeInventory(data)
	for _, path := range theirs {
		if _, ok := p.existing[path]; ok {
			p.theirs[path] = true
		}
	}
}

// saveInventory writes the inventory of entries and the paths that are
// theirs. Not reported: it says nothing about the bundle.
func (p *bucketRun) saveInventory(ctx context.Context, entries []entry) error {
	inv := inventory{Objects: entries, Theirs: slices.Collect(maps.Keys(p.theirs))}
	r := p.o.Runner()
	r.Report, r.Progress = nil, nil
	return r.Run(ctx, []Object{p.own(InventoryPath, inv.encode())}, p.upload)
}

// upload makes one object present: as it is when its stored digest, size
// and headers match, else sent.
func (p *bucketRun) upload(ctx context.Context, o Object) (State, error) {
	if p.theirs[o.Path] {
		p.etags.set(o.Path, p.existing[o.Path].ETag)
		return Present, nil
	}
	if etag, ok := p.inventoried(o); ok {
		p.etags.set(o.Path, etag)
		return Present, nil
	}
	if l, ok := p.existing[o.Path]; ok && l.Size == o.Size {
		st, err := p.stored[o.Path], error(nil)
		if _, asked := p.stored[o.Path]; !asked {
			st, err = p.bk.Stat(ctx, o.Path)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Failed, err
		}
		if err == nil && same(st, o) {
			p.etags.set(o.Path, st.ETag)
			return Present, nil
		}
	}
	if p.o.DryRun {
		return WouldUpload, nil
	}
	body, err := p.open(o)
	if err != nil {
		return Failed, err
	}
	defer body.Close()
	etag, err := p.bk.Put(ctx, o, bundle.Checked(body, layout.Artifact{Path: o.Path, Digest: o.Digest, Size: o.Size}, "the build record"))
	if ce := new(*bundle.ChangedError); errors.As(err, ce) {
		return Failed, &StaleError{File: filepath.Join(p.b.Dir, filepath.FromSlash(o.Path)), Err: *ce}
	}
	if err != nil {
		return Failed, err
	}
	p.etags.set(o.Path, etag)
	return Uploaded, nil
}

// inventoried reports whether the listing and the last run's inventory
// show o there already, and its ETag: no request, no read of o's file.
func (p *bucketRun) inventoried(o Object) (string, bool) {
	l, ok := p.existing[o.Path]
	if !ok || l.Size != o.Size {
		return "", false
	}
	e, ok := p.inv[o.Path]
	return l.ETag, ok && e.vouches(o, l.ETag)
}

// open is an object's bytes: the bundle's file, or the run's own.
func (p *bucketRun) open(o Object) (io.ReadCloser, error) {
	if data, ok := p.inMemory[o.Path]; ok {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	if strings.HasPrefix(o.Path, releasesDir) {
		o.Path = layout.BuildRecord
	}
	return p.b.Open(o)
}

// checkKept refuses a store that keeps an object's bytes but not what was
// sent with them (versitygw --nometa): a CDN in front of it serves every
// file as it pleases, every publish sends every object again, and prune
// can tell no object of skillpack's. o, the first object sent, shows it;
// one this run put there is deleted again.
func (p *bucketRun) checkKept(ctx context.Context, o Object) error {
	if _, ok := p.inventoried(o); ok {
		return nil // the last run's inventory vouches for what the store keeps
	}
	st, err := Retried(ctx, p.o.Runner(), func(ctx context.Context) (Stored, error) {
		return p.bk.Stat(ctx, o.Path)
	})
	if err != nil || same(st, o) {
		return err
	}
	if _, ok := p.existing[o.Path]; !ok {
		p.o.Runner().Call(ctx, func(ctx context.Context) error { return p.bk.Delete(ctx, o.Path) })
	}
	if st.Size != o.Size {
		return Refused{Err: fmt.Errorf("%s/%s: the server answers that it holds %d bytes there, where %d were sent: what answers for the storage (a proxy, a CDN) does not say what it holds; publish to the storage's own endpoint",
			p.bk, o.Path, st.Size, o.Size), Class: 1}
	}
	digest := "no digest of skillpack's"
	if d := cmp.Or(st.Checksum, st.Digest); d != "" {
		digest = "the digest " + string(d)
	}
	return Refused{Err: fmt.Errorf("%s/%s: the server did not keep what was sent with it: it answers Content-Type %q, Cache-Control %q and %s, where %q, %q and %s were sent. "+
		"Publish to storage that keeps objects' headers and metadata (a server in a mode that keeps bytes only, such as versitygw --nometa, does not)",
		p.bk, o.Path, st.ContentType, st.CacheControl, digest, o.ContentType, o.CacheControl, o.Digest), Class: 1}
}

// same reports whether a stored object is o: the same digest (its sha256
// checksum, else the metadata digest), size, headers and, in a Plain
// store, execute bit. A header the store keeps none of (a folder's
// Content-Type, gofakes3's Cache-Control) is no difference: sending the
// object again would not change it.
func same(st Stored, o Object) bool {
	return cmp.Or(st.Checksum, st.Digest) == o.Digest && st.Size == o.Size && (!st.Plain || st.Exec == o.Exec) &&
		(sameType(st.ContentType, o.ContentType) || st.ContentType == "") &&
		(st.CacheControl == o.CacheControl || st.CacheControl == "")
}

// sameType reports whether a stored Content-Type is the one sent, as a
// server may spell it back: another case, other spaces around the
// parameters.
func sameType(stored, sent string) bool {
	if stored == sent {
		return true
	}
	t1, p1, err1 := mime.ParseMediaType(stored)
	t2, p2, err2 := mime.ParseMediaType(sent)
	return err1 == nil && err2 == nil && t1 == t2 && maps.EqualFunc(p1, p2, strings.EqualFold)
}

// get reads a published object whole, up to limit bytes, with retries.
func (p *bucketRun) get(ctx context.Context, path string, limit int64) ([]byte, error) {
	return Retried(ctx, p.o.Runner(), func(ctx context.Context) ([]byte, error) {
		return readAll(ctx, p.bk, path, limit)
	})
}

// readAll reads an object whole, once, up to limit bytes.
func readAll(ctx context.Context, bk Bucket, path string, limit int64) ([]byte, error) {
	rc, _, err := bk.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("larger than %d bytes: not what skillpack wrote", limit)
	}
	return data, err
}

// CheckBucket checks, when bk has a release list, that its newest release
// is the build record bk holds: one that is not was changed since, or its
// publish did not finish. problem gets the path a problem is about.
func CheckBucket(ctx context.Context, bk Bucket, problem func(path, message string)) {
	data, err := readAll(ctx, bk, ReleasesList, maxList)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		problem(ReleasesList, fmt.Sprintf("cannot be read: %v", err))
		return
	}
	list, err := decodeReleases(data)
	switch {
	case err != nil:
		problem(ReleasesList, fmt.Sprintf("is not a release list skillpack wrote: %v", err))
		return
	case len(list) == 0:
		problem(ReleasesList, "names no release; publish again")
		return
	}
	newest := list[0]
	rec, err := readAll(ctx, bk, layout.BuildRecord, bundle.MaxDoc)
	switch got := layout.DigestOf(rec); {
	case errors.Is(err, fs.ErrNotExist):
		return // verify says that the record is missing
	case err != nil:
		problem(layout.BuildRecord, fmt.Sprintf("cannot be read: %v", err))
	case got != newest.Record:
		problem(ReleasesList, fmt.Sprintf("its newest release is the build record %s, but %s has the digest %s: the record was changed since, or its publish did not finish; publish again", newest.Record, layout.BuildRecord, got))
	}
	copyPath := RecordCopy(newest.Record)
	if _, err := bk.Stat(ctx, copyPath); errors.Is(err, fs.ErrNotExist) {
		problem(copyPath, fmt.Sprintf("is missing: %s names it as the newest release's build record; publish again", ReleasesList))
	}
}
