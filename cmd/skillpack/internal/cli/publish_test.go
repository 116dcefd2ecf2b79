package cli

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/publish/s3"
)

func TestPublishFlags(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want publishOptions
	}{
		{argv: []string{"dist", "s3://skills/site"}, want: publishOptions{Dist: "dist", Target: "s3://skills/site"}},
		{
			argv: []string{"out", "s3://b", "--endpoint", "http://127.0.0.1:7070", "--insecure", "--dry-run", "--json", "-j", "4", "--prune", "--keep", "5",
				"--username", "AKID", "--password-stdin"},
			want: publishOptions{Dist: "out", Target: "s3://b", DryRun: true, JSON: true, Jobs: 4, PublishFlags: PublishFlags{
				TargetFlags: TargetFlags{Endpoint: "http://127.0.0.1:7070", Insecure: true, Login: LoginFlags{Username: "AKID", PasswordStdin: true}},
				Prune:       true, Keep: 5}},
		},
		{argv: []string{"dist", "oci://ghcr.io/o/skills:v1", "--jobs", "2"}, want: publishOptions{Dist: "dist", Target: "oci://ghcr.io/o/skills:v1", Jobs: 2}},
		{
			argv: []string{"dist", "oci://ghcr.io/o/skills", "--sign", "--key", "k.pem", "--rekor-url", "https://rekor.example"},
			want: publishOptions{Dist: "dist", Target: "oci://ghcr.io/o/skills", Sign: true, SignOptions: SignOptions{Key: "k.pem", RekorURL: "https://rekor.example"}},
		},
	} {
		var opts *publishOptions
		parse(t, newPublishCmd(&IO{}, func(_ context.Context, o *publishOptions) error { opts = o; return nil }), tc.argv)
		opts.flags = nil // where the flags were declared: not a value given
		if !reflect.DeepEqual(opts, &tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.argv, *opts, tc.want)
		}
	}
}

// fakeS3 is the scripts' command "fakes3 BUCKET": an S3 server in the
// test's process (gofakes3) on 127.0.0.1 with the bucket made, its URL in
// $S3, stopped when the script ends.
func fakeS3(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakes3 BUCKET")
	}
	mem := s3mem.New()
	ts.Check(mem.CreateBucket(args[0]))
	srv := httptest.NewServer(gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	fakes3s.Store(srv.URL, mem)
	ts.Defer(func() {
		fakes3s.Delete(srv.URL)
		srv.Close()
	})
	ts.Setenv("S3", srv.URL)
}

// fakes3s are the scripts' fakes3 servers' stores, by $S3.
var fakes3s sync.Map

// s3Put is the scripts' command "s3put BUCKET KEY FILE": FILE's bytes put
// at KEY in the bucket of $S3's fakes3 behind skillpack's back, as another
// tool would.
func s3Put(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: s3put BUCKET KEY FILE")
	}
	mem, ok := fakes3s.Load(ts.Getenv("S3"))
	if !ok {
		ts.Fatalf("s3put: no fakes3 running; start one first")
	}
	data, err := os.ReadFile(ts.MkAbs(args[2]))
	ts.Check(err)
	// The metadata gofakes3's own PUT handler would store.
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	_, err = mem.(*s3mem.Backend).PutObject(args[0], args[1], meta, bytes.NewReader(data), int64(len(data)), nil)
	ts.Check(err)
}

// build --publish takes publish's flags, and publishes its output folder.
func TestBuildPublishFlags(t *testing.T) {
	ios, _, _ := fakeIO(nil)
	opts := parsed(t, ios, newBuildCmd, []string{"skills", "-o", "out", "--publish", "oci://r.example/x:v1", "--insecure", "--username", "u", "--password-stdin"})
	want := PublishFlags{TargetFlags: TargetFlags{Insecure: true, Login: LoginFlags{Username: "u", PasswordStdin: true}}}
	if opts.Publish.flags == nil {
		t.Error("build's publish flags do not know where they were declared: --keep 0 cannot be told from no --keep")
	}
	opts.Publish.flags = nil
	if opts.PublishTo != "oci://r.example/x:v1" || !reflect.DeepEqual(opts.Publish, want) {
		t.Errorf("--publish %q, flags %+v; want %+v", opts.PublishTo, opts.Publish, want)
	}
	if p := opts.publishOptions(); p.Dist != "out" || p.Target != opts.PublishTo || !reflect.DeepEqual(p.PublishFlags, want) || p.Jobs != 0 {
		t.Errorf("publish options %+v", *p)
	}
}

// publish --sign signs every skill's manifest and the index with the
// signing helper, as cosign sign does: cosign verify, when installed,
// accepts the release tag with the key's public half; a rerun signs
// nothing. Signing flags without --sign, or --sign to S3, are refused.
func TestPublishSign(t *testing.T) {
	signHelper(t)
	host := testtool.Registry(t, "")
	tmp := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	keyFile, pubFile := filepath.Join(tmp, "key.pem"), filepath.Join(tmp, "key.pub")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(tmp, "dist")
	target := "oci://" + host + "/acme/skills:v1"
	sp := func(argv ...string) (int, string, string) {
		ios, stdout, errb := fakeIO(nil)
		return run(ios, argv), stdout.String(), errb.String()
	}
	if code, _, errb := sp("build", "../../../../examples", "-o", dist); code != ExitOK {
		t.Fatalf("build: exit %d: %s", code, errb)
	}
	for _, argv := range [][]string{
		{"publish", dist, target, "--key", keyFile},
		{"publish", dist, "s3://bucket/skills", "--sign", "--key", keyFile},
	} {
		if code, _, errb := sp(argv...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", argv, code, ExitUsage, errb)
		}
	}
	code, stdout, errb := sp("publish", dist, target, "--sign", "--key", keyFile)
	if code != ExitOK {
		t.Fatalf("publish --sign: exit %d: %s", code, errb)
	}
	if !strings.Contains(stdout, "uploaded signature:csv-profiler\n") || !strings.Contains(stdout, "uploaded signature:index:v1\n") {
		t.Errorf("publish --sign did not report the signatures:\n%s", stdout)
	}
	code, stdout, errb = sp("publish", dist, target, "--sign", "--key", keyFile)
	if code != ExitOK || strings.Contains(stdout, "uploaded") {
		t.Errorf("a rerun: exit %d, sent\n%s%s", code, stdout, errb)
	}

	cosign, err := testtool.Look("cosign")
	if err != nil {
		t.Logf("cosign verify not run: %v", err)
		return
	}
	ref := strings.TrimPrefix(target, "oci://")
	cmd := exec.Command(cosign, "verify", "--key", pubFile, "--insecure-ignore-tlog", "--allow-http-registry", ref)
	cmd.Env = append(os.Environ(), "TUF_ROOT="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("cosign verify %s: %v\n%s", ref, err, out)
	}
}

// A publish that ends because the bucket kept failing past the retries'
// budget exits 1, the server's failure as a failed check is, not 3; a
// denial (403) is the credentials', the user's to mend: 2, as verify
// says of the same bucket.
func TestPublishOutageExitCode(t *testing.T) {
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{"../../../../examples"}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	b, err := publish.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	for status, want := range map[int]int{http.StatusServiceUnavailable: ExitFindings, http.StatusForbidden: ExitUsage} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
		}))
		var log bytes.Buffer
		err := s3.Publish(context.Background(), b, "s3://skills/site", s3.Options{
			Endpoint: srv.URL, AccessKey: "AKID", SecretKey: "secret", Region: "us-east-1",
			Retry: publish.Retry{Backoff: time.Millisecond, Budget: 50 * time.Millisecond, Log: &log},
		}, nil)
		srv.Close()
		if code, msg := exitStatus(&exitError{code: failedCode(err), err: err}); code != want || msg == "" {
			t.Errorf("a bucket answering %d: exit %d (%q), want %d", status, code, msg, want)
		}
		if waited := strings.Contains(log.String(), "publish: waiting for s3://skills/site: "); waited != (want == ExitFindings) {
			t.Errorf("a bucket answering %d: stderr says %q", status, log.String())
		}
	}
}

// A run that failed part way says to run it again, as it sends only what
// is missing; first to free space, when the disk was full (the same
// command alone failed the same way).
func TestPublishNextHint(t *testing.T) {
	for err, want := range map[error]string{
		errors.New("a server's 500"):                         "next: run the same command again",
		fmt.Errorf("writing x: %w", syscall.ENOSPC):          "next: free space on the disk, then run the same command again",
		publish.Refused{Err: errors.New("denied"), Class: 2}: "",
	} {
		var stderr strings.Builder
		opts := &publishOptions{Target: "file:///www", done: &resultLog{}}
		opts.done.add(publish.Result{Object: publish.Object{Path: "index.html"}, State: publish.Failed, Err: err})
		printPublished(&IO{Out: new(strings.Builder), Err: &stderr}, opts, err)
		if got := stderr.String(); want != "" && !strings.Contains(got, want) || want == "" && strings.Contains(got, "next:") {
			t.Errorf("after %v: %q, want %q", err, got, want)
		}
	}
	// A server that failed every try before any object: the lease.
	var stderr strings.Builder
	err := fmt.Errorf("s3://b: taking the publish lease: 500 (after 3 attempts over 1m1s: %w)", publish.ErrUnavailable)
	printPublished(&IO{Out: new(strings.Builder), Err: &stderr}, &publishOptions{Target: "s3://b", done: &resultLog{}}, err)
	if !strings.Contains(stderr.String(), "next: run the same command again") {
		t.Errorf("after %v, with no object tried: %q", err, stderr.String())
	}
}
