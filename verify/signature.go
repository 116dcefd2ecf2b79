package verify

import (
	"errors"
	"maps"
	"slices"
	"sync"

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
// read, fetching them on the workers, and checks each when a verifier is
// configured.
func (c *checker) signatures() {
	var arts []string
	var digests [][]byte
	for _, loc := range append(slices.Clone(c.docs), slices.Sorted(maps.Keys(c.archives))...) {
		// Without the artifact's bytes there is nothing to check a
		// signature against; why is already reported.
		if s := c.sums[loc]; c.signable(loc) && s != nil && s.err == nil {
			arts = append(arts, loc)
			digests = append(digests, s.raw)
		}
	}
	sums := make([]*sum, len(arts))
	checked := make([]error, len(arts))
	var one sync.Mutex // a verifier need not be safe for concurrent use
	c.dropDoc()
	each(c, len(arts), func(i int) {
		var h *held
		if sums[i], h = c.fetch(layout.Signature(arts[i]), true); h != nil {
			if c.o.Verifier != nil {
				one.Lock()
				checked[i] = c.o.Verifier.Verify(h.bytes(), digests[i])
				one.Unlock()
			}
			h.release()
		}
	})
	for i, art := range arts {
		sig := Signature{Artifact: art, Bundle: layout.Signature(art)}
		s := sums[i]
		c.sums[sig.Bundle] = s
		switch err := s.err; {
		case errors.Is(err, errStopped):
			continue
		case errors.Is(err, errNotFound):
			sig.Status = SigMissing
			if c.o.RequireSignatures {
				c.problem(art, "has no signature (%s) and signatures are required", sig.Bundle)
			}
		case err != nil:
			sig.Status, sig.Error = SigInvalid, describe(err)
			c.failed(sig.Bundle, "")
		case c.o.Verifier == nil:
			sig.Status = SigNotChecked
			if c.o.RequireSignatures {
				c.problem(sig.Bundle, "signature not checked: no verifier configured; pass --certificate-identity and --certificate-oidc-issuer, or --key")
			}
		case checked[i] != nil:
			sig.Status, sig.Error = SigInvalid, checked[i].Error()
			c.problem(sig.Bundle, "does not verify %s: %v", art, checked[i])
		default:
			sig.Status = SigVerified
			c.rep.Checked.Signatures++
		}
		c.rep.Signatures = append(c.rep.Signatures, sig)
	}
}
