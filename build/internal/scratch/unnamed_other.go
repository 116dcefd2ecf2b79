//go:build !linux

package scratch

import (
	"errors"
	"os"
)

func unnamed(string) (*os.File, error) { return nil, errors.ErrUnsupported }
