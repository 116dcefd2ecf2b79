package oci

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/skillpack/skillpack/publish"
)

// A registry that wants a login gets one from --username/--password, or
// from the Docker config (as docker login and oras login write it);
// without one, or with a wrong one, the run stops with a message that
// says how to log in.
func TestAuth(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	htpasswd := filepath.Join(t.TempDir(), "htpasswd")
	if err := os.WriteFile(htpasswd, []byte("ci:"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := startRegistryWith(t, fmt.Sprintf("auth:\n  htpasswd:\n    realm: test\n    path: %s\n", htpasswd))
	_, b := newBundle(t)
	target := "oci://" + reg.host + "/acme/skills"
	// No Docker config unless a case writes one.
	t.Setenv("DOCKER_CONFIG", t.TempDir())

	for _, o := range []Options{{}, {Username: "ci", Password: "wrong"}} {
		err := Publish(context.Background(), b, target, o, func(publish.Result) {})
		if err == nil || !strings.Contains(err.Error(), "docker login "+reg.host) || !strings.Contains(err.Error(), "--password-stdin") {
			t.Errorf("user %q: %v; want the way to log in", o.Username, err)
		}
		if c := exitClass(err); c != 2 {
			t.Errorf("user %q: exit class %d, want 2: the login is the user's to mend", o.Username, c)
		}
	}
	if err := Publish(context.Background(), b, target, Options{Username: "ci"}, func(publish.Result) {}); err == nil || !strings.Contains(err.Error(), "password") {
		t.Errorf("a username without a password: %v", err)
	}
	publishTo(t, b, target, Options{Username: "ci", Password: "s3cret"})
	// pull says the same of a login the registry refuses (it was exit 1,
	// with the client's words alone).
	for _, o := range []Options{{}, {Username: "ci", Password: "wrong"}} {
		_, err := Pull(context.Background(), target, filepath.Join(t.TempDir(), "out"), "", o)
		if !strings.Contains(fmt.Sprint(err), "docker login "+reg.host) || exitClass(err) != 2 {
			t.Errorf("pull, user %q: %v (exit class %d); want the way to log in, exit 2", o.Username, err, exitClass(err))
		}
	}

	config := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte("ci:s3cret"))
	if err := os.WriteFile(filepath.Join(config, "config.json"), []byte(`{"auths":{"`+reg.host+`":{"auth":"`+auth+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", config)
	res := publishTo(t, b, target, Options{})
	if n := res.count(); n[publish.Present] != len(res.all) {
		t.Errorf("with the Docker config's login: %v", n)
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

// A host that is a web server, answering 200 with a page to everything
// or 404 to what it lacks (python -m http.server), or an S3 server (400),
// is refused as no registry, naming it (exit 2), before anything is sent.
func TestNotARegistry(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusNotFound, http.StatusBadRequest} {
		var puts int
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut || r.Method == http.MethodPost || r.Method == http.MethodPatch {
				puts++
			}
			io.Copy(io.Discard, r.Body)
			w.WriteHeader(status)
			io.WriteString(w, "<html>hi</html>")
		}))
		_, b := newBundle(t)
		host := strings.TrimPrefix(srv.URL, "http://")
		err := Publish(context.Background(), b, "oci://"+host+"/a/b:t", Options{}, func(publish.Result) {})
		if err == nil || !strings.Contains(err.Error(), host+" is not an OCI registry") || exitClass(err) != 2 {
			t.Errorf("answering %d: %v (exit class %d); want %s refused as no registry, exit 2", status, err, exitClass(err), host)
		}
		if puts > 0 {
			t.Errorf("answering %d: %d uploads sent to a web server", status, puts)
		}
		srv.Close()
	}
}

// A registry that refuses pushes (a read-only mirror's 405) is a failed
// check, exit 1, saying so: it was exit 3, "run the same command again".
func TestReadOnlyRegistry(t *testing.T) {
	reg := startRegistry(t)
	px := startProxy(t, reg.host)
	px.decide = func(_ int, r *http.Request) fault {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			return refuse
		}
		return pass
	}
	_, b := newBundle(t)
	err := Publish(context.Background(), b, "oci://"+px.host+"/acme/skills", Options{}, func(publish.Result) {})
	if !strings.Contains(fmt.Sprint(err), "refuses to let skillpack push to acme/skills") || exitClass(err) != 1 {
		t.Errorf("to a read-only registry: %v (exit class %d), want its refusal, exit 1", err, exitClass(err))
	}
	// The step is a push's, not a bucket's stage ("archives stage").
	if !strings.Contains(fmt.Sprint(err), "pushing the skills: ") {
		t.Errorf("to a read-only registry: %v, want the step named", err)
	}
}
