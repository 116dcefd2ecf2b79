package build

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpack/skillpack/layout"
)

// AddToRecord lists extra files (slash paths relative to dist, such as
// signature bundles written by `skillpack sign`) in dist's build record, so
// that a later build still recognises every file in the folder as its own.
// The record is replaced by a rename, never rewritten in place.
func AddToRecord(dist string, paths []string) error {
	p := filepath.Join(dist, filepath.FromSlash(layout.BuildRecord))
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("%s is not a bundle skillpack built (no %s): %w", dist, layout.BuildRecord, err)
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	have := map[string]bool{}
	for _, f := range rec.Files {
		have[f] = true
	}
	for _, f := range paths {
		if !have[f] {
			rec.Files = append(rec.Files, f)
			have[f] = true
		}
	}
	sort.Strings(rec.Files)
	out, err := json.MarshalIndent(&rec, "", "  ")
	if err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// object writes a JSON object field by field, in the layout of
// json.MarshalIndent(v, "", "  "), so that a document of any size is
// written without being built in memory first. The first error sticks.
type object struct {
	w      *bufio.Writer
	fields int
	err    error
}

func newObject(w io.Writer) *object {
	o := &object{w: bufio.NewWriterSize(w, 64<<10)}
	o.w.WriteString("{")
	return o
}

// key starts a field.
func (o *object) key(k string) {
	if o.fields > 0 {
		o.w.WriteString(",")
	}
	o.fields++
	o.w.WriteString("\n  ")
	o.value(k, "")
	o.w.WriteString(": ")
}

// value writes v as MarshalIndent would at the given indentation.
func (o *object) value(v any, prefix string) {
	if o.err != nil {
		return
	}
	data, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		o.err = err
		return
	}
	o.w.Write(data)
}

func (o *object) field(k string, v any) {
	o.key(k)
	o.value(v, "  ")
}

// array writes a field holding the elements of seq; its first error
// sticks.
func (o *object) array(k string, seq iter.Seq2[any, error]) {
	o.key(k)
	n := 0
	for v, err := range seq {
		if err != nil {
			o.err = cmp.Or(o.err, err)
			return
		}
		if n == 0 {
			o.w.WriteString("[")
		} else {
			o.w.WriteString(",")
		}
		n++
		o.w.WriteString("\n    ")
		o.value(v, "    ")
	}
	if n == 0 {
		o.w.WriteString("[]")
		return
	}
	o.w.WriteString("\n  ]")
}

// close ends the object with MarshalIndent's closing line and a newline.
func (o *object) close() error {
	if o.fields > 0 {
		o.w.WriteString("\n")
	}
	o.w.WriteString("}\n")
	if o.err != nil {
		return o.err
	}
	return o.w.Flush()
}
