package oci

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// plan is everything one publish pushes, as the runner's objects: each
// with a unique path that --json prints, the operation that puts it in
// place, and for a skill's manifest the blobs it waits for within its
// stage (see stageSkills).
type plan struct {
	objects []publish.Object
	ops     map[string]func(context.Context) (publish.State, error)
	needs   map[string][]*outcome // a manifest's path → its blobs'
	blobs   map[digest.Digest]*outcome
	// owners are the manifests that name each blob: one of them present
	// means the blob is, so a republish asks once per skill, not per blob.
	owners           map[digest.Digest][]ocispec.Descriptor
	tags             map[string]manifest // each tag the run moves, by name, and what it points it at
	index, documents manifest
	r                *remoteRepo // what the operations send to; set before the run
}

// outcome is a blob to push and what became of it, once it is known
// (done closed).
type outcome struct {
	blob
	name string // in the report
	done chan struct{}
	err  error // nil when the blob is in place, or would be on a dry run
}

// attachment is a manifest attached to subject: what the report calls it,
// and the title attach finds it by.
type attachment struct {
	what, title string
	stage       publish.Stage
	subject     ocispec.Descriptor
	m           manifest
}

// newPlan lays out the artifacts of the bundle b, sign signing the
// manifests when not nil. Each skill's manifest comes lag skills (the
// runner's jobs) after its blobs: the runner starts a stage's objects in
// order, so when a manifest starts its blobs are running or done, and
// waiting for them cannot block a worker for ever. It fails when the
// bundle's tags would collide in the repository. tags are the
// repository's (nil when it lists none): a version b carries
// (publish.Upload.Carried) is pushed only where its tag is not.
func newPlan(t Target, b *publish.Upload, sign Signer, lag int, tags map[string]bool) (*plan, error) {
	p := &plan{ops: map[string]func(context.Context) (publish.State, error){}, needs: map[string][]*outcome{},
		blobs: map[digest.Digest]*outcome{}, owners: map[digest.Digest][]ocispec.Descriptor{}, tags: map[string]manifest{}}
	var refs []skillRef
	var skills []manifest
	var attached []attachment
	tagOwner := map[string]string{}
	for i, s := range b.Skills {
		m := skillManifest(s)
		what := "manifest:" + s.Name
		for _, bl := range m.blobs {
			p.needs[what] = append(p.needs[what], p.addBlob(bl))
			p.owners[bl.desc.Digest] = append(p.owners[bl.desc.Digest], m.desc)
		}
		skills = append(skills, m)
		if i >= lag {
			p.addManifest(b.Skills[i-lag].Name, skills[i-lag])
		}
		refs = append(refs, skillRef{name: s.Name, version: s.Version, description: s.Description, desc: m.desc})
		// A signature goes with its manifest (attach), not with the
		// other blobs: an archive already signed keeps its signature, so
		// a new one is not sent at all. The empty config every signature
		// shares goes once with the blobs: distribution 2.8 refused a
		// manifest whose blob another worker was uploading.
		for _, sig := range s.Signatures {
			title := path.Base(sig.Path)
			attached = append(attached, attachment{"referrer:" + sig.Path, title, stageReferrers, m.desc, signatureManifest(m.desc, blobOf(sig), title)})
		}
		if f := s.FolderSignature; f.Path != "" {
			attached = append(attached, attachment{"referrer:" + f.Path, layout.FolderSignatureFile, stageReferrers, m.desc, folderSignatureManifest(m.desc, blobOf(f))})
		}
		if sign != nil {
			p.addSign("signature:"+s.Name, stageReferrers, m.desc, sign)
		}
		if tag, ok := VersionTag(s.Name, s.Version); ok {
			if other, dup := tagOwner[tag]; dup {
				return nil, fmt.Errorf("skills %s and %s would both be tagged %s in %s: rename one or change its version", other, s.Name, tag, t.Repository)
			}
			tagOwner[tag] = s.Name
			p.addTag(tag, stageVersionTags, m)
		}
	}
	for i := max(0, len(skills)-lag); i < len(skills); i++ {
		p.addManifest(b.Skills[i].Name, skills[i])
	}
	p.carry(b.Carried, tagOwner, tags)
	if owner, clash := tagOwner[t.Tag]; clash {
		return nil, fmt.Errorf("the release tag %s is also skill %s's version tag: choose another tag for %s", t.Tag, owner, t)
	}
	// The collection lists skills by name, as the indexes of DIST do.
	sort.Slice(refs, func(i, j int) bool { return refs[i].name < refs[j].name })
	p.index = collectionIndex(t, collectionName(t), string(b.Key), refs)
	p.add("index:"+t.Tag, stageReferrers, p.index.desc, func(ctx context.Context) (publish.State, error) {
		return p.r.pushManifest(ctx, p.index)
	})
	if sign != nil {
		p.addSign("signature:index:"+t.Tag, stageVersionTags, p.index.desc, sign)
	}

	var docBlobs []blob
	var docSigs []publish.Object
	for _, o := range b.Objects {
		a, sig := layout.SignedArtifact(o.Path)
		if pp, ok := layout.ParsePath(cmp.Or(a, o.Path)); ok && pp.Kind != layout.KindDoc && pp.Kind != layout.KindPage {
			continue // a skill's, in its artifact
		} else if sig {
			docSigs = append(docSigs, o)
			continue
		}
		bl := blobOf(o)
		bl.desc.MediaType = mediaTypeOf(o.ContentType)
		docBlobs = append(docBlobs, bl)
	}
	// The documents change with every release, so their blobs go with
	// the others, each retried on its own; the documents refer to the
	// index, and their signatures to them: each after its subject.
	p.documents = documentsManifest(p.index.desc, string(b.Key), docBlobs)
	for _, bl := range docBlobs {
		p.addBlob(bl)
		p.owners[bl.desc.Digest] = append(p.owners[bl.desc.Digest], p.documents.desc)
	}
	attached = append(attached, attachment{"documents:" + t.Tag, documentsTitle, stageVersionTags, p.index.desc, p.documents})
	for _, sig := range docSigs {
		// Titled with the whole DIST path: three documents are named
		// index.json, and attach takes a title it finds for present.
		attached = append(attached, attachment{"referrer:" + sig.Path, sig.Path, stageReleaseTag, p.documents.desc, signatureManifest(p.documents.desc, blobOf(sig), sig.Path)})
	}
	p.addBlob(emptyConfig)

	// Two referrers with the same blob (identical files a deterministic
	// signer signed alike) would upload it at once, which distribution 2.8
	// refuses: such a blob goes with the others, before either referrer.
	shared := map[digest.Digest]int{}
	for _, a := range attached {
		for _, bl := range a.m.blobs[1:] {
			shared[bl.desc.Digest]++
		}
	}
	for _, a := range attached {
		var own []blob
		for _, bl := range a.m.blobs[1:] {
			if _, sent := p.blobs[bl.desc.Digest]; sent || shared[bl.desc.Digest] > 1 {
				p.addBlob(bl)
			} else {
				own = append(own, bl)
			}
		}
		p.add(a.what, a.stage, a.m.desc, func(ctx context.Context) (publish.State, error) {
			return p.r.attach(ctx, a.subject, a.m, own, a.title)
		})
	}
	p.tags[t.Tag] = p.index
	p.add("tag:"+t.Tag, stageReleaseTag, p.index.desc, func(ctx context.Context) (publish.State, error) { return p.r.moveRelease(ctx, t.Tag, p.index) })
	return p, nil
}

// carry pushes each version a versioned bundle carries as its tag, where
// the repository has no such tag (a new repository, a mirror): a pinned
// client finds every version versions.json lists, as in a bucket. A tag
// there is left as it is, with what the release that made it pushed.
func (p *plan) carry(carried []publish.Skill, tagOwner map[string]string, tags map[string]bool) {
	for _, s := range carried {
		tag, ok := VersionTag(s.Name, s.Version)
		if _, dup := tagOwner[tag]; !ok || dup || tags[tag] {
			continue
		}
		tagOwner[tag] = s.Name
		m := skillManifest(s)
		what := "manifest:" + tag
		for _, bl := range m.blobs {
			bl.name = tag // its config is not the skill's (addBlob)
			p.needs[what] = append(p.needs[what], p.addBlob(bl))
			p.owners[bl.desc.Digest] = append(p.owners[bl.desc.Digest], m.desc)
		}
		unlessTagged := func(ctx context.Context, push func() (publish.State, error)) (publish.State, error) {
			if cur, err := p.r.tagged(ctx, tag); err != nil || cur != nil {
				return publish.Present, err
			}
			return push()
		}
		p.add(what, stageSkills, m.desc, func(ctx context.Context) (publish.State, error) {
			return unlessTagged(ctx, func() (publish.State, error) { return p.r.pushManifest(ctx, m) })
		})
		p.add("tag:"+tag, stageVersionTags, m.desc, func(ctx context.Context) (publish.State, error) {
			return unlessTagged(ctx, func() (publish.State, error) { return p.r.tag(ctx, tag, m) })
		})
	}
}

func (p *plan) add(path string, stage publish.Stage, desc ocispec.Descriptor, op func(context.Context) (publish.State, error)) {
	p.objects = append(p.objects, publish.Object{
		Path: path, Digest: layout.Digest(desc.Digest), Size: desc.Size,
		ContentType: desc.MediaType, Stage: stage,
	})
	p.ops[path] = op
}

// addBlob adds a blob once, named by its file in DIST, or by what it is
// for a blob made here.
func (p *plan) addBlob(b blob) *outcome {
	if out, ok := p.blobs[b.desc.Digest]; ok {
		return out
	}
	name := cmp.Or(b.path, "config:"+b.name)
	out := &outcome{blob: b, name: name, done: make(chan struct{})}
	p.blobs[b.desc.Digest] = out
	p.add(name, stageSkills, b.desc, func(ctx context.Context) (publish.State, error) {
		return p.r.pushBlob(ctx, b, p.owners[b.desc.Digest])
	})
	return out
}

func (p *plan) addManifest(skill string, m manifest) {
	p.add("manifest:"+skill, stageSkills, m.desc, func(ctx context.Context) (publish.State, error) {
		return p.r.pushManifest(ctx, m)
	})
}

func (p *plan) addTag(tag string, stage publish.Stage, m manifest) {
	p.tags[tag] = m
	p.add("tag:"+tag, stage, m.desc, func(ctx context.Context) (publish.State, error) { return p.r.tag(ctx, tag, m) })
}

// addSign signs a manifest; a signature made here has no digest until it
// is made.
func (p *plan) addSign(what string, stage publish.Stage, subject ocispec.Descriptor, sign Signer) {
	p.add(what, stage, ocispec.Descriptor{MediaType: ArtifactTypeSigstoreBundle}, func(ctx context.Context) (publish.State, error) {
		return p.r.signManifest(ctx, subject, sign)
	})
}

// checkTags asks, before anything is pushed, what each tag of the run
// names, and refuses the run when any names someone else's manifest,
// naming every such tag. A host whose tag listing is no registry's (a web
// page) is no registry.
func (p *plan) checkTags(ctx context.Context, run *publish.Runner) error {
	p.r.listTags(ctx)
	if err := p.r.tagsErr; errors.As(err, new(*json.SyntaxError)) || errors.As(err, new(*json.UnmarshalTypeError)) {
		return publish.Refused{Err: fmt.Errorf("%s is not an OCI registry: its answer to a tag listing is not a registry's (%w); give the registry's host", p.r.repo.Reference.Registry, err), Class: 2}
	} else if err != nil {
		// A registry answers a new repository's listing 404 too; its
		// base, /v2/, it answers 200, or 401 for a login.
		if err := p.r.ping(ctx); noRegistry(err) {
			answer := err.Error()
			if errors.Is(err, errdef.ErrNotFound) {
				answer = "404 Not Found"
			}
			return publish.Refused{Err: fmt.Errorf("%s is not an OCI registry: it answers the registry API's base, /v2/, with %s; give the registry's host", p.r.repo.Reference.Registry, answer), Class: 2}
		}
	}
	var objects []publish.Object
	for _, o := range p.objects {
		if tag, ok := strings.CutPrefix(o.Path, "tag:"); ok && p.tags[tag].data != nil {
			objects = append(objects, o)
		}
	}
	var mu sync.Mutex
	var theirs []error
	err := run.Run(ctx, objects, func(ctx context.Context, o publish.Object) (publish.State, error) {
		tag := strings.TrimPrefix(o.Path, "tag:")
		err := p.r.checkTag(ctx, tag, p.tags[tag])
		if errors.As(err, new(publish.Refused)) {
			mu.Lock()
			theirs = append(theirs, err)
			mu.Unlock()
			err = nil
		}
		return publish.Present, err
	})
	switch {
	case err != nil:
		return err
	case len(theirs) > 0:
		slices.SortFunc(theirs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		return publish.Refused{Err: fmt.Errorf("%w; nothing was published", errors.Join(theirs...)), Class: 1}
	}
	return nil
}

// checkVersioned refuses, as a bucket does (publish.UnversionedError), a
// bundle without versions.json for a release tag whose collection's
// documents have one: it would stop publishing the versions clients pin.
func (p *plan) checkVersioned(ctx context.Context, t Target, b *publish.Upload) error {
	if slices.ContainsFunc(b.Objects, func(o publish.Object) bool { return o.Path == layout.VersionsIndex }) {
		return nil
	}
	cur, err := p.r.tagged(ctx, t.Tag)
	if err != nil || cur == nil {
		return err
	}
	refs, err := p.r.referrers(ctx, *cur, ArtifactTypeDocuments)
	if err != nil {
		return err
	}
	for _, d := range refs {
		_, data, err := p.r.fetchManifest(ctx, string(d.Digest))
		if err != nil {
			return err
		}
		var m ocispec.Manifest
		if json.Unmarshal(data, &m) == nil && slices.ContainsFunc(m.Layers, func(l ocispec.Descriptor) bool { return l.Annotations[annTitle] == layout.VersionsIndex }) {
			return &publish.UnversionedError{Target: t.String()}
		}
	}
	return nil
}

func (p *plan) do(ctx context.Context, o publish.Object) (publish.State, error) {
	return p.ops[o.Path](ctx)
}

// ready waits until every blob of a manifest is in place (publish.Runner's
// Ready); a blob that failed or was skipped leaves its manifest unsent.
func (p *plan) ready(ctx context.Context, o publish.Object) error {
	for _, b := range p.needs[o.Path] {
		select {
		case <-b.done:
			if b.err != nil {
				return b.err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// finished notes a blob's outcome for the manifests that wait for it.
func (p *plan) finished(res publish.Result) {
	b := p.blobs[digest.Digest(res.Object.Digest)]
	if b == nil || b.name != res.Object.Path {
		return
	}
	switch res.State {
	case publish.Uploaded, publish.Present, publish.WouldUpload:
	default:
		b.err = fmt.Errorf("its blob %s is not in place (%s)", b.name, res.State)
	}
	close(b.done)
}

// collectionName is the repository's last segment, the name a collection
// client shows (ghcr.io/acme/skills → skills).
func collectionName(t Target) string {
	return t.Repository[strings.LastIndex(t.Repository, "/")+1:]
}
