package oci

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/skillpack/skillpack/internal/outlock"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/publish"
)

// DefaultMaxTotal is what one Pull unpacks, every skill together, unless
// told otherwise (Options.MaxTotal, pull --max-total).
const DefaultMaxTotal = 1 << 30

// ErrWrite marks a pull's failure to write what it fetched: the system's
// (a full disk, a folder it may not write), not the registry's.
var ErrWrite = errors.New("writing the pulled skill")

// Pulled is a skill Pull wrote.
type Pulled struct {
	Name   string        // the skill
	Dir    string        // where its files are: DIR/<name>
	Digest layout.Digest // its manifest's digest
}

// Pull fetches from source, oci://host[:port]/repo[:tag|@digest], into
// dir: every skill a collection lists (or the one named skill), or a
// skill's own artifact. Each skill is unpacked into dir/<name>, which must
// not exist, with its attached folder signature (skill.oms.sig).
// Everything fetched is held to its digest and to limits (manifests,
// layout.MaxSkills, pack's limits per archive, o.MaxTotal for all). An
// error wrapping ErrExists is a folder that was there before, ErrWrite a
// failure to write. Requests are retried as a publish's are.
func Pull(ctx context.Context, source, dir, skill string, o Options) ([]Pulled, error) {
	t, r, err := openSource(source, o)
	if err != nil {
		return nil, err
	}
	done, err := hold(dir)
	if err != nil {
		return nil, err
	}
	defer done()
	p := puller{
		r: r, t: t, run: o.Runner(source, publish.DefaultJobs, retryable), dir: dir,
		total: cmp.Or(o.MaxTotal, DefaultMaxTotal), archives: map[digest.Digest]string{}, names: map[string]bool{},
	}
	p.run.Command = "pull"
	desc, data, err := p.manifest(ctx, t.Tag)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, loggedOut(t, err, "pull"))
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
		if len(top.Manifests) > layout.MaxSkills {
			return nil, fmt.Errorf("%s lists %d skills, more than the %d a bundle may have (the limit); not pulled", source, len(top.Manifests), layout.MaxSkills)
		}
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
	// A skill already in dir is refused before any is written, by the
	// name the collection gives it (its manifest's is checked as pulled).
	var there []string
	for _, d := range skills {
		name := d.Annotations[annSkillName]
		if name == "" && top.ArtifactType == ArtifactTypeSkill {
			continue // one skill: its name is in its manifest, checked as it is pulled
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); layout.CheckName(name) == nil && err == nil {
			there = append(there, filepath.Join(dir, name))
		}
	}
	if len(there) > 0 {
		format := "%s %w: remove it, or pull into another folder (-o); nothing was written"
		if len(there) > 1 {
			format = "%s: each %w: remove them, or pull into another folder (-o); nothing was written"
		}
		return nil, fmt.Errorf(format, strings.Join(there, ", "), ErrExists)
	}
	var out []Pulled
	for _, d := range skills {
		pulled, err := p.skill(ctx, d)
		if err != nil {
			return out, fmt.Errorf("%s: %w", Scheme+t.Ref(string(d.Digest)), err)
		}
		if skill != "" && pulled.Name != skill {
			return out, fmt.Errorf("%s is skill %s, not %s", source, pulled.Name, skill)
		}
		out = append(out, pulled)
	}
	return out, nil
}

// ErrExists is the error of a pull whose skill folder is already there.
var ErrExists = errors.New("already exists")

// CheckSource returns why s is not a source Pull takes, or nil.
func CheckSource(s string) error {
	_, err := parse(s, "source", "[:tag or @sha256:digest]")
	return err
}

// openSource is a source to read from as a Target (its Tag a tag or a
// digest) and its repository.
func openSource(source string, o Options) (Target, *remoteRepo, error) {
	t, err := parse(source, "source", "[:tag or @sha256:digest]")
	if err != nil {
		return t, nil, err
	}
	r, err := newRemote(t, o, nil)
	return t, r, err
}

// fetchManifest fetches a manifest by tag or digest, checking its digest
// and its size, up to maxManifestSize, before a byte of the body is read:
// oras-go bounds only what it must hash itself, and takes the size from
// Content-Length when the registry sends Docker-Content-Digest.
func (r *remoteRepo) fetchManifest(ctx context.Context, reference string) (ocispec.Descriptor, []byte, error) {
	desc, rc, err := r.repo.Manifests().FetchReference(ctx, reference)
	if err != nil {
		return desc, nil, r.timedOut(ctx, err)
	}
	defer rc.Close()
	if desc.Size > maxManifestSize {
		return desc, nil, fmt.Errorf("the registry sends a manifest of %d bytes for %s, more than the %d a manifest may be; not read", desc.Size, reference, maxManifestSize)
	}
	data, err := content.ReadAll(rc, desc)
	if errors.Is(err, content.ErrMismatchedDigest) {
		err = fmt.Errorf("the registry sends a manifest for %s whose bytes are not its digest %s: %w", reference, desc.Digest, err)
	}
	return desc, data, r.timedOut(ctx, err)
}

// puller is one Pull's state: what the skills pulled so far have used of
// the limits.
type puller struct {
	r        *remoteRepo
	t        Target
	run      *publish.Runner // retries each request
	dir      string
	total    int64                    // Options.MaxTotal
	unpacked int64                    // bytes written so far, every skill together
	archives map[digest.Digest]string // archive → the skill pulled from it
	names    map[string]bool          // the skills pulled
}

// manifest fetches a manifest, retrying as the pull does.
func (p *puller) manifest(ctx context.Context, reference string) (desc ocispec.Descriptor, data []byte, err error) {
	err = p.run.Call(ctx, func(ctx context.Context) (err error) {
		desc, data, err = p.r.fetchManifest(ctx, reference)
		return err
	})
	return desc, data, err
}

// skill fetches one skill's manifest and archive and unpacks it.
func (p *puller) skill(ctx context.Context, d ocispec.Descriptor) (Pulled, error) {
	desc, data, err := p.manifest(ctx, string(d.Digest))
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
	case p.names[name]:
		return Pulled{}, fmt.Errorf("skill %s is listed twice; a bundle's skill names are unique", name)
	case layer == nil:
		return Pulled{}, fmt.Errorf("skill %s has no %s layer", name, MediaTypeSkillContent)
	case layer.Size < 0 || layer.Size > pack.MaxFile:
		return Pulled{}, fmt.Errorf("skill %s: an archive of %d bytes, over the limit of %d; not fetched", name, layer.Size, pack.MaxFile)
	case p.archives[layer.Digest] != "":
		// Each skill's archive holds its own SKILL.md, so no two are one
		// blob: else one archive could be unpacked again and again.
		return Pulled{}, fmt.Errorf("skill %s's archive %s is skill %s's; a bundle's skills never share one", name, layer.Digest, p.archives[layer.Digest])
	}
	p.archives[layer.Digest], p.names[name] = name, true
	archive, err := publish.Retried(ctx, p.run, func(ctx context.Context) ([]byte, error) {
		return p.r.fetchBlob(ctx, *layer)
	})
	if err != nil {
		return Pulled{}, fmt.Errorf("skill %s's archive %s: %w", name, layer.Digest, err)
	}
	dest := filepath.Join(p.dir, name)
	if _, err := os.Lstat(dest); err == nil {
		return Pulled{}, fmt.Errorf("%s %w: remove it, or pull into another folder (-o)", dest, ErrExists)
	}
	// Unpacked beside its place and renamed in: a refused archive leaves
	// nothing.
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return Pulled{}, fmt.Errorf("%w: %w", ErrWrite, err)
	}
	tmp, err := tempDir(p.dir, name)
	if err != nil {
		return Pulled{}, fmt.Errorf("%w: %w", ErrWrite, err)
	}
	defer os.RemoveAll(tmp)
	n, err := unpack(archive, tmp, pack.Limits{}, p.total, p.total-p.unpacked)
	if err != nil {
		return Pulled{}, fmt.Errorf("skill %s's archive: %w", name, err)
	}
	p.unpacked += n
	// The folder signature attached to the manifest goes where `skillpack
	// verify` and OMS verifiers look for it; a skill.oms.sig the skill
	// ships in its archive is its author's, and is kept.
	sigFile := filepath.Join(tmp, layout.FolderSignatureFile)
	if _, err := os.Lstat(sigFile); err != nil {
		sig, err := publish.Retried(ctx, p.run, func(ctx context.Context) ([]byte, error) {
			return p.r.folderSignature(ctx, p.t, desc)
		})
		if err != nil {
			return Pulled{}, fmt.Errorf("skill %s's folder signature: %w", name, err)
		}
		if sig != nil {
			if err := os.WriteFile(sigFile, sig, 0o644); err != nil {
				return Pulled{}, fmt.Errorf("%w: %w", ErrWrite, err)
			}
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		return Pulled{}, fmt.Errorf("%w: %w", ErrWrite, err)
	}
	return Pulled{Name: name, Dir: dest, Digest: layout.Digest(desc.Digest)}, nil
}

// folderSignature is the folder signature attached to a skill's manifest
// (ArtifactTypeFolderSignature), or nil when it has none. Of two
// signatures, the lowest digest is taken, as verify does.
func (r *remoteRepo) folderSignature(ctx context.Context, t Target, subject ocispec.Descriptor) ([]byte, error) {
	refs, err := r.referrers(ctx, subject, ArtifactTypeFolderSignature)
	if err != nil {
		return nil, r.timedOut(ctx, err)
	}
	i := slices.IndexFunc(refs, func(d ocispec.Descriptor) bool { return d.Annotations[annTitle] == layout.FolderSignatureFile })
	if i < 0 {
		return nil, nil
	}
	s := &Store{r: r, t: t}
	return s.signature(ctx, sigRef{manifest: refs[i], subject: subject.Digest, artifactType: ArtifactTypeFolderSignature})
}

// fetchBlob reads a blob whole, checking its size and digest.
func (r *remoteRepo) fetchBlob(ctx context.Context, desc ocispec.Descriptor) ([]byte, error) {
	data, err := content.FetchAll(ctx, r.repo.Blobs(), desc)
	return data, r.timedOut(ctx, err)
}

// unpack writes a skill archive's files under dir and returns how many
// bytes it wrote. pack.Unpack reads it as verify does, under l, and its
// first problem stops the pull; budget is what is left of the pull's
// total, and each file's size is held to it before the file is created.
func unpack(archive []byte, dir string, l pack.Limits, total, budget int64) (int64, error) {
	var n int64
	entryFile := false
	err := pack.Unpack(archive, false, l, func(name, why string, _ bool) error {
		return fmt.Errorf("entry %q %s", name, why)
	}, func(e pack.Member, r io.Reader) error {
		if n+e.Size > budget {
			return fmt.Errorf("%q is %d bytes: the pull would unpack more than %d bytes, every skill together (the limit)", e.Path, e.Size, total)
		}
		err := writeFile(filepath.Join(dir, filepath.FromSlash(e.Path)), r, e)
		n, entryFile = n+e.Size, entryFile || e.Path == layout.EntryFile
		return err
	})
	if err == nil && !entryFile {
		err = fmt.Errorf("it has no %s at its root", layout.EntryFile)
	}
	return n, err
}

func writeFile(name string, r io.Reader, e pack.Member) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return collision(e.Path, err)
	}
	// O_EXCL: a path that is also a folder of another entry, or a name
	// the file system folds onto another, is refused, not overwritten.
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, pack.Perm(e.Exec))
	if err != nil {
		return collision(e.Path, err)
	}
	_, err = io.CopyN(f, r, e.Size)
	err = cmp.Or(err, f.Close())
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%w: %w", ErrWrite, err) // the file's: a full disk
	}
	return err // the archive's: cut short, or not gzip
}

// collision is the error of an entry that cannot be created: another
// entry in its way is the archive's fault; anything else a failure to
// write.
func collision(entry string, err error) error {
	if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%q collides with another entry of it: %w", entry, err)
	}
	return fmt.Errorf("%w: %w", ErrWrite, err)
}

// hold makes the folder pulled into, before anything is fetched, and
// holds it against another pull (the lock a build holds of its output);
// then removes what a pull killed there left (tempDir's folders). A file
// in its place, or a folder another pull holds, is the user's to mend.
// done lets go, and removes the folder if it made it and it is empty (a
// pull that fetched nothing leaves nothing).
func hold(dir string) (done func(), err error) {
	abs, err := filepath.Abs(dir)
	_, missing := os.Stat(abs)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	if err != nil {
		return nil, publish.Refused{Err: fmt.Errorf("cannot pull into %s: %w; give a folder (-o)", dir, err), Class: 2}
	}
	made := func() {
		if missing != nil {
			os.Remove(abs)
		}
	}
	unlock, err := outlock.Take(abs, "pull")
	if be := (*outlock.BusyError)(nil); errors.As(err, &be) {
		made()
		return nil, publish.Refused{Err: be, Class: 2}
	}
	if err != nil {
		return made, nil // a folder whose parent cannot hold the lock goes unlocked, and is not swept
	}
	ents, _ := os.ReadDir(abs)
	for _, e := range ents {
		if e.IsDir() && pullTemp(e.Name()) {
			os.RemoveAll(filepath.Join(abs, e.Name()))
		}
	}
	return func() { unlock(); made() }, nil
}

// tempDir makes the folder a skill is unpacked into beside its place,
// .NAME.pull-DIGITS, with the mode a folder made there gets (MkdirTemp's
// is 0700).
func tempDir(dir, name string) (string, error) {
	for {
		p := filepath.Join(dir, fmt.Sprintf(".%s.pull-%d", name, rand.Uint32()))
		err := os.Mkdir(p, 0o755)
		if !errors.Is(err, fs.ErrExist) {
			return p, err
		}
	}
}

// pullTemp reports whether a folder's name is one tempDir gives.
func pullTemp(name string) bool {
	i := strings.LastIndex(name, ".pull-")
	if i < 2 || name[0] != '.' {
		return false
	}
	digits := name[i+len(".pull-"):]
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}
