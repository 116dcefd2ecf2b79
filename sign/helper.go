package sign

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/internal/semver"
	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/layout"
)

// Helper is the program that holds skillpack's Sigstore code.
const Helper = "skillpack-sign"

// Install is the command, in backquotes, that installs the helper of this
// skillpack's version: its release's, or, for a skillpack built from a
// checkout (a pseudo-version, or none), the one in that checkout (@latest
// was wrong twice: before the first release, and for any skillpack not the
// latest).
var Install = sync.OnceValue(func() string { return installFor(version.Version()) })

func installFor(v string) string {
	// A release is vX.Y.Z[-pre], which Go's own tags and the release
	// stamp are; a pseudo-version (v0.0.0-yyyymmddhhmmss-rev12) has a
	// pre-release too, and "+dirty" a checkout's changes.
	if rel, ok := strings.CutPrefix(v, "v"); ok && semver.Valid(rel) && !strings.Contains(rel, "+") && !pseudo.MatchString(rel) {
		return "`go install " + version.Module + "/cmd/" + Helper + "@" + v + "`"
	}
	return "`go -C cmd/" + Helper + " install .` in skillpack's checkout"
}

// pseudo is the end of a pseudo-version's pre-release: the commit's time
// and revision.
var pseudo = regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)

// Protocol is the version of the helper protocol this package speaks (see
// cmd/skillpack-sign); a helper that speaks another is refused.
const Protocol = 2

// tokenEnv carries --identity-token to the helper: a token on its command
// line would be visible to every user of the machine.
const tokenEnv = "SKILLPACK_IDENTITY_TOKEN"

// passedEnv are the variables the helper reads, passed as skillpack's
// environment function sees them (tests give their own).
var passedEnv = []string{
	"SIGSTORE_ID_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	"GITHUB_ACTIONS", "SKILLPACK_KEY_PASSWORD", "COSIGN_PASSWORD",
}

// FindHelper returns the path of skillpack-sign: beside the running
// program first (a release archive and `go install` put both in one
// folder), else on PATH.
func FindHelper() (string, error) {
	name := Helper
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe, err := os.Executable()
	if err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			p := filepath.Join(filepath.Dir(exe), name)
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(Helper); err == nil {
		return p, nil
	}
	return "", errors.New("signing and checking signatures need " + Helper + ", which holds skillpack's Sigstore code " +
		"(a separate program, so that installing skillpack for lint and build stays fast), and it is neither beside " +
		"skillpack nor on PATH: install it with " + Install() + ", or take it from the release archive")
}

// request is a line to the helper; line is every line from it: the first
// (protocol, keyless, error, usage) and the answers (bundle, ok, payload,
// error).
type request struct {
	Digest    layout.Digest `json:"digest,omitempty"`
	Statement []byte        `json:"statement,omitempty"`
	Bundle    []byte        `json:"bundle,omitempty"`
	DSSE      bool          `json:"dsse,omitempty"`
}

type line struct {
	Protocol int    `json:"protocol"`
	Keyless  bool   `json:"keyless"`
	Bundle   []byte `json:"bundle"`
	OK       bool   `json:"ok"`
	Payload  []byte `json:"payload"`
	Error    string `json:"error"`
	Usage    bool   `json:"usage"`
}

// signed is what the client reads of a Sigstore bundle (v0.3) the helper
// made: what it signs.
type signed struct {
	MessageSignature struct {
		MessageDigest hashOutput `json:"messageDigest"`
	} `json:"messageSignature"`
	DSSEEnvelope *struct {
		Payload     []byte `json:"payload"`
		PayloadType string `json:"payloadType"`
	} `json:"dsseEnvelope"`
}

// hashOutput is Sigstore's HashOutput: a digest and its algorithm. Named,
// not anonymous, because layout's TestKeysSpelledOnce refuses an anonymous
// struct spelling the keys of one of layout's own formats.
type hashOutput struct{ Algorithm, Digest string }

// sign sends one sign request and returns the bundle, as JSON and
// decoded, for the caller to check what it signs.
func (p *process) sign(r request) ([]byte, *signed, error) {
	resp, err := p.call(r)
	if err != nil {
		return nil, nil, err
	}
	var b signed
	if err := json.Unmarshal(resp.Bundle, &b); err != nil {
		return nil, nil, fmt.Errorf("%s returned a bundle that is not JSON: %w", p.path, err)
	}
	return resp.Bundle, &b, nil
}

// process is one running helper, answering requests in order.
type process struct {
	mu   sync.Mutex
	path string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	dead error
}

// start runs the helper (FindHelper) with args and reads its first line;
// env reads the variables it is given.
func start(ctx context.Context, args []string, token string, env func(string) string, stderr io.Writer) (*process, line, error) {
	var h line
	helper, err := FindHelper()
	if err != nil {
		return nil, h, err
	}
	if env == nil {
		env = os.Getenv
	}
	cmd := exec.CommandContext(ctx, helper, args...)
	cmd.Env = os.Environ()
	for _, k := range passedEnv {
		cmd.Env = append(cmd.Env, k+"="+env(k))
	}
	cmd.Env = append(cmd.Env, tokenEnv+"="+token)
	cmd.Stderr = cmp.Or[io.Writer](stderr, os.Stderr)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, h, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, h, err
	}
	if err := cmd.Start(); err != nil {
		return nil, h, fmt.Errorf("running %s: %w", helper, err)
	}
	p := &process{path: helper, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	p.out.Buffer(nil, 64<<20)
	switch err = p.read(&h); {
	case err != nil:
	case h.Protocol != Protocol:
		err = fmt.Errorf("%s speaks helper protocol %d, this skillpack speaks %d: install the %s of skillpack's own version (%s)",
			helper, h.Protocol, Protocol, Helper, Install())
	case h.Error != "" && h.Usage:
		err = errors.New(h.Error)
	case h.Error != "":
		err = fmt.Errorf("%s: %s", helper, h.Error)
	default:
		return p, h, nil
	}
	p.Close()
	return nil, h, err
}

// read decodes the helper's next line into v.
func (p *process) read(v any) error {
	if !p.out.Scan() {
		return fmt.Errorf("%s stopped answering: %w", p.path, cmp.Or(p.out.Err(), io.ErrUnexpectedEOF))
	}
	if err := json.Unmarshal(p.out.Bytes(), v); err != nil {
		return fmt.Errorf("%s wrote %q, not a line of the helper protocol: %w", p.path, p.out.Text(), err)
	}
	return nil
}

// call sends one request and reads its answer; an answer's error is
// returned as the error. After the helper fails to answer once, every
// later call fails the same way.
func (p *process) call(r request) (line, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var resp line
	if p.dead != nil {
		return resp, p.dead
	}
	line, _ := json.Marshal(r) // strings, bytes and a bool always encode
	if _, err := p.in.Write(append(line, '\n')); err != nil {
		p.dead = fmt.Errorf("%s stopped answering: %w", p.path, err)
		return resp, p.dead
	}
	if err := p.read(&resp); err != nil {
		p.dead = err
		return resp, err
	}
	if resp.Error != "" {
		return resp, errors.New(resp.Error)
	}
	return resp, nil
}

// Close ends the helper's input and waits for it to exit.
func (p *process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.in.Close()
	if err := p.cmd.Wait(); err != nil && p.dead == nil {
		return fmt.Errorf("%s: %w", p.path, err)
	}
	return nil
}

// flags is the helper's command line: cmd and each flag given a value
// (flagValues holds flag, value pairs).
func flags(cmd string, flagValues ...string) []string {
	args := []string{cmd}
	for i := 0; i < len(flagValues); i += 2 {
		if flagValues[i+1] != "" {
			args = append(args, flagValues[i:i+2]...)
		}
	}
	return args
}

// Options say how to sign: the helper's sign flags, documented with
// skillpack sign's flags (cmd/skillpack/internal/cli) and in the helper's package sign.
// The zero value signs keyless against the public-good Sigstore instance,
// with the OIDC token taken from the environment.
type Options struct {
	IdentityToken               string // an OIDC token, or a file holding one; passed in the environment
	Key                         string // an ECDSA private key PEM file: sign with it instead of keyless
	FulcioURL, RekorURL, TSAURL string
	TrustedRoot                 string // check each keyless bundle against this trusted_root.json
	SigningConfig               string // a private instance's signing_config.json

	Stderr io.Writer // receives what the helper writes there (nil: os.Stderr)
}

// The public-good Sigstore instance, which the helper uses unless options
// or a signing config name others.
const (
	DefaultFulcioURL = "https://fulcio.sigstore.dev"
	DefaultRekorURL  = "https://rekor.sigstore.dev"
	DefaultTSAURL    = "https://timestamp.sigstore.dev/api/v1/timestamp"
)

// Signer signs artifacts through one running helper. A keyless Signer's
// helper asks Fulcio for one certificate, at its first signature, and
// signs every later artifact with the same key and certificate. A Signer
// is safe for concurrent use; signatures are made one at a time. Close it.
type Signer struct {
	*process
	keyless bool
}

// NewSigner starts the helper with o, which checks the options: it loads
// the key or makes the run's ephemeral key, reads the trusted root and
// signing config, and makes sure a keyless run has somewhere to get its
// token from. No service is contacted until the first Sign, so that the
// token and certificate are fresh. env is how environment variables are
// read (nil: os.Getenv).
func NewSigner(ctx context.Context, o Options, env func(string) string) (*Signer, error) {
	args := flags("sign", "--key", o.Key, "--fulcio-url", o.FulcioURL, "--rekor-url", o.RekorURL,
		"--tsa-url", o.TSAURL, "--trusted-root", o.TrustedRoot, "--signing-config", o.SigningConfig)
	p, h, err := start(ctx, args, o.IdentityToken, env, o.Stderr)
	if err != nil {
		return nil, err
	}
	return &Signer{process: p, keyless: h.Keyless}, nil
}

// Keyless reports whether s signs with a Fulcio certificate.
func (s *Signer) Keyless() bool { return s.keyless }

// Sign signs artifact and returns its Sigstore bundle as JSON. The helper
// is given only the artifact's sha256 digest, and the bundle is checked to
// sign exactly that digest.
func (s *Signer) Sign(_ context.Context, artifact []byte) ([]byte, error) {
	sum := sha256.Sum256(artifact)
	raw, b, err := s.sign(request{Digest: layout.SumDigest(sum[:])})
	if err != nil {
		return nil, err
	}
	md := b.MessageSignature.MessageDigest
	if md.Algorithm != "SHA2_256" || md.Digest != base64.StdEncoding.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("%s returned a bundle that signs %s %s, not the artifact's sha256 digest", s.path, md.Algorithm, md.Digest)
	}
	return raw, nil
}

// SignStatement signs a skill folder's statement (layout.StatementDoc)
// and returns the folder signature: a Sigstore bundle whose DSSE envelope
// holds the statement, checked to hold exactly these bytes.
func (s *Signer) SignStatement(_ context.Context, statement []byte) ([]byte, error) {
	raw, b, err := s.sign(request{Statement: statement})
	if err != nil {
		return nil, err
	}
	if env := b.DSSEEnvelope; env == nil || env.PayloadType != layout.InTotoPayloadType || !bytes.Equal(env.Payload, statement) {
		return nil, fmt.Errorf("%s returned a bundle that does not hold the statement it was given", s.path)
	}
	return raw, nil
}

// VerifyOptions say whose signature to accept, under cosign's flag names:
// keyless verification needs CertificateOIDCIssuer and one of
// CertificateIdentity or CertificateIdentityRegexp (docs/signing.md says
// which identity a GitHub Actions workflow signs as); key verification
// needs Key alone.
type VerifyOptions struct {
	CertificateIdentity       string
	CertificateIdentityRegexp string
	CertificateOIDCIssuer     string
	Key                       string // an ECDSA public key PEM file, for bundles signed with a key
	TrustedRoot               string // a trusted_root.json; empty: the public-good root, through TUF
	// CertificateChain is a PEM file of CA certificates, for folder
	// signatures of the OMS certificate method (NVIDIA's verified skills).
	CertificateChain string

	Stderr io.Writer // receives what the helper writes there (nil: os.Stderr)
}

// Verifier checks bundles against one identity policy, through one
// running helper. Close it.
type Verifier struct{ *process }

// NewVerifier starts the helper with o, which loads the trust it needs:
// the public key, or the trusted root (without TrustedRoot, keyless
// verification fetches the public-good root through TUF, which needs the
// network once).
func NewVerifier(ctx context.Context, o VerifyOptions) (*Verifier, error) {
	args := flags("verify", "--certificate-identity", o.CertificateIdentity, "--certificate-identity-regexp", o.CertificateIdentityRegexp,
		"--certificate-oidc-issuer", o.CertificateOIDCIssuer, "--key", o.Key, "--trusted-root", o.TrustedRoot,
		"--certificate-chain", o.CertificateChain)
	p, _, err := start(ctx, args, "", nil, o.Stderr)
	if err != nil {
		return nil, err
	}
	return &Verifier{p}, nil
}

// Verify checks that bundleJSON is a valid signature, by the identity or
// key v was made for, over the artifact whose raw sha256 digest is
// artifactDigest. The error says what did not verify.
func (v *Verifier) Verify(bundleJSON, artifactDigest []byte) error {
	resp, err := v.call(request{Digest: layout.SumDigest(artifactDigest), Bundle: bundleJSON})
	if err == nil && !resp.OK {
		err = fmt.Errorf("%s answered neither ok nor an error", v.path)
	}
	return err
}

// VerifyStatement checks that bundleJSON is a folder signature (OMS: a
// DSSE envelope over an in-toto statement) by the identity or key v was
// made for, and returns the statement it signs, for the caller to decode
// (layout.DecodeStatement) and compare with the folder.
func (v *Verifier) VerifyStatement(bundleJSON []byte) ([]byte, error) {
	resp, err := v.call(request{Bundle: bundleJSON, DSSE: true})
	if err == nil && (!resp.OK || resp.Payload == nil) {
		err = fmt.Errorf("%s answered neither a statement nor an error", v.path)
	}
	if err != nil {
		return nil, err
	}
	return resp.Payload, nil
}
