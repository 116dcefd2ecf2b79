package cli

import (
	"context"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/sign"
)

// SignOptions are the signing flags, shared by `sign` and `build --sign`:
// sign's options, set by the flags. The zero value signs keyless against
// the public-good Sigstore instance with the OIDC token from the
// environment.
type SignOptions sign.Options

// AddFlags registers the signing flags under cosign's names.
func (o *SignOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.IdentityToken, "identity-token", "", "OIDC `token` (or a file holding one) for keyless signing (default: $SIGSTORE_ID_TOKEN, then GitHub Actions)")
	f.StringVar(&o.Key, "key", "", "sign with this ECDSA P-256/P-384 private key `file` instead of keyless (password: $SKILLPACK_KEY_PASSWORD)")
	f.StringVar(&o.FulcioURL, "fulcio-url", "", "Fulcio `URL` (default: "+sign.DefaultFulcioURL+")")
	f.StringVar(&o.RekorURL, "rekor-url", "", "Rekor `URL` (default keyless: "+sign.DefaultRekorURL+"; with --key: no log)")
	f.StringVar(&o.TSAURL, "tsa-url", "", "timestamp authority `URL` (default keyless: "+sign.DefaultTSAURL+"; with --key: none)")
	f.StringVar(&o.TrustedRoot, "trusted-root", "", "trusted_root.json `file` to check each keyless signature against right after signing")
	f.StringVar(&o.SigningConfig, "signing-config", "", "Sigstore signing_config.json `file` naming a private instance's services")
}

// newSigner starts the signing helper, which checks the signing flags:
// its errors are the user's to fix (exit 2). It contacts no service, so
// it may run before a build starts. Close the signer.
func (o *SignOptions) newSigner(ctx context.Context, ios *IO) (*sign.Signer, error) {
	so := sign.Options(*o)
	so.Stderr = ios.Err
	s, err := sign.NewSigner(ctx, so, ios.Getenv)
	if err != nil {
		return nil, usageErr("%w", err)
	}
	return s, nil
}

// runSign signs the bundle at dist and reports it in the build's log style.
func runSign(ctx context.Context, ios *IO, dist string, opts *SignOptions) error {
	if info, err := os.Stat(dist); err != nil || !info.IsDir() {
		return usageErr("%s: no such folder (build the bundle first: skillpack build -o %s)", dist, dist)
	}
	s, err := opts.newSigner(ctx, ios)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := build.Sign(dist, func(data []byte) ([]byte, error) { return s.Sign(ctx, data) },
		func(st []byte) ([]byte, error) { return s.SignStatement(ctx, st) }, nil)
	if err != nil {
		return err // a refused folder is the user's (build.OutputError), else skillpack's
	}
	mode := "key"
	if s.Keyless() {
		mode = "keyless"
	}
	ios.Infof("• sign: %s (%s), %s beside each; %s, %s in each", human.Plural(len(res.Signatures), "artifact", "artifacts"),
		mode, layout.SignatureSuffix, human.Plural(len(res.Folders), "skill folder", "skill folders"), layout.FolderSignatureFile)
	return nil
}

func newSignCmd(ios *IO, runF func(ctx context.Context, dist string, opts *SignOptions) error) *cobra.Command {
	opts := &SignOptions{}
	cmd := &cobra.Command{
		Use:   "sign DIST",
		Short: "Sign a built bundle's archives, indexes and skill folders with Sigstore",
		Long: `Sign signs a bundle that skillpack build wrote with Sigstore: every archive,
index.json and mcp/skills.json gets <artifact>.sigstore.json beside it
(cosign verify-blob reads it), and every skill folder a skill.oms.sig (an
OpenSSF Model Signing signature of its files). Archives and indexes keep
their bytes.

Keyless by default: the OIDC token comes from --identity-token, else
SIGSTORE_ID_TOKEN, else GitHub Actions (permissions: id-token: write).
--key signs with an ECDSA P-256 or P-384 key instead (password from
SKILLPACK_KEY_PASSWORD or COSIGN_PASSWORD).

Signing runs skillpack-sign, found beside skillpack or on PATH:
  go install github.com/skillpack/skillpack/cmd/skillpack-sign@latest` + "\n\n" + docs("signing.md"),
		Example: `  # in a GitHub Actions release job with permissions: id-token: write
  skillpack sign dist

  # with a key made by cosign generate-key-pair
  COSIGN_PASSWORD=... skillpack sign dist --key cosign.key`,
		Args: oneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), args[0], opts)
			}
			return runSign(cmd.Context(), ios, args[0], opts)
		},
	}
	opts.AddFlags(cmd.Flags())
	return cmd
}
