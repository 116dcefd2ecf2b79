package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// foreign are paths, relative to where a bundle is published, that the
// bundle does not write but that look like its own: a website's
// discovery files, hand-made files in the bundle's folders, and names
// shaped like archives, signatures, documents and release records.
var foreign = []string{
	layout.LLMsTxt,
	layout.AICatalog,
	".well-known/agent-skills/team-notes.md",
	".well-known/agent-skills/other-skill/SKILL.md",
	".well-known/agent-skills/other-skill/index.html",
	".well-known/agent-skills/stray-0123456789abcdef.zip",
	".well-known/agent-skills/stray-0123456789abcdef.tar.gz",
	layout.Signature(".well-known/agent-skills/stray-0123456789abcdef.zip"),
	".well-known/skills/other-skill/SKILL.md",
	".well-known/skills/checksums.txt",
	"mcp/other.json",
	"mcp/index.html",
	"docs/index.html",
	"old/" + layout.Checksums,
	publish.RecordCopy(layout.Digest("sha256:" + strings.Repeat("ab", 32))),
}

// Prune deletes only what a release record names: objects skillpack did
// not write survive ten prunes and ten prunes stopped part way, each
// followed by a rerun, at every path shape a bundle uses, in a bucket
// shared by a bundle at its root, one under a prefix and one under a
// prefix of that (four rounds each); so does a user's file written over
// an archive an old release named, and another of skillpack's objects
// copied over one with its metadata. And what the records name does go.
func TestForeignObjects(t *testing.T) { testForeign(t, fakeServer(t)) }

func testForeign(t *testing.T, s *server) {
	ctx := context.Background()
	bases := []string{"", "team", "team/b"}
	key := func(base, path string) string {
		if base == "" {
			return path
		}
		return base + "/" + path
	}
	want := map[string]string{} // every foreign key, with its bytes
	for _, base := range bases {
		for _, p := range foreign {
			want[key(base, p)] = "a user's file at " + key(base, p)
		}
	}
	// Each carries a digest in skillpack's metadata, as a file copied
	// from another bucket skillpack published to would: only the records
	// tell them apart.
	s.proxy.pause()
	for k, v := range want {
		meta := map[string]string{metaDigest: string(layout.DigestOf([]byte(v)))}
		if _, err := s.client().PutObject(ctx, testBucket, k, strings.NewReader(v), int64(len(v)), minio.PutObjectOptions{UserMetadata: meta}); err != nil {
			t.Fatal(err)
		}
	}
	s.proxy.resume()
	survived := func(when string) {
		t.Helper()
		got := s.gets(slices.Collect(maps.Keys(want)))
		for k, v := range want {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("%s: %s, a user's file, was deleted or changed", when, k)
			}
		}
	}
	archive := func(b *publish.Upload) string {
		return b.Skills[slices.IndexFunc(b.Skills, func(s publish.Skill) bool { return s.Name == "csv-profiler" })].Zip.Path
	}

	skills := tree(t)
	dist := filepath.Join(t.TempDir(), "dist")
	var bundles []*publish.Upload
	for round := range 10 {
		change(t, skills, round+1)
		b := builtBundle(t, skills, dist)
		bundles = append(bundles, b)
		if round == 0 {
			for _, o := range b.Objects {
				if slices.Contains(foreign, o.Path) {
					t.Fatalf("the bundle writes %s: not a foreign path", o.Path)
				}
			}
		}
		if round == 2 {
			// A user's file over an archive of the first release, which
			// the record of that release still names.
			k := archive(bundles[0])
			want[k] = "a user's file over " + k
			s.replace(k, want[k])
			// Another of skillpack's objects copied over its other archive
			// on the server (aws s3 cp keeps the metadata and checksum):
			// not the bytes that release recorded there.
			i := slices.IndexFunc(bundles[1].Skills, func(s publish.Skill) bool { return s.Name != "csv-profiler" })
			src, tgz := bundles[1].Skills[i].Zip.Path, bundles[0].Skills[slices.IndexFunc(bundles[0].Skills, func(s publish.Skill) bool { return s.Name == "csv-profiler" })].TarGz.Path
			s.proxy.pause()
			if _, err := s.client().CopyObject(ctx, minio.CopyDestOptions{Bucket: testBucket, Object: tgz}, minio.CopySrcOptions{Bucket: testBucket, Object: src}); err != nil {
				t.Fatal(err)
			}
			s.proxy.resume()
			want[tgz] = s.gets([]string{src})[src]
		}
		for _, base := range bases {
			if base != "" && round > 3 {
				break // the bundles under prefixes: enough to show them apart
			}
			o := s.options()
			o.Prune, o.Keep = true, 2
			// Stopped after a few deletes, then run again.
			rctx, cancel := context.WithCancel(ctx)
			dels := 0
			s.proxy.mu.Lock()
			s.proxy.onSeen = func(r *http.Request) {
				if r.Method == http.MethodDelete {
					if dels++; dels == 1+round%3 {
						cancel()
					}
				}
			}
			s.proxy.mu.Unlock()
			err := Publish(rctx, b, s.target(base), o, nil)
			cancel()
			s.proxy.noFaults()
			if err == nil && round > 1 {
				t.Errorf("round %d, %q: the prune was not stopped (%d deletes)", round, base, dels)
			}
			survived(fmt.Sprintf("round %d, %q, stopped prune", round, base))
			if err := Publish(ctx, b, s.target(base), o, nil); err != nil {
				t.Fatalf("round %d, %q: %v", round, base, err)
			}
			survived(fmt.Sprintf("round %d, %q, prune", round, base))
			got := s.listing(base) // what the checks look up, of all the bucket holds
			consistent(t, got, true)
			matches(t, s, got, b)
			// What only the records of releases gone name is gone.
			for i, old := range bundles {
				p := archive(old)
				if _, ok := got.object(p); ok != (i >= round-1) && (base != "" || i != 0 || round < 2) {
					t.Errorf("round %d, %q: release %d's archive %s: present %v", round, base, i, p, ok)
				}
			}
		}
		s.proxy.log("")
	}
	// The records of releases gone are gone too: the two kept remain.
	for _, base := range bases[:1] {
		var copies []string
		for p := range s.listing(base).keys {
			if d, ok := publish.RecordOf(p); ok && d != layout.Digest("sha256:"+strings.Repeat("ab", 32)) {
				copies = append(copies, p)
			}
		}
		slices.Sort(copies)
		wantCopies := []string{publish.RecordCopy(bundles[8].Record().Digest), publish.RecordCopy(bundles[9].Record().Digest)}
		slices.Sort(wantCopies)
		if !slices.Equal(copies, wantCopies) {
			t.Errorf("%q: record copies %v, want %v", base, copies, wantCopies)
		}
	}
}

// Publish does not overwrite what it did not write. A site's own
// index.html at a path of the bundle, or a document copied from another
// bucket with skillpack's metadata, stops a publish and a dry run before
// anything is written, and the error names both; a file of the bundle's
// bytes that another tool put there is no obstacle. The bundle publishes
// beside the site under a prefix of its own, and once it is published,
// an object of its own that someone changed is its to replace.
func TestOverwrite(t *testing.T) { testOverwrite(t, fakeServer(t)) }

func testOverwrite(t *testing.T, s *server) {
	ctx := context.Background()
	dist := filepath.Join(t.TempDir(), "dist")
	b := builtBundle(t, tree(t), dist)
	page, doc, archive := "index.html", ".well-known/agent-skills/index.json", b.Skills[0].Zip.Path
	for _, p := range []string{page, doc} {
		if !slices.ContainsFunc(b.Objects, func(o publish.Object) bool { return o.Path == p }) {
			t.Fatalf("the bundle does not write %s", p)
		}
	}
	same, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(archive)))
	if err != nil {
		t.Fatal(err)
	}
	s.put("www/"+page, "<h1>My site</h1>\n")
	s.put("www/"+archive, string(same))
	s.proxy.pause()
	copied := `{"skills":[]}`
	meta := map[string]string{metaDigest: string(layout.DigestOf([]byte(copied)))}
	if _, err := s.client().PutObject(ctx, testBucket, "www/"+doc, strings.NewReader(copied), int64(len(copied)), minio.PutObjectOptions{UserMetadata: meta}); err != nil {
		t.Fatal(err)
	}
	s.proxy.resume()
	before := s.objects("www")

	for _, dry := range []bool{true, false} {
		o := s.options()
		o.DryRun = dry
		var fe *publish.ForeignError
		err := Publish(ctx, b, s.target("www"), o, nil)
		if !errors.As(err, &fe) || !slices.Equal(fe.Paths, []string{doc, page}) || !strings.Contains(err.Error(), s.target("www")) {
			t.Fatalf("dry run %v: %v; want a ForeignError naming %s and %s", dry, err, doc, page)
		}
		if after := s.objects("www"); !maps.EqualFunc(before, after, func(a, b stored) bool { return bytes.Equal(a.data, b.data) }) {
			t.Fatalf("dry run %v: the bucket changed: %d objects before, %d after", dry, len(before), len(after))
		}
	}

	if err := Publish(ctx, b, s.target("www/skills"), s.options(), nil); err != nil {
		t.Fatalf("under a prefix of its own: %v", err)
	}
	if got, _ := s.get("www/" + page); got != "<h1>My site</h1>\n" {
		t.Errorf("the site's page changed: %q", got)
	}

	s.replace("www/"+doc, copied) // without skillpack's metadata now
	s.proxy.pause()
	for _, p := range []string{page, doc} {
		if err := s.client().RemoveObject(ctx, testBucket, "www/"+p, minio.RemoveObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	s.proxy.resume()
	if err := Publish(ctx, b, s.target("www"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
	s.replace("www/"+page, "edited")
	if err := Publish(ctx, b, s.target("www"), s.options(), nil); err != nil {
		t.Fatalf("over its own changed page: %v", err)
	}
	if got, _ := s.get("www/" + page); got == "edited" {
		t.Error("its own changed page was not replaced")
	}
	// With no inventory and no release copies (a bucket an older
	// skillpack published to), the published record alone vouches.
	for k := range s.objects("www/.skillpack") {
		if k != "build.json" {
			s.proxy.pause()
			if err := s.client().RemoveObject(ctx, testBucket, "www/.skillpack/"+k, minio.RemoveObjectOptions{}); err != nil {
				t.Fatal(err)
			}
			s.proxy.resume()
		}
	}
	s.replace("www/"+page, "edited again")
	if err := Publish(ctx, b, s.target("www"), s.options(), nil); err != nil {
		t.Fatalf("over its own page, by the published record alone: %v", err)
	}
}

// A first publish stopped after its record's copy, which names every
// path of the bundle, wrote none of them: a site's own object put at one
// since is the site's, and the next publish refuses it (it replaced it,
// the copy's name taken for proof that skillpack wrote there).
func TestPublishAfterStopped(t *testing.T) {
	s := fakeServer(t)
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	ctx, cancel := context.WithCancel(context.Background())
	if err := Publish(ctx, b, s.target("www"), s.options(), func(publish.Result) { cancel() }); !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped run: %v", err)
	}
	const page = "<h1>My site</h1>\n"
	s.put("www/index.html", page)
	err := Publish(context.Background(), b, s.target("www"), s.options(), nil)
	if fe := new(*publish.ForeignError); !errors.As(err, fe) || !slices.Equal((*fe).Paths, []string{"index.html"}) {
		t.Errorf("after the stopped run: %v, want a ForeignError naming index.html", err)
	}
	if got, _ := s.get("www/index.html"); got != page {
		t.Errorf("the site's page was replaced: %.40q", got)
	}
}
