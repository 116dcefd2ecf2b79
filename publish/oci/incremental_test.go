package oci

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
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

// build --sign signs every archive and folder again; a publish of the new
// signatures attaches none to a skill whose archives did not change (it
// keeps one signature per archive, and one of its folder).
func TestResignedArchivesKeepTheirSignature(t *testing.T) {
	f := published(t)
	resign := func(data []byte) ([]byte, error) {
		return []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","again":"` + layout.DigestOf(data) + `"}`), nil
	}
	resignFolder := func(statement []byte) ([]byte, error) {
		return json.Marshal(map[string]any{"statement": statement, "again": true})
	}
	if _, err := build.Run([]string{f.skills}, build.Options{Out: f.b.Dir, Sign: resign, SignFolder: resignFolder}); err != nil {
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
		n = 0
		f.repo.Referrers(context.Background(), desc, ArtifactTypeFolderSignature, func(refs []ocispec.Descriptor) error {
			n += len(refs)
			return nil
		})
		if n != 1 || s.FolderSignature.Path == "" {
			t.Errorf("skill %s has %d folder signatures attached, want 1 (the bundle has %q)", s.Name, n, s.FolderSignature.Path)
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

// syntheticBundle builds n small skills and opens the bundle.
func syntheticBundle(t *testing.T, n int) *publish.Upload {
	t.Helper()
	tmp := t.TempDir()
	skills := filepath.Join(tmp, "skills")
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		md := fmt.Sprintf("---\nname: %s\ndescription: Synthetic skill %d for the publish tests. Use it when testing.\n---\n\n# Skill %d\n\nStep one, then step two.\n", name, i, i)
		if err := os.MkdirAll(filepath.Join(skills, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(skills, name, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dist := filepath.Join(tmp, "dist")
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	b, err := publish.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sentBlobs is the digests of the blobs a run stored (PUTs that
// succeeded), and how many existence checks it made.
func sentBlobs(events []event) (sent map[string]int, checks int) {
	sent = map[string]int{}
	for _, e := range events {
		switch {
		case e.method == http.MethodHead:
			checks++
		case e.method == http.MethodPut && strings.Contains(e.path, "/blobs/uploads/") && e.status == http.StatusCreated:
			q, _ := url.ParseQuery(e.path[strings.Index(e.path, "?")+1:])
			sent[q.Get("digest")]++
		}
	}
	return sent, checks
}

// A fresh publish stops asking the registry about each object once the
// first checks all said absent, sends each blob once, and keeps the
// order; a run stopped half way is completed by a rerun that sends no
// blob the first run stored, since the skills it finished vouch for
// theirs.
func TestFreshPublishStopsAsking(t *testing.T) {
	reg := startRegistry(t)
	px := startProxy(t, reg.host)
	b := syntheticBundle(t, 40)
	target := "oci://" + px.host + "/acme/fresh"

	first := publishTo(t, b, target, Options{})
	events := px.log()
	checkOrder(t, events)
	sent, checks := sentBlobs(events)
	jobs := publish.DefaultJobs
	if checks >= freshAfter+2*jobs {
		t.Errorf("a fresh publish of %d skills made %d existence checks, want fewer than %d", len(b.Skills), checks, freshAfter+2*jobs)
	}
	for d, n := range sent {
		if n > 1 {
			t.Errorf("blob %s was sent %d times", d, n)
		}
	}
	if n := first.count(); n[publish.Uploaded] != len(first.all) {
		t.Errorf("states %v, want all uploaded", n)
	}
	complete(t, repoOf(t, reg.host, "acme/fresh"), "latest")

	// Into another registry (one that keeps a blob for every repository,
	// as go-containerregistry's does, has them all already): stopped
	// after 60% of the requests.
	reg = startRegistry(t)
	px = startProxy(t, reg.host)
	target = "oci://" + px.host + "/acme/stopped"
	at := len(events) * 6 / 10
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	px.setDecide(func(n int, r *http.Request) fault {
		if n >= at {
			cancel()
			return fail
		}
		return pass
	})
	if err := Publish(ctx, b, target, Options{}, func(publish.Result) {}); err == nil {
		t.Fatalf("a run stopped at request %d of %d ended well", at, len(events))
	}
	before, _ := sentBlobs(px.log())
	px.setDecide(nil)
	publishTo(t, b, target, Options{})
	again, _ := sentBlobs(px.log())
	for d := range again {
		if before[d] > 0 {
			t.Errorf("the rerun sent blob %s again, which the stopped run had stored", d)
		}
	}
	if len(before) == 0 || len(again) == 0 {
		t.Errorf("the stopped run stored %d blobs, the rerun %d: the stop is not half way", len(before), len(again))
	}
	complete(t, repoOf(t, reg.host, "acme/stopped"), "latest")
}
