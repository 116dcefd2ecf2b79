package oci

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// fault is what a proxy does to one request.
type fault int

const (
	pass   fault = iota
	fail         // answer 503 without asking the registry
	lose         // ask the registry, then answer 502: the work is done but the client hears it failed
	stall        // answer nothing until the client gives up
	lie          // ask the registry, then answer with another Docker-Content-Digest
	refuse       // answer 405 without asking the registry: a read-only mirror
)

// proxy stands between Publish and the registry, recording every
// request in order and applying a fault to each as decide says.
type proxy struct {
	host    string // 127.0.0.1:port, the address to publish to
	mu      sync.Mutex
	events  []event
	n       int
	decide  func(n int, r *http.Request) fault // nil: pass everything
	closing chan struct{}
}

// event is one request as the registry answered it.
type event struct {
	method, path string
	status       int
	body         []byte // a manifest PUT's
}

func startProxy(t *testing.T, registryHost string) *proxy {
	t.Helper()
	u, _ := url.Parse("http://" + registryHost)
	rp := httputil.NewSingleHostReverseProxy(u)
	// The requests a test kills would each print a line.
	rp.ErrorLog = log.New(io.Discard, "", 0)
	p := &proxy{closing: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.n++
		n, decide := p.n, p.decide
		p.mu.Unlock()
		f := pass
		if decide != nil {
			f = decide(n, r)
		}
		var body []byte
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/") {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		switch f {
		case fail:
			http.Error(w, `{"errors":[{"code":"UNAVAILABLE","message":"injected"}]}`, http.StatusServiceUnavailable)
			return
		case refuse:
			http.Error(w, `{"errors":[{"code":"UNSUPPORTED","message":"read-only"}]}`, http.StatusMethodNotAllowed)
			return
		case stall:
			// The body is read first: net/http notices a client that
			// hung up (and cancels the context) only once it is.
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-p.closing:
			}
			return
		}
		rec := &statusWriter{ResponseWriter: w, lie: f == lie}
		if f == lose {
			rec.discard = true
		}
		rp.ServeHTTP(rec, r)
		if f == lose {
			http.Error(w, "injected: the registry's answer was lost", http.StatusBadGateway)
			return
		}
		p.mu.Lock()
		p.events = append(p.events, event{method: r.Method, path: r.URL.Path + "?" + r.URL.RawQuery, status: rec.status, body: body})
		p.mu.Unlock()
	}))
	t.Cleanup(func() {
		close(p.closing) // a stalled request may not have been given up
		srv.Close()
	})
	p.host = strings.TrimPrefix(srv.URL, "http://")
	return p
}

// statusWriter notes the status; discarding, it sends nothing on.
type statusWriter struct {
	http.ResponseWriter
	status  int
	discard bool
	lie     bool
	header  http.Header
}

func (s *statusWriter) Header() http.Header {
	if s.discard {
		if s.header == nil {
			s.header = http.Header{}
		}
		return s.header
	}
	return s.ResponseWriter.Header()
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	if h := s.Header(); s.lie && h.Get("Docker-Content-Digest") != "" {
		h.Set("Docker-Content-Digest", string(digest.FromString("another")))
	}
	if !s.discard {
		s.ResponseWriter.WriteHeader(code)
	}
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	if s.discard {
		return len(b), nil
	}
	return s.ResponseWriter.Write(b)
}

func (p *proxy) setDecide(d func(n int, r *http.Request) fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decide, p.n, p.events = d, 0, nil
}

func (p *proxy) log() []event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]event(nil), p.events...)
}

// checkOrder checks that no manifest reached the registry before what it
// names: a manifest PUT (by digest or by tag) comes after every blob of an
// image manifest, or every manifest of an index, was stored or found; and
// a PUT by tag comes after its manifest was stored by digest or found.
// It returns how many manifest PUTs it checked.
func checkOrder(t *testing.T, events []event) int {
	t.Helper()
	blobs := map[string]bool{}
	manifests := map[string]bool{}
	checked := 0
	for _, e := range events {
		ok := e.status >= 200 && e.status < 300
		rest, kind := "", ""
		if i := strings.Index(e.path, "/blobs/"); i >= 0 {
			rest, kind = e.path[i+len("/blobs/"):], "blob"
		} else if i := strings.Index(e.path, "/manifests/"); i >= 0 {
			rest, kind = e.path[i+len("/manifests/"):], "manifest"
		} else {
			continue
		}
		ref, query, _ := strings.Cut(rest, "?")
		switch {
		case !ok:
		case kind == "blob" && e.method == http.MethodHead:
			blobs[ref] = true
		case kind == "blob" && e.method == http.MethodPut:
			q, _ := url.ParseQuery(query)
			blobs[q.Get("digest")] = true
		case kind == "manifest" && e.method == http.MethodHead && strings.HasPrefix(ref, "sha256:"):
			manifests[ref] = true
		case kind == "manifest" && e.method == http.MethodPut:
			checked++
			var m struct {
				ocispec.Manifest
				Manifests []ocispec.Descriptor `json:"manifests"`
			}
			if err := json.Unmarshal(e.body, &m); err != nil {
				t.Fatalf("PUT %s: %v", e.path, err)
			}
			for _, d := range append([]ocispec.Descriptor{m.Config}, m.Layers...) {
				if d.Digest != "" && !blobs[string(d.Digest)] {
					t.Errorf("PUT %s before its blob %s", e.path, d.Digest)
				}
			}
			for _, d := range m.Manifests {
				if !manifests[string(d.Digest)] {
					t.Errorf("PUT %s before its manifest %s", e.path, d.Digest)
				}
			}
			self := digest.FromBytes(e.body).String()
			if !strings.HasPrefix(ref, "sha256:") && !strings.HasPrefix(ref, "sha256-") && !manifests[self] {
				t.Errorf("tag PUT %s before its manifest %s", e.path, self)
			}
			manifests[self] = true
		}
	}
	return checked
}
