package oci

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// A rerun sends nothing; after one skill changes, a publish sends that
// skill's blobs, its manifest and signatures, the collection and the tags
// that moved, and nothing of the other skills. Every run keeps the order.
func TestIncrementalAndOrdered(t *testing.T) {
	reg := startRegistry(t)
	px := startProxy(t, reg.host)
	skills, b := newBundle(t)
	target := "oci://" + px.host + "/acme/skills"

	first := publishTo(t, b, target, Options{})
	if n := checkOrder(t, px.log()); n < len(b.Skills)+2 {
		t.Errorf("the first run PUT %d manifests, want at least %d", n, len(b.Skills)+2)
	}
	if up := first.byState(publish.Uploaded); !slices.Contains(up, "tag:latest") {
		t.Errorf("the first run did not tag latest: %v", up)
	}

	px.setDecide(nil)
	again := publishTo(t, b, target, Options{})
	if up := again.byState(publish.Uploaded); len(up) > 0 {
		t.Errorf("a rerun sent %v", up)
	}
	blobAsks := 0
	for _, e := range px.log() {
		if e.method != "GET" && e.method != "HEAD" {
			t.Errorf("a rerun sent %s %s", e.method, e.path)
		}
		if strings.Contains(e.path, "/blobs/") {
			blobAsks++
		}
	}
	// Only the shared empty config, which no skill's manifest names, is
	// asked about: a present manifest's blobs are there.
	if blobAsks > 1 {
		t.Errorf("a rerun asked about %d blobs", blobAsks)
	}

	// One skill changes: a line added to its SKILL.md (its config, made of
	// the frontmatter, stays as it was).
	const changed = "csv-profiler"
	md := filepath.Join(skills, changed, "SKILL.md")
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, append(data, "\nOne more line.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	b2 := rebuild(t, skills, b.Dir)
	px.setDecide(nil)
	third := publishTo(t, b2, target, Options{})
	checkOrder(t, px.log())
	for _, p := range third.byState(publish.Uploaded) {
		switch {
		case strings.Contains(p, changed), p == "index:latest", p == "tag:latest", p == "documents:latest":
		case !strings.Contains(strings.TrimPrefix(p, "referrer:"), ":") && publish.StageOf(strings.TrimPrefix(p, "referrer:")) >= publish.MCP:
			// a document, or its signature: the documents change with
			// any skill
		default:
			t.Errorf("after a change to %s, the publish sent %s", changed, p)
		}
	}
	up := third.byState(publish.Uploaded)
	for _, want := range []string{"manifest:" + changed, "index:latest", "tag:latest"} {
		if !slices.Contains(up, want) {
			t.Errorf("after a change to %s, %s was not sent: %v", changed, want, up)
		}
	}
	complete(t, repoOf(t, reg.host, "acme/skills"), "latest")
}

// A dry run asks and sends nothing, and says what it would send.
func TestDryRun(t *testing.T) {
	reg := startRegistry(t)
	px := startProxy(t, reg.host)
	_, b := newBundle(t)
	res := publishTo(t, b, "oci://"+px.host+"/acme/skills:v1", Options{DryRun: true})
	n := res.count()
	if n[publish.WouldUpload] == 0 || n[publish.Uploaded]+n[publish.Present] > 0 {
		t.Errorf("dry run states %v", n)
	}
	for _, e := range px.log() {
		if e.method != "GET" && e.method != "HEAD" {
			t.Errorf("a dry run sent %s %s", e.method, e.path)
		}
	}
}

// build --sign signs every archive again; a publish of the new
// signatures attaches none to a skill whose archives did not change (it
// keeps one signature per archive), and attaches the changed skill's.
func TestResignedArchivesKeepTheirSignature(t *testing.T) {
	f := published(t)
	resign := func(data []byte) ([]byte, error) {
		return []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","again":"` + layout.DigestOf(data) + `"}`), nil
	}
	if _, err := build.Run([]string{f.skills}, build.Options{Out: f.b.Dir, Sign: resign}); err != nil {
		t.Fatal(err)
	}
	b, err := publish.Open(f.b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	res := publishTo(t, b, f.target, Options{})
	if up := res.byState(publish.Uploaded); len(up) > 0 {
		t.Errorf("new signatures of the same archives: sent %v", up)
	}
	for _, s := range b.Skills {
		var m ocispec.Manifest
		desc := fetchJSON(t, f.repo, "sha256:"+manifestOf(t, res, s.Name), &m)
		n := 0
		f.repo.Referrers(context.Background(), desc, ArtifactTypeSigstoreBundle, func(refs []ocispec.Descriptor) error {
			n += len(refs)
			return nil
		})
		if n != len(s.Signatures) {
			t.Errorf("skill %s has %d signatures attached, want %d", s.Name, n, len(s.Signatures))
		}
	}
}

// manifestOf is the hex digest a run gave a skill's manifest.
func manifestOf(t *testing.T, r *results, skill string) string {
	t.Helper()
	for _, res := range r.all {
		if res.Object.Path == "manifest:"+skill {
			return res.Object.Digest.Hex()
		}
	}
	t.Fatalf("the run has no manifest of %s", skill)
	return ""
}
