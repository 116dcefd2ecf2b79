package build

import (
	"errors"
	"fmt"

	"github.com/skillpack/skillpack/internal/outlock"
)

// lockOut takes the lock of the build's output (package outlock), once
// the output check has found the folder one the build may write, and
// before it reads the bundle there; a dry run writes nothing and takes
// none.
func (b *builder) lockOut(out string) (unlock func(), err error) {
	if b.opts.DryRun {
		return nil, nil
	}
	return lockOutput(out, "build")
}

// lockOutput takes the lock of the output folder out (absolute) for what
// ("build", "sign"). A lock held by another process is an *OutputError
// saying which.
func lockOutput(out, what string) (unlock func(), err error) {
	unlock, err = outlock.Take(out, what)
	if be := (*outlock.BusyError)(nil); errors.As(err, &be) {
		return nil, &OutputError{fmt.Errorf("%w, or build into another folder with -o", be)}
	}
	return unlock, err
}
