//go:build !unix

package lint

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
