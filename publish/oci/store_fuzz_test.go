package oci

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/signtest"
	"github.com/skillpack/skillpack/publish"
)

// fakeRegistry serves manifests and blobs from memory, as a registry
// without the referrers API (distribution 2.8) does: the tag latest, and
// everything else by digest or by the sha256-<hex> tag of its referrers.
type fakeRegistry struct {
	mu    sync.Mutex
	tags  map[string][]byte // tag → manifest
	byDig map[digest.Digest][]byte
}

func (f *fakeRegistry) put(data []byte) digest.Digest {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := digest.FromBytes(data)
	f.byDig[d] = data
	return d
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v2/" {
		return
	}
	kind, ref := "", ""
	for _, k := range []string{"/manifests/", "/blobs/"} {
		if i := strings.Index(r.URL.Path, k); i >= 0 {
			kind, ref = k, r.URL.Path[i+len(k):]
		}
	}
	f.mu.Lock()
	data, ok := f.tags[ref]
	if d, err := digest.Parse(ref); err == nil {
		data, ok = f.byDig[d]
	}
	f.mu.Unlock()
	if kind == "" || !ok {
		// A 404 with no error code: on the referrers API, "not
		// supported", so that the client reads the referrers tag.
		http.NotFound(w, r)
		return
	}
	if kind == "/manifests/" {
		var m struct {
			MediaType string `json:"mediaType"`
		}
		json.Unmarshal(data, &m)
		if m.MediaType == "" || strings.ContainsAny(m.MediaType, " ;,\"\n") {
			m.MediaType = ocispec.MediaTypeImageIndex // so that any bytes are read
		}
		w.Header().Set("Content-Type", m.MediaType)
	}
	w.Header().Set("Docker-Content-Digest", string(digest.FromBytes(data)))
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	if r.Method != http.MethodHead {
		w.Write(data)
	}
}

// fuzzEnv is a fake registry holding a publish of the examples, but for
// the manifests a fuzz input gives.
type fuzzEnv struct {
	reg   *fakeRegistry
	host  string
	seeds [3][]byte // the collection, a skill's manifest, the documents
}

func newFuzzEnv(tb testing.TB) *fuzzEnv {
	dist := filepath.Join(tb.TempDir(), "dist")
	if _, err := build.Run([]string{"../../examples"}, build.Options{Out: dist, Sign: signtest.Stub}); err != nil {
		tb.Fatal(err)
	}
	b, err := publish.Open(dist)
	if err != nil {
		tb.Fatal(err)
	}
	reg := &fakeRegistry{tags: map[string][]byte{}, byDig: map[digest.Digest][]byte{}}
	srv := httptest.NewServer(reg)
	tb.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	t, _ := ParseTarget("oci://" + host + "/x")
	p, err := newPlan(t, b, nil, publish.DefaultJobs, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for _, bl := range p.blobs {
		data := bl.data
		if bl.path != "" {
			if data, err = os.ReadFile(filepath.Join(dist, filepath.FromSlash(bl.path))); err != nil {
				tb.Fatal(err)
			}
		}
		reg.put(data)
	}
	for _, s := range b.Skills {
		reg.put(skillManifest(s).data)
	}
	return &fuzzEnv{reg: reg, host: host, seeds: [3][]byte{p.index.data, skillManifest(b.Skills[0]).data, p.documents.data}}
}

// check serves the three manifests and checks the store, reading every
// file it maps; it returns how many it mapped.
func (e *fuzzEnv) check(t *testing.T, collection, skill, documents []byte) int {
	reg := e.reg
	reg.mu.Lock()
	reg.tags["latest"] = collection
	reg.mu.Unlock()
	sd := reg.put(skill)
	// The documents hang off the collection by the referrers tag.
	dd := descriptorOf(ocispec.MediaTypeImageManifest, documents)
	dd.ArtifactType = ArtifactTypeDocuments
	dd.Annotations = map[string]string{annTitle: documentsTitle}
	reg.put(documents)
	list, _ := json.Marshal(ocispec.Index{MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{dd}})
	reg.mu.Lock()
	ref := "sha256-" + digest.FromBytes(collection).Encoded()
	reg.tags[ref] = list
	reg.mu.Unlock()
	defer func() {
		// A fuzz run tries millions: the fake keeps the published bundle
		// only.
		reg.mu.Lock()
		delete(reg.tags, ref)
		if !slices.ContainsFunc(e.seeds[:], func(s []byte) bool { return digest.FromBytes(s) == sd }) {
			delete(reg.byDig, sd)
		}
		delete(reg.byDig, dd.Digest)
		reg.mu.Unlock()
	}()

	st, err := OpenStore("oci://"+e.host+"/x", Options{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer st.r.repo.Client.(*auth.Client).Client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := st.Check(ctx, func(path, message string) {}); err != nil {
		return 0
	}
	files, _ := st.Files()
	for _, p := range files {
		rc, size, err := st.Open(ctx, p)
		if err != nil {
			continue
		}
		io.Copy(io.Discard, io.LimitReader(rc, max(size, 0)+1))
		rc.Close()
	}
	if ctx.Err() != nil {
		t.Fatal("the check did not end in time")
	}
	return len(files)
}

// FuzzStoreCheck gives the store a registry whose collection, one skill's
// manifest and the documents' manifest are arbitrary bytes (the seeds are
// those a publish of the examples pushes), every other manifest and blob
// as published. Check and reading every file it maps never panic and end.
func FuzzStoreCheck(f *testing.F) {
	e := newFuzzEnv(f)
	f.Add(e.seeds[0], e.seeds[1], e.seeds[2])
	f.Add([]byte(`{}`), []byte(`[]`), []byte(`null`))
	f.Add([]byte(`{"mediaType":"application/vnd.oci.image.index.v1+json","artifactType":"application/vnd.agentskills.collection.v1","manifests":[{"digest":"sha256:x","size":-1,"annotations":{"io.agentskills.skill.name":"a"}}]}`), []byte(`{}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, collection, skill, documents []byte) {
		e.check(t, collection, skill, documents)
	})
}

// The fuzz target's seed is the published bundle: every .tar.gz,
// SKILL.md, document and catalog page is mapped.
func TestFuzzEnv(t *testing.T) {
	e := newFuzzEnv(t)
	if n := e.check(t, e.seeds[0], e.seeds[1], e.seeds[2]); n != 25 {
		t.Errorf("the published bundle: %d files mapped, want 25 (5 archives, 5 SKILL.md, 10 documents, 5 pages)", n)
	}
}
