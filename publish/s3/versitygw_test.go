package s3

import (
	"context"
	"io"
	"log"
	"net"
	"net/http/httputil"
	"net/url"
	"os"
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
	s := s3Server(t, "versitygw", func(root, addr string) []string {
		return []string{"--access", testKey, "--secret", testSecret, "--port", addr, "--quiet", "posix", root}
	}, nil)
	s.files = true
	return s
}

// minioServer starts MinIO, the S3-compatible server most deployed on
// premises, on a folder, as versitygw.
func minioServer(t *testing.T) *server {
	return s3Server(t, "minio", func(root, addr string) []string {
		return []string{"server", "--quiet", "--address", addr, root}
	}, []string{"MINIO_ROOT_USER=" + testKey, "MINIO_ROOT_PASSWORD=" + testSecret, "MINIO_BROWSER=off", "MINIO_UPDATE=off"})
}

// s3Server starts the named server with the arguments args gives for its
// folder and address, and env, behind the test's proxy, and makes the
// test's bucket once it answers.
func s3Server(t *testing.T, name string, args func(root, addr string) []string, env []string) *server {
	bin := testtool.Need(t, name)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	root := testtool.MemDir(t) // in memory where it can be: see MemDir
	cmd := exec.Command(bin, args(root, addr)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
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
			t.Fatalf("%s did not start on %s: %v", name, addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%s on %s, storing in %s", name, addr, filepath.Base(root))
	return s
}

// The publish tests against a real S3-compatible server: headers and
// checksums as it stores them, the order it saw, incremental publishing,
// prune, dry run, faults and stopped runs.
func TestVersitygw(t *testing.T) { runSuite(t, versitygw(t)) }

// The same tests against MinIO, where it is installed.
func TestMinIO(t *testing.T) { runSuite(t, minioServer(t)) }

func runSuite(t *testing.T, s *server) {
	for _, c := range []struct {
		name string
		test func(*testing.T, *server)
	}{
		{"publish", testPublish},
		{"dry run", testDryRun},
		{"prune", testPrune},
		{"prune identical", testPruneIdentical},
		{"foreign identical", testForeignIdentical},
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
