package cli

import (
	"io"

	"github.com/skillpack/skillpack/internal/jsonenc"
)

// The --json documents: each command that reports prints one on stdout
// however it ends, with its status, so that a CI step that writes
// `--json > out.json` always gets a document. Lists are [] when empty,
// never null. The schemas are in schema/, one a command.

// status ends every --json document.
type status struct {
	// Error is what Main prints on stderr, or for exit 1 a sentence
	// saying what failed; absent when the command succeeded.
	Error    string `json:"error,omitempty"`
	ExitCode int    `json:"exitCode"`
}

// newStatus is the status of a command that returned err. what says
// what failed when the error carries no message of its own (exit 1 after
// findings were printed).
func newStatus(err error, what string) status {
	code, msg := exitStatus(err)
	if msg == "" && code != ExitOK {
		msg = what
	}
	return status{Error: msg, ExitCode: code}
}

// nonNil makes an empty list [] in JSON, never null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// jsonResult prints doc (when asJSON) and returns err: the document is
// written whether the command failed or not. A document that cannot be
// written is skillpack's own failure, unless the command failed already.
func jsonResult(w io.Writer, asJSON bool, doc any, err error) error {
	if !asJSON {
		return err
	}
	if werr := jsonenc.Write(w, doc); werr != nil && err == nil {
		return &exitError{code: ExitInternal, err: werr}
	}
	return err
}
