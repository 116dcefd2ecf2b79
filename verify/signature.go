package verify

import (
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// signatures looks for a bundle beside every signable artifact that was
// read, fetching them on the workers, and checks each when a verifier is
// configured.
func (c *checker) signatures() {
	var arts, sigs []string
	var digests [][]byte
	for _, loc := range slices.Concat(c.docs, slices.Sorted(maps.Keys(c.archives)), c.summed) {
		// The build signs what layout.SignedPath names, and every archive a
		// document names, wherever it sits (checked on its own). Without
		// the artifact's bytes there is nothing to check (why is reported).
		signable := c.archives[loc] != nil || layout.SignedPath(loc)
		if s := c.sums[loc]; signable && s != nil && s.err == nil {
			arts, sigs = append(arts, loc), append(sigs, layout.Signature(loc))
			digests = append(digests, s.raw)
		}
	}
	checked := make([]error, len(arts))
	pages := make([]bool, len(arts)) // a host's page for a file it lacks (fallbackPage)
	var one sync.Mutex               // a verifier need not be safe for concurrent use
	sums := c.fetchHeld(sigs, func(i int, data []byte) {
		if pages[i] = fallbackPage(sigs[i], data); pages[i] {
			return
		}
		if c.o.Verifier != nil {
			one.Lock()
			checked[i] = c.o.Verifier.Verify(data, digests[i])
			one.Unlock()
		}
	})
	for i, art := range arts {
		if pages[i] {
			c.fellBack(sigs[i])
			sums[i] = &sum{err: bundle.ErrNotFound}
		}
		sig := Signature{Artifact: art, Bundle: layout.Signature(art)}
		c.outcome(sig, sums[i], c.o.Verifier != nil, checked[i], "signature", art, nil)
	}
}

// outcome records what was found of one signature: fetched as s, checked
// when a verifier could (canCheck) with the result checked, and, once it
// verified, the problems more (if not nil) finds in what it signs. what
// names the kind of signature and does what it signs, in messages.
func (c *checker) outcome(sig Signature, s *sum, canCheck bool, checked error, what, does string, more func() []string) {
	c.sums[sig.Bundle] = s
	switch err := s.err; {
	case errors.Is(err, errStopped):
		return
	case errors.Is(err, bundle.ErrNotFound):
		sig.Status = SigMissing
		if c.o.RequireSignatures {
			c.problem(sig.Artifact, "has no %s (%s) and signatures are required", what, sig.Bundle)
		}
	case err != nil:
		sig.Status, sig.Error = SigInvalid, describe(err)
		c.failed(sig.Bundle, "")
	case !canCheck:
		sig.Status = SigNotChecked
		if c.o.RequireSignatures {
			c.problem(sig.Bundle, "%s not checked: no verifier configured; pass --certificate-identity and --certificate-oidc-issuer, or --key", what)
		}
	case checked != nil:
		sig.Status, sig.Error = SigInvalid, checked.Error()
		c.problem(sig.Bundle, "does not verify %s: %v", does, checked)
	default:
		var wrong []string
		if more != nil {
			wrong = more()
		}
		for _, msg := range wrong {
			c.problem(sig.Bundle, "%s", msg)
		}
		if len(wrong) > 0 {
			sig.Status, sig.Error = SigInvalid, wrong[0]
			break
		}
		sig.Status = SigVerified
		c.rep.Checked.Signatures++
	}
	c.rep.Signatures = append(c.rep.Signatures, sig)
}
