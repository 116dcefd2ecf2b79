package oci

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
)

// testRegistry is Debian's docker-registry (distribution 2.8) serving from a
// folder of the test on a free port of 127.0.0.1.
type testRegistry struct {
	host    string // 127.0.0.1:port
	storage string
}

// startRegistry runs a registry for the test, stopped when it ends. It
// skips (or fails under SKILLPACK_REQUIRE_TOOLS=1) without the program.
func startRegistry(t *testing.T) *testRegistry { return startRegistryWith(t, "") }

// startRegistryWith runs a registry whose configuration ends with extra
// (an auth section).
func startRegistryWith(t *testing.T, extra string) *testRegistry {
	t.Helper()
	bin := testtool.Need(t, "docker-registry")
	dir := t.TempDir()
	r := &testRegistry{storage: filepath.Join(dir, "storage")}
	for attempt := 0; ; attempt++ {
		r.host = freeAddr(t)
		config := filepath.Join(dir, "config.yml")
		// Deletes are on so that oras-go's referrers fallback behaves as
		// on most registries; the access log is off to keep test output
		// readable.
		body := fmt.Sprintf(`version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
%s`, r.storage, r.host, extra)
		if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		log := &testtool.Buffer{}
		cmd := exec.Command(bin, "serve", config)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if err := waitReady(r.host, exited); err != nil {
			// The port may have been taken between freeAddr and the
			// registry's listen: try another.
			cmd.Process.Kill()
			if attempt < 3 {
				continue
			}
			t.Fatalf("docker-registry did not start: %v\n%s", err, log)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			<-exited
		})
		return r
	}
}

// freeAddr is a port of 127.0.0.1 that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitReady waits until the registry answers /v2/ (200, or 401 when it
// wants a login), or it exits.
func waitReady(host string, exited chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		resp, err := http.Get("http://" + host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 || resp.StatusCode == 401 {
				return nil
			}
		}
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("it exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
