package build

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/skillpack/skillpack/layout"
)

// maxLLMsTxt bounds the site's llms.txt that a build reads to merge into:
// such files are kilobytes, and a larger one is the wrong file.
const maxLLMsTxt = 16 << 20

// llmsTxt decides the bundle's llms.txt. To merge into the site's own
// (Options.LLMsTxtMerge) it reads that file, once, and checks its markers
// before any skill is packed, so that a bad file costs nothing.
func (b *builder) llmsTxt() (*layout.LLMsOptions, string, error) {
	if !b.opts.LLMsTxt && b.opts.LLMsTxtMerge == "" {
		return nil, "not asked for (--llms-txt)", nil
	}
	if b.opts.LLMsTxtMerge == "" {
		return &layout.LLMsOptions{}, "", nil
	}
	name := b.opts.LLMsTxtMerge
	data, err := readLLMsTxt(name)
	if err == nil {
		err = layout.CheckLLMsBase(name, data)
	}
	if err != nil {
		return nil, "", &MergeError{err}
	}
	return &layout.LLMsOptions{Base: data, Name: name}, "", nil
}

// readLLMsTxt reads the file to merge into, saying what to give when it is no file.
func readLLMsTxt(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file; give the site's llms.txt to merge into, or --llms-txt alone for one of the bundle's own", name)
		}
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a file (%v); give the site's llms.txt", name, info.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxLLMsTxt+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxLLMsTxt {
		return nil, fmt.Errorf("%s is larger than %d MiB; an llms.txt is a short index, give that", name, maxLLMsTxt>>20)
	}
	return data, nil
}

// MergeError is a site's llms.txt (Options.LLMsTxtMerge) that cannot be
// merged into (missing, not a file, too large, not UTF-8, markers amiss):
// the user's to fix; nothing has been written.
type MergeError struct{ Err error }

func (e *MergeError) Error() string { return e.Err.Error() }
func (e *MergeError) Unwrap() error { return e.Err }

// ExitClass is the command's exit code: 2, the user's to fix.
func (*MergeError) ExitClass() int { return 2 }
