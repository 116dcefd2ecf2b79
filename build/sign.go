package build

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/layout"
)

// The sign step signs every artifact layout.SignedPath names, in the staging
// folder, before the swap: a bundle is never served half signed. `build
// --sign` runs it on the bundle it has just staged; `skillpack sign DIST`
// (Sign) runs the same step on a staged copy of a bundle already built,
// so that a kill at any moment leaves DIST as it was or wholly signed.

// signStep signs targets, each a file of the staging folder at dir with
// the digest the bundle records for it, and writes each signature beside
// its artifact. It returns the signatures' dist paths, sorted.
func signStep(dir string, targets []layout.Artifact, sign Signer, write func(path string, data []byte) error, stop func() error) ([]string, error) {
	var sigs []string
	for _, t := range targets {
		if err := stop(); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(t.Path)))
		if err != nil {
			return nil, err
		}
		if layout.DigestOf(data) != t.Digest {
			return nil, &changedError{t.Path, layout.DigestOf(data), t.Digest}
		}
		sig, err := sign(data)
		if err != nil {
			return nil, fmt.Errorf("signing %s: %w", t.Path, err)
		}
		p := layout.Signature(t.Path)
		if err := write(filepath.Join(dir, filepath.FromSlash(p)), sig); err != nil {
			return nil, err
		}
		sigs = append(sigs, p)
	}
	slices.Sort(sigs)
	return sigs, nil
}

// changedError is an artifact whose bytes are not those the bundle
// records: signing it would vouch for bytes no index describes.
type changedError struct {
	path      string
	got, want layout.Digest
}

func (e *changedError) Error() string {
	return fmt.Sprintf("%s: its digest is %s but the bundle records %s; rebuild the bundle before signing", e.path, e.got, e.want)
}

// signTargets lists what the sign step signs in a bundle whose record is
// rec: the documents and archives layout.SignedPath names, sorted by path.
func signTargets(rec *layout.Record) []layout.Artifact {
	var ts []layout.Artifact
	for _, d := range rec.Docs {
		if layout.SignedPath(d.Path) {
			ts = append(ts, d)
		}
	}
	for _, s := range rec.Skills {
		for _, a := range []struct {
			ar  layout.Archive
			ext string
		}{{s.TarGz, layout.TarGz}, {s.Zip, layout.Zip}} {
			if p := layout.ArchivePath(s.Name, a.ar.Digest, a.ext); layout.SignedPath(p) {
				ts = append(ts, layout.Artifact{Path: p, Digest: a.ar.Digest, Size: a.ar.Size})
			}
		}
	}
	slices.SortFunc(ts, func(a, b layout.Artifact) int { return strings.Compare(a.Path, b.Path) })
	return ts
}

// SignResult is what Sign signed.
type SignResult struct {
	Signatures []string `json:"signatures"` // dist paths of the signatures written, sorted
}

// Sign signs the bundle a build wrote at dist, as `build --sign` would
// have: it stages a copy of the bundle (hard links, so no bytes are
// copied), signs the copy with the build's sign step, lists the
// signatures in the copy's build record and swaps the copy in. Signatures
// a previous signing left are replaced. The bundle is read through its
// build record only: a file the record does not list, or an artifact that
// no longer has its recorded digest, stops the signing with nothing changed.
func Sign(dist string, sign Signer, log io.Writer) (*SignResult, error) {
	recPath := filepath.Join(dist, filepath.FromSlash(layout.BuildRecord))
	data, err := os.ReadFile(recPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &OutputError{fmt.Errorf("%s is not a bundle skillpack built (no %s); build one with `skillpack build`", dist, layout.BuildRecord)}
	}
	if err != nil {
		return nil, err
	}
	rec, err := layout.DecodeRecord(data)
	if err != nil {
		return nil, &OutputError{fmt.Errorf("%s: %w; rebuild the bundle", dist, err)}
	}
	b := &builder{opts: Options{Out: dist, Log: log}, res: &Result{}}
	defer b.cleanup()
	if b.out, err = filepath.Abs(dist); err != nil {
		return nil, err
	}
	b.sweep()
	if err := b.checkRecordedOnly(rec); err != nil {
		return nil, &OutputError{err}
	}
	if _, err := b.st.make(b.out, b.logf); err != nil {
		return nil, err
	}
	// The copy: every recorded file but the signatures, which are made anew.
	var files []string
	for _, f := range rec.Files {
		if f == layout.BuildRecord || strings.HasSuffix(f, layout.SignatureSuffix) {
			continue
		}
		if err := b.st.link(filepath.Join(b.out, filepath.FromSlash(f)), b.st.path(f)); err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	sigs, err := signStep(b.st.dir, signTargets(rec), sign, b.st.writeFile, b.interrupted)
	var changed *changedError
	if errors.As(err, &changed) {
		return nil, &OutputError{err}
	}
	if err != nil {
		return nil, err
	}
	rec.Files = append(append(files, sigs...), layout.BuildRecord)
	slices.Sort(rec.Files)
	var buf bytes.Buffer
	if err := rec.Encode(&buf); err != nil {
		return nil, err
	}
	written := time.Now()
	if err := b.st.writeFile(b.st.path(layout.BuildRecord), buf.Bytes()); err != nil {
		return nil, err
	}
	if err := reuse.StampAfter(b.st.path(layout.BuildRecord), written); err != nil {
		return nil, err
	}
	if err := b.st.swap(nil); err != nil {
		return nil, err
	}
	b.logf("• sign: %s, %s beside each", plural(len(sigs), "artifact", "artifacts"), layout.SignatureSuffix)
	return &SignResult{Signatures: sigs}, nil
}

// checkRecordedOnly refuses a bundle that holds a file its record does not
// list: signing vouches for the folder, and a file skillpack did not write
// is nothing to vouch for, nor to carry into the signed copy.
func (b *builder) checkRecordedOnly(rec *layout.Record) error {
	listed := make(map[string]bool, len(rec.Files))
	for _, f := range rec.Files {
		listed[f] = true
	}
	foreign, err := foreignFiles(b.out, listed)
	if err != nil {
		return err
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%s holds files skillpack did not write (%s); rebuild the bundle, then sign it", b.opts.Out, firstFew(foreign))
	}
	return nil
}

// sign runs the sign step (see signStep) on the staged bundle.
func (b *builder) sign() (string, error) {
	switch {
	case b.res.UpToDate:
		return "the bundle is up to date", nil
	case b.opts.DryRun:
		return "dry run", nil
	case b.opts.Sign == nil:
		return "not asked to (--sign)", nil
	}
	var targets []layout.Artifact
	for e, err := range b.bundle.Entries() {
		if err != nil {
			return "", err
		}
		if layout.Signed(e) {
			targets = append(targets, layout.Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
		}
	}
	sigs, err := signStep(b.st.dir, targets, b.opts.Sign, b.st.writeFile, b.interrupted)
	if err != nil {
		return "", err
	}
	b.logf("• sign: %s, %s beside each", plural(len(sigs), "artifact", "artifacts"), layout.SignatureSuffix)
	return "", nil
}
