package oci

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/publish"
)

// Options are a publish's settings; the zero value is the defaults.
type Options struct {
	// Retry is how requests are run and retried; its Timeout bounds one
	// attempt at an object, and each request of a publish, a Pull or a
	// Store, its body included.
	publish.Retry
	DryRun bool // check what is there, send nothing: report would-upload

	Insecure bool // plain HTTP to any host, not only to loopback (publish.Loopback)

	// Username and Password log in to the registry; empty, the Docker
	// config and its credential helpers are asked.
	Username, Password string

	// MaxTotal bounds what Pull unpacks, every skill together (0:
	// DefaultMaxTotal); each archive is held to pack's limits.
	MaxTotal int64

	// Sign, when not nil, signs each skill's manifest and the collection
	// index once, as cosign does (cosign.go).
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

// The runner's stages carry the OCI order: every blob first, and with
// them each skill's manifest, which waits for its own blobs only
// (publish.Runner's Ready), so that a run stopped part way leaves whole
// skills, whose present manifests vouch for their blobs on the next run.
// Then the skills' signatures and the collection index; then the
// documents, which refer to the index, and the version tags; then the
// documents' signatures and the release tag last. The version tags come
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

// stepNames name those stages in errors: a bucket's names for them
// (archives, mcp, indexes, record) are no step of a push.
var stepNames = map[publish.Stage]string{stageSkills: "pushing the skills", stageReferrers: "pushing the signatures and the index",
	stageVersionTags: "tagging the versions", stageReleaseTag: "tagging the release"}

// Publish pushes the bundle b to target (oci://host[:port]/repo[:tag]):
// one artifact per skill, the Sigstore bundles of a signed build as their
// referrers, the collection index, each versioned skill's tag
// <skill>-<version> and the release tag on the index. Every object goes
// to report once with its state; what is present is not sent again.
func Publish(ctx context.Context, b *publish.Upload, target string, o Options, report func(publish.Result)) error {
	t, err := ParseTarget(target)
	if err != nil {
		return err
	}
	runner := o.Runner(t.String(), publish.DefaultJobs, retryable)
	r, err := newRemote(t, o, b)
	if err != nil {
		return err
	}
	p, err := newPlan(t, b, o.Sign, runner.Jobs, r.listTags(ctx))
	if err != nil {
		return err
	}
	p.r = r
	// The tags first, on their own: one of someone else's stops the run
	// before anything is pushed (ForeignError's rule for a bucket).
	check := o.Runner(t.String(), publish.DefaultJobs, retryable)
	check.Progress = nil
	check.StageName = func(publish.Stage) string { return "checking the tags before the push" }
	runner.StageName = func(s publish.Stage) string { return stepNames[s] }
	if err := p.checkTags(ctx, check); err != nil {
		return fmt.Errorf("publish to %s: %w", t, loggedOut(t, err, "push to"))
	}
	if err := p.checkVersioned(ctx, t, b); err != nil {
		return loggedOut(t, err, "push to")
	}
	runner.Report = func(res publish.Result) { p.finished(res); report(res) }
	runner.Ready = p.ready
	if err := runner.Run(ctx, p.objects, p.do); err != nil {
		return fmt.Errorf("publish to %s: %w", t, loggedOut(t, err, "push to"))
	}
	return nil
}

// loggedOut says how to log in when the registry refused the run's
// credentials, or wanted some, and what a token needs (verb: "push to",
// "pull"); err is then the user's to mend (exit 2). Another refusal no
// retry overcomes (a read-only registry's 405) is a failed check, exit 1:
// running the same command again cannot help.
func loggedOut(t Target, err error, verb string) error {
	if errors.Is(err, errdef.ErrNotFound) { // oras names the reference, which the caller names already
		return publish.Refused{Err: fmt.Errorf("%w: the registry has no such repository or tag", errdef.ErrNotFound), Class: 1}
	}
	var resp *errcode.ErrorResponse
	denied := errors.As(err, &resp) && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden)
	if !denied && !errors.Is(err, auth.ErrBasicCredentialNotFound) {
		switch {
		case resp == nil || resp.StatusCode < 400 || resp.StatusCode >= 500 || retryable(err):
		case resp.StatusCode == http.StatusNotFound:
			return publish.Refused{Err: err, Class: 1}
		default:
			return publish.Refused{Err: fmt.Errorf("%w: the registry refuses to let skillpack %s %s", err, verb, t.Repository), Class: 1}
		}
		return err
	}
	return publish.Refused{Err: fmt.Errorf("%w (log in with docker login %s or oras login %s, or pass --username and --password-stdin; a token needs the right to %s %s)", err, t.Registry, t.Registry, verb, t.Repository), Class: 2}
}

// retryable tells the errors worth another try: the registry's 5xx, 429
// and 408, and a request that got no answer or was cut short
// (publish.Transient). Any other 4xx would fail again.
func retryable(err error) bool {
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		s := resp.StatusCode
		return s >= 500 || s == http.StatusTooManyRequests || s == http.StatusRequestTimeout
	}
	return publish.Transient(err)
}
