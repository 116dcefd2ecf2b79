package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/layout"
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
	Headers           []string // --header, each "Name: value" as given
	TokenFile         string   // --token-file: a bearer token
	Signature         string   // --signature: a skill folder's signature file
}

func newVerifyCmd(ios *IO, runF func(context.Context, *verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{MaxSize: verify.DefaultMaxSize}
	cmd := &cobra.Command{
		Use:   "verify DIST|URL|SKILLDIR",
		Short: "Check a built bundle, a served one, or an installed skill end to end",
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

A private registry's credentials are given with --token-file (a file
holding a bearer token, sent as "Authorization: Bearer TOKEN") or
--header 'Name: value'. They are sent only to the origin (scheme, host
and port) of the URL given, never to a file an index points to on
another origin. No message prints them.

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
  skillpack verify https://skills.internal.example --header "X-Api-Key: $KEY"`,
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
	f.StringArrayVar(&opts.Headers, "header", nil, "add a request header, `'Name: value'`, to every request to the URL's origin (repeatable)")
	f.StringVar(&opts.TokenFile, "token-file", "", "send the bearer token in `file` (one line) as 'Authorization: Bearer TOKEN' to the URL's origin")
	f.StringVar(&opts.Signature, "signature", "", "a skill folder's OMS signature `file` (default: skill.oms.sig in the folder)")
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
		Deadline:          opts.Deadline,
		MaxSkills:         opts.MaxSkills,
		Jobs:              opts.Jobs,
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
		if opts.Signature != "" {
			return nil, usageErr("--signature is for a skill folder on disk, not a URL")
		}
		if o.Header, err = opts.requestHeader(); err != nil {
			return nil, err
		}
		// A bundle that cannot be fetched did not verify: in CI, a
		// deployment that is not there fails the check.
		if rep, err = verify.URL(ctx, opts.Source, o); err != nil {
			return nil, &exitError{code: ExitFindings, err: err}
		}
	} else {
		if len(opts.Headers) > 0 || opts.TokenFile != "" {
			return nil, usageErr("--header and --token-file are for a URL; %s is a folder, read without HTTP, so leave them out", opts.Source)
		}
		info, serr := os.Stat(opts.Source)
		switch {
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
	fmt.Fprintln(ios.Err, rep.Summary())
	if !rep.OK() {
		return rep, findingsErr
	}
	return rep, nil
}

// headerExample is the right form of --header, for the messages that
// refuse a wrong one.
const headerExample = "give it as 'Name: value', such as --header 'Authorization: Bearer TOKEN'"

// ownHeaders are the headers verify sets itself, which --header may not.
var ownHeaders = map[string]string{
	"Host":            "the host is the URL's",
	"Accept-Encoding": "verify asks for gzip itself and checks what the server sends back",
}

// requestHeader is what --header and --token-file add to verify's
// requests, checked whole before anything is fetched. No message quotes
// a value (or a name that may be one): it may be a secret.
func (o *verifyOptions) requestHeader() (http.Header, error) {
	h := http.Header{}
	for i, raw := range o.Headers {
		flag := "--header"
		if len(o.Headers) > 1 {
			flag = fmt.Sprintf("--header #%d", i+1)
		}
		name, value, ok := strings.Cut(raw, ":")
		value = strings.Trim(value, " \t")
		switch {
		case !ok:
			return nil, usageErr("%s has no ':'; %s", flag, headerExample)
		case name == "":
			return nil, usageErr("%s has no name before ':'; %s", flag, headerExample)
		case strings.ContainsFunc(name, notTokenChar):
			return nil, usageErr("%s: the name before ':' may hold only letters, digits and !#$%%&'*+-.^_`|~ (no spaces); %s", flag, headerExample)
		case strings.ContainsFunc(value, isControl):
			return nil, usageErr("%s %s: the value has a line break or another control character; give one line, %s", flag, name, headerExample)
		case value == "":
			return nil, usageErr("%s %s has no value after ':' (an unset variable?); %s", flag, name, headerExample)
		}
		name = http.CanonicalHeaderKey(name)
		if why, ok := ownHeaders[name]; ok {
			return nil, usageErr("%s %s: verify sets %s itself (%s); leave it out", flag, name, name, why)
		}
		h.Add(name, value)
	}
	if o.TokenFile != "" {
		token, err := readToken(o.TokenFile)
		if err != nil {
			return nil, usageErr("--token-file %s: %w", o.TokenFile, err)
		}
		h.Add("Authorization", "Bearer "+token)
	}
	if len(h.Values("Authorization")) > 1 {
		return nil, usageErr("Authorization is given more than once; give it once, with --token-file or with --header")
	}
	if len(h) == 0 {
		return nil, nil
	}
	return h, nil
}

// readToken reads a bearer token: the file's one line, trimmed. A token
// is printable ASCII without spaces (RFC 6750), as serve's
// --auth-token-file wants it too.
func readToken(file string) (string, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return "", errors.New("no such file; give the file that holds the token")
	} else if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(data))
	switch {
	case token == "":
		return "", errors.New("the file is empty; put the token in it, alone on one line")
	case strings.HasPrefix(token, "Bearer "):
		return "", errors.New("the file starts with 'Bearer '; put the token alone in it (verify adds 'Bearer ')")
	case strings.ContainsFunc(token, notTokenText):
		return "", errors.New("the token has a space, a line break or a character that is not printable ASCII in it; put the token alone in the file, on one line")
	}
	return token, nil
}

// notTokenChar reports whether r may not be in a header's name (RFC 9110
// token).
func notTokenChar(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
}

// isControl reports whether r is a control character other than a tab,
// which a header's value may not hold.
func isControl(r rune) bool { return r != '\t' && unicode.IsControl(r) }

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
