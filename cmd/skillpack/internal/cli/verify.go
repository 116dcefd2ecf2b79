package cli

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
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
	CertificateChain          string // CA certificates, for folder signatures of the OMS certificate method
}

// AddFlags declares the signature flags on fs.
func (f *SignatureFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.CertificateIdentity, "certificate-identity", "", "the signer's exact identity (certificate SAN), such as https://github.com/OWNER/REPO/.github/workflows/release.yml@refs/tags/v1.0.0")
	fs.StringVar(&f.CertificateIdentityRegexp, "certificate-identity-regexp", "", "a `regexp` the signer's identity must match, such as ^https://github.com/OWNER/REPO/")
	fs.StringVar(&f.CertificateOIDCIssuer, "certificate-oidc-issuer", "", "the identity's OIDC `issuer`, such as https://token.actions.githubusercontent.com")
	fs.StringVar(&f.Key, "key", "", "verify signatures made with a key: the public key PEM `file`")
	fs.StringVar(&f.TrustedRoot, "trusted-root", "", "a Sigstore trusted_root.json `file` (default: the public-good instance)")
	fs.StringVar(&f.CertificateChain, "certificate-chain", "", "verify skill folder signatures made with a CA's certificate (NVIDIA's skills): the CA certificates' PEM `file`")
}

// Given reports whether any signature flag was set.
func (f SignatureFlags) Given() bool { return f != SignatureFlags{} }

type verifyOptions struct {
	Source            string
	JSON              bool
	RequireSignatures bool
	MaxSize           byteSize
	Timeout           time.Duration
	Deadline          time.Duration
	MaxSkills         int
	Jobs              int
	Sig               SignatureFlags
	Auth              HTTPAuth    // --header, --token-file
	Previous          string      // --previous: the bundle published before, a folder or URL
	Target            TargetFlags // how to reach an s3:// or oci:// source
	Signature         string      // --signature: a skill folder's signature file
}

func newVerifyCmd(ios *IO, runF func(context.Context, *verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{MaxSize: verify.DefaultMaxSize}
	cmd := &cobra.Command{
		Use:   "verify DIST|URL|TARGET|SKILLDIR",
		Short: "Check a built bundle, a served or published one, or an installed skill end to end",
		Long: `Verify checks a bundle as a careful client would, trusting nothing in it.

It recomputes every digest and size, checks that every index (discovery
v0.2.0 and v0.1.0, mcp/skills.json, mcp/index.json, mcp/resources.json,
checksums.txt) agrees with the files and with the other indexes, unpacks
every archive in memory (refusing path traversal, absolute paths, links,
devices, and archives that unpack to too much) and compares it with the
served files, and checks signatures (<artifact>.sigstore.json, and each
skill folder's skill.oms.sig) when they are there. A DIST folder must also
hold exactly the files its build record lists.

A SKILLDIR (a folder with SKILL.md or skill.oms.sig and no bundle in it:
a skill as an installer unpacked it) is checked against its folder
signature, an OpenSSF Model Signing (OMS) signature: skill.oms.sig in the
folder, or the file --signature names. The signature must be by the
identity or key given, and it must list exactly the folder's files with
their digests: a file missing, added or changed is a problem naming it.

A URL is fetched over HTTP(S) like a client, starting at
/.well-known/agent-skills/index.json under it, with a timeout per request
(--timeout), at most 5 same-origin redirects and at most --max-size bytes
per file. A URL whose index cannot be fetched is a failed check (exit 1).

What a hostile bundle can cost is bounded: the whole check ends at
--deadline, reporting what it found and that the rest went unchecked; an
index that lists more than --max-skills skills is refused; --jobs files
are fetched at once; and the files held in memory to be decoded or
unpacked together take at most about --max-size bytes. Each of these is
a failed check (exit 1), never a hang.

A TARGET is a bundle that skillpack publish put in S3-compatible storage
(s3://bucket/prefix, with --endpoint for another server than AWS S3) or
in an OCI registry (oci://host[:port]/repo[:tag], tag latest when none),
read with the credentials publish uses (--username and --password-stdin,
else the environment's AWS credentials or the Docker config). A bucket is
checked as DIST is, but for the files its build record does not list:
the archives of earlier releases stay there until --prune. A registry
holds each skill's .tar.gz and SKILL.md, the documents and the
signatures, but no .zip and no other served file: those are counted as
not held, and what the indexes say of a skill's files is checked against
its .tar.gz; the manifests, configs and referrers are checked too, and
every file the registry holds must be in the build record. A target that
cannot be read is a failed check (exit 1).

A private registry's credentials are given with --token-file (a file
holding a bearer token, sent as "Authorization: Bearer TOKEN") or
--header 'Name: value'. They are sent only to the origin (scheme, host
and port) of the URL given, never to a file an index points to on
another origin. No message prints them.

--previous DIR|URL compares the bundle with the one published before it,
as build --previous does: a skill whose content changed while its version
did not, a version or release that went down, and a published version or
release that is gone or changed (build --versioned) are problems; a skill
that is gone is a warning. The headers go to it only on the URL's origin.

A bundle built with --versioned is checked whole: versions.json, every
file and archive of every published version, and each release's snapshot.

--json prints one document on stdout however the check ends: what was
checked, every problem and signature, and the exit code with the error
when it is not 0 (schema/verify.schema.json).`,
		Example: `  skillpack verify dist
  skillpack verify https://example.com --json
  skillpack verify https://example.com --require-signatures \
    --certificate-identity-regexp '^https://github.com/OWNER/REPO/' \
    --certificate-oidc-issuer https://token.actions.githubusercontent.com
  skillpack verify dist --require-signatures --key cosign.pub
  skillpack verify ~/.claude/skills/csv-profiler --key cosign.pub
  skillpack verify ./installed/skill --certificate-identity-regexp '^https://github.com/OWNER/REPO/' \
    --certificate-oidc-issuer https://token.actions.githubusercontent.com
  skillpack verify https://skills.internal.example --token-file token.txt
  skillpack verify https://skills.internal.example --header "X-Api-Key: $KEY"
  skillpack verify dist --previous https://example.com
  skillpack verify s3://my-bucket/skills --key cosign.pub --require-signatures
  skillpack verify oci://ghcr.io/OWNER/skills:v1`,
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
	f.BoolVar(&opts.RequireSignatures, "require-signatures", false, "fail unless every archive, index.json, mcp/skills.json and skill folder has a signature that verifies")
	f.Var(&opts.MaxSize, "max-size", "largest file read, such as 64MiB or 10MB (bytes without a unit)")
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
		Deadline:          opts.Deadline,
		MaxSkills:         opts.MaxSkills,
		Jobs:              opts.Jobs,
		Previous:          opts.Previous,
	}
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
	if p := opts.Previous; p != "" && !strings.Contains(p, "://") {
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			return nil, usageErr("--previous %s: no such folder; give the folder or the http(s) URL of the bundle published before", p)
		}
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
	if isTarget(opts.Source) {
		if rep, err = verifyTarget(ctx, ios, opts, o); err != nil {
			return nil, err
		}
	} else if opts.Target.given() {
		return nil, usageErr("--endpoint, --insecure, --username and --password-stdin are for an s3:// or oci:// TARGET; leave them out for %s", opts.Source)
	} else if scheme, _, ok := strings.Cut(opts.Source, "://"); ok {
		if u, perr := url.Parse(opts.Source); perr != nil || (scheme != "http" && scheme != "https") || u.Host == "" {
			return nil, usageErr("%s: give a dist folder, an http or https URL such as https://example.com, or a TARGET such as s3://bucket/prefix or oci://host/repo:tag", opts.Source)
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
		if verify.IsSkillFolder(opts.Source) {
			// An installed skill: its folder signature is all there is.
			if !opts.Sig.Given() {
				return nil, usageErr("%s is a skill folder, verified by its signature (%s): pass --certificate-identity and --certificate-oidc-issuer, --key, or --certificate-chain", opts.Source, layout.FolderSignatureFile)
			}
			rep, err = verify.Folder(ctx, opts.Source, opts.Signature, o)
		} else if !skill.IsBundle(opts.Source) && hasSkills(opts.Source) {
			return nil, usageErr("%s holds skills, not a bundle: build them first (skillpack build %s -o dist), then verify dist", opts.Source, opts.Source)
		} else if opts.Signature != "" {
			return nil, usageErr("--signature is for a skill folder; %s is a bundle, whose signatures sit beside its artifacts", opts.Source)
		} else {
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
	if !ios.Quiet { // -q: errors only, and a clean bundle is none
		fmt.Fprintln(ios.Err, rep.Summary())
	}
	return rep, nil
}

// isHostPort reports whether s reads as host:port with a numeric port
// (127.0.0.1:8080, localhost:8080), a server's address without a scheme.
func isHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	_, perr := strconv.Atoi(port)
	return err == nil && perr == nil
}

// hasSkills reports whether dir holds a skill at or below it, as a
// source folder does and a bundle, which discovery skips, does not.
func hasSkills(dir string) bool {
	skills, err := skill.Discover(dir)
	return err == nil && len(skills) > 0
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
		what = human.Plural(n, "problem") + " found"
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
