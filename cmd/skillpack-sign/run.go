package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/skillpack/skillpack/cmd/skillpack-sign/internal/sign"
)

// Protocol is the version of the protocol in the package comment. skillpack
// refuses a helper that speaks another.
const Protocol = 2

// TokenEnv carries --identity-token from skillpack, which keeps the token
// out of the helper's command line, where any user of the machine sees it.
const TokenEnv = "SKILLPACK_IDENTITY_TOKEN"

// Exit codes, as skillpack's own.
const (
	exitOK       = 0
	exitUsage    = 2
	exitInternal = 3
)

// request is a line skillpack writes; line is every line the helper
// writes: the first (protocol, keyless; error, usage) and the answers.
type request struct {
	Digest    string `json:"digest,omitempty"`
	Statement []byte `json:"statement,omitempty"` // sign: an in-toto statement, to sign as DSSE
	Bundle    []byte `json:"bundle,omitempty"`
	DSSE      bool   `json:"dsse,omitempty"` // verify: a folder signature, whose statement is returned
}

type line struct {
	Protocol int    `json:"protocol,omitempty"` // the first line's; it is never 0
	Keyless  *bool  `json:"keyless,omitempty"`
	Bundle   []byte `json:"bundle,omitempty"`
	OK       bool   `json:"ok,omitempty"`
	Payload  []byte `json:"payload,omitempty"` // verify with dsse: the statement signed
	Error    string `json:"error,omitempty"`
	Usage    bool   `json:"usage,omitempty"`
}

const usage = `usage: skillpack-sign sign|verify [flags]   (run by skillpack; the protocol: go -C cmd/skillpack-sign doc, in a clone)
       skillpack-sign version`

// stamped is the release version, set with -ldflags "-X main.stamped=vX.Y.Z"
// (.goreleaser.yaml): a binary built outside `go install` has no module
// version to read.
var stamped string

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return exitUsage
	}
	out := json.NewEncoder(stdout)
	fail := func(err error) int {
		out.Encode(line{Protocol: Protocol, Error: err.Error(), Usage: true})
		return exitUsage
	}
	fs := flag.NewFlagSet("skillpack-sign "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var so sign.Options
	var vo sign.VerifyOptions
	switch args[0] {
	case "version":
		v := stamped // a release build's, set by the linker
		if bi, ok := debug.ReadBuildInfo(); v == "" && ok {
			v = bi.Main.Version
		}
		fmt.Fprintf(stdout, "skillpack-sign %s (protocol %d)\n", cmp.Or(v, "(devel)"), Protocol)
		return exitOK
	case "sign":
		fs.StringVar(&so.IdentityToken, "identity-token", "", "OIDC token, or a file holding one")
		fs.StringVar(&so.Key, "key", "", "ECDSA private key PEM file")
		fs.StringVar(&so.FulcioURL, "fulcio-url", "", "Fulcio URL")
		fs.StringVar(&so.RekorURL, "rekor-url", "", "Rekor URL")
		fs.StringVar(&so.TSAURL, "tsa-url", "", "timestamp authority URL")
		fs.StringVar(&so.TrustedRoot, "trusted-root", "", "trusted_root.json to check each bundle against")
		fs.StringVar(&so.SigningConfig, "signing-config", "", "signing_config.json")
	case "verify":
		fs.StringVar(&vo.CertificateIdentity, "certificate-identity", "", "the signer's exact identity")
		fs.StringVar(&vo.CertificateIdentityRegexp, "certificate-identity-regexp", "", "a regexp the identity must match")
		fs.StringVar(&vo.CertificateOIDCIssuer, "certificate-oidc-issuer", "", "the identity's OIDC issuer")
		fs.StringVar(&vo.Key, "key", "", "ECDSA public key PEM file")
		fs.StringVar(&vo.TrustedRoot, "trusted-root", "", "trusted_root.json")
		fs.StringVar(&vo.CertificateChain, "certificate-chain", "", "PEM file of CA certificates (the OMS certificate method)")
	default:
		fmt.Fprintf(stderr, "skillpack-sign: unknown command %q\n%s\n", args[0], usage)
		return exitUsage
	}
	if err := parse(fs, args[1:]); err != nil {
		return fail(err)
	}

	ctx := context.Background()
	var answer func(request) (line, error)
	h := line{Protocol: Protocol}
	if args[0] == "sign" {
		so.IdentityToken = cmp.Or(so.IdentityToken, env(TokenEnv))
		s, err := sign.NewSigner(ctx, so, env)
		if err != nil {
			return fail(err)
		}
		keyless := s.Keyless()
		h.Keyless = &keyless
		answer = func(r request) (line, error) {
			var b []byte
			d, err := digest(r.Digest)
			switch {
			case r.Statement != nil:
				b, err = s.SignStatement(ctx, r.Statement)
			case err == nil:
				b, err = s.SignDigest(ctx, d)
			}
			return line{Bundle: b}, err
		}
	} else {
		v, err := sign.NewVerifier(vo)
		if err != nil {
			return fail(err)
		}
		answer = func(r request) (line, error) {
			var p []byte
			d, err := digest(r.Digest)
			switch {
			case r.DSSE:
				p, err = v.VerifyStatement(r.Bundle)
			case err == nil:
				err = v.Verify(r.Bundle, d)
			}
			return line{OK: true, Payload: p}, err
		}
	}

	if err := out.Encode(h); err != nil {
		return exitInternal
	}
	in := bufio.NewScanner(stdin)
	in.Buffer(nil, 64<<20) // a verify request carries a whole bundle
	for in.Scan() {
		var r request
		var resp line
		err := json.Unmarshal(in.Bytes(), &r)
		if err != nil {
			err = fmt.Errorf("not a request line: %v", err)
		} else {
			resp, err = answer(r)
		}
		if err != nil {
			resp = line{Error: err.Error()}
		}
		if err := out.Encode(resp); err != nil {
			fmt.Fprintf(stderr, "skillpack-sign: %v\n", err)
			return exitInternal
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(stderr, "skillpack-sign: reading requests: %v\n", err)
		return exitInternal
	}
	return exitOK
}

// parse parses flags and refuses arguments: everything else comes on stdin.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s takes no arguments, got %q", fs.Name(), fs.Args())
	}
	return nil
}

// digest decodes "sha256:HEX".
func digest(s string) ([]byte, error) {
	h, ok := strings.CutPrefix(s, "sha256:")
	d, err := hex.DecodeString(h)
	if !ok || err != nil || len(d) != 32 {
		return nil, errors.New(`want a digest "sha256:" and 64 hex digits, got ` + fmt.Sprintf("%q", s))
	}
	return d, nil
}
