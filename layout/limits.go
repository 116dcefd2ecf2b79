package layout

import "fmt"

// The limits of a bundle as a whole, which verify, serve and pull of a
// registry hold it to; the build refuses first (Plan, and the build's
// record), so that what it writes, verify accepts. The limits of one
// archive, and of reading any one file, are package pack's (pack.MaxFile,
// which MaxDocument equals: verify reads no file over it, documents
// included).
const (
	MaxSkills   = 10000    // skills of one bundle: an index's entries, a collection's manifests
	MaxDocument = 64 << 20 // bytes of one document: an index, mcp/*.json, the catalog, the build record
)

// LimitError is a bundle a reader would refuse as a whole: more than
// MaxSkills skills, or a document over MaxDocument. The build refuses it
// first, saying what crosses which limit and the fix.
type LimitError struct{ msg string }

func (e *LimitError) Error() string { return e.msg }

// ExitClass is the command's exit code: 1, a failed check, as lint's
// errors are.
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
