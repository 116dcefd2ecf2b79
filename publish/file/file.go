// Package file is the plain-folder publish target: `skillpack publish
// DIST file:///path/to/folder` copies a bundle into a folder (a static
// host's document root, a mounted share) in publish's safe order, a file
// already there with its digest left alone. It owns only that copy; the
// order, the retries and the reports are publish's Runner's.
package file

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

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
// checked against that digest as they are copied.
func Publish(ctx context.Context, b *publish.Upload, target string, o Options, report func(publish.Result)) error {
	dir, err := ParseTarget(target)
	if err != nil {
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
