package serve

import (
	"bytes"
	"net/http"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/catalog"
	"github.com/skillpack/skillpack/layout"
)

// serveCatalog serves the catalog page with this server's address in its
// install commands (catalog.WithHost): --base-url when given, else the
// scheme and host the request came to. The page is then not the bytes the
// build recorded, so its validator is the digest of what is sent.
func (s *Server) serveCatalog(w http.ResponseWriter, r *http.Request, b *Held, f *file) {
	data, err := b.read(f)
	if err != nil {
		http.Error(w, "this file "+s.refused(f.path, err), http.StatusInternalServerError)
		return
	}
	base := s.opts.BaseURL
	if base == "" {
		base = requestBase(r)
		w.Header()["Vary"] = varyHost
	}
	pg := s.pages.get(b, strings.TrimRight(base, "/"), data)
	s.send(w, r, f.path, pg.etag, layout.ContentType(f.path), f.lastModified(), bytes.NewReader(pg.data))
}

var varyHost = []string{"Host, X-Forwarded-Proto"}

// requestBase is the URL the request was sent to, without its path, or ""
// when its Host is not a plainly spelled host name or address (and port),
// which a page must not echo. A proxy that ends TLS says so in
// X-Forwarded-Proto (Caddy's and nginx's usual setup), believed as its
// Host is. A path prefix the proxy strips is said by --base-url alone.
func requestBase(r *http.Request) string {
	const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]"
	host := r.Host
	if len(host) == 0 || len(host) > 255 || strings.Trim(host, plain) != "" {
		return ""
	}
	scheme := "http"
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	if r.TLS != nil || strings.TrimSpace(proto) == "https" {
		scheme = "https"
	}
	return scheme + "://" + host
}

// pages keeps the catalog as shown at each address, for one bundle: a page
// is rendered and hashed once per address, not per request. A client that
// sends many Host headers only makes it start over (maxPages).
type pages struct {
	mu     sync.Mutex
	bundle *Held
	byBase map[string]page
}

type page struct {
	data []byte
	etag string
}

const maxPages = 16

// get returns the page at base, made from data, the held catalog, only
// when it has not made it yet: the catalog of a large bundle is megabytes.
func (ps *pages) get(b *Held, base string, data string) page {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.bundle != b || len(ps.byBase) >= maxPages {
		ps.bundle, ps.byBase = b, map[string]page{}
	}
	pg, ok := ps.byBase[base]
	if !ok {
		bs := catalog.WithHost([]byte(data), base)
		pg = page{data: bs, etag: `"` + string(layout.DigestOf(bs)) + `"`}
		ps.byBase[base] = pg
	}
	return pg
}
