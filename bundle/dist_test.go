package bundle_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

func TestHashFile(t *testing.T) {
	data := bytes.Repeat([]byte("skill\n"), 30000) // more than the pooled buffer
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d, n, err := bundle.HashFile(p)
	if err != nil || d != layout.DigestOf(data) || n != int64(len(data)) {
		t.Errorf("HashFile = %s, %d, %v; want %s, %d", d, n, err, layout.DigestOf(data), len(data))
	}
	if _, _, err := bundle.HashFile(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// Checked gives a consumer every byte of the right file, and none of the
// read that completes a wrong one: what it uploads or keeps is never the
// whole of a changed file. Check tells the same.
func TestChecked(t *testing.T) {
	good := []byte("the bytes the record describes")
	want := layout.DigestOf(good)
	size := int64(len(good))
	for _, c := range []struct {
		name string
		data []byte
		msg  string // "" for no error
	}{
		{"same", good, ""},
		{"changed", []byte("the bytes the record describez"), "f is " + string(layout.DigestOf([]byte("the bytes the record describez"))) + ", but the record says " + string(want)},
		{"shorter", good[:10], "f has 10 bytes, but the record says 30"},
		{"longer", append(append([]byte{}, good...), '!'), "f has more than the 30 bytes the record says"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := bundle.Check(bytes.NewReader(c.data), layout.Artifact{Path: "f", Digest: want, Size: size}, "the record")
			if got := fmt.Sprint(err); c.msg == "" && err != nil || c.msg != "" && !strings.Contains(got, c.msg) {
				t.Errorf("Check: %v, want %q", err, c.msg)
			}
			// One byte a read, so that the read completing the file is
			// the one that must fail.
			r := bundle.Checked(iotest.OneByteReader(bytes.NewReader(c.data)), layout.Artifact{Path: "f", Digest: want, Size: size}, "the record")
			var out bytes.Buffer
			_, err = io.Copy(&out, r)
			if c.msg == "" {
				if err != nil || !bytes.Equal(out.Bytes(), good) {
					t.Fatalf("got %q, %v", out.Bytes(), err)
				}
				return
			}
			var ce *bundle.ChangedError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v, want a ChangedError saying %q", err, c.msg)
			}
			if int64(out.Len()) >= size && c.name != "longer" || int64(out.Len()) > size {
				t.Errorf("%d bytes went through; the read completing the %d must give none", out.Len(), size)
			}
		})
	}
}
