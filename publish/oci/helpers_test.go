package oci

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/signtest"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// stubSign is a stand-in signer: publish treats signatures as opaque.
func stubSign(data []byte) ([]byte, error) {
	return []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","signed":"` + layout.DigestOf(data) + `"}`), nil
}

// newBundle copies examples/ and builds it, its archives, documents and
// folders signed; it returns the skills'
// folder (to change a skill) and the opened bundle.
func newBundle(t *testing.T) (skills string, b *publish.Upload) {
	t.Helper()
	tmp := t.TempDir()
	skills = filepath.Join(tmp, "skills")
	if err := os.CopyFS(skills, os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	return skills, rebuild(t, skills, filepath.Join(tmp, "dist"))
}

// rebuild builds skills into dist and opens it.
func rebuild(t *testing.T, skills, dist string, marketplaces ...string) *publish.Upload {
	t.Helper()
	if _, err := build.Run([]string{skills}, build.Options{Out: dist, Sign: stubSign, SignFolder: signtest.StubStatement, Marketplaces: marketplaces}); err != nil {
		t.Fatal(err)
	}
	b, err := publish.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// results collects a run's reports.
type results struct {
	mu  sync.Mutex
	all []publish.Result
}

func (r *results) add(res publish.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, res)
}

// count is how many results are in each state.
func (r *results) count() map[publish.State]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := map[publish.State]int{}
	for _, res := range r.all {
		n[res.State]++
	}
	return n
}

// byState is the paths of the results in state s.
func (r *results) byState(s publish.State) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, res := range r.all {
		if res.State == s {
			out = append(out, res.Object.Path)
		}
	}
	return out
}

// publishTo publishes b to target and fails the test on an error.
func publishTo(t *testing.T, b *publish.Upload, target string, o Options) *results {
	t.Helper()
	var r results
	if err := Publish(context.Background(), b, target, o, r.add); err != nil {
		t.Fatal(err)
	}
	return &r
}

// repoOf is the repository of host, straight (no proxy), for checks.
func repoOf(t *testing.T, host, name string) *remote.Repository {
	t.Helper()
	repo, err := remote.NewRepository(host + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	return repo
}

// fetchJSON fetches a manifest by tag or digest and decodes it into v.
func fetchJSON(t *testing.T, repo *remote.Repository, ref string, v any) ocispec.Descriptor {
	t.Helper()
	desc, rc, err := repo.FetchReference(context.Background(), ref)
	if err != nil {
		t.Fatalf("%s: %v", ref, err)
	}
	defer rc.Close()
	data, err := content.ReadAll(rc, desc)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
	return desc
}

// complete checks that the collection at tag is whole: every skill
// manifest it lists is there, and every blob of each, with the right
// bytes. It returns the index.
func complete(t *testing.T, repo *remote.Repository, tag string) ocispec.Index {
	t.Helper()
	ctx := context.Background()
	var idx ocispec.Index
	fetchJSON(t, repo, tag, &idx)
	for _, d := range idx.Manifests {
		var m ocispec.Manifest
		fetchJSON(t, repo, string(d.Digest), &m)
		for _, b := range append([]ocispec.Descriptor{m.Config}, m.Layers...) {
			rc, err := repo.Blobs().Fetch(ctx, b)
			if err != nil {
				t.Fatalf("%s: blob %s of skill %s: %v", tag, b.Digest, d.Annotations[annSkillName], err)
			}
			// content.ReadAll checks the size and the digest.
			_, err = content.ReadAll(rc, b)
			rc.Close()
			if err != nil {
				t.Fatalf("%s: blob %s of skill %s: %v", tag, b.Digest, d.Annotations[annSkillName], err)
			}
		}
	}
	return idx
}

func readDist(t *testing.T, b *publish.Upload, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(b.Dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
