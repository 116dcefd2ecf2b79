package testtool

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
)

// Registry runs Debian's docker-registry (distribution 2.8) for the test
// on a free port of 127.0.0.1, storing in a folder of the test, and
// returns its host:port; it is stopped when the test ends. extra is added
// to the end of its configuration (an auth section). Without the program
// the test skips, or fails under SKILLPACK_REQUIRE_TOOLS=1.
func Registry(t testing.TB, extra string) string {
	t.Helper()
	host, _ := RegistryStorage(t, extra)
	return host
}

// RegistryStorage is Registry, and the folder the registry stores in, for
// a test that changes what it holds behind its back:
// docker/registry/v2/blobs/sha256/<2 hex>/<hex>/data is a blob.
func RegistryStorage(t testing.TB, extra string) (host, storage string) {
	t.Helper()
	bin := Need(t, "docker-registry")
	dir := MemDir(t) // it syncs every blob it commits: see MemDir
	storage = filepath.Join(dir, "storage")
	for attempt := 0; ; attempt++ {
		host := freeAddr(t)
		config := filepath.Join(dir, "config.yml")
		// Deletes are on, as on most registries (oras-go's referrers
		// fallback removes the list it replaces); the access log is off
		// to keep test output readable.
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
%s`, storage, host, extra)
		if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		log := &Buffer{}
		cmd := exec.Command(bin, "serve", config)
		cmd.Stdout, cmd.Stderr = log, log
		dieWithTest(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if err := waitReady(host, exited); err != nil {
			cmd.Process.Kill()
			// The port may have been taken between freeAddr and the
			// registry's listen: try another.
			if attempt < 3 {
				continue
			}
			t.Fatalf("docker-registry did not start: %v\n%s", err, log)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			<-exited
		})
		return host, storage
	}
}

// freeAddr is a port of 127.0.0.1 that was free a moment ago.
func freeAddr(t testing.TB) string {
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
