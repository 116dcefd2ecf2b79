package cli

import (
	"cmp"
	"context"
	"strings"

	"github.com/skillpack/skillpack/dist"
	"github.com/skillpack/skillpack/publish/oci"
	"github.com/skillpack/skillpack/publish/s3"
	"github.com/skillpack/skillpack/verify"
)

// isTarget reports whether a verify source is a publish target.
func isTarget(source string) bool {
	return strings.HasPrefix(source, schemeS3) || strings.HasPrefix(source, schemeOCI)
}

// verifyTarget verifies a bundle that publish put at a target: the target's
// package reads it (publish's parsing, credentials and flags), verify
// checks it. A target that cannot be read did not verify (exit 1), as a
// URL that cannot be fetched.
func verifyTarget(ctx context.Context, ios *IO, opts *verifyOptions, o verify.Options) (*verify.Report, error) {
	if opts.Auth.given() {
		return nil, usageErr("%s are for an http(s) URL; %s takes --username and --password-stdin, or the stored credentials", opts.Auth.flags(), opts.Source)
	}
	if err := opts.Target.Login.read(ios.In); err != nil {
		return nil, err
	}
	st, err := opts.store(o.Verifier)
	if err != nil {
		return nil, err
	}
	rep, err := verify.Objects(ctx, st, o)
	if err != nil {
		return nil, &exitError{code: ExitFindings, err: err}
	}
	return rep, nil
}

// store is the target's reader, refusing a target or a flag its scheme
// does not take. A registry's reader checks the manifests' own signatures
// with v, when it checks statements.
func (opts *verifyOptions) store(v verify.SignatureVerifier) (dist.Store, error) {
	t := opts.Target
	if strings.HasPrefix(opts.Source, schemeOCI) {
		if t.Endpoint != "" {
			return nil, usageErr("--endpoint is for s3:// targets; an oci:// target names its registry itself")
		}
		o := oci.Options{
			Insecure: t.Insecure,
			Username: t.Login.Username,
			Password: t.Login.password,
			Jobs:     opts.Jobs,
			Timeout:  opts.Timeout, // each request, Check's included
		}
		if sv, ok := v.(verify.StatementVerifier); ok {
			o.VerifyStatement = sv.VerifyStatement
		}
		st, err := oci.OpenStore(opts.Source, o, cmp.Or(opts.MaxSkills, verify.DefaultMaxSkills))
		if err != nil {
			return nil, usageErr("%w", err)
		}
		return st, nil
	}
	o := s3.Options{Endpoint: t.Endpoint, Insecure: t.Insecure, AccessKey: t.Login.Username, SecretKey: t.Login.password}
	if err := o.Check(); err != nil {
		return nil, usageErr("%w", err)
	}
	st, err := s3.OpenBucket(opts.Source, o)
	if err != nil {
		return nil, usageErr("%w", err)
	}
	return st, nil
}
