package build

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// PackOptions control PackSkill. The zero value packs flat archives into
// the working directory.
type PackOptions struct {
	Out     string       // folder for the archives ("" = working directory)
	Wrapped bool         // put every file under "<name>/", as upload APIs want
	Lint    lint.Options // how the skill is checked first
	Time    time.Time    // the archives' fixed time
}

// Packed is the result of PackSkill.
type Packed struct {
	Name          string         `json:"name"`
	Layout        string         `json:"layout"`
	ContentDigest layout.Digest  `json:"contentDigest"`
	Artifacts     []Artifact     `json:"artifacts"`
	Findings      []lint.Finding `json:"findings"`
}

// PackSkill lints and packs the one skill in dir into <name>.tar.gz and
// <name>.zip in opts.Out. Each archive is written to a temporary file and
// renamed into place, so a failure leaves no half-written archive.
func PackSkill(dir string, opts PackOptions) (*Packed, error) {
	s := skill.Load(dir)
	if s.Err != nil {
		return nil, fmt.Errorf("%s: %v", s.EntryPath(), s.Err)
	}
	files, err := skill.Collect(dir)
	opts.Lint.Publishing = true // what an archive carries is the build's (Rule.Publish)
	_, findings := lint.CheckSkill(s, files, err, nil, opts.Lint)
	p := &Packed{Name: lint.SkillName(s), Layout: "flat", Findings: findings}
	po := pack.Options{Time: opts.Time}
	if opts.Wrapped {
		p.Layout, po.Prefix = "wrapped", p.Name+"/"
	}
	if errs, _, _ := lint.Count(findings); errs > 0 {
		return p, &LintError{Errors: errs}
	}
	out := cmp.Or(opts.Out, ".")
	b := &builder{opts: Options{Time: opts.Time}, st: staging{dir: out}, lintOpts: opts.Lint}
	w := &task{work: &work{src: s, name: p.Name, findings: p.Findings}, files: files, collErr: err}
	// What the build refuses, pack refuses as a finding too (refuse.go).
	refused := func(err error) error {
		if !b.refused(w, err) {
			return err
		}
		p.Findings = w.findings
		errs, _, _ := lint.Count(p.Findings)
		return &LintError{Errors: errs}
	}
	if err := cmp.Or(b.checkReadable(w), b.checkLimits(w)); err != nil {
		return p, refused(err)
	}
	// What stands where an archive goes is the user's unless it is a
	// skill's archive (pack's last, or one like it), and is said before
	// either archive is written.
	for _, ext := range []string{"tar.gz", "zip"} {
		dst := filepath.Join(out, p.Name+"."+ext)
		if _, err := os.Lstat(dst); err == nil && !skillArchive(dst, ext == "zip") {
			return p, &OutputError{fmt.Errorf("%s is there and is not a skill's archive, the one thing pack replaces; move it away, or pack into another folder with -o", dst)}
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			err = &OutputError{fmt.Errorf("-o %s: a part of it is a file; give a folder", out)}
		}
		return p, err
	}
	tgz, zip, entries, err := b.packArchives(w, po, false)
	defer tgz.discard()
	defer zip.discard()
	if err != nil {
		return p, refused(err)
	}
	cd := pack.ContentDigest(entries)
	p.ContentDigest = layout.SumDigest(cd[:])
	for _, a := range []*archive{tgz, zip} {
		dst := filepath.Join(out, p.Name+"."+a.ext)
		if err := a.finishAt(dst, true); err != nil {
			return p, err
		}
		ar := a.result()
		p.Artifacts = append(p.Artifacts, Artifact{Path: filepath.ToSlash(dst), Digest: ar.Digest, Size: ar.Size})
	}
	return p, nil
}

// skillArchive reports whether file is a regular file that unpacks to a
// skill: SKILL.md at its root or in one folder (--layout wrapped).
func skillArchive(file string, zipped bool) bool {
	fi, err := os.Lstat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > pack.MaxFile {
		return false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	found := errors.New("found")
	err = pack.Unpack(data, zipped, pack.Limits{}, func(string, string, bool) error { return nil }, func(e pack.Member, _ io.Reader) error {
		if dir, base := path.Split(e.Path); base == skill.FileName && strings.Count(dir, "/") <= 1 {
			return found
		}
		return nil
	})
	return errors.Is(err, found)
}
