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
	if err := opts.Target.Login.read(ios.In); err != nil {
		return nil, err
	}
	st, err := t.store(opts, o.Verifier)
	if err != nil {
		return nil, err
	}
	rep, err := verify.Objects(ctx, st, o)
	var c exitClasser
	switch {
	case errors.As(err, &c): // a folder that is not there: the user's
		return nil, &exitError{code: c.ExitClass(), err: err}
	case errors.Is(err, publish.ErrNoBucket):
		return nil, usageErr("%w", err) // the user's to fix, as in publish
	case err != nil:
		return nil, &exitError{code: ExitFindings, err: err}
	}
	return rep, nil
}
