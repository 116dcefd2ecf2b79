package oci

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// Store is a bundle as a registry holds it, read by dist path: the
// bundle.Store that `skillpack verify oci://host[:port]/repo[:tag]` checks.
// A registry holds part of a bundle (Holds). Check maps every dist path it
// holds to its blob and checks what only a registry has (the tag is a
// collection, each manifest agrees with its layers and config, documents
// and signatures are attached to what they describe); verify then checks
// the bundle over those paths as it checks a folder.
//
// Nothing a registry sends is trusted: a manifest is read up to
// maxManifestSize and checked against its digest, a config up to
// maxConfig, every name and title is checked before it becomes a path, a
// blob is checked as it streams (Open), and each request has
// Options.Timeout (verify's --timeout).
type Store struct {
	t         Target
	r         *remoteRepo
	jobs      int
	maxSkills int

	mu    sync.Mutex
	blobs map[string]ocispec.Descriptor // dist path → its blob; set by Check
	sigs  map[string]sigRef             // a signature's dist path → its referrer
	// pinned maps the files of a versioned bundle's version folders to the
	// blobs of the skill's artifact, which its version tag names: a
	// registry holds a version once, as that artifact. They are in Files
	// only when the bundle has versions.json (built with --versioned).
	pinned map[string]ocispec.Descriptor
	// own holds the manifests' own signatures (cosign's), by subject,
	// which Check verifies with verifyStatement when there is one.
	own             map[digest.Digest][]ocispec.Descriptor
	verifyStatement func([]byte) ([]byte, error)
	verifying       sync.Mutex // a verifier need not be safe for concurrent use
}

// sigRef is a Sigstore bundle attached to subject, by its manifest.
type sigRef struct {
	manifest     ocispec.Descriptor
	subject      digest.Digest
	artifactType string // ArtifactTypeSigstoreBundle or ArtifactTypeFolderSignature
}

// maxConfig is the largest skill config read: a name, a version, a
// licence and a description of at most 1,024 characters.
const maxConfig = 64 << 10

// OpenStore is the bundle at source, oci://host[:port]/repo[:tag] (tag
// latest when none) or @sha256:<digest>, reached with o's credentials and
// Insecure (Jobs is how many manifests are read at once). A collection
// that lists more than maxSkills skills is not read further. Nothing is
// asked of the registry until Check.
func OpenStore(source string, o Options, maxSkills int) (*Store, error) {
	t, r, err := openSource(source, o)
	if err != nil {
		return nil, err
	}
	return &Store{
		t: t, r: r,
		jobs: cmp.Or(o.Jobs, publish.DefaultJobs), maxSkills: maxSkills,
		blobs: map[string]ocispec.Descriptor{}, sigs: map[string]sigRef{}, pinned: map[string]ocispec.Descriptor{},
		own: map[digest.Digest][]ocispec.Descriptor{}, verifyStatement: o.VerifyStatement,
	}, nil
}

func (s *Store) String() string { return Scheme + s.t.Ref(s.t.Tag) }

// at names a manifest or blob of the repository in a problem.
func (s *Store) at(d digest.Digest) string { return Scheme + s.t.Ref(string(d)) }

// Holds reports whether a registry holds the file at a dist path: not a
// .zip, not a file of the v0.1 tree, and of a skill's files in the v0.2
// tree only SKILL.md, and its skill.oms.sig when Check found one attached
// (a skill.oms.sig the skill ships itself is in its archive only, which
// is where verify then looks for it).
func (s *Store) Holds(p string) bool {
	if _, ok := layout.ParseFolderSignature(p); ok {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, held := s.sigs[p]
		return held
	}
	pp, ok := layout.ParsePath(p)
	switch {
	case !ok: // a signature, or a document layout does not know
		return true
	case pp.Kind == layout.KindArchive:
		return pp.Format == layout.TarGz
	case pp.Kind == layout.KindFile:
		return !pp.Legacy && pp.File == layout.EntryFile
	case pp.Kind == layout.KindVersion:
		return pp.Format == layout.TarGz || pp.File == layout.EntryFile
	}
	return true
}

// Files is every dist path Check found a blob or a signature for, and
// with versions.json the files of the version folders.
func (s *Store) Files() ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	files := slices.Collect(maps.Keys(s.blobs))
	files = append(files, slices.Collect(maps.Keys(s.sigs))...)
	if _, versioned := s.blobs[layout.VersionsIndex]; versioned {
		files = append(files, slices.Collect(maps.Keys(s.pinned))...)
	}
	slices.Sort(files)
	return files, true
}

// hold maps a dist path to a blob, once; a second claim is a problem of
// the manifest at 'at'.
func (s *Store) hold(p string, d ocispec.Descriptor, at string, problem func(path, message string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.blobs[p]; dup {
		problem(at, fmt.Sprintf("a second blob for %s; each file of a bundle is pushed once", p))
		return
	}
	s.blobs[p] = d
}

// Check reads the collection, its documents, every skill's manifest and
// config and the signatures' referrers, mapping the dist paths the
// registry holds and reporting what is wrong with them. Its error is a
// reference that cannot be resolved or is not a collection, a registry
// that refuses the credentials, or a collection with no documents.
func (s *Store) Check(ctx context.Context, problem func(path, message string)) error {
	desc, data, err := s.r.fetchManifest(ctx, s.t.Tag)
	if err != nil {
		return loggedOut(s.t, err, "pull")
	}
	var idx ocispec.Index
	if err := json.Unmarshal(data, &idx); err != nil {
		return fmt.Errorf("the manifest %s is not an image index: %v", desc.Digest, err)
	}
	switch idx.ArtifactType {
	case ArtifactTypeCollection:
	case ArtifactTypeSkill:
		return fmt.Errorf("is one skill's artifact, not a bundle: verify the release's tag (the collection), such as %s", Scheme+s.t.Ref(DefaultTag))
	default:
		return fmt.Errorf("is not a bundle that skillpack publish pushed: artifactType %q, want %s", idx.ArtifactType, ArtifactTypeCollection)
	}
	key := idx.Annotations[annBundleKey]
	if !layout.Digest(key).Valid() {
		problem(s.at(desc.Digest), fmt.Sprintf("the collection's %s is %q, not a bundle key (sha256: and 64 hex digits)", annBundleKey, key))
	}
	docs, err := s.documents(ctx, desc, key, problem)
	if err != nil {
		return err
	}
	if len(idx.Manifests) > s.maxSkills {
		problem(s.at(desc.Digest), fmt.Sprintf("the collection lists %d skills, more than the limit of %d (--max-skills); its skills were not read", len(idx.Manifests), s.maxSkills))
		return nil
	}
	var entries []ocispec.Descriptor
	seen := map[string]bool{}
	for i, e := range idx.Manifests {
		name := e.Annotations[annSkillName]
		switch err := layout.CheckName(name); {
		case err != nil:
			problem(s.at(desc.Digest), fmt.Sprintf("the collection's entry %d has no valid skill name in %s: %v", i, annSkillName, err))
		case seen[name]:
			problem(s.at(desc.Digest), fmt.Sprintf("the collection lists skill %s twice", name))
		default:
			seen[name] = true
			entries = append(entries, e)
		}
	}
	parallel.Each(len(entries)+2, s.jobs, func(i int) error {
		switch {
		case i == len(entries)+1:
			// The collection's own signature, and nothing else.
			s.signatures(ctx, desc, "", problem, func(string) bool { return false })
		case i == len(entries):
			s.signatures(ctx, docs, "", problem, func(p string) bool {
				a, _ := layout.SignedArtifact(p)
				pp, ok := layout.ParsePath(a)
				return s.has(a) && (!ok || pp.Kind == layout.KindDoc || pp.Kind == layout.KindPage)
			})
		default:
			s.skill(ctx, entries[i], problem)
		}
		return nil
	})
	s.olderVersions(ctx, problem)
	s.manifestSignatures(ctx, problem)
	return ctx.Err()
}

func (s *Store) has(p string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.blobs[p]
	return ok
}

// documents finds the collection's documents referrer, maps its layers
// to their dist paths and returns its descriptor.
func (s *Store) documents(ctx context.Context, idx ocispec.Descriptor, key string, problem func(path, message string)) (ocispec.Descriptor, error) {
	refs, err := s.r.referrers(ctx, idx, ArtifactTypeDocuments)
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("listing the collection's referrers: %w", err)
	}
	if len(refs) == 0 {
		return ocispec.Descriptor{}, fmt.Errorf("the collection %s has no documents attached (a referrer of type %s): it was not pushed by skillpack publish, or its run stopped before them; publish again", idx.Digest, ArtifactTypeDocuments)
	}
	if len(refs) > 1 {
		problem(s.at(idx.Digest), fmt.Sprintf("has %d documents referrers, where skillpack attaches one; %s, the lowest digest, was read", len(refs), refs[0].Digest))
	}
	d := refs[0]
	m, ok := s.manifest(ctx, d, ArtifactTypeDocuments, idx.Digest, problem)
	if !ok {
		return ocispec.Descriptor{}, fmt.Errorf("the collection's documents %s cannot be read; publish again", d.Digest)
	}
	if got := m.Annotations[annBundleKey]; got != key {
		problem(s.at(d.Digest), fmt.Sprintf("the documents' bundle key is %q, the collection's %q: they are not of one bundle", got, key))
	}
	for _, l := range m.Layers {
		title := l.Annotations[annTitle]
		pp, known := layout.ParsePath(title)
		_, sig := layout.SignedArtifact(title)
		switch {
		case layout.CheckPath(title) != nil:
			problem(s.at(d.Digest), fmt.Sprintf("a layer is titled %q, which is not a path inside a bundle", title))
		case sig || known && pp.Kind != layout.KindDoc && pp.Kind != layout.KindPage:
			problem(s.at(d.Digest), fmt.Sprintf("the layer titled %s is not a document; a skill's files and signatures are not among the documents", title))
		case !s.blob(l, d.Digest, problem):
		default:
			s.hold(title, l, s.at(d.Digest), problem)
		}
	}
	return d, nil
}

// skill checks one skill's manifest and config and maps its layers and
// signatures.
func (s *Store) skill(ctx context.Context, e ocispec.Descriptor, problem func(path, message string)) {
	name, at := e.Annotations[annSkillName], s.at(e.Digest)
	m, ok := s.manifest(ctx, e, ArtifactTypeSkill, "", problem)
	if !ok {
		return
	}
	if got := m.Annotations[annSkillName]; got != name {
		problem(at, fmt.Sprintf("the collection lists it as skill %s, its manifest names %q", name, got))
		return
	}
	tgz, md, ok := s.layers(name, at, m, e, problem)
	if !ok {
		return
	}
	// The archive is found where its title says, so that verify compares
	// its bytes with what the indexes say of that archive.
	tgzDigest := layout.Digest(tgz.Digest)
	archive := layout.ArchiveName(name, tgzDigest, layout.TarGz)
	path := layout.SkillsDir + "/" + archive
	title := tgz.Annotations[annTitle]
	switch n, _, ext, ok := layout.ParseArchiveName(title); {
	case title == archive:
	case ok && n == name && ext == layout.TarGz: // another of the skill's archives
		path = layout.SkillsDir + "/" + title
		problem(at, fmt.Sprintf("skill %s's archive layer is titled %s, but its digest %s names it %s", name, title, tgzDigest, archive))
	default:
		problem(at, fmt.Sprintf("skill %s's archive layer is titled %q, not %s", name, title, archive))
	}
	if title := md.Annotations[annTitle]; title != layout.EntryFile {
		problem(at, fmt.Sprintf("skill %s's %s layer is titled %q, not %s", name, MediaTypeSkillMD, title, layout.EntryFile))
	}
	for _, l := range []struct {
		ann  string
		want digest.Digest
	}{{annTarGzDigest, tgz.Digest}, {annSkillMDDigest, md.Digest}} {
		if got := m.Annotations[l.ann]; got != string(l.want) {
			problem(at, fmt.Sprintf("skill %s's %s is %q, but the layer's digest is %s", name, l.ann, got, l.want))
		}
	}
	s.hold(path, tgz, at, problem)
	s.hold(layout.SkillFile(name, layout.EntryFile), md, at, problem)
	if v := m.Annotations[annVersion]; v != "" {
		s.version(ctx, name, v, e, tgz, md, problem)
	}
	s.config(ctx, name, at, m, e, problem)
	s.signatures(ctx, e, layout.SkillsDir+"/", problem, func(p string) bool {
		a, _ := layout.SignedArtifact(p)
		pp, ok := layout.ParsePath(a)
		return ok && pp.Kind == layout.KindArchive && pp.Skill == name
	})
	// The folder signature (ArtifactTypeFolderSignature), as skill.oms.sig
	// among the skill's files.
	s.attached(ctx, e, ArtifactTypeFolderSignature, problem, func(r ocispec.Descriptor) string {
		if title := r.Annotations[annTitle]; title != layout.FolderSignatureFile {
			problem(s.at(r.Digest), fmt.Sprintf("a folder signature attached to skill %s is titled %q, not %s", name, title, layout.FolderSignatureFile))
			return ""
		}
		return layout.FolderSignature(name)
	})
}

// layers are a skill artifact's .tar.gz and SKILL.md layers, one each, as
// publish pushes them, checked against their descriptors.
func (s *Store) layers(name, at string, m ocispec.Manifest, e ocispec.Descriptor, problem func(path, message string)) (tgz, md ocispec.Descriptor, ok bool) {
	var tgzs, mds []ocispec.Descriptor
	for _, l := range m.Layers {
		switch l.MediaType {
		case MediaTypeSkillContent:
			tgzs = append(tgzs, l)
		case MediaTypeSkillMD:
			mds = append(mds, l)
		default:
			problem(at, fmt.Sprintf("skill %s has a layer of type %q, which skillpack does not push", name, l.MediaType))
		}
	}
	if len(tgzs) != 1 || len(mds) != 1 {
		problem(at, fmt.Sprintf("skill %s has %d layers of type %s and %d of type %s; skillpack pushes one of each", name, len(tgzs), MediaTypeSkillContent, len(mds), MediaTypeSkillMD))
		return tgz, md, false
	}
	return tgzs[0], mds[0], s.blob(tgzs[0], e.Digest, problem) && s.blob(mds[0], e.Digest, problem)
}

// pin maps version v of skill name's version folder to its artifact's
// blobs.
func (s *Store) pin(name, v string, tgz, md ocispec.Descriptor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pinned[layout.VersionFile(name, v, layout.EntryFile)] = md
	s.pinned[layout.VersionArchive(name, v, layout.Digest(tgz.Digest), layout.TarGz)] = tgz
}

// olderVersions maps the version folders of the versions versions.json
// lists beyond the ones the collection's skills are at (version) to the
// artifacts their version tags name: publish sends no version folder to
// a registry, which keeps each version once, as that tag.
func (s *Store) olderVersions(ctx context.Context, problem func(path, message string)) {
	if !s.has(layout.VersionsIndex) {
		return
	}
	rc, _, err := s.Open(ctx, layout.VersionsIndex)
	if err != nil {
		return // verify reports the document itself
	}
	data, err := io.ReadAll(io.LimitReader(rc, layout.MaxDocument+1))
	rc.Close()
	doc, derr := layout.DecodeVersions(data)
	if err != nil || derr != nil {
		return
	}
	type version struct{ name, v string }
	var todo []version
	s.mu.Lock()
	for _, sk := range doc.Skills {
		for _, sv := range sk.Versions {
			if _, ok := s.pinned[layout.VersionFile(sk.Name, sv.Version, layout.EntryFile)]; !ok {
				todo = append(todo, version{sk.Name, sv.Version})
			}
		}
	}
	s.mu.Unlock()
	parallel.Each(len(todo), s.jobs, func(i int) error {
		name, v := todo[i].name, todo[i].v
		tag, ok := VersionTag(name, v)
		if !ok {
			return nil // versions.json's own check names a version no tag can carry
		}
		d, err := s.r.repo.Resolve(ctx, tag)
		switch {
		case errors.Is(err, errdef.ErrNotFound):
			problem(layout.VersionsIndex, fmt.Sprintf("skill %s's version %s has no tag %s in the registry; publish the bundle that made it again to tag it", name, v, tag))
			return nil
		case err != nil:
			problem(layout.VersionsIndex, fmt.Sprintf("skill %s's version tag %s cannot be resolved: %v", name, tag, err))
			return nil
		}
		m, ok := s.manifest(ctx, d, ArtifactTypeSkill, "", problem)
		if !ok {
			return nil
		}
		if got := m.Annotations[annSkillName]; got != name || m.Annotations[annVersion] != v {
			problem(s.at(d.Digest), fmt.Sprintf("the version tag %s names skill %q at version %q", tag, got, m.Annotations[annVersion]))
			return nil
		}
		if tgz, md, ok := s.layers(name, s.at(d.Digest), m, d, problem); ok {
			s.pin(name, v, tgz, md)
		}
		return nil
	})
}

// version maps a versioned skill's version folder to its artifact's
// blobs, and checks that the version's tag names this artifact: a tag
// moved to other bytes is a published version changed.
func (s *Store) version(ctx context.Context, name, v string, e, tgz, md ocispec.Descriptor, problem func(path, message string)) {
	s.pin(name, v, tgz, md)
	tag, ok := VersionTag(name, v)
	if !ok {
		return
	}
	at := s.at(e.Digest)
	switch d, err := s.r.repo.Resolve(ctx, tag); {
	case errors.Is(err, errdef.ErrNotFound):
		problem(at, fmt.Sprintf("skill %s's version tag %s is not in the registry; publish the bundle again to tag it", name, tag))
	case err != nil:
		problem(at, fmt.Sprintf("skill %s's version tag %s cannot be resolved: %v", name, tag, err))
	case d.Digest != e.Digest:
		problem(at, fmt.Sprintf("skill %s's version tag %s names %s, not the collection's manifest of version %s: the published version was changed; bump the skill's version instead", name, tag, d.Digest, v))
	}
}

// config checks a skill's config blob against its manifest's annotations
// and the collection's entry.
func (s *Store) config(ctx context.Context, name, at string, m ocispec.Manifest, e ocispec.Descriptor, problem func(path, message string)) {
	c := m.Config
	switch {
	case c.MediaType != MediaTypeSkillConfig:
		problem(at, fmt.Sprintf("skill %s's config is of type %q, not %s", name, c.MediaType, MediaTypeSkillConfig))
		return
	case c.Size < 0 || c.Size > maxConfig:
		problem(at, fmt.Sprintf("skill %s's config is %d bytes, more than a skill's config takes (%d); not read", name, c.Size, maxConfig))
		return
	case !s.blob(c, e.Digest, problem):
		return
	}
	data, err := s.r.fetchBlob(ctx, c) // checks the size and digest
	if err != nil {
		problem(s.at(c.Digest), fmt.Sprintf("skill %s's config cannot be read: %v", name, err))
		return
	}
	var cfg skillConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		problem(s.at(c.Digest), fmt.Sprintf("skill %s's config is not a JSON object of a skill: %v", name, err))
		return
	}
	for _, f := range []struct{ field, got, ann, want string }{
		{"name", cfg.Name, annSkillName, m.Annotations[annSkillName]},
		{"description", cfg.Description, annDescription, m.Annotations[annDescription]},
		{"version", cfg.Version, annVersion, m.Annotations[annVersion]},
		{"license", cfg.License, annLicenses, m.Annotations[annLicenses]},
		{"version", cfg.Version, annVersion + " in the collection", e.Annotations[annVersion]},
	} {
		if f.got != f.want {
			problem(at, fmt.Sprintf("skill %s's config gives %s %q, its %s %q", name, f.field, f.got, f.ann, f.want))
		}
	}
}

// signatures maps the Sigstore bundles attached to subject by their
// titles: a signature's DIST path, under dir (a skill's archives' are
// titled with their names alone). It keeps those whose path ok accepts and
// reports the rest.
func (s *Store) signatures(ctx context.Context, subject ocispec.Descriptor, dir string, problem func(path, message string), ok func(path string) bool) {
	s.attached(ctx, subject, ArtifactTypeSigstoreBundle, problem, func(r ocispec.Descriptor) string {
		if pt, ok := r.Annotations[annBundlePredicateType]; ok {
			// The manifest's own signature or attestation, as cosign
			// attaches one: not a file of the bundle.
			if pt == CosignSignPredicate {
				s.mu.Lock()
				s.own[subject.Digest] = append(s.own[subject.Digest], r)
				s.mu.Unlock()
			}
			return ""
		}
		title := r.Annotations[annTitle]
		p := dir + title
		if _, sig := layout.SignedArtifact(p); !sig || layout.CheckPath(p) != nil || !ok(p) {
			problem(s.at(r.Digest), fmt.Sprintf("a Sigstore bundle attached to %s is titled %q, which is not the signature of what it is attached to", subject.Digest, title))
			return ""
		}
		return p
	})
}

// attached maps the referrers of subject of one artifact type to the
// dist paths path gives them ("": none, or not a file of the bundle); of
// two of one path, the lowest digest.
func (s *Store) attached(ctx context.Context, subject ocispec.Descriptor, artifactType string, problem func(path, message string), path func(ocispec.Descriptor) string) {
	refs, err := s.r.referrers(ctx, subject, artifactType)
	if err != nil {
		problem(s.at(subject.Digest), fmt.Sprintf("its referrers cannot be listed: %v", err))
		return
	}
	for _, r := range refs {
		p := path(r)
		s.mu.Lock()
		if _, dup := s.sigs[p]; p != "" && !dup {
			s.sigs[p] = sigRef{manifest: r, subject: subject.Digest, artifactType: artifactType}
		}
		s.mu.Unlock()
	}
}

// maxSignature is the largest signature read whole: a certificate chain, a
// log entry, a timestamp and, for a folder signature, a statement listing
// the folder's files (a thousand files are well under 1 MiB).
const maxSignature = 4 << 20

// signature reads the Sigstore bundle of a signature's referrer, up to
// maxSignature bytes.
func (s *Store) signature(ctx context.Context, sig sigRef) ([]byte, error) {
	layer, err := s.sigstoreLayer(ctx, sig)
	if err != nil {
		return nil, err
	}
	if layer.Size > maxSignature {
		return nil, fmt.Errorf("its bundle is %d bytes, more than a signature takes (%d)", layer.Size, maxSignature)
	}
	return s.r.fetchBlob(ctx, layer)
}

// manifestSignatures verifies the manifests' own signatures as cosign
// verify does: a manifest passes when one is by the expected signer over
// its digest (a manifest without any passes: publish --sign is a choice).
func (s *Store) manifestSignatures(ctx context.Context, problem func(path, message string)) {
	if s.verifyStatement == nil {
		return
	}
	subjects := slices.Sorted(maps.Keys(s.own))
	parallel.Each(len(subjects), s.jobs, func(i int) error {
		subject := subjects[i]
		var why []string
		for _, r := range s.own[subject] {
			err := s.manifestSignature(ctx, subject, r)
			if err == nil {
				return nil
			}
			why = append(why, fmt.Sprintf("%s: %v", r.Digest, err))
		}
		problem(s.at(subject), fmt.Sprintf("none of its %d signatures (cosign's, of the manifest) verifies: %s", len(why), strings.Join(why, "; ")))
		return nil
	})
}

// manifestSignature checks one signature of the manifest subject: its
// bundle is by the expected signer, and its statement is cosign's over
// subject's digest.
func (s *Store) manifestSignature(ctx context.Context, subject digest.Digest, r ocispec.Descriptor) error {
	data, err := s.signature(ctx, sigRef{manifest: r, subject: subject, artifactType: ArtifactTypeSigstoreBundle})
	if err != nil {
		return err
	}
	s.verifying.Lock()
	raw, err := s.verifyStatement(data)
	s.verifying.Unlock()
	if err != nil {
		return err
	}
	var st cosignStatement
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("its statement is not an in-toto statement: %v", err)
	}
	if st.PredicateType != CosignSignPredicate {
		return fmt.Errorf("its statement's predicate is %q, not %s", st.PredicateType, CosignSignPredicate)
	}
	if len(st.Subject) != 1 || st.Subject[0].Digest[subject.Algorithm().String()] != subject.Encoded() {
		var about []string
		for _, sub := range st.Subject {
			for _, alg := range slices.Sorted(maps.Keys(sub.Digest)) {
				about = append(about, alg+":"+sub.Digest[alg])
			}
		}
		return fmt.Errorf("its statement is about %s, not %s", cmp.Or(strings.Join(about, ", "), "nothing"), subject)
	}
	return nil
}

// maxReferrers bounds the referrers of one type a subject may have: a
// skillpack manifest has one or two of each, and a registry that pages
// through more without end would hold a pull or a verify for ever.
const maxReferrers = 1000

// referrers lists the referrers of subject of one artifact type, sorted by
// digest.
func (r *remoteRepo) referrers(ctx context.Context, subject ocispec.Descriptor, artifactType string) ([]ocispec.Descriptor, error) {
	var out []ocispec.Descriptor
	err := r.repo.Referrers(ctx, subject, artifactType, func(refs []ocispec.Descriptor) error {
		for _, d := range refs {
			if d.ArtifactType == artifactType && d.Digest.Validate() == nil {
				out = append(out, d)
			}
		}
		if len(out) > maxReferrers {
			return fmt.Errorf("%s has more than %d referrers of type %s; not read further", subject.Digest, maxReferrers, artifactType)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b ocispec.Descriptor) int { return cmp.Compare(a.Digest, b.Digest) })
	return out, err
}

// manifest fetches and decodes an image manifest of the artifact type
// given, whose subject, if want is not "", is want.
func (s *Store) manifest(ctx context.Context, d ocispec.Descriptor, artifactType string, want digest.Digest, problem func(path, message string)) (ocispec.Manifest, bool) {
	at := s.at(d.Digest)
	var m ocispec.Manifest
	if d.Digest.Validate() != nil || d.Digest.Algorithm() != digest.SHA256 {
		problem(at, fmt.Sprintf("%q is not a sha256 digest", d.Digest))
		return m, false
	}
	got, data, err := s.r.fetchManifest(ctx, string(d.Digest))
	switch {
	case errors.Is(err, errdef.ErrNotFound):
		problem(at, "is named by the collection or a referrer, but the registry does not have it")
		return m, false
	case err != nil:
		problem(at, fmt.Sprintf("cannot be read: %v", err))
		return m, false
	case d.Size != got.Size:
		problem(at, fmt.Sprintf("is %d bytes, but what names it says %d", got.Size, d.Size))
	}
	if err := json.Unmarshal(data, &m); err != nil {
		problem(at, fmt.Sprintf("is not an image manifest: %v", err))
		return m, false
	}
	switch {
	case m.MediaType != ocispec.MediaTypeImageManifest:
		problem(at, fmt.Sprintf("is of type %q, not an image manifest", m.MediaType))
		return m, false
	case m.ArtifactType != artifactType:
		problem(at, fmt.Sprintf("has artifactType %q, not %s", m.ArtifactType, artifactType))
		return m, false
	case want != "" && (m.Subject == nil || m.Subject.Digest != want):
		problem(at, fmt.Sprintf("is not attached to %s", want))
		return m, false
	}
	return m, true
}

// blob reports whether a blob's descriptor can be fetched: a sha256
// digest and a size that is not negative.
func (s *Store) blob(d ocispec.Descriptor, owner digest.Digest, problem func(path, message string)) bool {
	if d.Digest.Validate() != nil || d.Digest.Algorithm() != digest.SHA256 || d.Size < 0 {
		problem(s.at(owner), fmt.Sprintf("names a blob %q of %d bytes: not a sha256 digest and a size", d.Digest, d.Size))
		return false
	}
	return true
}

// Open is the blob at a dist path, checked against its descriptor as it is
// read (a signature's referrer manifest first); fs.ErrNotExist for a path
// the registry holds no blob for.
func (s *Store) Open(ctx context.Context, p string) (io.ReadCloser, int64, error) {
	s.mu.Lock()
	d, ok := s.blobs[p]
	if !ok {
		d, ok = s.pinned[p]
	}
	sig, isSig := s.sigs[p]
	s.mu.Unlock()
	if isSig {
		var err error
		if d, err = s.sigstoreLayer(ctx, sig); err != nil {
			return nil, 0, err
		}
	} else if !ok {
		return nil, 0, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	rc, err := s.r.repo.Blobs().Fetch(ctx, d)
	if errors.Is(err, errdef.ErrNotFound) {
		return nil, 0, fmt.Errorf("the registry does not have blob %s: %w", d.Digest, fs.ErrNotExist)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("blob %s: %w", d.Digest, err)
	}
	// A changed or corrupt copy is caught at the read that ends the blob.
	return struct {
		io.Reader
		io.Closer
	}{bundle.Checked(rc, layout.Artifact{Path: "the registry's blob " + d.Digest.String(), Digest: layout.Digest(d.Digest), Size: d.Size}, "its manifest"), rc}, d.Size, nil
}

// sigstoreLayer is the one layer of a signature's referrer: its Sigstore
// bundle.
func (s *Store) sigstoreLayer(ctx context.Context, sig sigRef) (ocispec.Descriptor, error) {
	var msgs []string
	note := func(_, msg string) { msgs = append(msgs, msg) }
	m, ok := s.manifest(ctx, sig.manifest, sig.artifactType, sig.subject, note)
	switch {
	case !ok:
		return ocispec.Descriptor{}, fmt.Errorf("its referrer %s: %s", sig.manifest.Digest, msgs[0])
	case len(m.Layers) != 1 || m.Layers[0].MediaType != ArtifactTypeSigstoreBundle:
		return ocispec.Descriptor{}, fmt.Errorf("its referrer %s has %d layers; a signature's has one, a %s", sig.manifest.Digest, len(m.Layers), ArtifactTypeSigstoreBundle)
	case !s.blob(m.Layers[0], sig.manifest.Digest, note):
		return ocispec.Descriptor{}, fmt.Errorf("its referrer %s %s", sig.manifest.Digest, msgs[len(msgs)-1])
	}
	return m.Layers[0], nil
}

var _ bundle.Store = (*Store)(nil)
