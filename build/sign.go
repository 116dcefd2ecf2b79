package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
)

// The sign step signs every artifact layout.SignedPath names in the staging
// folder, before the swap, so a bundle is never served half signed; Sign
// runs it on a staged copy of a bundle already built.

// signStaged signs targets (with sign) and each of folders (with
// signFolder, unless nil), writes each signature beside what it signs, and
// returns the signatures' dist paths, sorted. Each file is read again from
// the staging folder and must have the digest the bundle records.
func (b *builder) signStaged(targets []layout.Artifact, folders iter.Seq2[layout.RecordSkill, error], sign Signer, signFolder StatementSigner) (sigs, folderSigs []string, err error) {
	for _, t := range targets {
		if err := b.interrupted(); err != nil {
			return nil, nil, err
		}
		data, err := os.ReadFile(b.st.path(t.Path))
		if err != nil {
			return nil, nil, err
		}
		if layout.DigestOf(data) != t.Digest {
			return nil, nil, &changedError{t.Path, layout.DigestOf(data), t.Digest}
		}
		sig, err := sign(data)
		if err != nil {
			return nil, nil, fmt.Errorf("signing %s: %w", t.Path, err)
		}
		p := layout.Signature(t.Path)
		if err := b.st.writeFile(b.st.path(p), sig); err != nil {
			return nil, nil, err
		}
		sigs = append(sigs, p)
	}
	for f, err := range folders {
		if signFolder == nil {
			break
		}
		if err == nil {
			err = b.interrupted()
		}
		if err != nil {
			return nil, nil, err
		}
		for _, file := range f.Files {
			if file.Path == layout.FolderSignatureFile {
				return nil, nil, &ownSignatureError{f.Name}
			}
			p := layout.SkillFile(f.Name, file.Path)
			got, _, err := bundle.HashFile(b.st.path(p))
			if err != nil {
				return nil, nil, err
			}
			if got != file.Digest {
				return nil, nil, &changedError{p, got, file.Digest}
			}
		}
		st, err := layout.StatementDoc(f.Name, f.Files)
		if err != nil {
			return nil, nil, err
		}
		sig, err := signFolder(st)
		if err != nil {
			return nil, nil, fmt.Errorf("signing the folder of skill %s: %w", f.Name, err)
		}
		p := layout.FolderSignature(f.Name)
		if err := b.st.writeFile(b.st.path(p), sig); err != nil {
			return nil, nil, err
		}
		folderSigs = append(folderSigs, p)
	}
	slices.Sort(sigs)
	slices.Sort(folderSigs)
	return sigs, folderSigs, nil
}

func (b *builder) logSigned(sigs, folderSigs []string) {
	line := fmt.Sprintf("• sign: %s, %s beside each", human.Plural(len(sigs), "artifact", "artifacts"), layout.SignatureSuffix)
	if len(folderSigs) > 0 {
		line += fmt.Sprintf("; %s, %s in each", human.Plural(len(folderSigs), "skill folder", "skill folders"), layout.FolderSignatureFile)
	}
	b.logf("%s", line)
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

// ownSignatureError is a skill that carries a skill.oms.sig of its own
// (its author's folder signature, say), where the build would write the
// bundle's.
type ownSignatureError struct{ skill string }

func (e *ownSignatureError) Error() string {
	return fmt.Sprintf("skill %s has a %s of its own, where --sign writes the folder signature: to sign the folder, leave it out (add /%s to the skill's .skillignore); to ship the author's signature as it is, build without --sign",
		e.skill, layout.FolderSignatureFile, layout.FolderSignatureFile)
}

// SignResult is what Sign signed.
type SignResult struct {
	Signatures []string `json:"signatures"` // dist paths of the signatures written, sorted
	// Folders are the dist paths of the folder signatures written
	// (skill.oms.sig), sorted.
	Folders []string `json:"folders,omitempty"`
}

// Sign signs the bundle a build wrote at out, as `build --sign` would
// have (signFolder may be nil): it stages a copy of the bundle of hard
// links, signs it with the build's sign step, lists the signatures in the
// copy's record and swaps it in, replacing older signatures. A file the
// record does not list, or an artifact that no longer has its recorded
// digest, stops the signing with nothing changed.
func Sign(out string, sign Signer, signFolder StatementSigner, log io.Writer) (*SignResult, error) {
	dist, err := bundle.OpenFolder(out)
	if err != nil {
		return nil, &OutputError{err}
	}
	data, err := bundle.ReadAll(context.Background(), dist, layout.BuildRecord, bundle.MaxDoc)
	dist.Close()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &OutputError{fmt.Errorf("%s is not a bundle skillpack built (no %s); build one with `skillpack build`", out, layout.BuildRecord)}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", out, err)
	}
	rec, err := layout.DecodeRecord(data)
	if err != nil {
		return nil, &OutputError{fmt.Errorf("%s: %w; rebuild the bundle", out, err)}
	}
	b := newBuilder(context.Background(), nil, Options{Out: out, Log: log})
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	unlock, err := lockOutput(abs, "sign")
	if err != nil {
		return nil, err
	}
	defer unlock()
	defer b.st.discard()
	b.sweep()
	if err := checkRecordedOnly(abs, out, rec); err != nil {
		return nil, &OutputError{err}
	}
	if err := b.st.make(abs, b.logf); err != nil {
		return nil, err
	}
	var targets []layout.Artifact
	for _, d := range rec.Docs {
		if layout.SignedPath(d.Path) {
			targets = append(targets, d)
		}
	}
	own := map[string]bool{}
	for _, s := range rec.Skills {
		for _, f := range s.Files {
			own[layout.SkillFile(s.Name, f.Path)] = true
		}
		for _, a := range s.Archives() {
			if layout.SignedPath(a.Path) {
				targets = append(targets, a)
			}
		}
	}
	// The copy: every recorded file but the signatures, which are made
	// anew. A skill's own file named like a folder signature is its file.
	var files []string
	for _, f := range rec.Files {
		if f == layout.BuildRecord || layout.IsSignature(f) && !own[f] || strings.HasSuffix(f, layout.SignatureSuffix) {
			continue
		}
		if err := b.st.link(filepath.Join(abs, filepath.FromSlash(f)), b.st.path(f)); err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	slices.SortFunc(targets, func(a, b layout.Artifact) int { return strings.Compare(a.Path, b.Path) })
	folders := func(yield func(layout.RecordSkill, error) bool) {
		for _, s := range rec.Skills {
			if !yield(s, nil) {
				return
			}
		}
	}
	sigs, folderSigs, err := b.signStaged(targets, folders, sign, signFolder)
	if errors.As(err, new(*changedError)) || errors.As(err, new(*ownSignatureError)) {
		return nil, &OutputError{err}
	}
	if err != nil {
		return nil, err
	}
	rec.Files = append(append(append(files, sigs...), folderSigs...), layout.BuildRecord)
	slices.Sort(rec.Files)
	written := time.Now()
	if _, err := b.st.writeDoc(b.st.path(layout.BuildRecord), 0o644, rec.Encode); err != nil {
		return nil, err
	}
	if err := reuse.StampAfter(b.st.path(layout.BuildRecord), written); err != nil {
		return nil, err
	}
	if err := b.st.swap(nil); err != nil {
		return nil, err
	}
	b.logSigned(sigs, folderSigs)
	return &SignResult{Signatures: sigs, Folders: folderSigs}, nil
}

// checkRecordedOnly refuses a bundle that holds a file its record does not
// list: signing vouches for the folder.
func checkRecordedOnly(abs, out string, rec *layout.Record) error {
	listed := make(map[string]bool, len(rec.Files))
	for _, f := range rec.Files {
		listed[f] = true
	}
	foreign, err := foreignFiles(abs, listed)
	if err != nil {
		return err
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%s holds files skillpack did not write (%s); rebuild the bundle, then sign it", out, human.Few(foreign, 3))
	}
	return nil
}

// sign runs the sign step (see signStaged) on the staged bundle.
func (b *builder) sign(s *staged) (string, error) {
	switch {
	case b.res.UpToDate:
		return "the bundle is up to date", nil
	case b.opts.DryRun:
		return "dry run", nil
	case !b.signs():
		if n := s.out.last.Signed(); n > 0 {
			b.logf("• sign: this bundle changed and is not signed, so the last one's signatures (%d) are not carried into it: sign it again (skillpack sign %s, or build --sign)",
				n, b.opts.Out)
		}
		return "not asked to (--sign)", nil
	}
	var targets []layout.Artifact
	for e, err := range s.plan.Entries() {
		if b.opts.Sign == nil {
			break // the folders alone
		}
		if err != nil {
			return "", err
		}
		if layout.SignedPath(e.Path) {
			targets = append(targets, layout.Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
		}
	}
	sigs, folderSigs, err := b.signStaged(targets, s.records(), b.opts.Sign, b.opts.SignFolder)
	if err == nil {
		b.logSigned(sigs, folderSigs)
	}
	return "", err
}

func (b *builder) signs() bool { return b.opts.Sign != nil || b.opts.SignFolder != nil }
