package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// A bundle over a reader's limits is a build's failed check (1), as lint's
// errors are; of a publish or verify of a target, a bucket that does not
// exist is the user's to fix (2), a server that kept failing is a failed
// check (1), and anything else skillpack's own failure (3).
func TestFailureCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"too many skills", fmt.Errorf("index: %w", layout.CheckSkills(layout.MaxSkills+1)), ExitFindings},
		{"a document too large", fmt.Errorf("index: %w", layout.CheckDocument(layout.MCPSkills, layout.MaxDocument+1)), ExitFindings},
		{"no bucket", &exitError{code: failedCode(fmt.Errorf("s3://nope: %w", publish.ErrNoBucket))}, ExitUsage},
		{"unavailable", &exitError{code: failedCode(fmt.Errorf("put: %w", publish.ErrUnavailable))}, ExitFindings},
		{"other", &exitError{code: failedCode(errors.New("put: refused"))}, ExitInternal},
	} {
		if code, _ := exitStatus(tc.err); code != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, code, tc.want)
		}
	}
}
