package s3

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/signtest"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/verify"
)

// A published bundle verifies from the bucket as it does from DIST,
// signatures included; what changes there afterwards is reported with its
// path: an object replaced with other bytes (both digests), an object
// removed, an index rewritten, a record that is not the newest release's.
// A bucket or a prefix with no bundle cannot be verified at all.
func TestVerifyFake(t *testing.T) { testVerify(t, fakeServer(t)) }

func testVerify(t *testing.T, s *server) {
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	ctx := context.Background()
	if err := Publish(ctx, b, s.target("ver"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
	o := verify.Options{Verifier: signtest.StubVerifier{}, RequireSignatures: true}
	check := func() *verify.Report {
		t.Helper()
		st, err := OpenBucket(s.target("ver"), s.options())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := verify.Objects(ctx, st, o)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	want := func(rep *verify.Report, path string, subs ...string) {
		t.Helper()
	next:
		for _, p := range rep.Problems {
			for _, sub := range subs {
				if p.Path != path || !strings.Contains(p.Message, sub) {
					continue next
				}
			}
			t.Logf("%s: %s", p.Path, p.Message)
			return
		}
		var all bytes.Buffer
		rep.WriteText(&all)
		t.Errorf("no problem at %s with %q; got:\n%s", path, subs, all.String())
	}
	restore := func(path string) {
		t.Helper()
		s.put("ver/"+path, string(readDist(t, b.Dir, path)))
	}

	rep := check()
	local, err := verify.Dist(ctx, b.Dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Checked != local.Checked || rep.Source != s.target("ver") {
		var all bytes.Buffer
		rep.WriteText(&all)
		t.Fatalf("published: checked %+v of %s, DIST %+v:\n%s", rep.Checked, rep.Source, local.Checked, all.String())
	}

	victim := b.Skills[0].TarGz
	s.put("ver/"+victim.Path, strings.Repeat("x", int(victim.Size)))
	want(check(), victim.Path, "digest is "+string(layout.DigestOf([]byte(strings.Repeat("x", int(victim.Size))))), "says "+string(victim.Digest))
	restore(victim.Path)

	s.remove("ver/" + victim.Path)
	want(check(), victim.Path, "missing (not found)")
	restore(victim.Path)

	idx := readDist(t, b.Dir, layout.V2Index)
	s.put("ver/"+layout.V2Index, strings.Replace(string(idx), `"description": "`, `"description": "Tampered. `, 1))
	rep = check()
	want(rep, layout.V2Index, "but "+layout.BuildRecord+" says")
	want(rep, layout.Signature(layout.V2Index), "does not verify")
	restore(layout.V2Index)

	s.put("ver/"+layout.BuildRecord, strings.Replace(string(readDist(t, b.Dir, layout.BuildRecord)), "\n", "\n ", 1))
	want(check(), publish.ReleasesList, "its newest release is the build record "+string(b.Record().Digest))
	restore(layout.BuildRecord)

	if rep := check(); !rep.OK() {
		t.Errorf("restored: %v", rep.Problems)
	}

	for target, msg := range map[string]string{
		"s3://nothere/ver":  "s3://nothere: no such bucket at " + s.url + "; check the bucket's name, --endpoint and the access key (some servers answer so to a key they do not know), or create the bucket",
		s.target("nowhere"): "cannot read " + s.target("nowhere") + "/" + layout.V2Index + ": missing (not found)",
	} {
		st, err := OpenBucket(target, s.options())
		if err != nil {
			t.Fatal(err)
		}
		_, err = verify.Objects(ctx, st, o)
		if err == nil || !strings.Contains(err.Error(), msg) || errors.Is(err, publish.ErrNoBucket) != strings.Contains(target, "nothere") {
			t.Errorf("%s: %v; want %q", target, err, msg)
		} else if strings.Count(err.Error(), "nothere") > 1 {
			t.Errorf("%s: %v; names the target twice", target, err)
		}
	}
}

// remove deletes an object, as another tool would.
func (s *server) remove(key string) {
	s.t.Helper()
	s.proxy.pause()
	defer s.proxy.resume()
	if err := s.client().RemoveObject(context.Background(), testBucket, key, minio.RemoveObjectOptions{}); err != nil {
		s.t.Fatal(err)
	}
}

// readDist is a file of DIST.
func readDist(t *testing.T, dist, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A bundle built with --versioned keeps its version folders in the
// bucket, at their DIST keys, and verifies from there.
func TestVerifyVersioned(t *testing.T) {
	s := fakeServer(t)
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{tree(t)}, build.Options{Out: dist, Versioned: true, Sign: signtest.Stub, SignFolder: signtest.StubStatement}); err != nil {
		t.Fatal(err)
	}
	b, err := publish.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := Publish(ctx, b, s.target("v"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
	st, err := OpenBucket(s.target("v"), s.options())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Objects(ctx, st, verify.Options{Verifier: signtest.StubVerifier{}, RequireSignatures: true})
	if err != nil {
		t.Fatal(err)
	}
	versions := 0
	for _, o := range b.Objects {
		if pp, ok := layout.ParsePath(o.Path); ok && pp.Kind == layout.KindVersion {
			versions++
		}
	}
	if !rep.OK() || versions == 0 {
		var all bytes.Buffer
		rep.WriteText(&all)
		t.Fatalf("%d files in version folders; the bucket does not verify:\n%s", versions, all.String())
	}
}

// A bundle with plugins (build/testdata/plugins, signed, with the four
// marketplaces, so each plugin's folder too) publishes its plugins'
// archives and their signatures, verifies from the bucket, and a plugin
// archive replaced there is refused.
func TestVerifyPluginsFake(t *testing.T) { testVerifyPlugins(t, fakeServer(t)) }

func testVerifyPlugins(t *testing.T, s *server) {
	b := builtBundle(t, filepath.Join("..", "..", "build", "testdata", "plugins"), filepath.Join(t.TempDir(), "dist"), "claude", "codex", "cursor", "copilot")
	ctx := context.Background()
	if err := Publish(ctx, b, s.target("plugins"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
	check := func() *verify.Report {
		t.Helper()
		st, err := OpenBucket(s.target("plugins"), s.options())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := verify.Objects(ctx, st, verify.Options{Verifier: signtest.StubVerifier{}, RequireSignatures: true})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	var archives []string
	for _, o := range b.Objects {
		if _, ok := layout.SignedArtifact(o.Path); !ok && strings.HasPrefix(o.Path, layout.PluginsDir+"/") && layout.ArchiveFormat(o.Path) != "" {
			archives = append(archives, o.Path)
			if _, ok := s.get("plugins/" + layout.Signature(o.Path)); !ok {
				t.Errorf("%s was published without its signature", o.Path)
			}
		}
	}
	if rep := check(); !rep.OK() || len(archives) != 6 {
		var all bytes.Buffer
		rep.WriteText(&all)
		t.Fatalf("%d plugin archives published, want 6; the bucket:\n%s", len(archives), all.String())
	}
	// A file of a plugin's served folder changed there is refused too.
	file := layout.PluginDir("pdf-tools") + "/plugin.json"
	if _, ok := s.get("plugins/" + file); !ok {
		t.Fatalf("%s was not published", file)
	}
	s.replace("plugins/"+file, "{}")
	if rep := check(); !slices.ContainsFunc(rep.Problems, func(p verify.Problem) bool { return p.Path == file }) {
		var all bytes.Buffer
		rep.WriteText(&all)
		t.Errorf("a replaced %s is not reported:\n%s", file, all.String())
	}
	s.replace("plugins/"+archives[0], "not the archive")
	rep := check()
	for _, p := range rep.Problems {
		if p.Path == archives[0] {
			return
		}
	}
	var all bytes.Buffer
	rep.WriteText(&all)
	t.Errorf("a replaced %s is not reported:\n%s", archives[0], all.String())
}
