package build

import (
	"errors"
	"fmt"

	"github.com/skillpack/skillpack/internal/outlock"
)

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
