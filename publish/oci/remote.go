package oci

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/skillpack/skillpack/publish"
)

// remoteRepo is the target repository with the operations Publish needs,
// each safe to repeat.
type remoteRepo struct {
	repo   *remote.Repository
	b      *publish.Upload // what Publish pushes; nil for Pull and a Store
	dryRun bool
	known  sync.Map      // manifest digest → *probe
	limit  time.Duration // each request's, body included (Options.Timeout)

	tagsOnce sync.Once
	tags     map[string]bool // the repository's tags (listTags)
	tagsErr  error           // why they could not be listed
	// tagNow is what each tag of the run named when checkTags asked: a
	// *ocispec.Descriptor, nil when the tag was not there.
	tagNow sync.Map

	absent  atomic.Int64 // how many existence checks said absent (unasked)
	present atomic.Bool  // whether any said present
}

// freshAfter is how many existence checks must say absent, with none
// saying present, before a run stops asking (unasked).
const freshAfter = 32

func newRemote(t Target, o Options, b *publish.Upload) (*remoteRepo, error) {
	repo, err := remote.NewRepository(t.Registry + "/" + t.Repository)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	repo.PlainHTTP = publish.Loopback(t.Registry) || o.Insecure
	if repo.Client, err = newClient(t, o); err != nil {
		return nil, err
	}
	// Without the referrers API, oras-go replaces the fallback tag
	// sha256-<subject> on each change and would delete the old list, which
	// fails on registries that refuse deletes (and is theirs to collect).
	repo.SkipReferrersGC = true
	return &remoteRepo{repo: repo, b: b, dryRun: o.DryRun, limit: cmp.Or(o.Timeout, publish.DefaultTimeout)}, nil
}

// timedOut says so of the error of a request that ran out of its time,
// rather than the run's: a registry that stopped answering, or answers a
// byte at a time.
func (r *remoteRepo) timedOut(ctx context.Context, err error) error {
	var ne net.Error
	if ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("no answer within %v, the time a request has (--timeout): %w", r.limit, err)
	}
	return err
}

// content opens a blob's bytes: a file of DIST, or bytes made here.
func (r *remoteRepo) content(b blob) (io.ReadCloser, error) {
	if b.path == "" {
		return io.NopCloser(bytes.NewReader(b.data)), nil
	}
	return r.b.Open(publish.Object{Path: b.path})
}

// unasked reports whether the run may send without asking first: when
// the first freshAfter checks all said absent, the repository is taken
// for a fresh publish, where a check before every blob and manifest is a
// quarter of the requests and always says no. The guess is safe: the
// registry takes the same bytes again under the same digest, so an
// object that was there after all is sent once more (and a later skill's
// archive signature attached once more). A run that found anything
// present keeps asking, and so does a dry run, whose report is what is
// there.
func (r *remoteRepo) unasked() bool {
	return !r.dryRun && !r.present.Load() && r.absent.Load() >= freshAfter
}

// noted counts a check's answer for unasked.
func (r *remoteRepo) noted(there bool, err error) (bool, error) {
	switch {
	case err != nil:
	case there:
		r.present.Store(true)
	default:
		r.absent.Add(1)
	}
	return there, err
}

// unlessThere sends what there says is missing, or says what it would
// do on a dry run.
func (r *remoteRepo) unlessThere(there func() (bool, error), send func() error) (publish.State, error) {
	ok, err := there()
	switch {
	case err != nil:
		return "", err
	case ok:
		return publish.Present, nil
	case r.dryRun:
		return publish.WouldUpload, nil
	}
	err = send()
	switch {
	case errors.Is(err, errdef.ErrAlreadyExists):
		return publish.Present, nil
	case err != nil && strings.Contains(err.Error(), ": invalid response"):
		// oras-go's word for a 2xx answer that breaks the protocol (a
		// Docker-Content-Digest that is not the manifest's): the same
		// registry answers the same way again, and the fault is its own.
		return publish.Failed, publish.Refused{Err: fmt.Errorf("the registry's answer is not one the OCI distribution spec allows: %w", err), Class: 1}
	}
	return publish.Uploaded, err
}

// manifestThere says whether the registry has a manifest, asking once per
// run (a skill's blobs and the manifest ask the same); an error is not
// kept, so a retry asks again.
func (r *remoteRepo) manifestThere(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	p := r.probeOf(desc)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return p.there, nil
	}
	if r.unasked() {
		p.done, p.new = true, true
		return false, nil
	}
	ok, err := r.noted(r.repo.Manifests().Exists(ctx, desc))
	if err == nil {
		p.done, p.there, p.new = true, ok, !ok
	}
	return ok, err
}

// probe is what a run knows of one manifest.
type probe struct {
	mu          sync.Mutex
	done, there bool
	// new: the manifest was not there when the run first asked (or did
	// not ask), so no tag or referrer the run did not send names it.
	new bool
}

// pushed notes a manifest the run has sent.
func (r *remoteRepo) pushed(desc ocispec.Descriptor) {
	p := r.probeOf(desc)
	p.mu.Lock()
	p.done, p.there = true, true
	p.mu.Unlock()
}

// isNew reports whether the run found a manifest absent (probe.new).
func (r *remoteRepo) isNew(desc ocispec.Descriptor) bool {
	p := r.probeOf(desc)
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.new
}

func (r *remoteRepo) probeOf(desc ocispec.Descriptor) *probe {
	v, _ := r.known.LoadOrStore(desc.Digest, &probe{})
	return v.(*probe)
}

// pushBlob uploads a blob the registry does not have: one a manifest the
// registry has names is there, else the registry is asked (unless
// unasked). The registry checks the digest of what it receives, so a file
// changed since the build is refused there.
func (r *remoteRepo) pushBlob(ctx context.Context, b blob, owners []ocispec.Descriptor) (publish.State, error) {
	there := func() (bool, error) {
		for _, m := range owners {
			if ok, err := r.manifestThere(ctx, m); ok || err != nil {
				return ok, err
			}
		}
		if r.unasked() {
			return false, nil
		}
		return r.noted(r.repo.Blobs().Exists(ctx, b.desc))
	}
	return r.unlessThere(there, func() error {
		rc, err := r.content(b)
		if err != nil {
			return err
		}
		defer rc.Close()
		return r.repo.Blobs().Push(ctx, b.desc, rc)
	})
}

// pushManifest uploads a manifest the registry does not have.
func (r *remoteRepo) pushManifest(ctx context.Context, m manifest) (publish.State, error) {
	return r.unlessThere(func() (bool, error) { return r.manifestThere(ctx, m.desc) }, func() error {
		err := r.repo.Manifests().Push(ctx, m.desc, bytes.NewReader(m.data))
		if err == nil {
			r.pushed(m.desc)
		}
		return err
	})
}

// attach pushes a referrer of subject (a signature, the documents) unless
// subject already has one of its type and title: the title names the
// signed archive by its digest, so an archive that did not change keeps
// the signature it was first published with, though `build --sign` signs
// every archive again on each build. A signature pushed by a run
// interrupted before a registry without the referrers API listed it is
// pushed again, and then listed.
func (r *remoteRepo) attach(ctx context.Context, subject ocispec.Descriptor, m manifest, own []blob, title string) (publish.State, error) {
	there := func() (bool, error) { return r.hasReferrer(ctx, subject, m.desc, title) }
	return r.unlessThere(there, func() error { return r.pushReferrer(ctx, m, own) })
}

// signManifest signs a manifest (Options.Sign) and attaches the
// signature, unless it has one: a signature is not deterministic, so a
// rerun would otherwise attach one more each time. A dry run signs nothing.
func (r *remoteRepo) signManifest(ctx context.Context, subject ocispec.Descriptor, sign Signer) (publish.State, error) {
	there := func() (bool, error) {
		return r.hasReferrer(ctx, subject, ocispec.Descriptor{ArtifactType: ArtifactTypeSigstoreBundle}, manifestSignatureTitle)
	}
	return r.unlessThere(there, func() error {
		bundle, err := sign(ctx, signStatement(subject.Digest))
		if err != nil {
			return fmt.Errorf("signing manifest %s: %w", subject.Digest, err)
		}
		sm := manifestSignature(subject, bundle)
		return r.pushReferrer(ctx, sm, sm.blobs[1:])
	})
}

// hasReferrer reports whether subject has a referrer of m's artifactType
// that is m, or is titled title. A subject the run found absent has none.
func (r *remoteRepo) hasReferrer(ctx context.Context, subject, m ocispec.Descriptor, title string) (bool, error) {
	if r.isNew(subject) {
		return false, nil
	}
	refs, err := r.referrers(ctx, subject, m.ArtifactType)
	return slices.ContainsFunc(refs, func(ref ocispec.Descriptor) bool {
		return m.Digest != "" && ref.Digest == m.Digest || ref.Annotations[annTitle] == title
	}), err
}

// pushReferrer pushes the blobs a referrer brings (the first stage sent
// the others: the empty config, the documents), then the referrer.
func (r *remoteRepo) pushReferrer(ctx context.Context, m manifest, own []blob) error {
	for _, b := range own {
		if _, err := r.pushBlob(ctx, b, nil); err != nil {
			return err
		}
	}
	return r.repo.Manifests().Push(ctx, m.desc, bytes.NewReader(m.data))
}

// tag points a tag at a pushed manifest, unless it already does. A tag
// that names something else is moved only from what skillpack pushes
// under such a tag (foreign), never from someone else's.
func (r *remoteRepo) tag(ctx context.Context, tag string, m manifest) (publish.State, error) {
	there := func() (bool, error) {
		cur, err := r.tagged(ctx, tag)
		switch {
		case err != nil || cur == nil:
			return false, err
		case cur.Digest == m.desc.Digest:
			return true, nil
		}
		return false, r.foreign(ctx, tag, m, *cur)
	}
	// A PUT by tag with the manifest's bytes: oras-go's Tag would fetch
	// them first.
	return r.unlessThere(there, func() error {
		return r.repo.Manifests().PushReference(ctx, m.desc, bytes.NewReader(m.data), tag)
	})
}

// moveRelease is tag for the release tag, which two publishes at once
// would both move (a registry has no lease, publish.Lock): it is asked
// about again just before it moves, and the run refused when another
// publish moved it since checkTag saw it.
func (r *remoteRepo) moveRelease(ctx context.Context, tag string, m manifest) (publish.State, error) {
	if seen, ok := r.tagNow.Load(tag); ok {
		cur, err := r.resolve(ctx, tag)
		if err != nil {
			return publish.Failed, err
		}
		was := seen.(*ocispec.Descriptor)
		if cur != nil && cur.Digest != m.desc.Digest && (was == nil || cur.Digest != was.Digest) {
			return publish.Failed, publish.Refused{Err: fmt.Errorf("the tag %s was moved to %s by another publish while this one ran, and is left there: publish again once that one has ended, or run one publish at a time (a CI concurrency group)", tag, cur.Digest), Class: 1}
		}
		r.tagNow.Store(tag, cur)
	}
	return r.tag(ctx, tag, m)
}

// checkTag refuses a tag of the run that names someone else's manifest
// (foreign), and notes what it names for tag, which then need not ask.
func (r *remoteRepo) checkTag(ctx context.Context, tag string, m manifest) error {
	cur, err := r.tagged(ctx, tag)
	if err != nil {
		return err
	}
	r.tagNow.Store(tag, cur)
	if cur == nil || cur.Digest == m.desc.Digest {
		return nil
	}
	return r.foreign(ctx, tag, m, *cur)
}

// tagged is what tag names, nil when it is not there: as checkTag found
// it, else asked, unless the repository does not list it.
func (r *remoteRepo) tagged(ctx context.Context, tag string) (*ocispec.Descriptor, error) {
	if cur, ok := r.tagNow.Load(tag); ok {
		return cur.(*ocispec.Descriptor), nil
	}
	if tags := r.listTags(ctx); tags != nil && !tags[tag] {
		return nil, nil
	}
	return r.resolve(ctx, tag)
}

// resolve asks what tag names now, nil when it is not there.
func (r *remoteRepo) resolve(ctx context.Context, tag string) (*ocispec.Descriptor, error) {
	cur, err := r.repo.Manifests().Resolve(ctx, tag)
	switch {
	case errors.Is(err, errdef.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &cur, nil
}

// ping asks the registry API's base, /v2/, as every registry client
// does first (oras-go's Registry.Ping).
func (r *remoteRepo) ping(ctx context.Context) error {
	reg, err := remote.NewRegistry(r.repo.Reference.Registry)
	if err != nil {
		return err
	}
	reg.Client, reg.PlainHTTP = r.repo.Client, r.repo.PlainHTTP
	return reg.Ping(ctx)
}

// noRegistry reports whether ping's answer is no registry's: not found, or
// refused for the request itself (a web server's 404 or 501, an S3
// server's 400), not for a login or for load.
func noRegistry(err error) bool {
	var er *errcode.ErrorResponse
	if errors.As(err, &er) {
		return er.StatusCode >= 400 && er.StatusCode < 600 && !slices.Contains([]int{401, 403, 408, 429, 500, 502, 503, 504}, er.StatusCode)
	}
	return errors.Is(err, errdef.ErrNotFound)
}

// maxTags is how many of the repository's tags listTags reads before it
// gives up and leaves each tag to be asked about.
const maxTags = 100000

// listTags is the repository's tags, listed once a run; nil when the
// registry does not list them, or lists more than maxTags (each tag is
// then asked about).
func (r *remoteRepo) listTags(ctx context.Context) map[string]bool {
	r.tagsOnce.Do(func() {
		tags := map[string]bool{}
		err := r.repo.Tags(ctx, "", func(page []string) error {
			for _, t := range page {
				tags[t] = true
			}
			if len(tags) > maxTags {
				return errors.New("too many tags")
			}
			return nil
		})
		if err == nil {
			r.tags = tags
		}
		r.tagsErr = err
	})
	return r.tags
}

// foreign refuses to move a tag from cur unless cur is what skillpack
// pushes under it: a bundle's collection for the release tag, the same
// skill's artifact for a version tag.
func (r *remoteRepo) foreign(ctx context.Context, tag string, m manifest, cur ocispec.Descriptor) error {
	_, data, err := r.fetchManifest(ctx, string(cur.Digest))
	if err != nil {
		return fmt.Errorf("reading what tag %s names now, %s: %w", tag, cur.Digest, err)
	}
	type kind struct {
		ArtifactType string            `json:"artifactType"`
		Annotations  map[string]string `json:"annotations"`
	}
	var now, ours kind
	if json.Unmarshal(data, &now) == nil && json.Unmarshal(m.data, &ours) == nil &&
		now.ArtifactType == ours.ArtifactType && now.Annotations[annSkillName] == ours.Annotations[annSkillName] &&
		(now.Annotations[annBundleKey] != "") == (ours.Annotations[annBundleKey] != "") {
		return nil
	}
	elsewhere := "another tag" // the release tag is the user's to choose; a skill's version tag is not
	if m.desc.MediaType != ocispec.MediaTypeImageIndex {
		elsewhere = "another repository"
	}
	return publish.Refused{Err: fmt.Errorf("tag %s names %s (%s, artifactType %q), which skillpack did not push; it is left as it is: publish to %s, or move or delete that tag yourself", tag, cur.Digest, cur.MediaType, now.ArtifactType, elsewhere), Class: 1}
}

// credential resolves the registry's login: Username and Password when
// given (--username, --password-stdin), else the Docker config and its
// credential helpers, as every other registry client does. A registry
// that needs no login gets none.
func credential(t Target, o Options) (auth.CredentialFunc, error) {
	if o.Username != "" || o.Password != "" {
		if o.Password == "" {
			return nil, fmt.Errorf("a username for %s needs a password (--password-stdin)", t.Registry)
		}
		return auth.StaticCredential(t.Registry, auth.Credential{Username: o.Username, Password: o.Password}), nil
	}
	store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
	if err != nil {
		// A broken config file is the user's to fix; say which.
		return nil, fmt.Errorf("reading the Docker config for the credentials of %s: %w (fix the file, or pass --username and --password-stdin)", t.Registry, err)
	}
	return credentials.Credential(store), nil
}

// newClient is the HTTP client of one publish, pull or verify: each
// request, body included, within Options.Timeout. Retries are the
// runner's, not oras-go's, so that they are counted in one place.
func newClient(t Target, o Options) (*auth.Client, error) {
	cred, err := credential(t, o)
	if err != nil {
		return nil, err
	}
	// An idle connection kept for each of the runner's jobs: with
	// http.DefaultTransport's two per host, every job but two would open
	// a new connection for each request.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cmp.Or(o.Jobs, publish.DefaultJobs)
	return &auth.Client{
		Client: &http.Client{
			Transport: tr,
			Timeout:   cmp.Or(o.Timeout, publish.DefaultTimeout),
		},
		Credential: cred,
		Cache:      auth.NewCache(),
		Header:     http.Header{"User-Agent": {userAgent}},
	}, nil
}
