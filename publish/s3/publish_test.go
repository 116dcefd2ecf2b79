package s3

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// The whole publish, against any server: fresh, again unchanged, after
// one skill changed. The integration test runs it against versitygw.
func testPublish(t *testing.T, s *server) {
	skills := tree(t)
	dist := filepath.Join(t.TempDir(), "dist")
	b := builtBundle(t, skills, dist)
	ctx := context.Background()

	var r results
	if err := Publish(ctx, b, s.target("site"), s.options(), r.add); err != nil {
		t.Fatal(err)
	}
	puts, _ := s.proxy.log("site")
	got := s.objects("site")
	matches(t, s, got, b)
	consistent(t, got, true)
	if n := len(r.paths(publish.Uploaded)); n != len(b.Objects)+2 || len(r.list) != n {
		t.Errorf("fresh: %d uploaded of %d results; want every object, the record's copy and the release list (%d)", n, len(r.list), len(b.Objects)+2)
	}
	safeOrder(t, puts, b)

	// The release list and the record's copy.
	var doc releases
	if err := json.Unmarshal(got[publish.ReleasesList].data, &doc); err != nil || len(doc.Releases) != 1 {
		t.Fatalf("release list %s: %v", got[publish.ReleasesList].data, err)
	}
	if rel := doc.Releases[0]; rel.Record != b.Record().Digest || rel.Bundle != b.Key || rel.Published.IsZero() {
		t.Errorf("release %+v", rel)
	}
	if c := got[publish.RecordCopy(b.Record().Digest)]; c.digest != b.Record().Digest || s.cacheControl && !strings.Contains(c.info.Metadata.Get("Cache-Control"), "immutable") {
		t.Errorf("record copy: %s, %q", c.digest, c.info.Metadata.Get("Cache-Control"))
	}

	// Again: nothing is sent.
	r = results{}
	if err := Publish(ctx, b, s.target("site"), s.options(), r.add); err != nil {
		t.Fatal(err)
	}
	if puts, _ := s.proxy.log("site"); len(puts) != 0 || len(r.paths(publish.Present)) != len(b.Objects)+2 {
		t.Errorf("unchanged: %d PUTs (%v), %d present", len(puts), puts, len(r.paths(publish.Present)))
	}

	// One skill changed: its objects and the documents that changed.
	change(t, skills, 1)
	b2 := builtBundle(t, skills, dist)
	r = results{}
	if err := Publish(ctx, b2, s.target("site"), s.options(), r.add); err != nil {
		t.Fatal(err)
	}
	puts, _ = s.proxy.log("site")
	old := map[string]layout.Digest{}
	for _, o := range b.Objects {
		old[o.Path] = o.Digest
	}
	var want []string
	for _, o := range b2.Objects {
		if old[o.Path] != o.Digest {
			want = append(want, o.Path)
			signed, _ := layout.SignedArtifact(o.Path)
			if p, ok := layout.ParsePath(cmp.Or(signed, o.Path)); !ok || p.Kind != layout.KindDoc && p.Skill != "csv-profiler" {
				t.Errorf("%s changed, but it is neither a document nor csv-profiler's", o.Path)
			}
		}
	}
	want = append(want, publish.RecordCopy(b2.Record().Digest), publish.ReleasesList, publish.InventoryPath)
	slices.Sort(want)
	if sorted := slices.Sorted(slices.Values(puts)); !slices.Equal(sorted, want) || !slices.Equal(r.paths(publish.Uploaded), slices.DeleteFunc(slices.Clone(want), func(p string) bool { return p == publish.InventoryPath })) {
		t.Errorf("one skill changed: PUT\n%v\nwant\n%v", puts, want)
	}
	got = s.objects("site")
	matches(t, s, got, b2)
	consistent(t, got, true)
	safeOrder(t, puts, b2)
	if err := json.Unmarshal(got[publish.ReleasesList].data, &doc); err != nil || len(doc.Releases) != 2 || doc.Releases[0].Record != b2.Record().Digest {
		t.Errorf("release list %s", got[publish.ReleasesList].data)
	}
	// The archives of the first release are still there: nothing is
	// deleted without --prune.
	for _, sk := range b.Skills {
		if _, ok := got[sk.TarGz.Path]; !ok {
			t.Errorf("%s was deleted without --prune", sk.TarGz.Path)
		}
	}
}

// safeOrder checks the order in which the server saw the PUTs: never an
// object of a stage after one of a later stage, and never a document
// before a file it names.
func safeOrder(t testing.TB, puts []string, b *publish.Upload) {
	t.Helper()
	last := publish.Archives
	for i, p := range puts {
		if p == publish.RecordCopy(b.Record().Digest) {
			// First: what a stopped run leaves is named by a record.
			if i > 0 {
				t.Errorf("the record's copy was PUT after %s", puts[i-1])
			}
			continue
		}
		st := publish.StageOf(p)
		if strings.HasPrefix(p, ".skillpack/") { // the package's own objects, after the record
			st = publish.Record
		}
		if st < last {
			t.Errorf("%s (%s) was PUT after an object of stage %s", p, st, last)
		}
		last = max(last, st)
	}
	if i, j := slices.Index(puts, publish.RecordCopy(b.Record().Digest)), slices.Index(puts, publish.ReleasesList); i >= 0 && j >= 0 && j < i {
		t.Errorf("the release list was PUT before the record's copy")
	}
	if i, j := slices.Index(puts, publish.ReleasesList), slices.Index(puts, publish.InventoryPath); i >= 0 && j >= 0 && j < i {
		t.Errorf("the inventory was PUT before the release list")
	}
}

func TestPublishFake(t *testing.T) { testPublish(t, fakeServer(t)) }

// A dry run lists and compares and changes nothing.
func TestDryRun(t *testing.T) { testDryRun(t, fakeServer(t)) }

func testDryRun(t *testing.T, s *server) {
	skills := tree(t)
	b := builtBundle(t, skills, filepath.Join(t.TempDir(), "dist"))
	o := s.options()
	o.DryRun, o.Prune = true, true
	var r results
	if err := Publish(context.Background(), b, s.target("p"), o, r.add); err != nil {
		t.Fatal(err)
	}
	if puts, dels := s.proxy.log("p"); len(puts)+len(dels) != 0 || len(s.objects("p")) != 0 {
		t.Errorf("a dry run changed the bucket: %v %v", puts, dels)
	}
	if n := len(r.paths(publish.WouldUpload)); n != len(b.Objects)+2 {
		t.Errorf("%d would-upload, want %d", n, len(b.Objects)+2)
	}

	if err := Publish(context.Background(), b, s.target("p"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
	s.proxy.log("p")
	change(t, skills, 1)
	b2 := builtBundle(t, skills, filepath.Join(t.TempDir(), "dist"))
	o.Keep = 1
	r = results{}
	if err := Publish(context.Background(), b2, s.target("p"), o, r.add); err != nil {
		t.Fatal(err)
	}
	if puts, dels := s.proxy.log("p"); len(puts)+len(dels) != 0 {
		t.Errorf("a dry run changed the bucket: %v %v", puts, dels)
	}
	// With --keep 1 the first release leaves the list; its archives are
	// still named by the published indexes, so not even they would be
	// deleted, nor its record's copy, which names them for a later prune.
	if wd := r.paths(publish.WouldDelete); len(wd) != 0 || len(r.paths(publish.WouldUpload)) == 0 || len(r.paths(publish.Present)) == 0 {
		t.Errorf("would-delete %v; %d would-upload, %d present", r.paths(publish.WouldDelete), len(r.paths(publish.WouldUpload)), len(r.paths(publish.Present)))
	}
}

// --prune deletes what the records of releases no longer kept name, and
// the indexes published before the run did not name; never a file that
// no release names, whatever its path.
func TestPrune(t *testing.T) { testPrune(t, fakeServer(t)) }

func testPrune(t *testing.T, s *server) {
	skills := tree(t)
	dist := filepath.Join(t.TempDir(), "dist")
	ctx := context.Background()
	s.put("q/notes/readme.txt", "a user's file")
	s.put("q/.well-known/agent-skills/stray-0123456789abcdef.zip", "skillpack's path, no release names it")

	var bundles []*publish.Upload
	for i := range 4 {
		if i > 0 {
			change(t, skills, i)
		}
		b := builtBundle(t, skills, dist)
		bundles = append(bundles, b)
		o := s.options()
		o.Prune, o.Keep = i == 3, 2
		if err := Publish(ctx, b, s.target("q"), o, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, dels := s.proxy.log("q")
	got := s.objects("q")
	consistent(t, got, true)
	matches(t, s, got, bundles[3])
	if _, ok := got["notes/readme.txt"]; !ok {
		t.Error("prune deleted a user's file")
	}
	if _, ok := got[".well-known/agent-skills/stray-0123456789abcdef.zip"]; !ok {
		t.Error("prune deleted an archive-shaped file no release names")
	}
	archive := func(b *publish.Upload) string {
		return b.Skills[slices.IndexFunc(b.Skills, func(s publish.Skill) bool { return s.Name == "csv-profiler" })].TarGz.Path
	}
	// Kept: releases 3 and 2 (keep 2), whose indexes were live.
	for i, want := range []bool{false, false, true, true} {
		p := archive(bundles[i])
		if _, ok := got[p]; ok != want {
			t.Errorf("release %d's archive %s: present %v, want %v", i+1, p, ok, want)
		}
		if _, ok := got[publish.RecordCopy(bundles[i].Record().Digest)]; ok != want {
			t.Errorf("release %d's record copy: present %v, want %v", i+1, ok, want)
		}
	}
	var doc releases
	json.Unmarshal(got[publish.ReleasesList].data, &doc)
	if len(doc.Releases) != 2 || doc.Releases[0].Record != bundles[3].Record().Digest || doc.Releases[1].Record != bundles[2].Record().Digest {
		t.Errorf("release list %s", got[publish.ReleasesList].data)
	}
	var want []string
	for _, b := range bundles[:2] {
		sk := b.Skills[slices.IndexFunc(b.Skills, func(s publish.Skill) bool { return s.Name == "csv-profiler" })]
		want = append(want, sk.TarGz.Path, sk.Zip.Path, publish.RecordCopy(b.Record().Digest))
		for _, sig := range sk.Signatures {
			want = append(want, sig.Path)
		}
	}
	slices.Sort(want)
	slices.Sort(dels)
	if !slices.Equal(dels, want) {
		t.Errorf("deleted\n%v\nwant\n%v", dels, want)
	}

	// With --keep 1 the release published before the run is still named
	// by the indexes readers hold: kept.
	o := s.options()
	o.Prune, o.Keep = true, 1
	change(t, skills, 9)
	b := builtBundle(t, skills, dist)
	if err := Publish(ctx, b, s.target("q"), o, nil); err != nil {
		t.Fatal(err)
	}
	got = s.objects("q")
	for _, p := range []string{archive(bundles[3]), archive(b)} {
		if _, ok := got[p]; !ok {
			t.Errorf("--keep 1 deleted %s, which the published index named", p)
		}
	}
	if _, ok := got[archive(bundles[2])]; ok {
		t.Errorf("--keep 1 kept %s", archive(bundles[2]))
	}
}

// A corrupt release list or published index stops the run before
// anything is written, naming the object and the fix; so does a bucket
// that does not exist (publish.ErrNoBucket: the user's to fix), at once.
func TestRefusesWhatItCannotRead(t *testing.T) { testRefuses(t, fakeServer(t)) }

func testRefuses(t *testing.T, s *server) {
	s.proxy.log("")
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	err := Publish(context.Background(), b, "s3://nope/a", s.options(), nil)
	if want := "s3://nope: no such bucket at " + s.url + "; check the bucket's name, --endpoint and the access key (some servers answer so to a key they do not know), or create the bucket"; !errors.Is(err, publish.ErrNoBucket) || !strings.HasPrefix(fmt.Sprint(err), want) {
		t.Errorf("no bucket: %v; want %q", err, want)
	}
	s.put("a/.skillpack/releases.json", `{"releases":[{"record":"md5:x"}]}`)
	err = Publish(context.Background(), b, s.target("a"), s.options(), nil)
	// The user's to mend, a failed check: exit 1, not skillpack's 3.
	var class interface{ ExitClass() int }
	if err == nil || !strings.Contains(err.Error(), "s3://skills/a/.skillpack/releases.json") || !strings.Contains(err.Error(), "remove it") ||
		!errors.As(err, &class) || class.ExitClass() != 1 {
		t.Errorf("error %v", err)
	}
	// An index of its own publish, corrupted since.
	if err := Publish(context.Background(), b, s.target("b"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
	s.replace("b/.well-known/agent-skills/index.json", `{"skills":[{"name":`)
	s.proxy.log("")
	o := s.options()
	o.Prune = true
	err = Publish(context.Background(), b, s.target("b"), o, nil)
	if err == nil || !strings.Contains(err.Error(), "s3://skills/b/.well-known/agent-skills/index.json") || !strings.Contains(err.Error(), "without --prune") ||
		!errors.As(err, &class) || class.ExitClass() != 1 {
		t.Errorf("error %v", err)
	}
	if puts, _ := s.proxy.log("b"); len(puts) != 0 {
		t.Errorf("wrote %v", puts)
	}
	// Without --prune the index is not read: it is replaced.
	if err := Publish(context.Background(), b, s.target("b"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
}

// exitClass is the exit code an error says it has (the command layer's
// exitClasser), 0 when it says none: skillpack's own failure.
func exitClass(err error) int {
	var c interface{ ExitClass() int }
	if errors.As(err, &c) {
		return c.ExitClass()
	}
	return 0
}

// Credentials the server refuses are the user's to mend (exit 2), in a
// publish and in verify's check alike, and nothing is written.
func testDenied(t *testing.T, s *server) {
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	o := s.options()
	o.SecretKey = "wrong"
	s.proxy.log("")
	err := Publish(context.Background(), b, s.target("denied"), o, nil)
	if err == nil || !strings.Contains(err.Error(), "check the credentials") || exitClass(err) != 2 {
		t.Errorf("publish: %v (exit class %d); want the credentials refused, exit 2", err, exitClass(err))
	}
	if puts, _ := s.proxy.log("denied"); len(puts) != 0 {
		t.Errorf("wrote %v", puts)
	}
	bk, err := OpenBucket(s.target("denied"), o)
	if err != nil {
		t.Fatal(err)
	}
	err = bk.Check(context.Background(), func(string, string) {})
	if err == nil || !strings.Contains(err.Error(), "check the credentials") || exitClass(err) != 2 {
		t.Errorf("verify's check: %v (exit class %d); want the credentials refused, exit 2", err, exitClass(err))
	}
}

// On a server that keeps objects as files and folders (versitygw's
// posix backend), another's object where the bundle needs a folder fails
// the publish as another's file at a bundle path does (exit 1), saying so.
// Elsewhere (S3, MinIO) a key may also be a prefix: the publish succeeds
// and the other's object stays as it was.
func testParentIsFile(t *testing.T, s *server) {
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	const theirs = "a user's file named like a folder of the bundle"
	s.put("pf/mcp", theirs)
	err := Publish(context.Background(), b, s.target("pf"), s.options(), nil)
	if !s.files {
		if data, _ := s.get("pf/mcp"); err != nil || data != theirs {
			t.Errorf("%v; their pf/mcp now holds %q", err, data)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "a file where the bundle needs a folder") || exitClass(err) != 1 {
		t.Errorf("%v (exit class %d); want another's file in the way, exit 1", err, exitClass(err))
	}
}

// An endpoint that is not S3 (a web server answering 200 with a page to
// everything) is refused as one, naming it (exit 2), before anything is
// sent or reported, in a dry run too: its listing names nothing, and it
// answers for an object no one wrote.
// So is one that answers 400 to everything (SeaweedFS's volume port).
func TestNotS3(t *testing.T) {
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	for status, said := range map[int]string{http.StatusOK: " is not an S3 server", http.StatusBadRequest: ": 400 Bad Request; give the URL of the S3 API with --endpoint"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			io.WriteString(w, "<html><body>Welcome to nginx!</body></html>")
		}))
		defer srv.Close()
		o := Options{Endpoint: srv.URL, AccessKey: testKey, SecretKey: testSecret, Region: "us-east-1", Getenv: func(string) string { return "" }}
		for _, dry := range []bool{false, true} {
			o.DryRun = dry
			var r results
			err := Publish(context.Background(), b, "s3://site/skills", o, r.add)
			if err == nil || !strings.Contains(err.Error(), said) || exitClass(err) != 2 {
				t.Errorf("%d, dry run %v: %v (exit class %d); want %s refused (%q), exit 2", status, dry, err, exitClass(err), srv.URL, said)
			}
			if len(r.list) > 0 {
				t.Errorf("%d, dry run %v: reported %v", status, dry, r.list)
			}
		}
	}
}

// A file changed after the bundle was opened is never stored, whether or
// not the server checks checksums, and is not retried.
func TestChangedFileIsRefused(t *testing.T) { testChangedFile(t, fakeServer(t)) }

func testChangedFile(t *testing.T, s *server) {
	dist := filepath.Join(t.TempDir(), "dist")
	b := builtBundle(t, tree(t), dist)
	victim := b.Skills[0].SkillMD
	data, _ := os.ReadFile(filepath.Join(dist, victim.Path))
	data[0] ^= 1
	os.WriteFile(filepath.Join(dist, victim.Path), data, 0o644)
	var r results
	err := Publish(context.Background(), b, s.target("c"), s.options(), r.add)
	if err == nil || !strings.Contains(err.Error(), victim.Path) || !strings.Contains(err.Error(), "rebuild") {
		t.Fatalf("error %v", err)
	}
	got := s.objects("c")
	if _, ok := got[victim.Path]; ok {
		t.Errorf("%s was stored with the wrong bytes", victim.Path)
	}
	for _, res := range r.list {
		if res.Object.Path == victim.Path && res.Attempts != 1 {
			t.Errorf("tried %d times", res.Attempts)
		}
		if res.Object.Stage > publish.Files && res.Object.Path != publish.RecordCopy(b.Record().Digest) && res.State != publish.Skipped {
			t.Errorf("%s: %s after the files failed", res.Object.Path, res.State)
		}
	}
	consistent(t, got, false)
}

// Faults on a fraction of the requests (errors, throttling, stalls, cut
// connections, PUTs done but answered with an error) are overcome by
// retries: the run completes and everything is in place.
func TestFaultsAreRetried(t *testing.T) { testFaults(t, fakeServer(t)) }

func testFaults(t *testing.T, s *server) {
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	for seed := range uint64(3) {
		prefix := fmt.Sprintf("f%d", seed)
		s.proxy.faults(seed, 0.2, fail500, slowDown, throttle, failAfter, stall, cut)
		o := s.options()
		o.Attempts, o.Timeout = 20, 200*time.Millisecond
		var r results
		if err := Publish(context.Background(), b, s.target(prefix), o, r.add); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		s.proxy.noFaults()
		got := s.objects(prefix)
		matches(t, s, got, b)
		consistent(t, got, true)
		retried := 0
		for _, res := range r.list {
			if res.Attempts > 1 {
				retried++
			}
		}
		if retried == 0 {
			t.Errorf("seed %d: no object needed a retry; the faults did not happen", seed)
		}
	}
}

// A run stopped at a random point, or failing for good, leaves the
// published documents naming only objects that are there (archives with
// their bytes), and the next run completes the release.
func TestInterruptedRunsComplete(t *testing.T) { testInterrupted(t, fakeServer(t)) }

func testInterrupted(t *testing.T, s *server) {
	skills := tree(t)
	dist := filepath.Join(t.TempDir(), "dist")
	ctx := context.Background()
	if err := Publish(ctx, builtBundle(t, skills, dist), s.target("i"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
	s.proxy.log("i")
	// Stopped at each PUT of a run after one skill changed (it makes
	// 13: the skill's two archives and two changed files, the documents,
	// the record, its copy and the release list), and at three points
	// among the HEADs before the first.
	stops := []struct{ puts, requests int }{{puts: 1}, {puts: 2}, {puts: 3}, {puts: 4}, {puts: 5}, {puts: 6}, {puts: 7},
		{puts: 8}, {puts: 9}, {puts: 10}, {puts: 11}, {puts: 12}, {puts: 13}, {requests: 3}, {requests: 15}, {requests: 30}}
	for i, stop := range stops {
		change(t, skills, i+1)
		b := builtBundle(t, skills, dist)
		o := s.options()
		o.Attempts, o.Timeout = 2, 200*time.Millisecond
		rctx, cancel := context.WithCancel(ctx)
		puts, requests := 0, 0
		s.proxy.mu.Lock()
		s.proxy.onSeen = func(r *http.Request) {
			requests++
			if r.Method == http.MethodPut {
				puts++
			}
			if puts == stop.puts && r.Method == http.MethodPut || requests == stop.requests {
				cancel()
			}
		}
		s.proxy.mu.Unlock()
		if i%3 == 2 {
			// And a server that keeps failing: retries run out.
			s.proxy.faults(uint64(i), 0.3, fail500, stall, cut)
		}
		err := Publish(rctx, b, s.target("i"), o, nil)
		cancel()
		s.proxy.noFaults()
		if puts, _ := s.proxy.log("i"); err == nil {
			t.Logf("run %d completed before it could be stopped", i)
		} else if len(puts) > 0 {
			t.Logf("run %d stopped after %d PUTs, the last %s", i, len(puts), puts[len(puts)-1])
		}
		consistent(t, s.objects("i"), false)

		if err := Publish(ctx, b, s.target("i"), s.options(), nil); err != nil {
			t.Fatalf("rerun %d: %v", i, err)
		}
		s.proxy.log("i")
		got := s.objects("i")
		consistent(t, got, true)
		matches(t, s, got, b)
		var doc releases
		if json.Unmarshal(got[publish.ReleasesList].data, &doc); len(doc.Releases) == 0 || doc.Releases[0].Record != b.Record().Digest {
			t.Errorf("rerun %d: the release list does not start with the release", i)
		}
	}
	s.proxy.log("i")
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]Target{
		"s3://skills":             {Bucket: "skills"},
		"s3://skills/":            {Bucket: "skills"},
		"s3://skills/a/b/":        {Bucket: "skills", Prefix: "a/b"},
		"s3://my.bucket-1/prefix": {Bucket: "my.bucket-1", Prefix: "prefix"},
	} {
		got, err := ParseTarget(in)
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v", in, got, err)
		}
		if got.Key("x") != strings.TrimPrefix(want.Prefix+"/x", "/") {
			t.Errorf("%s: key %q", in, got.Key("x"))
		}
	}
	for in, want := range map[string]string{
		"https://skills/a":   "not an s3:// target",
		"s3://":              "not a bucket name",
		"s3://Skills_/a":     "not a bucket name",
		"s3://skills/a//b":   "empty, dot or unusual segment",
		"s3://skills/a/../b": "empty, dot or unusual segment",
		"s3://skills/a?x=1":  "empty, dot or unusual segment",
	} {
		if _, err := ParseTarget(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

func TestEndpoint(t *testing.T) {
	for _, c := range []struct {
		endpoint string
		insecure bool
		host     string
		secure   bool
		err      string
	}{
		{"", false, "s3.amazonaws.com", true, ""},
		{"https://acct.r2.cloudflarestorage.com", false, "acct.r2.cloudflarestorage.com", true, ""},
		{"http://127.0.0.1:7070", false, "127.0.0.1:7070", false, ""},
		{"http://[::1]:7070", false, "[::1]:7070", false, ""},
		{"http://localhost:9000/", false, "localhost:9000", false, ""},
		{"http://minio.internal:9000", false, "", false, "--insecure"},
		{"http://minio.internal:9000", true, "minio.internal:9000", false, ""},
		{"https://host/bucket", false, "", false, "the server's URL alone"},
		{"ftp://host", false, "", false, "the server's URL alone"},
		{"https://user:pw@host", false, "", false, "the server's URL alone"},
	} {
		o := Options{Endpoint: c.endpoint, Insecure: c.insecure}
		host, secure, err := o.endpoint()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.endpoint, err, c.err)
			}
			continue
		}
		if err != nil || host != c.host || secure != c.secure {
			t.Errorf("%s: %q %v %v", c.endpoint, host, secure, err)
		}
	}
	if _, err := (&Options{AccessKey: "x"}).client(); err == nil || !strings.Contains(err.Error(), "give both") {
		t.Errorf("a key without a secret: %v", err)
	}
}

// A file whose name URLs and S3 treat specially (a space, '+', '%', '#',
// brackets) is stored at its own key, and found there the next time.
func TestOddNames(t *testing.T) { testOddNames(t, fakeServer(t)) }

func testOddNames(t *testing.T, s *server) {
	skills := tree(t)
	const odd = "a b+c%25 #x[1].md"
	if err := os.WriteFile(filepath.Join(skills, "commit-messages", odd), []byte("odd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := builtBundle(t, skills, filepath.Join(t.TempDir(), "dist"))
	if !slices.ContainsFunc(b.Objects, func(o publish.Object) bool { return strings.HasSuffix(o.Path, "/"+odd) }) {
		t.Fatal("the build left the file out")
	}
	ctx := context.Background()
	s.proxy.log("")
	if err := Publish(ctx, b, s.target("o"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
	got := s.objects("o")
	matches(t, s, got, b)
	s.proxy.log("")
	if err := Publish(ctx, b, s.target("o"), s.options(), nil); err != nil {
		t.Fatal(err)
	}
	if puts, _ := s.proxy.log("o"); len(puts) != 0 {
		t.Errorf("published again: %v", puts)
	}
}

// The inventory spares a republish its HEADs, and never hides an object
// that changed since: one rewritten with other bytes of the same size is
// sent again, and an inventory that cannot be read costs HEADs, not
// correctness.
func TestInventory(t *testing.T) { testInventory(t, fakeServer(t)) }

func testInventory(t *testing.T, s *server) {
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	ctx := context.Background()
	heads := func() int {
		s.proxy.mu.Lock()
		defer s.proxy.mu.Unlock()
		n := s.proxy.heads
		s.proxy.heads = 0
		return n
	}
	publishOnce := func() []string {
		t.Helper()
		if err := Publish(ctx, b, s.target("v"), s.options(), nil); err != nil {
			t.Fatal(err)
		}
		puts, _ := s.proxy.log("v")
		return puts
	}
	s.proxy.log("")
	publishOnce()
	heads()

	// Again: the listing and the inventory prove every object of the
	// bundle; only the package's own two are asked for, and the object no
	// one writes that tells S3 from a web site (found).
	if puts := publishOnce(); len(puts) != 0 {
		t.Errorf("published again: %v", puts)
	}
	if n := heads(); n > 3 {
		t.Errorf("%d HEADs for a republish with an inventory, want at most 3", n)
	}

	// Another tool rewrites an archive with other bytes of its size.
	victim := b.Skills[0].TarGz
	s.put("v/"+victim.Path, strings.Repeat("x", int(victim.Size)))
	if puts := publishOnce(); !slices.Contains(puts, victim.Path) {
		t.Errorf("the rewritten %s was not sent again: %v", victim.Path, puts)
	}
	matches(t, s, s.objects("v"), b)

	// An inventory that cannot be read: every object is asked for.
	s.put("v/"+publish.InventoryPath, "not gzip")
	heads()
	if puts := publishOnce(); !slices.Equal(puts, []string{publish.InventoryPath}) {
		t.Errorf("with a broken inventory, PUT %v; want the inventory alone", puts)
	}
	// One an object, and the few of the run's own: checkForeign's Stat
	// of an object is the one upload takes (it asked twice).
	if n := heads(); n < len(b.Objects) || n > len(b.Objects)+4 {
		t.Errorf("%d HEADs with a broken inventory, want one an object (%d)", n, len(b.Objects))
	}
	got := s.objects("v")
	matches(t, s, got, b)
	consistent(t, got, true)
}

// A file changed after the bundle was opened is refused at the read that
// would complete its upload: the server never stores the changed bytes.
func TestChangedSinceOpen(t *testing.T) {
	s := fakeServer(t)
	dir := filepath.Join(t.TempDir(), "dist")
	b := builtBundle(t, tree(t), dir)
	victim := b.Skills[0].TarGz
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(victim.Path)), []byte(strings.Repeat("x", int(victim.Size))), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Publish(context.Background(), b, s.target("v"), s.options(), nil)
	if err == nil || !strings.Contains(err.Error(), victim.Path+" is sha256:") || !strings.Contains(err.Error(), "changed since the build") {
		t.Fatalf("err %v, want the changed file named", err)
	}
	if _, ok := s.objects("v")[victim.Path]; ok {
		t.Errorf("%s was stored", victim.Path)
	}
}

// An object another tool wrote at a path a pruned release named is kept,
// even with the very bytes that release put there and the server's sha256
// checksum of them: in a bucket, only skillpack's digest in the metadata
// shows that an object is skillpack's (a folder, which keeps none, goes by
// the bytes). So is a signature another tool wrote there.
func TestPruneIdentical(t *testing.T) { testPruneIdentical(t, fakeServer(t)) }

func testPruneIdentical(t *testing.T, s *server) {
	skills := tree(t)
	dist := filepath.Join(t.TempDir(), "dist")
	publishAt := func(n int, prune bool) *publish.Upload {
		t.Helper()
		if n > 0 {
			change(t, skills, n)
		}
		b := builtBundle(t, skills, dist)
		o := s.options()
		o.Prune, o.Keep = prune, 1
		if err := Publish(context.Background(), b, s.target("same"), o, nil); err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := publishAt(0, false)
	publishAt(1, false)
	sk := first.Skills[slices.IndexFunc(first.Skills, func(s publish.Skill) bool { return s.Name == "csv-profiler" })]
	sig := sk.TarGz.Path + layout.SignatureSuffix
	got := s.objects("same")
	for _, p := range []string{sk.TarGz.Path, sig} {
		putForeign(t, s, "same/"+p, got[p].data)
	}
	publishAt(2, true)
	got = s.objects("same")
	for _, p := range []string{sk.TarGz.Path, sig} {
		if _, ok := got[p]; !ok {
			t.Errorf("prune deleted %s, another tool's write of the same bytes", p)
		}
	}
	if _, ok := got[sk.Zip.Path]; ok {
		t.Errorf("prune kept %s, skillpack's", sk.Zip.Path)
	}
}

// putForeign writes data at key as another tool would: with the server's
// sha256 checksum of it, and no metadata of skillpack's.
func putForeign(t *testing.T, s *server, key string, data []byte) {
	t.Helper()
	sum := sha256.Sum256(data)
	s.proxy.pause()
	defer s.proxy.resume()
	c, err := minio.New(strings.TrimPrefix(s.url, "http://"), &minio.Options{Creds: credentials.NewStaticV4(testKey, testSecret, ""),
		Region: "us-east-1", TrailingHeaders: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveObject(context.Background(), testBucket, key, minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(context.Background(), testBucket, key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{UserMetadata: map[string]string{"x-amz-checksum-sha256": base64.StdEncoding.EncodeToString(sum[:])},
			DisableMultipart: true, DisableContentSha256: true}); err != nil {
		t.Fatal(err)
	}
}

// An object another tool wrote at one of the bundle's paths with the
// bundle's bytes (a site moving from aws s3 sync to skillpack) is no
// obstacle, and stays another's: publish leaves it as it is, does not
// replace it once its owner edits it, and a later prune, when no release
// names the path, does not delete it (it took it over, rewrote it with
// its digest, and deleted it).
func TestForeignIdentical(t *testing.T) { testForeignIdentical(t, fakeServer(t)) }

func testForeignIdentical(t *testing.T, s *server) {
	skills := tree(t)
	dist := filepath.Join(t.TempDir(), "dist")
	first := builtBundle(t, skills, dist)
	sk := first.Skills[slices.IndexFunc(first.Skills, func(s publish.Skill) bool { return s.Name == "csv-profiler" })]
	data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(sk.TarGz.Path)))
	if err != nil {
		t.Fatal(err)
	}
	putForeign(t, s, "theirs/"+sk.TarGz.Path, data)
	o := s.options()
	o.Prune, o.Keep = true, 1
	if err := Publish(context.Background(), first, s.target("theirs"), o, nil); err != nil {
		t.Fatal(err)
	}
	for k, v := range s.objects("theirs")[sk.TarGz.Path].info.UserMetadata {
		if strings.EqualFold(k, metaDigest) {
			t.Errorf("publish rewrote another's %s with skillpack's digest %s", sk.TarGz.Path, v)
		}
	}
	// Edited by its owner, it is in the way, though a release named it.
	putForeign(t, s, "theirs/"+sk.TarGz.Path, []byte("the site's edit"))
	if err := Publish(context.Background(), first, s.target("theirs"), o, nil); !errors.As(err, new(*publish.ForeignError)) {
		t.Errorf("over another's edited object: %v, want a ForeignError", err)
	}
	putForeign(t, s, "theirs/"+sk.TarGz.Path, data)
	for n := range 2 { // the archive's path leaves the bundle, then its release the list
		change(t, skills, n+1)
		if err := Publish(context.Background(), builtBundle(t, skills, dist), s.target("theirs"), o, nil); err != nil {
			t.Fatal(err)
		}
	}
	got := s.objects("theirs")
	if _, ok := got[sk.TarGz.Path]; !ok {
		t.Errorf("prune deleted %s, another's object", sk.TarGz.Path)
	}
	if _, ok := got[sk.Zip.Path]; ok {
		t.Errorf("prune kept %s, skillpack's", sk.Zip.Path)
	}
}

// A delete the bucket refuses after the release was published (an Object
// Lock) stops the prune as a failed step, exit 1: not the refused login
// of exit 2, which is found before any work.
func TestPruneDenied(t *testing.T) {
	s := fakeServer(t)
	skills := tree(t)
	dist := filepath.Join(t.TempDir(), "dist")
	for i := range 3 {
		if i > 0 {
			change(t, skills, i)
		}
		o := s.options()
		o.Prune, o.Keep = i == 2, 1
		if i == 2 {
			s.proxy.choose = func(r *http.Request) fault {
				if r.Method == http.MethodDelete {
					return denied
				}
				return pass
			}
		}
		err := Publish(context.Background(), builtBundle(t, skills, dist), s.target("locked"), o, nil)
		var class interface{ ExitClass() int }
		switch {
		case i < 2 && err != nil:
			t.Fatal(err)
		case i == 2 && (!errors.As(err, &class) || class.ExitClass() != 1 || !strings.Contains(fmt.Sprint(err), "refuses to delete") ||
			strings.Contains(fmt.Sprint(err), "check the credentials")):
			t.Errorf("a refused delete: %v, want exit 1 saying the bucket refuses to delete", err)
		}
	}
}

// A bundle built without --versioned (a run that forgot the flag) is
// refused for a prefix of versioned releases, before anything is sent,
// even with --prune: it would stop publishing the versions clients pin.
// (Prune also keeps what the published versions.json names, layout.Names.)
func TestPruneKeepsVersions(t *testing.T) {
	s := fakeServer(t)
	skills := tree(t)
	dist := filepath.Join(t.TempDir(), "dist")
	ctx := context.Background()
	md := filepath.Join(skills, "release-notes", "SKILL.md")
	for i, v := range []string{"1.2.0", "1.3.0"} {
		if i > 0 {
			data, _ := os.ReadFile(md)
			os.WriteFile(md, append(bytes.Replace(data, []byte(`version: "1.2.0"`), []byte(`version: "`+v+`"`), 1), "\nChanged.\n"...), 0o644)
		}
		if _, err := build.Run([]string{skills}, build.Options{Out: dist, Versioned: true, Release: "1." + strconv.Itoa(i) + ".0"}); err != nil {
			t.Fatal(err)
		}
		b, err := publish.Open(dist)
		if err != nil {
			t.Fatal(err)
		}
		if err := Publish(ctx, b, s.target("v"), s.options(), nil); err != nil {
			t.Fatal(err)
		}
	}
	pinned := []string{layout.VersionFile("release-notes", "1.2.0", layout.EntryFile), layout.VersionFile("release-notes", "1.3.0", layout.EntryFile), layout.Snapshot("1.0.0")}
	for _, p := range pinned {
		if _, ok := s.objects("v")[p]; !ok {
			t.Fatalf("the versioned releases did not publish %s", p)
		}
	}
	change(t, skills, 1)
	plain := filepath.Join(t.TempDir(), "plain")
	b := builtBundle(t, skills, plain) // without --versioned
	o := s.options()
	o.Prune, o.Keep = true, 1
	before := s.objects("v")
	var unversioned *publish.UnversionedError
	if err := Publish(ctx, b, s.target("v"), o, nil); !errors.As(err, &unversioned) {
		t.Fatalf("an unversioned bundle for a versioned prefix: %v, want it refused", err)
	}
	got := s.objects("v")
	if len(got) != len(before) {
		t.Errorf("the refused publish changed the prefix: %d objects, %d before", len(got), len(before))
	}
	for _, p := range pinned {
		if _, ok := got[p]; !ok {
			t.Errorf("%s, which the published versions.json names, is gone", p)
		}
	}
}

// An endpoint that does not speak what its URL says, or whose certificate
// is not trusted, is the user's to give again (exit 2), said before
// anything is sent: https:// to a plain HTTP server was exit 3.
func TestEndpointScheme(t *testing.T) {
	s := fakeServer(t)
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	for endpoint, want := range map[string]string{
		strings.Replace(s.url, "http://", "https://", 1): "give --endpoint http://",
		tlsSrv.URL: "AWS_CA_BUNDLE",
	} {
		o := s.options()
		o.Endpoint = endpoint
		err := Publish(context.Background(), b, s.target("a"), o, nil)
		var class interface{ ExitClass() int }
		if !errors.As(err, &class) || class.ExitClass() != 2 || !strings.Contains(fmt.Sprint(err), want) {
			t.Errorf("--endpoint %s: %v, want exit 2 and %q", endpoint, err, want)
		}
	}
}
