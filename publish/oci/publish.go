package oci

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/publish"
)

// Options are a publish's settings; the zero value is the defaults.
type Options struct {
	// Retry is how requests are run and retried; its Timeout bounds one
	// attempt at an object, and each request, its body included, of a
	// publish, a Pull or a Store, so that a registry that stops
	// answering, or answers a byte at a time, costs a retry or an error,
	// not the run.
	publish.Retry
	DryRun bool // check what is there, send nothing: report would-upload

	// Insecure allows plain HTTP to any host; a loopback registry gets
	// it without asking, since nothing on a network sits between the
	// two ends.
	Insecure bool

	// Username and Password log in to the registry; empty, the Docker
	// config and its credential helpers are asked.
	Username, Password string

	// Limits bound each archive Pull fetches and unpacks (zero fields:
	// layout's, as verify's), and MaxTotal all of them together (0:
	// DefaultMaxTotal).
	Limits   pack.Limits
	MaxTotal int64

	// Sign, when not nil, signs each skill's manifest and the collection
	// index as cosign does (see cosign.go), once: a manifest that has its
	// signature keeps it.
	Sign Signer

	// VerifyStatement, when not nil, checks the manifests' own signatures
	// (what Sign made, or `cosign sign`) as a Store reads them: it returns
	// a Sigstore bundle's in-toto statement once the bundle is by the
	// expected identity or key. Nil: they are recognised, not checked.
	VerifyStatement func(bundle []byte) (statement []byte, err error)
}

// Signer signs an in-toto statement and returns the Sigstore bundle (v0.3,
// JSON) whose DSSE envelope holds it (payload type
// application/vnd.in-toto+json): skillpack-sign's statement request.
type Signer func(ctx context.Context, statement []byte) ([]byte, error)

var userAgent = "skillpack/" + version.Version()

// The runner's stages carry the OCI order (the names are the core's):
// every blob is content-addressed, so all go first (archives), and with
// them each skill's manifest, which waits for its own blobs only
// (publish.Runner's Ready) rather than for every blob of the bundle: a
// fresh publish sends skill after skill, and a run stopped part way
// leaves whole skills, whose present manifests vouch for their blobs on
// the next run. Then the signatures, which refer to a skill's manifest,
// and the collection index, which lists the manifests (mcp); then the
// documents, which refer to the index, and the skills' version tags
// (indexes); then the documents' signatures, which refer to the
// documents, and the release tag last (record). The version tags come
// after the index because a tag is a PUT of the manifest again, and
// distribution 2.8 rewrites a manifest's link in place: an index PUT at
// that moment is refused as naming an unknown manifest (seen in
// TestPublishReadByOras).
const (
	stageSkills      = publish.Archives
	stageReferrers   = publish.MCP
	stageVersionTags = publish.Indexes
	stageReleaseTag  = publish.Record
)

// Publish pushes the bundle b to target (oci://host[:port]/repo[:tag]):
// one artifact per skill, the Sigstore bundles of a signed build as their
// referrers, the collection index, each versioned skill's tag
// <skill>-<version> and the release tag on the index. Every object goes
// to report once with its state; what is present is not sent again.
func Publish(ctx context.Context, b *publish.Bundle, target string, o Options, report func(publish.Result)) error {
	t, err := ParseTarget(target)
	if err != nil {
		return err
	}
	docs, docSigs := documentsOf(b)
	p, err := newPlan(t, string(b.Key), b.Skills, docs, docSigs)
	if err != nil {
		return err
	}
	r, err := newRemote(t, o, b)
	if err != nil {
		return err
	}
	w := p.work(r, o.Sign, cmp.Or(o.Jobs, publish.DefaultJobs))
	runner := o.Runner(t.String(), publish.DefaultJobs, retryable)
	runner.Report = func(res publish.Result) { w.finished(res); report(res) }
	runner.Ready = w.ready
	if err := runner.Run(ctx, w.objects, w.do); err != nil {
		return fmt.Errorf("publish to %s: %w%s", t, err, loginHint(t, err, "push to"))
	}
	return nil
}

// loginHint says how to log in when the registry refused the run's
// credentials, or wanted some, and what a token needs (verb: "push to",
// "pull").
func loginHint(t Target, err error, verb string) string {
	var resp *errcode.ErrorResponse
	refused := errors.As(err, &resp) && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden)
	if !refused && !errors.Is(err, auth.ErrBasicCredentialNotFound) {
		return ""
	}
	return fmt.Sprintf(" (log in with docker login %s or oras login %s, or pass --username and --password-stdin; a token needs the right to %s %s)", t.Registry, t.Registry, verb, t.Repository)
}

// documentsOf is the bundle's documents (what is not a skill's file or
// archive) and their signatures.
func documentsOf(b *publish.Bundle) (docs, sigs []publish.Object) {
	for _, o := range b.Objects {
		if o.Stage < publish.MCP {
			continue
		}
		if _, sig := layout.SignedArtifact(o.Path); sig {
			sigs = append(sigs, o)
		} else {
			docs = append(docs, o)
		}
	}
	return docs, sigs
}

// work is the plan as the runner's objects, each with a unique path that
// --json prints, the operation of each, and what a manifest waits for
// within its stage: its blobs.
type work struct {
	objects []publish.Object
	ops     map[string]func(context.Context) (publish.State, error)
	needs   map[string][]*outcome // a manifest's path → its blobs'
	blobs   map[string]*outcome   // a blob's path → its outcome
}

// outcome is what became of an object, once it is known (done closed).
type outcome struct {
	path string
	done chan struct{}
	err  error // nil when the object is in place, or would be on a dry run
}

// work lays out the runner's objects. In the first stage each skill's
// manifest comes lag skills after its blobs (lag: the runner's jobs): the
// runner starts a stage's objects in order, so when a manifest is started
// its blobs are running or done, and waiting for them cannot block a
// worker for ever.
func (p *plan) work(r *remoteRepo, sign Signer, lag int) *work {
	w := &work{
		ops:   map[string]func(context.Context) (publish.State, error){},
		needs: map[string][]*outcome{},
		blobs: map[string]*outcome{},
	}
	add := func(path string, stage publish.Stage, desc ocispec.Descriptor, op func(context.Context) (publish.State, error)) {
		w.objects = append(w.objects, publish.Object{
			Path: path, Digest: layout.Digest(desc.Digest), Size: desc.Size,
			ContentType: desc.MediaType, Stage: stage,
		})
		w.ops[path] = op
	}
	byDigest := map[digest.Digest]*outcome{}
	addBlob := func(b blob) *outcome {
		if out, ok := byDigest[b.desc.Digest]; ok {
			return out
		}
		name := blobName(b)
		out := &outcome{path: name, done: make(chan struct{})}
		byDigest[b.desc.Digest], w.blobs[name] = out, out
		add(name, stageSkills, b.desc, func(ctx context.Context) (publish.State, error) {
			return r.pushBlob(ctx, b, p.owners[b.desc.Digest])
		})
		return out
	}
	addManifest := func(m named) {
		path := "manifest:" + m.what
		add(path, stageSkills, m.desc, func(ctx context.Context) (publish.State, error) {
			return r.pushManifest(ctx, m.manifest)
		})
	}
	for i, m := range p.skills {
		var needs []*outcome
		for _, b := range m.blobs {
			needs = append(needs, addBlob(b))
		}
		w.needs["manifest:"+m.what] = needs
		// A manifest goes lag skills after its blobs, which are then
		// most likely in place: a worker that took it at once would
		// wait for them instead of sending.
		if i >= lag {
			addManifest(p.skills[i-lag])
		}
	}
	for _, m := range p.skills[max(0, len(p.skills)-lag):] {
		addManifest(m)
	}
	for _, b := range p.blobs {
		addBlob(b) // the documents' and the empty config
	}
	for _, m := range p.signatures {
		add("referrer:"+m.what, stageReferrers, m.desc, func(ctx context.Context) (publish.State, error) {
			return r.attach(ctx, m, path.Base(m.what))
		})
	}
	add("index:"+p.target.Tag, stageReferrers, p.index.desc, func(ctx context.Context) (publish.State, error) {
		return r.pushManifest(ctx, p.index)
	})
	if sign != nil {
		// A signature made here has no digest until it is made.
		sig := ocispec.Descriptor{MediaType: ArtifactTypeSigstoreBundle}
		for _, m := range p.skills {
			add("signature:"+m.what, stageReferrers, sig, func(ctx context.Context) (publish.State, error) {
				return r.signManifest(ctx, m.desc, sign)
			})
		}
		add("signature:index:"+p.target.Tag, stageVersionTags, sig, func(ctx context.Context) (publish.State, error) {
			return r.signManifest(ctx, p.index.desc, sign)
		})
	}
	// The documents refer to the index, and their signatures to them:
	// each after its subject.
	add("documents:"+p.target.Tag, stageVersionTags, p.documents.desc, func(ctx context.Context) (publish.State, error) {
		return r.attach(ctx, p.documents, documentsTitle)
	})
	for _, m := range p.docSigs {
		add("referrer:"+m.what, stageReleaseTag, m.desc, func(ctx context.Context) (publish.State, error) {
			return r.attach(ctx, m, m.what) // its whole path: see newPlan
		})
	}
	for _, op := range p.tags {
		stage := stageVersionTags
		if op.m.desc.Digest == p.index.desc.Digest {
			stage = stageReleaseTag
		}
		add("tag:"+op.tag, stage, op.m.desc, func(ctx context.Context) (publish.State, error) { return r.tag(ctx, op) })
	}
	return w
}

func (w *work) do(ctx context.Context, o publish.Object) (publish.State, error) {
	return w.ops[o.Path](ctx)
}

// ready waits until every blob of a manifest is in place (publish.Runner's
// Ready); a blob that failed or was skipped leaves its manifest unsent.
func (w *work) ready(ctx context.Context, o publish.Object) error {
	for _, b := range w.needs[o.Path] {
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
func (w *work) finished(res publish.Result) {
	b := w.blobs[res.Object.Path]
	if b == nil {
		return
	}
	switch res.State {
	case publish.Uploaded, publish.Present, publish.WouldUpload:
	default:
		b.err = fmt.Errorf("its blob %s is not in place (%s)", b.path, res.State)
	}
	close(b.done)
}

// blobName is how the report names a blob: its file in DIST, or what it
// is for a blob made here.
func blobName(b blob) string {
	switch {
	case b.path != "":
		return b.path
	case b.desc.Digest == emptyConfig.desc.Digest:
		return "config:empty"
	}
	return "config:" + b.name
}
