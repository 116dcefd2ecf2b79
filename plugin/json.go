package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/skillpack/skillpack/internal/jsonenc"
)

// offsets holds where each value of a JSON document starts, by JSON
// pointer (unescaped, as the schema validator reports locations), and
// where each member's key starts: a problem with a member is reported on
// its key's line.
type offsets struct{ vals, keys map[string]int }

// at is the offset of the member's key at ptr, else of its value; of the
// nearest enclosing value for a member the document lacks.
func (o offsets) at(ptr string) int {
	for {
		if off, ok := o.keys[ptr]; ok {
			return off
		}
		if off, ok := o.vals[ptr]; ok || ptr == "" {
			return off
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
}

// positions reads a JSON document once, noting where each value starts.
// The error is the document's syntax error.
func positions(data []byte) (offsets, error) {
	o := offsets{vals: map[string]int{}, keys: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	start := func() int {
		i := int(dec.InputOffset())
		for i < len(data) && bytes.IndexByte([]byte(" \t\r\n,:"), data[i]) >= 0 {
			i++
		}
		return i
	}
	var value func(ptr string) error
	value = func(ptr string) error {
		o.vals[ptr] = start()
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				at := start()
				key, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := key.(string)
				o.keys[ptr+"/"+k] = at
				if err := value(ptr + "/" + k); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := value(ptr + "/" + strconv.Itoa(i)); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		}
		return err
	}
	if err := value(""); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return o, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return o, errors.New("invalid character after the top-level value")
	}
	return o, nil
}

// Syntax is the JSON syntax error of data, placed, if it has one.
func Syntax(data []byte) (Problem, bool) {
	if _, err := positions(data); err != nil {
		return syntaxProblem(data, err), true
	}
	return Problem{}, false
}

// syntaxProblem places a JSON syntax error.
func syntaxProblem(data []byte, err error) Problem {
	line, col, msg := jsonenc.Explain(data, err)
	return Problem{Line: line, Column: col, Message: msg, Fix: "correct the JSON syntax"}
}

// Span is where the value at a JSON pointer lies in a document: data[start:end];
// false when the document is no JSON or lacks the value. It lets a fix
// change one value's bytes and leave the rest as written.
func Span(data []byte, ptr string) (start, end int, ok bool) {
	return Spans(data)(ptr)
}

// Spans is Span of one document for many pointers, the document read
// once: asked of each entry, Span read a marketplace of 2,000 plugins
// 2,000 times.
func Spans(data []byte) func(ptr string) (start, end int, ok bool) {
	o, err := positions(data)
	return func(ptr string) (start, end int, ok bool) {
		if err != nil {
			return 0, 0, false
		}
		if start, ok = o.vals[ptr]; !ok {
			return 0, 0, false
		}
		dec := json.NewDecoder(bytes.NewReader(data[start:]))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return 0, 0, false
		}
		return start, start + int(dec.InputOffset()), true
	}
}
