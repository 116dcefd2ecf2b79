package verify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillpack/skillpack/layout"
)

// secret is the token the private servers of these tests want; no
// message may print it.
const secret = "s3cr3t-t0ken"

// creds are the headers a private server wants: a bearer token, and a key
// of the registry's own, which net/http, unlike Authorization, forwards on
// a redirect to any host.
func creds() http.Header {
	return http.Header{"Authorization": {"Bearer " + secret}, "X-Registry-Key": {"key-" + secret}}
}

// private answers 401 to a request without Authorization and 403 to one
// without every header of want, and passes the rest to h.
func private(want http.Header, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="skills"`)
			http.Error(w, "a token is required", http.StatusUnauthorized)
			return
		}
		for k := range want {
			if !slices.Equal(r.Header.Values(k), want.Values(k)) {
				http.Error(w, "not for you", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// requests are what a server was asked.
type requests struct {
	mu   sync.Mutex
	list []*http.Request
}

// listen serves h on 127.0.0.1, recording every request.
func listen(t *testing.T, h http.Handler) (*httptest.Server, *requests) {
	t.Helper()
	rs := &requests{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		rs.list = append(rs.list, r.Clone(context.Background()))
		rs.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, rs
}

func (rs *requests) all() []*http.Request {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.list)
}

// noCreds fails if any request rs received carried a header of creds.
func noCreds(t *testing.T, rs *requests) {
	t.Helper()
	for _, r := range rs.all() {
		for k := range creds() {
			if r.Header.Get(k) != "" {
				t.Errorf("%s %s carried %s to another origin", r.Method, r.URL, k)
			}
		}
	}
}

func TestURLHeader(t *testing.T) {
	dir := copyBuilt(t)
	srv, got := listen(t, private(creds(), servedBundle(dir, nil)))
	o := Options{Header: creds()}
	rep := fetch(t, srv.URL, o)
	// private refuses any request without them: every file came with them.
	wantOK(t, rep)
	if n := len(got.all()); n < rep.Checked.Files {
		t.Errorf("%d requests for %d files", n, rep.Checked.Files)
	}
	if !reflect.DeepEqual(o.Header, creds()) {
		t.Errorf("Options.Header changed to %v", o.Header)
	}

	for _, tc := range []struct {
		name   string
		header http.Header
		want   string
	}{
		{"none", nil, srv.URL + " answered 401 Unauthorized; pass a token with --token-file or --header 'Authorization: …'"},
		{"wrong", http.Header{"Authorization": {"Bearer old-" + secret}}, srv.URL + " answered 403 Forbidden to the headers given; check that the token is current"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := URL(context.Background(), srv.URL, Options{Header: tc.header})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the message prints the token: %v", err)
			}
		})
	}
}

// A redirect on the same origin keeps the headers, as curl's does.
func TestURLHeaderRedirect(t *testing.T) {
	dir := copyBuilt(t)
	p := archiveOf(t, dir, multi, layout.Zip)
	moved := "/moved/" + p
	srv, got := listen(t, private(creds(), servedBundle(dir, map[string]http.HandlerFunc{
		"/" + p: func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, moved, http.StatusFound) },
		moved: func(w http.ResponseWriter, r *http.Request) {
			http.ServeFile(w, r, filepath.Join(dir, filepath.FromSlash(p)))
		},
	})))
	wantOK(t, fetch(t, srv.URL, Options{Header: creds()}))
	if !slices.ContainsFunc(got.all(), func(r *http.Request) bool { return r.URL.Path == moved }) {
		t.Errorf("the redirect to %s was not followed", moved)
	}
}

// A redirect to another origin is refused before anything is sent there:
// net/http would forward X-Registry-Key to any host, and Authorization to
// the same host on another port.
func TestURLHeaderRedirectElsewhere(t *testing.T) {
	dir := copyBuilt(t)
	p := archiveOf(t, dir, other, layout.Zip)
	elsewhere, got := listen(t, servedBundle(dir, nil))
	srv, _ := listen(t, private(creds(), servedBundle(dir, map[string]http.HandlerFunc{
		"/" + p: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
		},
	})))
	rep := fetch(t, srv.URL, Options{Header: creds()})
	noCreds(t, got)
	wantProblem(t, rep, p, "to another origin, "+elsewhere.URL)
}

// A file that the index puts on another origin is fetched from there
// without the headers, and a refusal there says why.
func TestURLHeaderOtherOrigin(t *testing.T) {
	for _, guarded := range []bool{false, true} {
		t.Run(map[bool]string{false: "public", true: "private"}[guarded], func(t *testing.T) {
			dir := copyBuilt(t)
			p := archiveOf(t, dir, other, layout.TarGz)
			h := servedBundle(dir, nil)
			if guarded {
				h = private(creds(), h)
			}
			elsewhere, got := listen(t, h)
			far := elsewhere.URL + "/" + p
			edit(t, dir, layout.V2Index, `"url": "`+path.Base(p)+`"`, `"url": "`+far+`"`)
			srv, _ := listen(t, private(creds(), servedBundle(dir, nil)))

			rep := fetch(t, srv.URL, Options{Header: creds()})
			if len(got.all()) == 0 {
				t.Fatalf("%s was not fetched; problems:\n%s", far, problems(rep))
			}
			noCreds(t, got)
			if guarded {
				wantProblem(t, rep, far, elsewhere.URL+" answered 401 Unauthorized; the headers given (--header, --token-file) are sent only to "+srv.URL+", the origin of the URL given")
			} else if strings.Contains(problems(rep), far+": ") {
				t.Errorf("want %s read; got:\n%s", far, problems(rep))
			}
		})
	}
}
