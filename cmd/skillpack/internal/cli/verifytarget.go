package cli

import (
	"context"

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
		return nil, usageErr("%w", err)
	}
	rep, err := verify.Objects(ctx, st, o)
	if err != nil {
		// Classed as publish's failures (a folder or bucket that is not
		// there: the user's), but for what publish calls its own.
		code := failedCode(err)
		if code == ExitInternal {
			code = ExitFindings
		}
		return nil, &exitError{code: code, err: err}
	}
	return rep, nil
}
