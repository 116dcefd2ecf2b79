package build

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// A versioned build (Options.Versioned) gives every skill that has a
// version a folder of its own, <name>/<version>/, which never changes once
// published, and keeps every such folder the previous bundle had, or every
// client pinned to them breaks. The guard has checked that no version was
// published with other content; layout plans the folders, and the
// versions step stages them.

// versioning is what index passes to layout.Plan for a versioned build. A
// snapshot the previous bundle published (Carried) is written by copying
// its bytes, which bundle.Open checked against checksums.txt.
func (b *builder) versioning(pl *planned) *layout.Versioning {
	if !b.opts.Versioned {
		return nil
	}
	v := &layout.Versioning{Release: b.opts.Release, Carried: func(p string, _ layout.Rendered) func(io.Writer) error {
		return func(w io.Writer) error {
			data, err := pl.prev.Doc(b.ctx, p)
			if err != nil {
				return &PreviousError{From: pl.prev.Source().String(), Err: err}
			}
			_, err = w.Write(data)
			return err
		}
	}}
	if pl.prev != nil {
		v.Published = pl.prev.Versions
	}
	return v
}

// versions stages the files of every version's folder: a version new in
// this build is linked from the skill's files and archives; one published
// before is carried from the previous bundle (linked from the output
// folder when it is there, else copied from --previous), checked against
// the digest versions.json gives: one that does not match stops the build.
func (b *builder) versions(pl *planned) (string, error) {
	switch {
	case !b.opts.Versioned:
		return "not --versioned", nil
	case b.res.UpToDate:
		return "the bundle is up to date", nil
	case b.opts.DryRun:
		return "dry run", nil
	}
	// The version each skill of this build has, when that version is new:
	// its folder comes from this build's files.
	fresh := map[string]string{}
	versioned := 0
	for _, w := range pl.named {
		sum, err := pl.summary(w)
		if err != nil {
			return "", err
		}
		if v := sum.version; v != "" {
			versioned++
			if pl.prev == nil || pl.prev.Versions.Find(w.name, v) == nil {
				fresh[w.name] = v
			}
		}
	}
	if versioned == 0 {
		b.logf("  warning: no skill has a SemVer version (metadata.version), so none has a folder of its own and a release's snapshot lists none")
	}
	var es []layout.Entry
	for e, err := range pl.plan.Entries() {
		if err != nil {
			return "", err
		}
		if e.Kind != layout.KindVersion {
			continue
		}
		es = append(es, e)
		// A skill only its versions keep was not settled by pack: the
		// spare's copy goes now, or write's clearRest would take these files.
		if pl.byName(e.Skill) == nil {
			if err := b.st.held.settle(e.Skill, nil); err != nil {
				return "", err
			}
		}
	}
	var carried atomic.Int64
	err := parallel.Each(len(es), stagers, func(i int) error {
		if err := b.interrupted(); err != nil {
			return err
		}
		e := es[i]
		if fresh[e.Skill] == e.Version {
			return b.st.link(b.ownCopy(pl, e), b.st.path(e.Path))
		}
		carried.Add(1)
		return b.carry(pl, e)
	})
	if err != nil {
		return "", err
	}
	from := ""
	if n := carried.Load(); n > 0 {
		from = fmt.Sprintf(", %d carried from %s", n, pl.prev.Source())
	}
	b.logf("• versions: %s of published versions%s", human.Plural(len(es), "file", "files"), from)
	return "", nil
}

// ownCopy is where this build has the bytes of an archive or a file of a
// skill (or of a version it makes): the skill's served copy or archive,
// staged by pack, or in the output folder for a skill reused from it.
func (b *builder) ownCopy(pl *planned, e layout.Entry) string {
	p := layout.SkillFile(e.Skill, e.File)
	if e.Format != "" {
		p = layout.ArchivePath(e.Skill, e.Digest, e.Format)
	}
	if pl.byName(e.Skill).reused {
		return filepath.Join(pl.out.dir, filepath.FromSlash(p))
	}
	return b.st.path(p)
}

// carry stages a file of a version the previous bundle published, with
// the digest and size its versions.json gives.
func (b *builder) carry(pl *planned, e layout.Entry) error {
	dst := b.st.path(e.Path)
	if pl.prev == nil {
		return fmt.Errorf("%s: no previous bundle to carry it from", e.Path)
	}
	src := pl.prev.Source()
	fail := func(err error) error { return &PreviousError{From: src.String(), Err: err} }
	if pl.prev.folder != nil {
		file := filepath.Join(pl.out.dir, filepath.FromSlash(e.Path))
		if !pl.out.last.Holds(e.Path, e.Digest, e.Size) {
			got, n, err := bundle.HashFile(file)
			if err != nil {
				return fail(fmt.Errorf("%s: %w; %s lists it", e.Path, err, layout.VersionsIndex))
			}
			return fail(tamperedErr(&bundle.ChangedError{Artifact: layout.Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size}, Got: got, Read: n}))
		}
		return b.st.link(file, dst)
	}
	rc, _, err := bundle.OpenMax(b.ctx, src, e.Path, pack.MaxFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail(fmt.Errorf("%s is missing, though %s lists it: the bundle is not all there", e.Path, layout.VersionsIndex))
		}
		return fail(fmt.Errorf("%s: %w", e.Path, err))
	}
	defer rc.Close()
	f, err := b.st.create(dst, pack.Perm(e.Exec))
	if err != nil {
		return err
	}
	_, err = io.Copy(f, bundle.Checked(rc, layout.Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size}, layout.VersionsIndex))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	var changed *bundle.ChangedError
	if errors.As(err, &changed) {
		os.Remove(dst)
		return fail(tamperedErr(changed))
	}
	if err != nil {
		return fail(fmt.Errorf("%s: %w", e.Path, err))
	}
	return nil
}
