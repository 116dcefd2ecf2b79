package publish

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/layout"
)

// InventoryPath is the inventory, written at the end of each complete run:
// every object the run made present, with its digest and headers as
// verified then, and the ETag the server gave it.
//
// It spares a republish a HEAD per object. A listed ETag changes whenever
// the object is written again with other bytes (for a single PUT, the
// bytes' MD5 on every S3-compatible server), so an object whose listed
// ETag, digest and headers are the inventory's is present as verified;
// anything else is asked for. The one case it misses is another tool
// writing the same bytes with other headers. It is gzipped JSON: 120,000
// objects' entries are tens of megabytes as text.
//
// It also carries what no store keeps: the paths where a run found
// another's object with the bundle's bytes and left it (theirs), so that
// no later run takes it for skillpack's, replaces it or prunes it. A
// folder keeps nothing else to tell such a file from one skillpack wrote.
//
//	{"objects":[{"path":"…","digest":"sha256:…","etag":"…","contentType":"…","cacheControl":"…"}],"theirs":["…"]}
const InventoryPath = ".skillpack/inventory.json.gz"

// maxInventory bounds the inventory read back, gzipped and unpacked.
const maxInventory = 256 << 20

// entry is one object of the inventory.
type entry struct {
	Path         string        `json:"path"`
	Digest       layout.Digest `json:"digest"`
	ETag         string        `json:"etag"`
	ContentType  string        `json:"contentType"`
	CacheControl string        `json:"cacheControl"`
}

type inventory struct {
	Objects []entry  `json:"objects"`
	Theirs  []string `json:"theirs,omitempty"`
}

// vouches reports whether the inventory's entry proves o present at the
// ETag the listing gives its key.
func (e entry) vouches(o Object, etag string) bool {
	return etag != "" && e.ETag == etag && e.Digest == o.Digest &&
		e.ContentType == o.ContentType && e.CacheControl == o.CacheControl
}

// decodeInventory reads an inventory: its objects by path, and the paths
// that are theirs; nil when it cannot, which costs a Stat per object and
// the list of theirs.
func decodeInventory(data []byte) (map[string]entry, []string) {
	var inv inventory
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil || json.NewDecoder(io.LimitReader(zr, maxInventory)).Decode(&inv) != nil {
		return nil, nil
	}
	out := make(map[string]entry, len(inv.Objects))
	for _, e := range inv.Objects {
		if !e.Digest.Valid() {
			return nil, nil
		}
		out[e.Path] = e
	}
	return out, inv.Theirs
}

// encode is the inventory as it is written.
func (inv inventory) encode() []byte {
	slices.SortFunc(inv.Objects, func(a, b entry) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(inv.Theirs)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	json.NewEncoder(zw).Encode(inv)
	zw.Close()
	return buf.Bytes()
}

// etags collects the ETag of each object made present in this run, by
// path, from workers.
type etags struct{ sync.Map }

func (t *etags) set(path, etag string) {
	if etag = strings.Trim(etag, `"`); etag != "" {
		t.Store(path, etag)
	}
}

// entries are the inventory's entries of objects, those whose ETag is
// known.
func (t *etags) entries(objects []Object) []entry {
	var out []entry
	for _, o := range objects {
		if etag, ok := t.Load(o.Path); ok {
			out = append(out, entry{Path: o.Path, Digest: o.Digest, ETag: etag.(string), ContentType: o.ContentType, CacheControl: o.CacheControl})
		}
	}
	return out
}
