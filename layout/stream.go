package layout

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"iter"

	"github.com/skillpack/skillpack/internal/jsonenc"
)

// array is an array a document streams: its key among the document's
// top-level fields ("" when the document is the array), and its elements.
type array struct {
	key   string
	elems iter.Seq2[any, error]
}

// stream writes a document as jsonenc would encode it whole, with the
// arrays streamed one element at a time, so that a document of any size
// is written without being held. The first error of an array's elements
// stops the document.
//
// shell is the document with those arrays empty ([]T{}), given in the
// document's order. The framing is cut from shell's own encoding, where
// an array's "[]" follows its key at the start of a line, which no value
// can fake (newlines in strings are escaped). Each element is encoded
// alone with the indent of its depth: encoding/json compacts a value and
// then indents it, the same wherever it sits.
func stream(w io.Writer, shell any, arrays ...array) error {
	var frame bytes.Buffer
	if err := jsonenc.New(&frame, "").Encode(shell); err != nil {
		return err
	}
	f := frame.Bytes()
	var b bytes.Buffer
	for _, a := range arrays {
		at, outer := 0, ""
		if a.key != "" {
			k := []byte("\n  \"" + a.key + "\": []")
			if at = bytes.Index(f, k); at < 0 {
				return fmt.Errorf("layout: no array %q to stream", a.key)
			}
			at, outer = at+len(k)-2, "  "
		}
		inner := outer + "  "
		enc := jsonenc.New(&b, inner)
		b.Write(f[:at+1])
		n := 0
		for v, err := range a.elems {
			if err != nil {
				return err
			}
			if n++; n > 1 {
				b.WriteByte(',')
			}
			b.WriteString("\n" + inner)
			if err := enc.Encode(v); err != nil {
				return err
			}
			b.Truncate(b.Len() - 1) // Encode ends every value with a newline
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
		if n > 0 {
			b.WriteString("\n" + outer)
		}
		b.WriteByte(']')
		f = f[at+2:]
	}
	b.Write(f)
	_, err := w.Write(b.Bytes())
	return err
}

// Render renders a document into w and returns its digest and size.
func Render(w io.Writer, write func(io.Writer) error) (Rendered, error) {
	h := sha256.New()
	c := &counter{w: io.MultiWriter(w, h)}
	if err := write(c); err != nil {
		return Rendered{}, err
	}
	return Rendered{Digest: SumDigest(h.Sum(nil)), Size: c.n}, nil
}

type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// fixed renders a small document held whole.
func fixed(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}
