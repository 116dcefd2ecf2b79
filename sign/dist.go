package sign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// Suffix is appended to an artifact's path to name its Sigstore bundle.
// ".bundle" is avoided on purpose: it usually means cosign's older format.
const Suffix = layout.SignatureSuffix

// target is one file to sign, with the digest an index records for it
// ("" for the indexes themselves, which no document digests).
type target struct {
	path, digest string
}

// Targets lists the dist-relative paths to sign in the bundle at dist, in
// sorted order: every archive the v0.2 index or mcp/index.json lists, the
// v0.2, v0.1 and MCP indexes, and mcp/skills.json (it carries the digest
// of every file, so its signature covers a whole MCP-served skill set).
// The v0.1 index is left out when the bundle was built without it.
func Targets(dist string) ([]string, error) {
	ts, err := targets(dist)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(ts))
	for i, t := range ts {
		paths[i] = t.path
	}
	return paths, nil
}

func targets(dist string) ([]target, error) {
	read := func(p string, v any) error {
		data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, v); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dist, filepath.FromSlash(p)), err)
		}
		return nil
	}
	seen := map[string]string{}
	add := func(p, digest string) error {
		if d, ok := seen[p]; ok && d != "" && digest != "" && d != digest {
			return fmt.Errorf("%s: the indexes disagree on its digest (%s, %s): rebuild the bundle", p, d, digest)
		}
		if seen[p] == "" {
			seen[p] = digest
		}
		return nil
	}
	// archive checks what an index says before it becomes a path: a name or
	// digest with a "/" or ".." would point outside the bundle.
	archive := func(index, name, digest, ext string) error {
		if err := layout.CheckName(name); err != nil || !layout.Digest(digest).Valid() {
			return fmt.Errorf("%s: skill %q: not a skill name and sha256 digest skillpack writes: rebuild the bundle", index, name)
		}
		return add(layout.ArchivePath(name, layout.Digest(digest), ext), digest)
	}

	var v2 struct {
		Skills []struct{ Name, Type, Digest string } `json:"skills"`
	}
	if err := read(layout.V2Index, &v2); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a bundle skillpack built (no %s)", dist, layout.V2Index)
		}
		return nil, err
	}
	for _, s := range v2.Skills {
		if s.Type == "archive" {
			if err := archive(layout.V2Index, s.Name, s.Digest, layout.TarGz); err != nil {
				return nil, err
			}
		}
	}

	var mcp struct {
		Skills []struct {
			Name     string                         `json:"name"`
			Archives []struct{ URL, Digest string } `json:"archives"`
		} `json:"skills"`
	}
	if err := read(layout.MCPIndex, &mcp); err != nil {
		return nil, err
	}
	for _, s := range mcp.Skills {
		for _, a := range s.Archives {
			ext := ""
			for _, e := range []string{layout.TarGz, layout.Zip} {
				if a.URL == layout.ArchiveURI(s.Name, layout.Digest(a.Digest), e) {
					ext = e
				}
			}
			if ext == "" {
				return nil, fmt.Errorf("%s: skill %q: archive %q is not named for its digest: rebuild the bundle", layout.MCPIndex, s.Name, a.URL)
			}
			if err := archive(layout.MCPIndex, s.Name, a.Digest, ext); err != nil {
				return nil, err
			}
		}
	}

	for _, p := range []string{layout.V2Index, layout.V1Index, layout.MCPIndex, layout.MCPSkills} {
		_, err := os.Stat(filepath.Join(dist, filepath.FromSlash(p)))
		if p == layout.V1Index && errors.Is(err, fs.ErrNotExist) {
			continue // built with --no-legacy
		}
		if err != nil {
			return nil, err
		}
		if err := add(p, ""); err != nil {
			return nil, err
		}
	}

	ts := make([]target, 0, len(seen))
	for p, d := range seen {
		ts = append(ts, target{p, d})
	}
	slices.SortFunc(ts, func(a, b target) int { return strings.Compare(a.path, b.path) })
	return ts, nil
}

// SignDist signs every target of the bundle at dist and writes each
// signature beside its artifact as "<artifact>.sigstore.json". It returns
// the dist-relative paths it wrote, and lists them in the build record so
// that the next build still recognises the folder as its own. An archive
// whose bytes no longer match its index digest is refused: signing it
// would vouch for bytes no index describes.
func SignDist(ctx context.Context, dist string, s *Signer) ([]string, error) {
	ts, err := targets(dist)
	if err != nil {
		return nil, err
	}
	var written []string
	err = func() error {
		for _, t := range ts {
			p := filepath.Join(dist, filepath.FromSlash(t.path))
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if t.digest != "" && string(layout.DigestOf(data)) != t.digest {
				return fmt.Errorf("%s: digest is %s but the index says %s: rebuild the bundle before signing", p, layout.DigestOf(data), t.digest)
			}
			b, err := s.Sign(ctx, data)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if err := writeFile(p+Suffix, b); err != nil {
				return err
			}
			written = append(written, t.path+Suffix)
		}
		return nil
	}()
	// Record what was written even after a failure, so that a half-signed
	// folder is still one the next build may replace.
	if len(written) > 0 {
		if rerr := build.AddToRecord(dist, written); rerr != nil && err == nil {
			err = rerr
		}
	}
	return written, err
}

// writeFile replaces p through a temporary file and a rename, so a reader
// never sees half a bundle.
func writeFile(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}
