package cli

import (
	"context"
	"errors"

	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/verify"
)

// verifyTarget verifies a bundle that publish put at a target t: the
// target's package reads it (publish's parsing, credentials and flags),
// verify checks it. A target that cannot be read did not verify (exit 1),
// as a URL that cannot be fetched.
func verifyTarget(ctx context.Context, ios *IO, opts *verifyOptions, o verify.Options, t *target) (*verify.Report, error) {
	if opts.Auth.given() {
		return nil, usageErr("%s are for an http(s) URL; %s takes --username and --password-stdin, or the stored credentials", opts.Auth.flags(), opts.Source)
	}
	if t.folder != nil {
		dir, err := t.folder(opts.Source)
		if err != nil || opts.Target.given() {
			return nil, usageErr("%s: give %s, with no --endpoint, --insecure or login flags", opts.Source, t.example)
		}
		o.Shared = true // a site's own files may live beside the bundle
		rep, err := verify.Dist(ctx, dir, o)
		if err != nil {
			return nil, usageErr("%w", err)
		}
		return rep, nil
	}
	if err := opts.Target.Login.read(ios.In); err != nil {
		return nil, err
	}
	st, err := t.store(opts, o.Verifier)
	if err != nil {
		return nil, err
	}
	rep, err := verify.Objects(ctx, st, o)
	if err != nil {
		if errors.Is(err, publish.ErrNoBucket) {
			return nil, usageErr("%w", err) // the user's to fix, as in publish
		}
		return nil, &exitError{code: ExitFindings, err: err}
	}
	return rep, nil
}
