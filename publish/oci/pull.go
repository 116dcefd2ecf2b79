package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"

	"github.com/skillpack/skillpack/layout"
)

// The bounds of what Pull takes from a registry, which it does not trust:
// the largest archive, what one unpacks to, and how many files it holds
// (the bundle's own limits are smaller: 10 MB, 50 MiB and 1,000 for the
// strictest reader).
const (
	maxArchive     = 64 << 20
	maxUnpacked    = 256 << 20
	maxFilesPerOne = 10000
)

// Pulled is a skill Pull wrote.
type Pulled struct {
	Name   string        // the skill
	Dir    string        // where its files are: DIR/<name>
	Digest layout.Digest // its manifest's digest
}

// Pull fetches from source, oci://host[:port]/repo[:tag|@digest] (tag
// latest when none), into dir: a collection gives every skill it lists,
// or only the one named skill when skill is not ""; a skill's own
// artifact (its <skill>-<version> tag, or its digest) gives that skill.
// Each skill is unpacked from its archive into dir/<name>, which must not
// exist, with its folder signature (skill.oms.sig) when one is attached. Everything fetched is checked against its digest, and an
// archive that holds anything but plain files at clean paths is refused.
func Pull(ctx context.Context, source, dir, skill string, o Options) ([]Pulled, error) {
	ref, t, r, err := openSource(source, o)
	if err != nil {
		return nil, err
	}
	desc, data, err := r.fetchManifest(ctx, ref.Reference)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	var top struct {
		ArtifactType string               `json:"artifactType"`
		Manifests    []ocispec.Descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: the manifest is not JSON: %w", source, err)
	}
	var skills []ocispec.Descriptor
	switch top.ArtifactType {
	case ArtifactTypeSkill:
		skills = []ocispec.Descriptor{desc}
	case ArtifactTypeCollection:
		for _, d := range top.Manifests {
			if skill == "" || d.Annotations[annSkillName] == skill {
				skills = append(skills, d)
			}
		}
		if len(skills) == 0 && skill != "" {
			return nil, fmt.Errorf("%s lists no skill %s", source, skill)
		}
	default:
		return nil, fmt.Errorf("%s is not a skill or a collection of skills (artifactType %q, want %s or %s)", source, top.ArtifactType, ArtifactTypeSkill, ArtifactTypeCollection)
	}
	var out []Pulled
	for _, d := range skills {
		p, err := r.pullSkill(ctx, d, dir)
		if err != nil {
			return out, fmt.Errorf("%s: %w", t.Ref(string(d.Digest)), err)
		}
		if skill != "" && p.Name != skill {
			return out, fmt.Errorf("%s is skill %s, not %s", source, p.Name, skill)
		}
		out = append(out, p)
	}
	return out, nil
}

// ErrExists is the error of a pull whose skill folder is already there.
var ErrExists = errors.New("already exists")

// CheckSource returns why s is not a source Pull takes, or nil.
func CheckSource(s string) error {
	_, err := parseSource(s)
	return err
}

// openSource is the repository of a source to read from, the source's
// reference and, as a Target, its registry, repository and tag or digest.
func openSource(source string, o Options) (registry.Reference, Target, *remoteRepo, error) {
	ref, err := parseSource(source)
	if err != nil {
		return ref, Target{}, nil, err
	}
	t := Target{Registry: ref.Registry, Repository: ref.Repository, Tag: ref.Reference}
	r, err := newRemote(t, o, "")
	return ref, t, r, err
}

// parseSource reads oci://host/repo[:tag|@digest].
func parseSource(s string) (registry.Reference, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok || !strings.Contains(rest, "/") {
		return registry.Reference{}, fmt.Errorf("%q is not an OCI source: write %shost[:port]/repository[:tag or @sha256:digest]", s, Scheme)
	}
	ref, err := registry.ParseReference(rest)
	if err != nil {
		return registry.Reference{}, fmt.Errorf("OCI source %q is not a valid reference: %v", s, err)
	}
	if ref.Reference == "" {
		ref.Reference = DefaultTag
	}
	return ref, nil
}

// fetchManifest fetches a manifest by tag or digest; oras-go bounds its
// size (4 MiB) and checks its digest.
func (r *remoteRepo) fetchManifest(ctx context.Context, reference string) (ocispec.Descriptor, []byte, error) {
	desc, rc, err := r.repo.Manifests().FetchReference(ctx, reference)
	if err != nil {
		return desc, nil, err
	}
	defer rc.Close()
	data, err := content.ReadAll(rc, desc)
	return desc, data, err
}

// pullSkill fetches one skill's manifest and archive and unpacks it.
func (r *remoteRepo) pullSkill(ctx context.Context, d ocispec.Descriptor, dir string) (Pulled, error) {
	desc, data, err := r.fetchManifest(ctx, string(d.Digest))
	if err != nil {
		return Pulled{}, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Pulled{}, fmt.Errorf("the manifest is not JSON: %w", err)
	}
	name := m.Annotations[annSkillName]
	if err := layout.CheckName(name); err != nil {
		return Pulled{}, fmt.Errorf("the skill's name %q: %w", name, err)
	}
	var layer *ocispec.Descriptor
	for i, l := range m.Layers {
		if l.MediaType == MediaTypeSkillContent {
			if layer != nil {
				return Pulled{}, fmt.Errorf("skill %s has more than one content layer", name)
			}
			layer = &m.Layers[i]
		}
	}
	switch {
	case layer == nil:
		return Pulled{}, fmt.Errorf("skill %s has no %s layer", name, MediaTypeSkillContent)
	case layer.Size < 0 || layer.Size > maxArchive:
		return Pulled{}, fmt.Errorf("skill %s: an archive of %d bytes, over the %d this takes", name, layer.Size, maxArchive)
	}
	rc, err := r.repo.Blobs().Fetch(ctx, *layer)
	if err != nil {
		return Pulled{}, err
	}
	archive, err := content.ReadAll(rc, *layer) // checks size and digest
	rc.Close()
	if err != nil {
		return Pulled{}, fmt.Errorf("skill %s's archive: %w", name, err)
	}
	dest := filepath.Join(dir, name)
	if _, err := os.Lstat(dest); err == nil {
		return Pulled{}, fmt.Errorf("%s %w: remove it, or pull into another folder (-o)", dest, ErrExists)
	}
	// Unpacked beside its place and renamed in, so that a refused archive
	// leaves nothing behind.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Pulled{}, err
	}
	tmp, err := os.MkdirTemp(dir, "."+name+".pull-")
	if err != nil {
		return Pulled{}, err
	}
	defer os.RemoveAll(tmp)
	if err := unpack(archive, tmp); err != nil {
		return Pulled{}, fmt.Errorf("skill %s's archive: %w", name, err)
	}
	if err := r.pullFolderSignature(ctx, desc, tmp); err != nil {
		return Pulled{}, fmt.Errorf("skill %s's folder signature: %w", name, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return Pulled{}, err
	}
	return Pulled{Name: name, Dir: dest, Digest: layout.Digest(desc.Digest)}, nil
}

// maxFolderSignature bounds the folder signature Pull takes: a Sigstore
// bundle listing a thousand files is well under 1 MiB.
const maxFolderSignature = 4 << 20

// pullFolderSignature writes the folder signature attached to a skill's
// manifest (ArtifactTypeFolderSignature), if it has one, into the
// unpacked folder dir as skill.oms.sig, where `skillpack verify` and OMS
// verifiers look for it. A skill.oms.sig the skill ships in its archive is
// its author's, and is kept. Of two signatures, the lowest digest is
// taken, as verify does.
func (r *remoteRepo) pullFolderSignature(ctx context.Context, subject ocispec.Descriptor, dir string) error {
	dest := filepath.Join(dir, layout.FolderSignatureFile)
	if _, err := os.Lstat(dest); err == nil {
		return nil
	}
	refs, err := r.referrers(ctx, subject, ArtifactTypeFolderSignature)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(refs, func(d ocispec.Descriptor) bool { return d.Annotations[annTitle] == layout.FolderSignatureFile })
	if i < 0 {
		return nil
	}
	ref := refs[i] // the lowest digest: referrers sorts them
	_, data, err := r.fetchManifest(ctx, string(ref.Digest))
	if err != nil {
		return err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("referrer %s is not a manifest: %w", ref.Digest, err)
	}
	if m.Subject == nil || m.Subject.Digest != subject.Digest {
		return fmt.Errorf("referrer %s does not refer to the skill's manifest %s", ref.Digest, subject.Digest)
	}
	layer, err := signatureLayer(m, ref.Digest)
	if err != nil {
		return err
	}
	if layer.Size < 0 || layer.Size > maxFolderSignature {
		return fmt.Errorf("referrer %s: a signature of %d bytes, over the %d this takes", ref.Digest, layer.Size, maxFolderSignature)
	}
	rc, err := r.repo.Blobs().Fetch(ctx, layer)
	if err != nil {
		return err
	}
	sig, err := content.ReadAll(rc, layer) // checks size and digest
	rc.Close()
	if err != nil {
		return err
	}
	return os.WriteFile(dest, sig, 0o644)
}

// unpack writes a skill archive's files under dir. It takes what a
// skillpack archive holds (regular files at clean relative paths, SKILL.md
// among them) and refuses the rest: links, devices, absolute or ".."
// paths, a file twice, or more than the bounds.
func unpack(archive []byte, dir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	seen := map[string]bool{}
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			return fmt.Errorf("%q is not a plain file (type %q)", h.Name, h.Typeflag)
		}
		if err := layout.CheckPath(h.Name); err != nil {
			return fmt.Errorf("%q: %w", h.Name, err)
		}
		if seen[h.Name] {
			return fmt.Errorf("%q is in it twice", h.Name)
		}
		seen[h.Name] = true
		if total += h.Size; h.Size < 0 || total > maxUnpacked || len(seen) > maxFilesPerOne {
			return fmt.Errorf("it unpacks to more than %d bytes or %d files", maxUnpacked, maxFilesPerOne)
		}
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(h.Name)), tr, h); err != nil {
			return err
		}
	}
	if !seen[layout.EntryFile] {
		return fmt.Errorf("it has no %s at its root", layout.EntryFile)
	}
	return nil
}

func writeFile(name string, r io.Reader, h *tar.Header) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		mode = 0o755
	}
	// O_EXCL: a path that is also a folder of another entry, or a name
	// the file system folds onto another, is refused, not overwritten.
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.CopyN(f, r, h.Size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
