package s3

import (
	"context"
	"io"
	"log"
	"net"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/internal/testtool"
)

// versitygw starts a real S3-compatible server (versitygw on a posix
// folder) on 127.0.0.1, with the test's bucket, behind the test's proxy.
func versitygw(t *testing.T) *server {
	bin := testtool.Need(t, "versitygw")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	root := testtool.MemDir(t) // in memory where it can be: see MemDir
	cmd := exec.Command(bin, "--access", testKey, "--secret", testSecret, "--port", addr, "--quiet", "posix", root)
	cmd.Dir = root
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	backend, _ := url.Parse("http://" + addr)
	rp := httputil.NewSingleHostReverseProxy(backend)
	rp.ErrorLog = log.New(io.Discard, "", 0) // the proxy's own faults cut requests
	s := newServer(t, rp)
	s.checksums, s.cacheControl = true, true

	// Up when it answers; made the bucket when that succeeds.
	c := s.client()
	s.proxy.pause() // the test's own requests
	defer s.proxy.resume()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		err := c.MakeBucket(ctx, testBucket, minio.MakeBucketOptions{})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("versitygw did not start on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("versitygw on %s, storing in %s", addr, filepath.Base(root))
	return s
}

// The publish tests against a real S3-compatible server: headers and
// checksums as it stores them, the order it saw, incremental publishing,
// prune, dry run, faults and stopped runs.
func TestVersitygw(t *testing.T) {
	s := versitygw(t)
	for _, c := range []struct {
		name string
		test func(*testing.T, *server)
	}{
		{"publish", testPublish},
		{"dry run", testDryRun},
		{"prune", testPrune},
		{"prune identical", testPruneIdentical},
		{"refuses", testRefuses},
		{"denied", testDenied},
		{"parent is a file", testParentIsFile},
		{"changed file", testChangedFile},
		{"faults", testFaults},
		{"interrupted", testInterrupted},
		{"odd names", testOddNames},
		{"inventory", testInventory},
		{"verify", testVerify},
		{"verify plugins", testVerifyPlugins},
		{"lease", testLease},
		// Last: its bundle at the bucket's root lists what every test
		// above left, none of it named by its records.
		{"foreign objects", testForeign},
		{"overwrite", testOverwrite},
		// After it, at the root too: it prunes what testForeign left.
		{"killed prunes", testKilledPrunes},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, s) })
	}
}
