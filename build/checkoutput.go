package build

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/skill"
)

// OutputError is a refused output folder: the user's to fix, nothing was written.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return e.Err.Error() }

func (e *OutputError) Unwrap() error { return e.Err }

// ExitClass is the command's exit code: 2, the user's to fix.
func (*OutputError) ExitClass() int { return 2 }

// checkOutput refuses output folders that would destroy something: the
// input, a folder holding it, the working directory, home, the root, a
// folder holding files skillpack did not write (unless --force), and
// inside an input anything that discovery would read as skills.
//
// An output inside an input is the default ("." into "dist"), safe exactly
// when discovery skips it: absent, empty or a built bundle, and in no
// skill. Discovery runs at the same time, so this decides from the folder.
func (b *builder) checkOutput() (*output, string, error) {
	o := &output{}
	if err := b.checkOutputFolder(o); err != nil {
		o.close()
		if !errors.As(err, new(*OutputError)) {
			err = &OutputError{Err: err}
		}
		return nil, "", err
	}
	return o, "", nil
}

// output is the output folder as the check found it.
type output struct {
	dir    string      // absolute
	last   *reuse.Last // the bundle the last build left there; nil for none
	unlock func()      // lets go of the output's lock (outlock.go); nil for none
}

func (o *output) close() {
	if o != nil {
		o.last.Close()
		if o.unlock != nil {
			o.unlock()
		}
	}
}

func (b *builder) checkOutputFolder(o *output) error {
	out, err := filepath.Abs(b.opts.Out)
	if err != nil {
		return err
	}
	o.dir = out
	name := b.opts.Out
	// A "~" the shell did not expand (--out=~/site, or a quoted "~") would
	// make a folder named "~" here, one "rm -rf ~" away from disaster.
	if first, _, _ := strings.Cut(filepath.ToSlash(name), "/"); first == "~" {
		return fmt.Errorf("the output folder %s starts with a ~ that the shell did not expand; write $HOME%s or a path without ~", name, name[1:])
	}
	if out == filepath.VolumeName(out)+string(filepath.Separator) {
		return fmt.Errorf("refusing to write the bundle to the root folder %s; choose a new folder such as dist", name)
	}
	if home, err := os.UserHomeDir(); err == nil && sameDir(out, home) {
		return fmt.Errorf("refusing to write the bundle to your home folder %s; choose a new folder such as dist", name)
	}
	if cwd, err := os.Getwd(); err == nil && (sameDir(out, cwd) || inside(cwd, out)) {
		return fmt.Errorf("refusing to write the bundle to %s: it holds the working directory; choose a new folder such as dist", name)
	}
	// Paths are compared as given and with links resolved, so that a
	// second spelling of a folder (a link, macOS's /tmp) is no way around.
	realOut := resolved(out)
	within := "" // the input the output is inside, if any
	for _, root := range b.roots {
		abs, _ := filepath.Abs(root)
		realRoot := resolved(abs)
		switch {
		case sameDir(out, abs):
			return fmt.Errorf("the output folder %s is the input %s; choose a folder outside it, such as dist", name, root)
		case inside(abs, out), inside(realRoot, realOut):
			return fmt.Errorf("the output folder %s contains the input %s; choose a folder beside it", name, root)
		case within == "" && (inside(out, abs) || inside(realOut, realRoot)):
			within = root
		}
	}
	if err := b.outsideSkills(out, name); err != nil {
		return err
	}
	info, err := os.Lstat(out)
	absent := errors.Is(err, fs.ErrNotExist)
	switch {
	case absent:
	case err != nil:
		return fmt.Errorf("cannot use the output folder %s: %w", name, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("the output folder %s is a symbolic link; give the real folder instead", name)
	case !info.IsDir():
		return fmt.Errorf("the output %s exists and is not a folder", name)
	case within != "":
		if err := discoverySkips(out, name, within); err != nil {
			return err
		}
	}
	if within != "" {
		if err := b.noStale(out, name, within); err != nil {
			return err
		}
	}
	// Locked once the folder is found one the build may write, and before
	// the bundle there is read, which another build's swap would change.
	// A dry run takes no lock.
	if !b.opts.DryRun {
		if o.unlock, err = lockOutput(out, "build"); err != nil {
			return err
		}
	}
	if absent {
		return nil
	}
	o.last, _ = reuse.Open(out, b.opts.Jobs) // an unreadable record leaves nothing to reuse
	if o.last.Intact() {
		return nil // no file came or went since the record listed them
	}
	listed := map[string]bool{}
	if err := o.last.EachFile(func(f string) bool { listed[f] = true; return true }); err != nil {
		return err
	}
	foreign, err := foreignFiles(out, listed)
	if err != nil {
		return err
	}
	for _, f := range foreign {
		if inner, ok := strings.CutSuffix(f, "/"+skill.BundleMarker); ok && !b.opts.Force {
			return fmt.Errorf("the output folder %s holds another build's bundle, in %s, which this build would replace; "+
				"build each bundle into a folder of its own (beside this one, not in it), or %s to replace the folder and everything in it",
				name, filepath.Join(name, filepath.FromSlash(inner)), cmp.Or(b.opts.ForceFix, "pass --force"))
		}
	}
	if len(foreign) > 0 && !b.opts.Force {
		return fmt.Errorf("the output folder %s holds files skillpack did not write (%s); "+
			"choose another folder, or %s to replace the folder and everything in it",
			name, human.Few(foreign, 3), cmp.Or(b.opts.ForceFix, "pass --force"))
	}
	if len(foreign) > 0 {
		o.last.Close()
		o.last = nil // a folder of unknown files is nothing to reuse from
	}
	return nil
}

// outsideSkills refuses an output folder inside a skill that the build
// packs, whose archives would take in the bundle and grow with every build.
func (b *builder) outsideSkills(out, name string) error {
	dir := skill.Enclosing(filepath.Dir(out))
	if dir == "" {
		return nil
	}
	realDir := resolved(dir)
	for _, root := range b.roots {
		abs, _ := filepath.Abs(root)
		realRoot := resolved(abs)
		if sameDir(dir, abs) || inside(dir, abs) || inside(realDir, realRoot) || inside(abs, dir) || inside(realRoot, realDir) {
			shown, fix := asGiven(dir), "choose a folder outside every skill"
			if shown == "." {
				// Run from inside the skill: the habit is build, here.
				shown = filepath.Base(dir) + " (the working folder)"
				fix = fmt.Sprintf("run it from the folder above (cd .. && skillpack build %s -o dist), or give -o outside it, such as -o ../dist",
					filepath.Base(dir))
			}
			return fmt.Errorf("the output folder %s is inside the skill %s, whose archives would take in the bundle; %s",
				name, shown, fix)
		}
	}
	return nil
}

// discoverySkips refuses an existing output folder inside the input
// unless discovery skips it (empty, or a bundle): anything else would be
// read as skills, --force or not.
func discoverySkips(out, name, within string) error {
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("cannot use the output folder %s: %w", name, err)
	}
	if len(ents) == 0 || skill.IsBundle(out) {
		return nil
	}
	var files []string
	for _, e := range ents {
		files = append(files, e.Name())
	}
	return fmt.Errorf("the output folder %s is inside the input %s and is not a bundle (it holds %s): "+
		"the build would take it for part of the input; choose a new or empty folder, or one outside the input",
		name, within, human.Few(files, 3))
}

// noStale refuses a build whose output is inside the input while another
// build's staging folder, whose copies of the skills discovery would read,
// lies beside it. Killed builds' folders are gone by now (sweepStale).
func (b *builder) noStale(out, name, within string) error {
	parent := filepath.Dir(out)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil // absent: nothing beside it; otherwise making it reports why
	}
	for _, e := range ents {
		p := filepath.Join(parent, e.Name())
		if e.IsDir() && strings.HasPrefix(e.Name(), stagePrefix(out)) && !skill.IsBundle(p) {
			return fmt.Errorf("another build's staging folder %s is inside the input %s, "+
				"where its copies of the skills would be read as skills; wait for that build to end, or, if none is running, delete it (rm -rf %s) and build again",
				filepath.Join(filepath.Dir(name), e.Name()), within, filepath.Join(filepath.Dir(name), e.Name()))
		}
	}
	return nil
}

// asGiven is an absolute path relative to the working directory when below it.
func asGiven(p string) string {
	if cwd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(cwd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	return p
}

// absPath is p made absolute ("" when the working folder is unknown).
func absPath(p string) string {
	abs, _ := filepath.Abs(p)
	return abs
}

// resolved is p with symbolic links resolved as far as the path exists.
func resolved(p string) string {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// foreignFiles lists the files in out that are not listed.
func foreignFiles(out string, listed map[string]bool) ([]string, error) {
	var foreign []string
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		if rel = filepath.ToSlash(rel); !listed[rel] {
			foreign = append(foreign, rel)
		}
		return nil
	})
	return foreign, err
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

// inside reports whether p is strictly below dir.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
