package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/skillpack/skillpack/publish"
)

// Publish moves a tag only from what skillpack pushes under it: a release
// tag, or a skill's version tag, that names someone else's image is not
// moved (the publish fails, naming the tag), and tags of others beside
// the bundle's stay as they were; a release tag that names a collection
// of skillpack's moves as before.
func TestForeignTagsStay(t *testing.T) {
	reg := startRegistry(t)
	skills, b := newBundle(t)
	ctx := context.Background()
	for _, tc := range []struct {
		repo    string
		foreign []string // tagged with someone else's image first
		release string
		err     string
	}{
		{"acme/versions", []string{"release-notes-1.2.0", "website"}, "v1", "tag release-notes-1.2.0 names sha256:"},
		{"acme/release", []string{"v1", "website"}, "v1", "tag v1 names sha256:"},
		{"acme/release", nil, "v2", ""},
	} {
		repo := repoOf(t, reg.host, tc.repo)
		image := pushImage(t, repo, tc.foreign)
		err := Publish(ctx, b, "oci://"+reg.host+"/"+tc.repo+":"+tc.release, Options{}, func(publish.Result) {})
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s:%s: %v", tc.repo, tc.release, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "which skillpack did not push")):
			t.Errorf("%s:%s: %v; want %q", tc.repo, tc.release, err, tc.err)
		case tc.err != "":
			// Refused before anything was pushed: the repository has
			// the tags it had, and no blob of the bundle.
			if c := exitClass(err); c != 1 {
				t.Errorf("%s:%s: exit class %d, want 1", tc.repo, tc.release, c)
			}
			var tags []string
			if err := repo.Tags(ctx, "", func(page []string) error { tags = append(tags, page...); return nil }); err != nil {
				t.Fatal(err)
			}
			if slices.Sort(tags); !slices.Equal(tags, tc.foreign) {
				t.Errorf("%s:%s: tags %v after the refusal, want %v", tc.repo, tc.release, tags, tc.foreign)
			}
			if ok, err := repo.Blobs().Exists(ctx, descriptorOf("application/octet-stream", mustRead(t, b, b.Skills[0].TarGz))); ok || err != nil {
				t.Errorf("%s:%s: an archive was pushed before the refusal (%v)", tc.repo, tc.release, err)
			}
		}
		for _, tag := range tc.foreign {
			if d, err := repo.Resolve(ctx, tag); err != nil || d.Digest != image.Digest {
				t.Errorf("%s:%s names %v (%v), not the image tagged there", tc.repo, tag, d.Digest, err)
			}
		}
	}
	// A release tag that names a collection of skillpack's moves to the
	// next one.
	repo := repoOf(t, reg.host, "acme/release")
	before, _ := repo.Resolve(ctx, "v2")
	md := filepath.Join(skills, "csv-profiler", "SKILL.md")
	data, _ := os.ReadFile(md)
	if err := os.WriteFile(md, append(data, "\nOne more line.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	b = rebuild(t, skills, b.Dir)
	if err := Publish(ctx, b, "oci://"+reg.host+"/acme/release:v2", Options{}, func(publish.Result) {}); err != nil {
		t.Fatal(err)
	}
	if after, err := repo.Resolve(ctx, "v2"); err != nil || after.Digest == before.Digest {
		t.Errorf("v2 names %s (%v), as before the release", after.Digest, err)
	}
}

// pushImage pushes a container image of someone else's under tags.
func pushImage(t *testing.T, repo *remote.Repository, tags []string) ocispec.Descriptor {
	t.Helper()
	ctx := context.Background()
	config, layer := []byte(`{"architecture":"amd64","os":"linux"}`), []byte("a layer")
	m := ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		Config: descriptorOf(ocispec.MediaTypeImageConfig, config),
		Layers: []ocispec.Descriptor{descriptorOf(ocispec.MediaTypeImageLayer, layer)},
	}
	for _, blob := range [][]byte{config, layer} {
		if err := repo.Blobs().Push(ctx, descriptorOf("application/octet-stream", blob), bytes.NewReader(blob)); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := json.Marshal(m)
	d := descriptorOf(ocispec.MediaTypeImageManifest, data)
	for _, tag := range tags {
		if err := repo.Manifests().PushReference(ctx, d, bytes.NewReader(data), tag); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// mustRead is an object's bytes in DIST.
func mustRead(t *testing.T, b *publish.Upload, o publish.Object) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(b.Dir, filepath.FromSlash(o.Path)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Two publishes to one repository at once: the one that would move the
// release tag last, from under the other, is refused (exit class 1) and
// leaves the tag where the other put it. The other publish runs while the
// first waits on its first blob, after it has read the tags.
func TestReleaseTagMovedMeanwhile(t *testing.T) {
	reg := startRegistry(t)
	ctx := context.Background()
	skills, b := newBundle(t)
	target := func(host string) string { return "oci://" + host + "/acme/skills:latest" }
	publishTo(t, b, target(reg.host), Options{})
	change := func(line string) *publish.Upload {
		md := filepath.Join(skills, "csv-profiler", "SKILL.md")
		data, _ := os.ReadFile(md)
		if err := os.WriteFile(md, append(data, "\n"+line+"\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		return rebuild(t, skills, filepath.Join(t.TempDir(), "dist"))
	}
	mine, theirs := change("Mine."), change("Theirs.")
	p := startProxy(t, reg.host)
	var once sync.Once
	p.decide = func(n int, r *http.Request) fault {
		if r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/blobs/uploads/") {
			once.Do(func() { publishTo(t, theirs, target(reg.host), Options{}) })
		}
		return pass
	}
	err := Publish(ctx, mine, target(p.host), Options{}, func(publish.Result) {})
	if err == nil || !strings.Contains(err.Error(), "the tag latest was moved to sha256:") || exitClass(err) != 1 {
		t.Fatalf("a publish whose release tag another moved meanwhile: %v (exit class %d)", err, exitClass(err))
	}
	// Publishing theirs again finds the tag naming it already.
	if again := publishTo(t, theirs, target(reg.host), Options{}); !slices.Contains(again.byState(publish.Present), "tag:latest") {
		t.Errorf("latest no longer names the other publish's release: %v", again.count())
	}
}
