package cli

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/sign"
	"github.com/skillpack/skillpack/skill"
	"github.com/skillpack/skillpack/verify"
)

// SignatureFlags are how a signature is checked: sign's options, set by
// flags of cosign's names, so that users need nothing new.
type SignatureFlags sign.VerifyOptions

// AddFlags declares the signature flags on fs.
func (f *SignatureFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.CertificateIdentity, "certificate-identity", "", "the signer's exact identity (certificate SAN), such as a workflow's URL at a tag")
	fs.StringVar(&f.CertificateIdentityRegexp, "certificate-identity-regexp", "", "a `regexp` the signer's identity must match, such as ^https://github.com/OWNER/REPO/")
	fs.StringVar(&f.CertificateOIDCIssuer, "certificate-oidc-issuer", "", "the identity's OIDC `issuer`, such as https://token.actions.githubusercontent.com")
	fs.StringVar(&f.Key, "key", "", "verify signatures made with a key: the public key PEM `file`")
	fs.StringVar(&f.TrustedRoot, "trusted-root", "", "a Sigstore trusted_root.json `file` (default: the public-good instance)")
	fs.StringVar(&f.CertificateChain, "certificate-chain", "", "the CA certificates' PEM `file` that skill folder signatures chain to (NVIDIA's skills)")
}

// Given reports whether any signature flag was set.
func (f SignatureFlags) Given() bool { return f != SignatureFlags{} }

type verifyOptions struct {
	verify.Options // --require-signatures, --previous and the limits
	Source         string
	JSON           bool
	Sig            SignatureFlags
	Auth           HTTPAuth    // --header, --token-file
	Target         TargetFlags // how to reach an s3:// or oci:// source
	Signature      string      // --signature: a skill folder's signature file
}

func newVerifyCmd(ios *IO, runF func(context.Context, *verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{Options: verify.Options{MaxSize: verify.DefaultMaxSize}}
	cmd := &cobra.Command{
		Use:   "verify DIST|URL|TARGET|SKILLDIR",
		Short: "Check a built bundle, a served or published one, or an installed skill end to end",
		Long: `Verify checks a bundle as a careful client would, trusting nothing in it:
every digest and size, every index against the files and the other
indexes, every archive unpacked in memory under limits, and signatures when
they are there (everywhere with --require-signatures).

The bundle is a DIST folder, a URL (fetched from
/.well-known/agent-skills/index.json, with --token-file or --header for a
private host, sent to its origin only), or a TARGET that skillpack publish
wrote (s3://bucket/prefix, oci://host/repo[:tag]). A SKILLDIR, a skill an
installer unpacked, is checked against its folder signature, skill.oms.sig.
--previous compares the bundle with the one published before it.

Any problem, or a URL or bundle that cannot be read, is exit 1; a DIST
that does not exist, a bucket that does not exist or credentials refused
are exit 2 (docs/cli.md). --json prints one
document however the check ends (schema/verify.schema.json).` + "\n\n" + docs("signing.md"),
		Example: `  skillpack verify dist
  skillpack verify https://example.com --json
  skillpack verify https://example.com --require-signatures \
    --certificate-identity-regexp '^https://github.com/OWNER/REPO/' \
    --certificate-oidc-issuer https://token.actions.githubusercontent.com
  skillpack verify dist --require-signatures --key cosign.pub
  skillpack verify ~/.claude/skills/csv-profiler --key cosign.pub
  skillpack verify https://skills.internal.example --token-file token.txt
  skillpack verify dist --previous https://example.com
  skillpack verify s3://my-bucket/skills --key cosign.pub --require-signatures
  skillpack verify oci://ghcr.io/OWNER/skills:v1`,
		Args: reportArgs(oneArg, &opts.JSON, func(err error) any { return newVerifyJSON(opts, nil, err) }),
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
	f.BoolVar(&opts.RequireSignatures, "require-signatures", false, "fail unless every archive, index and skill folder has a signature that verifies")
	f.Var((*byteSize)(&opts.MaxSize), "max-size", "largest file read, such as 64MiB or 10MB (bytes without a unit)")
	f.DurationVar(&opts.Timeout, "timeout", verify.DefaultTimeout, "time allowed for each HTTP request, body included")
	// Zero means verify's default, as in verify.Options.
	f.DurationVar(&opts.Deadline, "deadline", 0, fmt.Sprintf("time allowed for the whole check; what is not read by then is reported unchecked (default %v)", verify.DefaultDeadline))
	f.IntVar(&opts.MaxSkills, "max-skills", 0, fmt.Sprintf("most skills an index may list (default %d)", verify.DefaultMaxSkills))
	f.IntVarP(&opts.Jobs, "jobs", "j", 0, fmt.Sprintf("files fetched at once (default %d)", verify.DefaultJobs))
	opts.Auth.AddFlags(f, "", "the URL's origin")
	f.StringVar(&opts.Previous, "previous", "", "the bundle published before, a `folder or URL`: report what this one changed of what it published")
	f.StringVar(&opts.Signature, "signature", "", "a skill folder's OMS signature `file` (default: skill.oms.sig in the folder)")
	opts.Sig.AddFlags(f)
	opts.Target.AddFlags(f)
	return cmd
}

// runVerify verifies, and with --json prints the document however it ends.
func runVerify(ctx context.Context, ios *IO, opts *verifyOptions) error {
	rep, err := verifyRun(ctx, ios, opts)
	return jsonResult(ios.Out, opts.JSON, newVerifyJSON(opts, rep, err), err)
}

func verifyRun(ctx context.Context, ios *IO, opts *verifyOptions) (*verify.Report, error) {
	o := opts.Options
	switch {
	case opts.Timeout <= 0:
		return nil, usageErr("--timeout %v: give a positive duration such as 30s", opts.Timeout)
	case opts.Deadline < 0:
		return nil, usageErr("--deadline %v: give a positive duration such as 5m", opts.Deadline)
	case opts.MaxSkills < 0:
		return nil, usageErr("--max-skills %d: give a positive number", opts.MaxSkills)
	case opts.Jobs < 0:
		return nil, usageErr("--jobs %d: give a positive number", opts.Jobs)
	}
	if opts.Previous != "" {
		p, err := previousAt("--previous", opts.Previous)
		if err != nil {
			return nil, err
		}
		opts.Previous = p
	}
	if f := opts.Sig; f.Given() {
		// Package verify takes the helper as an interface and never
		// imports sign, so that verifying digests alone needs no helper.
		vo := sign.VerifyOptions(f)
		vo.Stderr = ios.Err
		v, err := sign.NewVerifier(ctx, vo)
		if err != nil {
			return nil, usageErr("%w", err)
		}
		defer v.Close()
		o.Verifier = v
	}
	var rep *verify.Report
	var err error
	if t := targetOf(opts.Source); t != nil {
		if rep, err = verifyTarget(ctx, ios, opts, o, t); err != nil {
			return nil, err
		}
	} else if opts.Target.given() {
		return nil, usageErr("--endpoint, --insecure, --username and --password-stdin are for an s3:// or oci:// TARGET; leave them out for %s", opts.Source)
	} else if scheme, _, ok := strings.Cut(opts.Source, "://"); ok {
		u, perr := url.Parse(opts.Source)
		if perr != nil || (scheme != "http" && scheme != "https") || u.Host == "" {
			return nil, usageErr("%s: give a dist folder, an http or https URL such as https://example.com, or a TARGET such as s3://bucket/prefix or oci://host/repo:tag", opts.Source)
		}
		if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, usageErr("%s: remove the query, fragment or user info (a login goes in --token-file or --header)", opts.Source)
		}
		if opts.Signature != "" {
			return nil, usageErr("--signature is for a skill folder on disk, not a URL")
		}
		if o.Header, err = opts.Auth.Header(); err != nil {
			return nil, err
		}
		// A bundle that cannot be fetched did not verify: in CI, a
		// deployment that is not there fails the check.
		if rep, err = verify.URL(ctx, opts.Source, o); err != nil {
			return nil, &exitError{code: ExitFindings, err: err}
		}
	} else {
		if opts.Auth.given() {
			return nil, usageErr("%s are for a URL; %s is a folder, read without HTTP, so leave them out", opts.Auth.flags(), opts.Source)
		}
		info, serr := os.Stat(opts.Source)
		switch {
		case serr != nil && isHostPort(opts.Source):
			return nil, usageErr("%s: no such file or folder; for a server, give its URL: http://%s", opts.Source, opts.Source)
		case serr != nil:
			return nil, usageErr("%s: no such file or folder", opts.Source)
		case !info.IsDir():
			return nil, usageErr("%s is a file; give a dist folder that skillpack build wrote, or an http or https URL", opts.Source)
		}
		// An installed skill: its folder signature is all there is.
		skillDir, above := verify.IsSkillFolder(opts.Source), bundleAbove(opts.Source)
		switch {
		case skillDir && !opts.Sig.Given():
			return nil, usageErr("%s is a skill folder, verified by its signature (%s): pass --certificate-identity and --certificate-oidc-issuer, --key, or --certificate-chain", opts.Source, layout.FolderSignatureFile)
		case skillDir:
			rep, err = verify.Folder(ctx, opts.Source, opts.Signature, o)
		case !skill.IsBundle(opts.Source) && above != "":
			return nil, usageErr("%s is inside the bundle %s, which is verified whole: skillpack verify %s", opts.Source, above, human.ShellQuote(above))
		case !skill.IsBundle(opts.Source) && hasSkills(opts.Source):
			return nil, usageErr("%s holds skills, not a bundle: build them first (skillpack build %s -o dist), then verify dist", opts.Source, opts.Source)
		case !slices.ContainsFunc([]string{layout.V2Index, layout.BuildRecord, layout.V1Index}, func(p string) bool {
			_, err := os.Stat(filepath.Join(opts.Source, filepath.FromSlash(p)))
			return err == nil
		}):
			// A failed check, as a URL with nothing there: exit 1.
			return nil, &exitError{code: ExitFindings, err: fmt.Errorf("%s is not a bundle: it holds no %s nor %s; give the folder skillpack build wrote (its -o)",
				opts.Source, layout.V2Index, layout.BuildRecord)}
		case opts.Signature != "":
			return nil, usageErr("--signature is for a skill folder; %s is a bundle, whose signatures sit beside its artifacts", opts.Source)
		default:
			rep, err = verify.Dist(ctx, opts.Source, o)
		}
		if err != nil {
			return nil, &exitError{code: ExitInternal, err: err}
		}
	}
	if !opts.JSON {
		if err := rep.WriteText(ios.Out); err != nil {
			return rep, &exitError{code: ExitInternal, err: err}
		}
	}
	if !rep.OK() {
		fmt.Fprintln(ios.Err, rep.Summary())
		return rep, findingsErr
	}
	ios.Infof("%s", rep.Summary()) // -q: errors only, and a clean bundle is none
	return rep, nil
}

// isHostPort reports whether s reads as host:port with a numeric port
// (127.0.0.1:8080, localhost:8080), a server's address without a scheme.
func isHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	_, perr := strconv.Atoi(port)
	return err == nil && perr == nil
}

// bundleAbove is the bundle whose folder holds dir, as dir is spelled
// (dist for dist/.well-known/agent-skills); "" for none.
func bundleAbove(dir string) string {
	for d := filepath.Clean(dir); ; {
		up := filepath.Dir(d)
		if up == d || d == "." {
			return ""
		}
		if d = up; skill.IsBundle(d) {
			return d
		}
	}
}

// hasSkills reports whether dir holds a skill at or below it, as a
// source folder does and a bundle, which discovery skips, does not.
func hasSkills(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(layout.V1Index))); err == nil {
		return false // a site serving the legacy index alone
	}
	skills, err := skill.Discover(dir)
	return err == nil && len(skills) > 0
}

// verifyJSON is verify's --json document (schema/verify.schema.json).
type verifyJSON struct {
	*verify.Report
	status
}

func newVerifyJSON(opts *verifyOptions, rep *verify.Report, err error) verifyJSON {
	what := "verification failed"
	if rep == nil {
		rep = &verify.Report{Source: opts.Source}
	} else if n := len(rep.Problems) + rep.Omitted; n > 0 {
		what = human.Plural(n, "problem") + " found"
	}
	rep.Problems = nonNil(rep.Problems)
	rep.Signatures = nonNil(rep.Signatures)
	return verifyJSON{Report: rep, status: newStatus(err, what)}
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
