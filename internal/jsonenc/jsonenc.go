// Package jsonenc is the one JSON encoding of everything skillpack writes
// for programs to read: the bundle's documents and build record (layout),
// the --json documents, verify's report, lint's JSON and SARIF. It imports
// nothing of the module, so every package can use it.
package jsonenc

import (
	"encoding/json"
	"io"
)

// New is an encoder of the one encoding: a two-space indent, each line
// after the first starting with prefix (layout streams a document's
// arrays element by element at their depth), "\n" line endings, a final
// newline, and no HTML escaping, so that descriptions, paths and messages
// read as written ("<" rather than "\u003c", which JSON does not need).
func New(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}

// Write writes v in the one encoding.
func Write(w io.Writer, v any) error { return New(w, "").Encode(v) }
