// Package jsonenc is the one JSON encoding of everything skillpack writes
// for programs to read: the bundle's documents and build record (layout),
// the --json documents, verify's report, lint's JSON and SARIF; and the
// one way a JSON document's decoding error is placed and said. It imports
// nothing of the module, so every package can use it.
package jsonenc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
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

// Explain places err, an error decoding data, at a 1-based line and
// column, and says it in JSON's words: a field of the wrong type as
// `"owner" should be a JSON object, not string`, not as Go's struct
// types; a trailing comma at the comma, as encoding/json v2 (the
// release's) places it, not at the bracket after it, where v1 does; a
// character as itself, not as its first byte; a merge conflict's marker
// as one. An error with no offset is
// placed at the end. Manifests, lint's JSON checks and verify all say a
// document's JSON error this one way.
func Explain(data []byte, err error) (line, col int, msg string) {
	off := len(data)
	msg = "not valid JSON: " + err.Error()
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = min(max(int(se.Offset), 0), len(data))
		// v1's Unmarshal counts the byte it stopped at; its Decoder and v2
		// do not.
		bad := func(i int) bool {
			return i >= 0 && i < len(data) && strings.HasPrefix(se.Error(), "invalid character '"+string(rune(data[i]))+"'")
		}
		if bad(off-1) && !bad(off) {
			off--
		}
		if i := len(bytes.TrimRight(data[:off], " \t\r\n")); off < len(data) && (data[off] == '}' || data[off] == ']') && i > 0 && data[i-1] == ',' {
			off = i - 1
		}
		msg = "not valid JSON: " + se.Error()
		if off < len(data) && data[off] >= utf8.RuneSelf {
			if r, _ := utf8.DecodeRune(data[off:]); r != utf8.RuneError {
				msg = strings.Replace(msg, "'"+string(rune(data[off]))+"'", strconv.QuoteRune(r), 1)
			}
		}
		start := bytes.LastIndexByte(data[:off], '\n') + 1
		for _, m := range []string{"<<<<<<<", "=======", ">>>>>>>"} {
			if bytes.HasPrefix(data[start:], []byte(m)) {
				msg += "; the line is a merge conflict's marker: resolve the conflict"
				break
			}
		}
	case errors.As(err, &te):
		off = min(max(int(te.Offset), 0), len(data))
		what := "the document"
		if te.Field != "" {
			what = strconv.Quote(te.Field)
		}
		msg = fmt.Sprintf("%s should be a JSON %s, not %s", what, kind(te.Type), te.Value)
	}
	line, col = LineCol(data, off)
	return line, col, msg
}

// kind names a Go type as the JSON type that decodes into it.
func kind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Interface:
		return "value"
	}
	return "number"
}

// LineCol turns a byte offset into a 1-based line and column (in
// characters).
func LineCol(data []byte, off int) (int, int) {
	off = min(max(off, 0), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return line, 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:off], '\n')+1:off])
}
