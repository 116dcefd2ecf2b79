package build

import (
	"bytes"
	"fmt"
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
	rec, err := layout.DecodeRecord(data)
	if err != nil {
		return fmt.Errorf("%s: %w", dist, err)
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
	var out bytes.Buffer
	if err := rec.Encode(&out); err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, out.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
