package layout

import "fmt"

// The limits of a bundle as a whole, which verify, serve and pull hold it
// to, and the build refuses first, so that what it writes, verify accepts.
// Those of one archive or file are package pack's (MaxDocument is
// pack.MaxFile).
const (
	MaxSkills   = 10000    // skills of one bundle: an index's entries, a collection's manifests
	MaxDocument = 64 << 20 // bytes of one document: an index, mcp/*.json, the catalog, the build record
)

// LimitError is a bundle a reader would refuse as a whole, with the fix.
type LimitError struct{ msg string }

func (e *LimitError) Error() string { return e.msg }

// ExitClass is the command's exit code: 1, a failed check.
func (*LimitError) ExitClass() int { return 1 }

// CheckSkills refuses a bundle of n skills when n is over MaxSkills.
func CheckSkills(n int) error {
	if n <= MaxSkills {
		return nil
	}
	return &LimitError{fmt.Sprintf("the bundle has %d skills; verify and pull read no bundle of more than %d, so the build does not write it: build the skills into several bundles (an output folder each)", n, MaxSkills)}
}

// CheckDocument refuses a document of the bundle at path of size bytes
// when it is over MaxDocument.
func CheckDocument(path string, size int64) error {
	if size <= MaxDocument {
		return nil
	}
	return &LimitError{fmt.Sprintf("%s would be %d bytes; verify and serve read no document over %d bytes (64 MiB), so the build does not write it: build the skills into several bundles (an output folder each), or make their frontmatter shorter", path, size, int64(MaxDocument))}
}
