package testtool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Registry runs a registry for the test on 127.0.0.1 and returns its
// host:port; it is stopped when the test ends. It is Debian's
// docker-registry (distribution 2.8), with extra added to the end of its
// configuration (an auth section), or go-containerregistry's (ko's and
// crane's), in the test's process, with RegistryEnv=ggcr and where
// docker-registry is missing and not required: a second implementation
// that CI runs the publish tests against too, and one that a fresh machine
// has. docker-registry has no referrers API: clients keep referrers by tag.
func Registry(t testing.TB, extra string) string {
	t.Helper()
	env := os.Getenv(RegistryEnv)
	if ok, _, _ := Check("docker-registry"); extra == "" && (env != "" || !ok && !Required()) {
		var h http.Handler = registry.New(registry.Logger(log.New(io.Discard, "", 0)), registry.WithReferrersSupport(env == "ggcr-referrers"))
		if env == "ggcr-referrers" {
			h = referrersAPI(h)
		}
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.Listener.Addr().String()
	}
	host, _ := RegistryStorage(t, extra)
	return host
}

// RegistryEnv names the variable that chooses go-containerregistry's
// registry for Registry: "ggcr", or "ggcr-referrers" for one that serves
// the referrers API, as most registries do now (ECR, ACR, Harbor, zot).
const RegistryEnv = "SKILLPACK_TEST_REGISTRY"

// referrersAPI mends go-containerregistry's referrers API to the OCI
// distribution spec (1.1), whose clients (oras-go) use it only when a
// manifest's PUT answers with the OCI-Subject header, which it leaves out;
// and its listing gives each referrer's config media type where the spec
// wants the manifest's artifactType when it has one.
func referrersAPI(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m ocispec.Manifest
			if json.Unmarshal(body, &m) == nil && m.Subject != nil {
				w.Header().Set("OCI-Subject", m.Subject.Digest.String())
			}
		}
		repo, _, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v2/"), "/referrers/")
		if r.Method != http.MethodGet || !ok {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		var idx ocispec.Index
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &idx) != nil {
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		want, kept := r.URL.Query().Get("artifactType"), idx.Manifests[:0]
		for _, d := range idx.Manifests {
			m := httptest.NewRecorder()
			next.ServeHTTP(m, httptest.NewRequest(http.MethodGet, "/v2/"+repo+"/manifests/"+d.Digest.String(), nil))
			var own ocispec.Manifest
			if json.Unmarshal(m.Body.Bytes(), &own) == nil && own.ArtifactType != "" {
				d.ArtifactType = own.ArtifactType
			}
			if want == "" || d.ArtifactType == want {
				kept = append(kept, d)
			}
		}
		idx.Manifests = kept
		if want != "" {
			w.Header().Set("OCI-Filters-Applied", "artifactType")
		}
		data, _ := json.Marshal(idx)
		w.Header().Set("Content-Type", ocispec.MediaTypeImageIndex)
		w.Write(data)
	})
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
