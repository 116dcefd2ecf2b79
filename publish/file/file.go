// Package file is the plain-folder publish target: `skillpack publish
// DIST file:///path/to/folder` copies a bundle into a folder (a static
// host's document root, a mounted share) in publish's safe order, a file
// already there with its digest left alone. It owns only that copy; the
// order, the retries and the reports are publish's Runner's.
package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/atomicfile"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// Scheme is how a target of this package begins.
const Scheme = "file://"

// Options say how a bundle is copied.
type Options struct {
	DryRun   bool      // say what would be copied; copy nothing
	Jobs     int       // files at once (0: publish.DefaultJobs)
	Progress io.Writer // a terminal, for the progress line
}

// ParseTarget is the folder a file:// URL names: file:///abs/path, or
// file://rel/path for a folder relative to the working one.
func ParseTarget(target string) (string, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "file" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%s: give file:///path/to/folder", target)
	}
	dir := u.Host + u.Path
	if dir == "" {
		return "", fmt.Errorf("%s: name the folder, such as file:///srv/www/skills", target)
	}
	return filepath.FromSlash(dir), nil
}

// Publish copies b into the folder target names, stage by stage: a file
// there with the digest and size the build record gives is Present, any
// other is replaced whole (written beside it and renamed), from bytes
// checked against that digest as they are copied. It replaces only files
// skillpack published there (the folder's build record lists them): a
// site's own index.html at a bundle path, or a file where the bundle needs
// a folder, stops it before anything is copied.
func Publish(ctx context.Context, b *publish.Upload, target string, o Options, report func(publish.Result)) error {
	dir, err := ParseTarget(target)
	if err != nil {
		return err
	}
	if err := checkForeign(b, dir); err != nil {
		return err
	}
	r := &publish.Runner{Jobs: o.Jobs, Report: report, Progress: o.Progress, Server: target}
	return r.Run(ctx, b.Objects, func(ctx context.Context, obj publish.Object) (publish.State, error) {
		dst := filepath.Join(dir, filepath.FromSlash(obj.Path))
		if d, n, err := bundle.HashFile(dst); err == nil && d == obj.Digest && n == obj.Size {
			return publish.Present, nil
		}
		if o.DryRun {
			return publish.WouldUpload, nil
		}
		return publish.Uploaded, copyFile(b, obj, dst)
	})
}

// copyFile writes dst whole with obj's bytes, or not at all.
func copyFile(b *publish.Upload, obj publish.Object, dst string) error {
	src, err := b.Open(obj)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = io.Copy(tmp, bundle.Checked(src, layout.Artifact{Path: obj.Path, Digest: obj.Digest, Size: obj.Size}, "the build record"))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", dst, err)
	}
	return atomicfile.Rename(tmp.Name(), dst)
}

// checkForeign refuses dir when it is no folder, or when a path of the
// bundle is taken by a file skillpack did not publish there: one the
// folder's build record (the last publish's) does not list, with other
// bytes than the bundle's, or a file where the bundle needs a folder.
func checkForeign(b *publish.Upload, dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return &usageError{fmt.Sprintf("%s is a file; publish to a folder (file:///path/to/folder)", dir)}
	} else if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing there to keep
	}
	ours := map[string]bool{} // what the last publish there wrote, by its record
	if f, err := bundle.OpenFolder(dir); err == nil {
		data, err := bundle.ReadAll(context.Background(), f, layout.BuildRecord, bundle.MaxDoc)
		f.Close()
		if rec, derr := layout.DecodeRecord(data); err == nil && derr == nil {
			for _, p := range rec.Files {
				ours[p] = true
			}
		}
	}
	var foreign []string
	for _, obj := range b.Objects {
		if ours[obj.Path] {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(obj.Path))
		fi, err := os.Lstat(dst)
		switch {
		case errors.Is(err, syscall.ENOTDIR):
			foreign = append(foreign, blocking(dir, obj.Path))
		case err != nil: // not there: copied
		case !fi.Mode().IsRegular():
			foreign = append(foreign, obj.Path)
		default:
			if d, n, err := bundle.HashFile(dst); err != nil || d != obj.Digest || n != obj.Size {
				foreign = append(foreign, obj.Path)
			}
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	slices.Sort(foreign)
	return &publish.ForeignError{Target: dir, Paths: slices.Compact(foreign)}
}

// blocking is the first folder of the slash path p, below dir, that is a
// file.
func blocking(dir, p string) string {
	for i := range len(p) {
		if p[i] == '/' {
			if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p[:i]))); err == nil && !fi.IsDir() {
				return p[:i]
			}
		}
	}
	return p
}

// usageError is a target that cannot be published to as given.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// ExitClass is the command's exit code: 2, the user's to correct.
func (*usageError) ExitClass() int { return 2 }
