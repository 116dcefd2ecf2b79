package s3

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/skillpack/skillpack/verify"
)

// A server that answers with nonsense (unreadable XML, a listing that
// never ends, headers that cannot be parsed, a release list of megabytes,
// redirects elsewhere, a body shorter than it says) ends the run with an
// error, never a panic or a hang, and a run it cannot fool leaves nothing
// wrong behind. Verifying what it holds ends too, and bodies it cuts short
// never verify.
func TestHostileServer(t *testing.T) {
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	isList := func(r *http.Request) bool { return r.Method == "GET" && r.URL.Query().Has("list-type") }
	for _, c := range []struct {
		name    string
		answer  func(w http.ResponseWriter, r *http.Request) bool // true: answered; false: pass to the server
		wantErr bool
	}{
		{"listing is not XML", func(w http.ResponseWriter, r *http.Request) bool {
			if !isList(r) {
				return false
			}
			io.WriteString(w, "<<<not xml")
			return true
		}, true},
		{"listing never ends", func(w http.ResponseWriter, r *http.Request) bool {
			if !isList(r) {
				return false
			}
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, `<?xml version="1.0"?><ListBucketResult><Name>skills</Name><IsTruncated>true</IsTruncated><NextContinuationToken>again</NextContinuationToken>`+
				`<Contents><Key>h/x</Key><Size>1</Size></Contents></ListBucketResult>`)
			return true
		}, true},
		{"listing claims every object", func(w http.ResponseWriter, r *http.Request) bool {
			if !isList(r) {
				return false
			}
			w.Header().Set("Content-Type", "application/xml")
			var keys strings.Builder
			for _, o := range b.Objects {
				keys.WriteString("<Contents><Key>h/" + o.Path + "</Key><Size>" + strconv.FormatInt(o.Size, 10) + "</Size></Contents>")
			}
			io.WriteString(w, `<?xml version="1.0"?><ListBucketResult><Name>skills</Name><IsTruncated>false</IsTruncated>`+keys.String()+`</ListBucketResult>`)
			return true
		}, false},
		{"HEAD headers are nonsense", func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != "HEAD" || !strings.HasPrefix(r.URL.Path, "/"+testBucket+"/h/") {
				return false // the bucket's HEAD passes: this is about objects
			}
			w.Header().Set("Last-Modified", "yesterday")
			w.Header().Set("X-Amz-Checksum-Sha256", "%%%")
			w.Header().Set("X-Amz-Meta-Skillpack-Digest", "sha256:"+strings.Repeat("z", 64))
			w.Header().Set("Content-Length", "-5")
			w.WriteHeader(200)
			return true
		}, false},
		{"release list of megabytes", func(w http.ResponseWriter, r *http.Request) bool {
			switch {
			case isList(r):
				w.Header().Set("Content-Type", "application/xml")
				io.WriteString(w, `<?xml version="1.0"?><ListBucketResult><Name>skills</Name><IsTruncated>false</IsTruncated><Contents><Key>h/.skillpack/releases.json</Key><Size>5000000</Size></Contents></ListBucketResult>`)
			case r.Method == "GET" && strings.HasSuffix(r.URL.Path, "releases.json"):
				w.Header().Set("Content-Length", "5000000")
				w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
				io.WriteString(w, strings.Repeat("[", 5000000))
			default:
				return false
			}
			return true
		}, true},
		{"redirects elsewhere", func(w http.ResponseWriter, r *http.Request) bool {
			http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusTemporaryRedirect)
			return true
		}, true},
		{"bodies shorter than said", func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != "GET" || isList(r) {
				return false
			}
			w.Header().Set("Content-Length", "100")
			io.WriteString(w, "short")
			return true
		}, false},
		// These two are for verify, which reads the bundle under v/.
		{"bodies never end", func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != "GET" || !strings.HasPrefix(r.URL.Path, "/"+testBucket+"/v/") {
				return false
			}
			w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
			chunk := []byte(strings.Repeat("{", 1<<16))
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					break
				}
			}
			return true
		}, false},
		{"bodies claim gigabytes", func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != "GET" || !strings.HasPrefix(r.URL.Path, "/"+testBucket+"/v/") {
				return false
			}
			w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
			w.Header().Set("Content-Length", "10000000000")
			io.WriteString(w, "{}")
			return true
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := s3mem.New()
			mem.CreateBucket(testBucket)
			next := gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
			var hostile atomic.Bool
			s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !hostile.Load() || !c.answer(w, r) {
					next.ServeHTTP(w, r)
				}
			}))
			// A bundle published before the server turned, for verify to
			// read through it.
			if err := Publish(context.Background(), b, s.target("v"), s.options(), nil); err != nil {
				t.Fatal(err)
			}
			hostile.Store(true)
			o := s.options()
			o.Attempts, o.Timeout, o.Prune = 2, 300*time.Millisecond, true
			done := make(chan error, 1)
			go func() { done <- Publish(context.Background(), b, s.target("h"), o, nil) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("the run hangs")
			}
			if c.wantErr && err == nil {
				t.Error("published without an error")
			}
			if c.wantErr && strings.HasPrefix(c.name, "listing") && err != nil && !strings.Contains(err.Error(), "listing the prefix") {
				t.Errorf("a listing's error does not say it is the listing's: %v", err)
			}
			if err != nil && strings.Contains(err.Error(), "panic") {
				t.Error(err)
			}
			t.Log(err)

			st, err := OpenBucket(s.target("v"), o)
			if err != nil {
				t.Fatal(err)
			}
			type outcome struct {
				rep *verify.Report
				err error
			}
			checked := make(chan outcome, 1)
			go func() {
				rep, err := verify.Objects(context.Background(), st, verify.Options{MaxSize: 1 << 20, Timeout: 300 * time.Millisecond, Deadline: 30 * time.Second})
				checked <- outcome{rep, err}
			}()
			select {
			case v := <-checked:
				if v.err == nil && v.rep.OK() && strings.HasPrefix(c.name, "bodies") {
					t.Error("verified a bundle whose bodies are not its files")
				}
				if v.err == nil {
					t.Log(v.rep.Summary())
				} else {
					t.Log(v.err)
				}
			case <-time.After(time.Minute):
				t.Fatal("verify hangs")
			}
		})
	}
}

// A server that keeps an object's bytes but nothing sent with them
// (versitygw --nometa: no headers, metadata or checksum) is refused after
// the first object, which is deleted again: nothing of the bundle is left,
// and the message says what came back.
func TestServerKeepsBytesOnly(t *testing.T) {
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	mem := s3mem.New()
	mem.CreateBucket(testBucket)
	next := gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			for k := range r.Header {
				if k := strings.ToLower(k); k == "content-type" || k == "cache-control" || strings.HasPrefix(k, "x-amz-meta-") || strings.HasPrefix(k, "x-amz-checksum-") {
					r.Header.Del(k)
				}
			}
		}
		next.ServeHTTP(w, r)
	}))
	s.put("site/own.txt", "not skillpack's")
	err := Publish(context.Background(), b, s.target("site"), s.options(), nil)
	if err == nil || !strings.Contains(err.Error(), "the server did not keep what was sent with it") || !strings.Contains(err.Error(), "no digest of skillpack's") {
		t.Fatalf("publish to a server that keeps bytes only: %v", err)
	}
	if ec, ok := err.(interface{ ExitClass() int }); !ok || ec.ExitClass() != 1 {
		t.Errorf("%v: exit class %v, want 1 (a failed check)", err, ec)
	}
	if got := s.list("site"); !slices.Equal(got, []string{"site/own.txt"}) {
		t.Errorf("left %v", got)
	}

	// A front that answers HEAD with no size: the size is what differs,
	// and the message says so rather than blame the metadata.
	s = newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		maps.Copy(w.Header(), rec.Header())
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(rec.Code)
	}))
	err = Publish(context.Background(), b, s.target("site"), s.options(), nil)
	if err == nil || !strings.Contains(err.Error(), "holds 0 bytes there") || strings.Contains(err.Error(), "metadata") {
		t.Errorf("publish through a front that answers HEAD with no size: %v", err)
	}
}
