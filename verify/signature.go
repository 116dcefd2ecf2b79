package verify

import (
	"errors"
	"maps"
	"slices"

	"github.com/skillpack/skillpack/layout"
)

// SignatureSuffix is appended to an artifact's path to name its Sigstore
// bundle (layout.Signature).
const SignatureSuffix = layout.SignatureSuffix

// signable reports whether the build signs the artifact at loc, as
// layout.SignedPath says; an archive a document names is held to it
// wherever it sits and whatever its name, which are checked on their own.
func (c *checker) signable(loc string) bool {
	return c.archives[loc] != nil || layout.SignedPath(loc)
}

// signatures looks for a bundle beside every signable artifact that was
// read, and checks it when a verifier is configured.
func (c *checker) signatures() {
	var arts []string
	for _, loc := range append(slices.Clone(c.docs), slices.Sorted(maps.Keys(c.archives))...) {
		if c.signable(loc) {
			arts = append(arts, loc)
		}
	}
	for _, art := range arts {
		s := c.sums[art]
		if s == nil || s.err != nil {
			continue // already reported; nothing to check a signature against
		}
		sig := Signature{Artifact: art, Bundle: layout.Signature(art)}
		data, err := c.load(sig.Bundle, true)
		switch {
		case errors.Is(err, errNotFound):
			sig.Status = SigMissing
			if c.o.RequireSignatures {
				c.problem(art, "has no signature (%s) and signatures are required", sig.Bundle)
			}
		case err != nil:
			sig.Status, sig.Error = SigInvalid, describe(err)
			c.problem(sig.Bundle, "%s", describe(err))
		case c.o.Verifier == nil:
			sig.Status = SigNotChecked
			if c.o.RequireSignatures {
				c.problem(sig.Bundle, "signature not checked: no verifier configured; pass --certificate-identity and --certificate-oidc-issuer, or --key")
			}
		default:
			if err := c.o.Verifier.Verify(data, s.raw); err != nil {
				sig.Status, sig.Error = SigInvalid, err.Error()
				c.problem(sig.Bundle, "does not verify %s: %v", art, err)
			} else {
				sig.Status = SigVerified
				c.rep.Checked.Signatures++
			}
		}
		c.rep.Signatures = append(c.rep.Signatures, sig)
	}
}
