package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/verify"
)

// SignatureFlags are how a signature is checked, under cosign's flag
// names so that users need nothing new.
type SignatureFlags struct {
	CertificateIdentity       string
	CertificateIdentityRegexp string
	CertificateOIDCIssuer     string
	Key                       string // a public key PEM file, for bundles signed with a key
	TrustedRoot               string // a trusted_root.json, for private or offline Sigstore
}

// AddFlags declares the signature flags on fs.
func (f *SignatureFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.CertificateIdentity, "certificate-identity", "", "the signer's exact identity (certificate SAN), such as https://github.com/OWNER/REPO/.github/workflows/release.yml@refs/tags/v1.0.0")
	fs.StringVar(&f.CertificateIdentityRegexp, "certificate-identity-regexp", "", "a `regexp` the signer's identity must match, such as ^https://github.com/OWNER/REPO/")
	fs.StringVar(&f.CertificateOIDCIssuer, "certificate-oidc-issuer", "", "the identity's OIDC `issuer`, such as https://token.actions.githubusercontent.com")
	fs.StringVar(&f.Key, "key", "", "verify signatures made with a key: the public key PEM `file`")
	fs.StringVar(&f.TrustedRoot, "trusted-root", "", "a Sigstore trusted_root.json `file` (default: the public-good instance)")
}

// Given reports whether any signature flag was set.
func (f SignatureFlags) Given() bool { return f != SignatureFlags{} }

type verifyOptions struct {
	Source            string
	JSON              bool
	RequireSignatures bool
	MaxSize           byteSize
	Timeout           time.Duration
	Sig               SignatureFlags
}

func newVerifyCmd(ios *IO, runF func(context.Context, *verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{MaxSize: verify.DefaultMaxSize}
	cmd := &cobra.Command{
		Use:   "verify DIST|URL",
		Short: "Check a built bundle or a served one end to end",
		Long: `Verify checks a bundle as a careful client would, trusting nothing in it.

It recomputes every digest and size, checks that every index (discovery
v0.2.0 and v0.1.0, mcp/skills.json, mcp/index.json, mcp/resources.json,
checksums.txt) agrees with the files and with the other indexes, unpacks
every archive in memory (refusing path traversal, absolute paths, links,
devices, and archives that unpack to too much) and compares it with the
served files, and checks signatures (<artifact>.sigstore.json) when they
are there. A DIST folder must also hold exactly the files its build record
lists.

A URL is fetched over HTTP(S) like a client, starting at
/.well-known/agent-skills/index.json under it, with a timeout per request,
at most 5 same-origin redirects and at most --max-size bytes per file. A
URL whose index cannot be fetched is a failed check (exit 1).

--json prints one document on stdout however the check ends: what was
checked, every problem and signature, and the exit code with the error
when it is not 0 (schema/verify.schema.json).`,
		Example: `  skillpack verify dist
  skillpack verify https://example.com --json
  skillpack verify https://example.com --require-signatures \
    --certificate-identity-regexp '^https://github.com/OWNER/REPO/' \
    --certificate-oidc-issuer https://token.actions.githubusercontent.com
  skillpack verify dist --require-signatures --key cosign.pub`,
		Args: reportArgs(oneArg, &opts.JSON, func(err error) any { return newVerifyDoc(opts, nil, err) }),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runVerify(cmd.Context(), ios, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print the report as a JSON document on stdout, even on failure")
	f.BoolVar(&opts.RequireSignatures, "require-signatures", false, "fail unless every archive, index.json and mcp/skills.json has a signature that verifies")
	f.Var(&opts.MaxSize, "max-size", "largest file read, such as 64MiB or 10MB (bytes without a unit)")
	f.DurationVar(&opts.Timeout, "timeout", verify.DefaultTimeout, "time allowed for each HTTP request, body included")
	opts.Sig.AddFlags(f)
	return cmd
}

// runVerify verifies, and with --json prints the document however the
// check ends.
func runVerify(ctx context.Context, ios *IO, opts *verifyOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	rep, err := verifyRun(ctx, ios, opts)
	if !opts.JSON {
		return err
	}
	return jsonResult(ios.Out, true, newVerifyDoc(opts, rep, err), err)
}

func verifyRun(ctx context.Context, ios *IO, opts *verifyOptions) (*verify.Report, error) {
	o := verify.Options{
		RequireSignatures: opts.RequireSignatures,
		MaxSize:           int64(opts.MaxSize),
		Timeout:           opts.Timeout,
	}
	if opts.Timeout <= 0 {
		return nil, usageErr("--timeout %v: give a positive duration such as 30s", opts.Timeout)
	}
	if opts.Sig.Given() {
		v, err := signatureVerifier(ctx, ios, opts.Sig)
		if err != nil {
			return nil, usageErr("%w", err)
		}
		defer v.Close()
		o.Verifier = v
	}
	var rep *verify.Report
	var err error
	if scheme, _, ok := strings.Cut(opts.Source, "://"); ok {
		if u, perr := url.Parse(opts.Source); perr != nil || (scheme != "http" && scheme != "https") || u.Host == "" {
			return nil, usageErr("%s: give a dist folder or an http or https URL such as https://example.com", opts.Source)
		}
		// A bundle that cannot be fetched did not verify: in CI, a
		// deployment that is not there fails the check.
		if rep, err = verify.URL(ctx, opts.Source, o); err != nil {
			return nil, &exitError{code: ExitFindings, err: err}
		}
	} else {
		info, serr := os.Stat(opts.Source)
		switch {
		case serr != nil:
			return nil, usageErr("%s: no such file or folder", opts.Source)
		case !info.IsDir():
			return nil, usageErr("%s is a file; give a dist folder that skillpack build wrote, or an http or https URL", opts.Source)
		}
		if rep, err = verify.Dist(ctx, opts.Source, o); err != nil {
			return nil, &exitError{code: ExitInternal, err: err}
		}
	}
	if !opts.JSON {
		if err := rep.WriteText(ios.Out); err != nil {
			return rep, &exitError{code: ExitInternal, err: err}
		}
	}
	fmt.Fprintln(ios.Err, rep.Summary())
	if !rep.OK() {
		return rep, findingsErr
	}
	return rep, nil
}

// verifyDoc is verify's --json document (schema/verify.schema.json).
type verifyDoc struct {
	*verify.Report
	status
}

func newVerifyDoc(opts *verifyOptions, rep *verify.Report, err error) verifyDoc {
	what := "verification failed"
	if rep == nil {
		rep = &verify.Report{Source: opts.Source}
	} else if n := len(rep.Problems) + rep.Omitted; n > 0 {
		what = plural(n, "problem") + " found"
	}
	rep.Problems = nonNil(rep.Problems)
	rep.Signatures = nonNil(rep.Signatures)
	return verifyDoc{Report: rep, status: newStatus(err, what)}
}

// byteSize is a size flag: bytes, or a number with a unit (KB, MB, GB are
// powers of 1000; KiB, MiB, GiB of 1024).
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Type() string   { return "size" }

func (b *byteSize) Set(s string) error {
	units := []struct {
		suffix string
		n      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(rest), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("%q is not a size; give bytes or a number with KB, MB, GB, KiB, MiB or GiB", s)
	}
	*b = byteSize(n * mult)
	return nil
}
