package bundle_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// versioned builds a bundle of one skill at version 2.1.0, released as
// 1.0.0, and returns its folder.
func versioned(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "skills", "pdf")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: pdf\ndescription: Fills PDF forms, for tests of reading a bundle back.\nmetadata:\n  version: \"2.1.0\"\n---\n# pdf\n\nFill the form.\n"
	if err := os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "dist")
	if _, err := build.Run([]string{filepath.Dir(src)}, build.Options{Out: out, Versioned: true, Release: "1.0.0"}); err != nil {
		t.Fatal(err)
	}
	return out
}

// changed is a folder whose reads pass through change.
type changed struct {
	bundle.Source
	change func(path string, data []byte) ([]byte, error)
}

func (c changed) Open(ctx context.Context, p string) (io.ReadCloser, int64, error) {
	rc, _, err := c.Source.Open(ctx, p)
	if err != nil {
		return nil, 0, err
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, 0, err
	}
	if data, err = c.change(p, data); err != nil {
		return nil, 0, err
	}
	return io.NopCloser(strings.NewReader(string(data))), int64(len(data)), nil
}

func TestOpen(t *testing.T) {
	folder, err := bundle.OpenFolder(versioned(t))
	if err != nil {
		t.Fatal(err)
	}
	defer folder.Close()
	ctx := context.Background()
	b, err := bundle.Open(ctx, folder, pack.MaxFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Index.Skills) != 1 || b.Versions == nil || b.Versions.FindRelease("1.0.0") == nil {
		t.Fatalf("read %+v, versions %+v", b.Index.Skills, b.Versions)
	}
	if _, err := b.Doc(ctx, layout.Snapshot("1.0.0")); err != nil {
		t.Errorf("the snapshot: %v", err)
	}
	if _, err := b.Doc(ctx, "nothing.json"); err == nil || !strings.Contains(err.Error(), "checksums.txt does not list nothing.json") {
		t.Errorf("a document checksums.txt does not list: %v", err)
	}

	for _, c := range []struct {
		name   string
		change func(path string, data []byte) ([]byte, error)
		want   string
	}{
		{"no checksums.txt", func(p string, data []byte) ([]byte, error) {
			if p == layout.Checksums {
				return nil, bundle.ErrNotFound
			}
			return data, nil
		}, "checksums.txt: not found; every bundle skillpack builds has checksums.txt"},
		// A server that fails is not told to be no bundle.
		{"checksums.txt unreachable", func(p string, data []byte) ([]byte, error) {
			if p == layout.Checksums {
				return nil, errors.New("HTTP 503 Service Unavailable")
			}
			return data, nil
		}, "checksums.txt: HTTP 503 Service Unavailable"},
		{"index changed", func(p string, data []byte) ([]byte, error) {
			if p == layout.V2Index {
				return append(data, ' '), nil
			}
			return data, nil
		}, "index.json is sha256:"},
		{"versions.json changed", func(p string, data []byte) ([]byte, error) {
			if p == layout.VersionsIndex {
				return []byte(strings.Replace(string(data), "2.1.0", "2.1.1", 1)), nil
			}
			return data, nil
		}, "tampered with"},
		{"another format", func(p string, data []byte) ([]byte, error) {
			switch p {
			case layout.V2Index:
				return []byte(`{"skills":[]}`), nil
			case layout.Checksums:
				return []byte(layout.DigestOf([]byte(`{"skills":[]}`)).Hex() + "  " + layout.V2Index + "\n"), nil
			}
			return data, nil
		}, "a bundle of another format"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := bundle.Open(ctx, changed{folder, c.change}, pack.MaxFile)
			if err == nil || !strings.Contains(err.Error(), c.want) ||
				strings.Contains(c.name, "unreachable") && err.Error() != c.want {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}

// A folder reads what a client would, and says what went wrong.
func TestFolder(t *testing.T) {
	dir := versioned(t)
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "outdir")); err != nil {
		t.Fatal(err)
	}
	f, err := bundle.OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	if _, err := bundle.ReadAll(ctx, f, layout.V2Index, pack.MaxFile); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"nothing/here":  "not found",
		"../etc/passwd": "",
		"out":           "leads outside the bundle folder",
		"outdir/x/y":    "is in outdir, a symbolic link that leads outside the bundle folder",
	} {
		_, err := bundle.ReadAll(ctx, f, p, pack.MaxFile)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", p, err, want)
		}
	}
	if _, err := bundle.ReadAll(ctx, f, "nothing/here", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := bundle.ReadAll(ctx, f, layout.V2Index, 10); err == nil || !strings.Contains(err.Error(), "10-byte limit") {
		t.Errorf("over the size limit: %v", err)
	}
	if _, err := bundle.OpenFolder(filepath.Join(dir, layout.V2Index)); err == nil || !strings.Contains(err.Error(), "is a file, not a folder") {
		t.Errorf("a file: %v", err)
	}
	if _, err := bundle.OpenSource(filepath.Join(dir, "none"), bundle.HTTPOptions{}); err == nil || !strings.Contains(err.Error(), "no such folder") {
		t.Errorf("no folder: %v", err)
	}
}

func TestOrigin(t *testing.T) {
	for raw, want := range map[string]string{
		"https://Example.COM/a":      "https://example.com",
		"https://example.com:443/a":  "https://example.com",
		"http://example.com:80":      "http://example.com",
		"http://example.com:443":     "http://example.com:443",
		"https://example.com:8443/":  "https://example.com:8443",
		"http://127.0.0.1:8080/x":    "http://127.0.0.1:8080",
		"http://[::1]:80/":           "http://[::1]",
		"https://user@example.com/a": "https://example.com",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := bundle.Origin(u); got != want {
			t.Errorf("origin(%s) = %q, want %q", raw, got, want)
		}
	}
}
