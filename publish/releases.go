package publish

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/skillpack/skillpack/internal/jsonenc"
	"github.com/skillpack/skillpack/layout"
)

// Paths of this package's own objects, relative to the prefix.
const (
	ReleasesList = ".skillpack/releases.json" // the release list, newest first
	releasesDir  = ".skillpack/releases/"     // a copy of each release's build record
)

// maxReleases is the longest list kept without Prune: a release is one
// short line, and a list of every publish ever made would only grow.
const maxReleases = 100

// maxList is the largest release list read: maxReleases short entries.
const maxList = 1 << 20

// release is one published bundle in the release list.
type release struct {
	Record    layout.Digest `json:"record"` // of its build record, the name of the record's copy
	Bundle    layout.Digest `json:"bundle"` // its bundle key
	Published time.Time     `json:"published"`
}

// releases is the release list's document.
type releases struct {
	Releases []release `json:"releases"`
}

// RecordCopy is where a release's build record is kept.
func RecordCopy(d layout.Digest) string { return releasesDir + d.Hex() + ".json" }

// decodeReleases reads the release list, refusing what it cannot trust:
// pruning by a list misread would delete what a reader needs.
func decodeReleases(data []byte) ([]release, error) {
	var doc releases
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more after the document")
	}
	for i, r := range doc.Releases {
		if !r.Record.Valid() {
			return nil, fmt.Errorf("release %d: record %q is not sha256: and 64 hex digits", i+1, r.Record)
		}
	}
	return doc.Releases, nil
}

// encodeReleases writes the release list.
func encodeReleases(list []release) []byte {
	var b bytes.Buffer
	jsonenc.Write(&b, releases{Releases: list}) // plain data: it always encodes
	return b.Bytes()
}

// withRelease is the list with r first: r's earlier entry, if any, goes,
// so that a release is listed once, at the time it was last published.
func withRelease(list []release, r release, max int) []release {
	out := []release{r}
	for _, old := range list {
		if old.Record != r.Record && len(out) < max {
			out = append(out, old)
		}
	}
	return out
}
