package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/verify"
)

func TestParseTarget(t *testing.T) {
	good := map[string]Target{
		"oci://ghcr.io/acme/skills":            {"ghcr.io", "acme/skills", "latest"},
		"oci://ghcr.io/acme/skills:v1.2.0":     {"ghcr.io", "acme/skills", "v1.2.0"},
		"oci://127.0.0.1:5000/skills:edge":     {"127.0.0.1:5000", "skills", "edge"},
		"oci://[::1]:5000/a/b/c":               {"[::1]:5000", "a/b/c", "latest"},
		"oci://localhost:5000/team_x/skills.y": {"localhost:5000", "team_x/skills.y", "latest"},
	}
	for in, want := range good {
		got, err := ParseTarget(in)
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"ghcr.io/acme/skills":            "must start with oci://",
		"oci://":                         "names no repository",
		"oci://ghcr.io":                  "names no repository",
		"oci://ghcr.io/Acme/Skills":      "not a valid reference",
		"oci://ghcr.io/acme/skills:v1 2": "not a valid reference",
		"oci://ghcr.io/acme/skills@sha256:" + strings.Repeat("a", 64): "names a digest",
		"oci://ghcr.io/acme/skills:sha256-abc":                        "referrers",
		"oci://ghcr.io/acme//skills":                                  "not a valid reference",
		"oci://ghcr.io/acme/skills:" + strings.Repeat("t", 129):       "not a valid reference",
	}
	for in, want := range bad {
		_, err := ParseTarget(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), in) {
			t.Errorf("ParseTarget(%q) = %v; want an error naming it and saying %q", in, err, want)
		}
	}
}

func TestVersionTag(t *testing.T) {
	for _, c := range []struct {
		skill, version, tag string
		ok                  bool
	}{
		{"pdf", "1.2.0", "pdf-1.2.0", true},
		{"pdf", "1.0.0+build.5", "pdf-1.0.0_build.5", true},
		{"pdf", "", "", false},
		{"pdf", "1.0 beta", "pdf-1.0 beta", false},
		{"pdf", strings.Repeat("9", 130), "pdf-" + strings.Repeat("9", 130), false},
	} {
		tag, ok := VersionTag(c.skill, c.version)
		if tag != c.tag || ok != c.ok {
			t.Errorf("VersionTag(%q, %q) = %q, %v; want %q, %v", c.skill, c.version, tag, ok, c.tag, c.ok)
		}
	}
}

// Plain HTTP goes to loopback without asking, and to another host only
// with --insecure.
func TestPlainHTTP(t *testing.T) {
	for _, c := range []struct {
		target          string
		insecure, plain bool
	}{
		{"oci://127.0.0.1:5000/x", false, true},
		{"oci://localhost/x", false, true},
		{"oci://[::1]:5000/x", false, true},
		{"oci://ghcr.io/x", false, false},
		{"oci://ghcr.io/x", true, true},
		{"oci://127.0.0.1.example.com/x", false, false},
	} {
		tg, err := ParseTarget(c.target)
		if err != nil {
			t.Fatal(err)
		}
		r, err := newRemote(tg, Options{Insecure: c.insecure}, nil)
		if err != nil || r.repo.PlainHTTP != c.plain {
			t.Errorf("%s, insecure %v: plain %v, %v", c.target, c.insecure, r.repo.PlainHTTP, err)
		}
	}
}

// A registry that answers with nonsense (empty, contradictory, cut off,
// malformed headers) fails the run with an error that names the target,
// and a pull from it, or verifying it, fails; none panics. Which answer each request gets depends on the
// order the workers ask in, so a lucky run may also succeed.
func TestHostileRegistry(t *testing.T) {
	_, b := newBundle(t)
	answers := []func(w http.ResponseWriter){
		func(w http.ResponseWriter) { w.WriteHeader(200) },
		func(w http.ResponseWriter) { w.WriteHeader(404) },
		func(w http.ResponseWriter) {
			w.Header().Set("Docker-Content-Digest", "sha256:nothex")
			w.Header().Set("Content-Length", "-5")
			w.WriteHeader(200)
		},
		func(w http.ResponseWriter) {
			w.Header().Set("Location", "http://[::1")
			w.WriteHeader(202)
		},
		func(w http.ResponseWriter) {
			w.Header().Set("Location", "/v2/elsewhere/../../x")
			w.WriteHeader(202)
		},
		func(w http.ResponseWriter) { w.WriteHeader(500); fmt.Fprint(w, `{"errors":[{"code":`) },
		func(w http.ResponseWriter) {
			w.WriteHeader(401)
			w.Header().Set("Www-Authenticate", `Bearer realm="\x00"`)
		},
		func(w http.ResponseWriter) { w.WriteHeader(201); fmt.Fprint(w, strings.Repeat("{", 1<<16)) },
	}
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var mu sync.Mutex
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			answer := answers[rng.IntN(len(answers))]
			mu.Unlock()
			answer(w)
		}))
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // it complains of the answers
		srv.Start()
		err := Publish(context.Background(), b, "oci://"+strings.TrimPrefix(srv.URL, "http://")+"/x", Options{Retry: publish.Retry{Attempts: 2, Backoff: 1}}, func(publish.Result) {})
		out := t.TempDir()
		if _, err := Pull(context.Background(), "oci://"+strings.TrimPrefix(srv.URL, "http://")+"/x", out, "", pulling); err == nil {
			t.Errorf("seed %d: pulled from a registry answering nonsense", seed)
		}
		st, err := OpenStore("oci://"+strings.TrimPrefix(srv.URL, "http://")+"/x", Options{}, verify.DefaultMaxSkills)
		if err != nil {
			t.Fatal(err)
		}
		if rep, err := verify.Objects(context.Background(), st, verify.Options{Timeout: time.Second}); err == nil && rep.OK() {
			t.Errorf("seed %d: verified a registry answering nonsense", seed)
		}
		srv.Close()
		if err != nil && !strings.Contains(err.Error(), "oci://127.0.0.1") {
			t.Errorf("seed %d: %v; want the target named", seed, err)
		}
	}
}

// A registry whose answer to a manifest PUT names another digest breaks
// the protocol, and would the same way again: the run fails as a failed
// check (exit 1) naming the header, not as skillpack's fault (3) with
// "run the same command again".
func TestLyingDigestHeader(t *testing.T) {
	reg := startRegistry(t)
	px := startProxy(t, reg.host)
	px.decide = func(_ int, r *http.Request) fault {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/") {
			return lie
		}
		return pass
	}
	_, b := newBundle(t)
	err := Publish(context.Background(), b, "oci://"+px.host+"/acme/skills", Options{Retry: publish.Retry{Attempts: 2, Backoff: 1}}, func(publish.Result) {})
	var c interface{ ExitClass() int }
	if !errors.As(err, &c) || c.ExitClass() != 1 || !strings.Contains(err.Error(), "Docker-Content-Digest") {
		t.Errorf("publish to a registry answering another digest: %v; want exit class 1, naming the header", err)
	}
}

// The collection of a large bundle stays within what registries take, by
// leaving the descriptions out of its entries.
func TestCollectionIndexSize(t *testing.T) {
	tg, _ := ParseTarget("oci://ghcr.io/acme/skills")
	var skills []skillRef
	for i := range 10000 {
		skills = append(skills, skillRef{
			name: fmt.Sprintf("skill-%05d", i), version: "1.0.0", description: strings.Repeat("x", 1024),
			desc: descriptorOf("application/vnd.oci.image.manifest.v1+json", []byte(fmt.Sprint(i))),
		})
	}
	m := collectionIndex(tg, "skills", "sha256:"+strings.Repeat("0", 64), skills)
	if len(m.data) > maxManifestSize || strings.Contains(string(m.data), "xxxxxxxx") {
		t.Errorf("10,000 skills: an index of %d bytes, descriptions in it: %v", len(m.data), strings.Contains(string(m.data), "xxxxxxxx"))
	}
	small := collectionIndex(tg, "skills", "sha256:"+strings.Repeat("0", 64), skills[:10])
	if !strings.Contains(string(small.data), "xxxxxxxx") {
		t.Error("10 skills: the descriptions were left out")
	}
	if !strings.Contains(string(small.data), annSkillRef) {
		t.Error("10 skills: the references were left out")
	}
}
