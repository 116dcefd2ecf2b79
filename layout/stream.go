package layout

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
)

// newEncoder is the one JSON encoding of every document, the build record
// included: two-space indent after prefix, "\n" line endings and a final
// newline, and no HTML escaping, so that descriptions and paths read as
// written ("<" rather than "\u003c"). (The OMS statement a folder
// signature signs is compact, as in-toto payloads are, and unescaped too.)
func newEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}

// stream writes a document as newEncoder would encode it whole, with the
// n values elem(0), …, elem(n-1) in its array, one at a time, so that a
// document of any size is written without being held. elem is called in
// order, once each; its first error stops the document.
//
// shell is the document with that array empty ([]T{}), and the array is
// its last field or the document itself. The framing is cut from shell's
// own encoding, so the other fields keep the key order, omitempty and
// escaping of their struct. Each element is encoded alone with the indent
// of its depth, which gives the bytes of a whole-document encoding:
// encoding/json compacts a value and then indents it, and indenting is the
// same for a value wherever it sits.
func stream(w io.Writer, shell any, n int, elem func(i int) (any, error)) error {
	var frame bytes.Buffer
	if err := newEncoder(&frame, "").Encode(shell); err != nil {
		return err
	}
	if n == 0 {
		_, err := w.Write(frame.Bytes())
		return err
	}
	f := frame.Bytes()
	// The last "[]": scalar fields before it may contain one, but nothing
	// follows the array except closing braces.
	at := bytes.LastIndex(f, []byte("[]"))
	line := f[bytes.LastIndexByte(f[:at], '\n')+1 : at]
	outer := string(line[:len(line)-len(bytes.TrimLeft(line, " "))])
	inner := outer + "  "

	var b bytes.Buffer
	enc := newEncoder(&b, inner)
	b.Write(f[:at+1])
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + inner)
		v, err := elem(i)
		if err != nil {
			return err
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // Encode ends every value with a newline
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
		b.Reset()
	}
	b.WriteString("\n" + outer + "]")
	b.Write(f[at+2:])
	_, err := w.Write(b.Bytes())
	return err
}

// measure renders a document once into a SHA-256 and a byte count,
// keeping none of its bytes.
func measure(write func(io.Writer) error) (Rendered, error) {
	h := sha256.New()
	c := &counter{w: h}
	if err := write(c); err != nil {
		return Rendered{}, err
	}
	return Rendered{Digest: SumDigest(h.Sum(nil)), Size: c.n}, nil
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// fixed renders a document that does not grow with the bundle, held
// whole because it is small.
func fixed(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// collect renders a document into memory, for the functions that return
// whole documents; Plan never does this.
func collect(write func(io.Writer) error) ([]byte, error) {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
