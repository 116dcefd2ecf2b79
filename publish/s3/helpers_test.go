package s3

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/signtest"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

const (
	testBucket = "skills"
	testKey    = "AKIDSKILLPACKTEST"
	testSecret = "skillpack-test-secret-key"
)

// server is an S3 server behind a proxy the test controls: it records
// the PUTs the server answered with success, in the order it saw them,
// and injects faults.
type server struct {
	t     testing.TB
	url   string // the proxy's
	proxy *proxy
	// checksums tells that the server keeps x-amz-checksum-sha256, and
	// cacheControl that it keeps Cache-Control (gofakes3 keeps neither);
	// files that it keeps objects as files and folders, so that a key
	// cannot also be a prefix (versitygw's posix backend).
	checksums, cacheControl, files bool

	clientOnce sync.Once
	c          *minio.Client
}

// fakeServer is gofakes3 in process, on 127.0.0.1, with the bucket made.
func fakeServer(t testing.TB) *server {
	t.Helper()
	mem := s3mem.New()
	if err := mem.CreateBucket(testBucket); err != nil {
		t.Fatal(err)
	}
	faker := gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog()))
	return newServer(t, faker.Server())
}

func newServer(t testing.TB, next http.Handler) *server {
	p := &proxy{next: next}
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	return &server{t: t, url: ts.URL, proxy: p}
}

func (s *server) options() Options {
	return Options{
		Endpoint: s.url, AccessKey: testKey, SecretKey: testSecret, Region: "us-east-1",
		Getenv: func(string) string { return "" },
		// Retries cost no time worth waiting for in a test, and a
		// server that keeps failing is given up after six tries, not
		// after the budget of real time (testOutage runs the budget on
		// a clock of its own).
		Retry: publish.Retry{Backoff: time.Millisecond, Attempts: 6},
	}
}

func (s *server) target(prefix string) string { return "s3://" + testBucket + "/" + prefix }

// client is a plain minio-go client of the server itself, past the proxy,
// for the test to look at what is stored. It is made once and keeps its
// connections: a new client for each of the thousands of reads of
// TestVersitygw's foreign objects dialled a new connection each time.
func (s *server) client() *minio.Client {
	s.t.Helper()
	s.clientOnce.Do(func() {
		host := strings.TrimPrefix(s.url, "http://")
		c, err := minio.New(host, &minio.Options{Creds: credentials.NewStaticV4(testKey, testSecret, ""), Region: "us-east-1"})
		if err != nil {
			s.t.Fatal(err)
		}
		s.c = c
	})
	if s.c == nil {
		s.t.Fatal("no client of the server")
	}
	return s.c
}

// stored is one object as the server keeps it.
type stored struct {
	data   []byte
	info   minio.ObjectInfo
	digest layout.Digest
}

// objects is everything under the prefix ("": the whole bucket), by
// bundle path. The proxy lets the test's own requests through untouched.
// The objects listed are read readers at a time (see each).
func (s *server) objects(prefix string) objectMap {
	s.t.Helper()
	s.proxy.pause()
	defer s.proxy.resume()
	if prefix != "" {
		prefix += "/"
	}
	keys := s.list(prefix)
	var mu sync.Mutex
	out := objectMap{}
	err := each(keys, func(key string) error {
		o, ok, err := s.stat(key)
		if ok {
			mu.Lock()
			out[strings.TrimPrefix(key, prefix)] = o
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// list is the keys under prefix (with its "/", or "": the whole bucket).
func (s *server) list(prefix string) []string {
	s.t.Helper()
	var keys []string
	for o := range s.client().ListObjects(context.Background(), testBucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			s.t.Fatal(o.Err)
		}
		keys = append(keys, o.Key)
	}
	return keys
}

// stat reads one listed object, its bytes and headers, as the server
// keeps it. A key listed and gone when read is absent: a server may still
// be taking away an upload that a stopped run left unfinished (versitygw
// lists it until its handler sees the body end).
func (s *server) stat(key string) (stored, bool, error) {
	c := s.client()
	ctx := context.Background()
	obj, err := c.GetObject(ctx, testBucket, key, minio.GetObjectOptions{})
	if err != nil {
		return stored{}, false, err
	}
	data, err := io.ReadAll(obj)
	obj.Close()
	if err != nil && notFound(err) {
		return stored{}, false, nil
	}
	if err != nil {
		return stored{}, false, err
	}
	info, err := c.StatObject(ctx, testBucket, key, minio.StatObjectOptions{Checksum: true})
	if err != nil && notFound(err) {
		return stored{}, false, nil
	}
	if err != nil {
		return stored{}, false, err
	}
	return stored{data: data, info: info, digest: layout.DigestOf(data)}, true, nil
}

// listed is what the server holds under a prefix, to look up by bundle
// path: objects's map, or a listing whose objects are read when first
// looked up (listing).
type listed interface {
	object(path string) (stored, bool)
}

// objectMap is everything under a prefix, read: objects.
type objectMap map[string]stored

func (m objectMap) object(path string) (stored, bool) { o, ok := m[path]; return o, ok }

// listing is objects's listing, without its reads: an object listed is
// read (as objects reads it) when first looked up, and a path not listed
// is absent. consistent and matches look up the bundle's paths and the
// ones its documents name: a bucket that holds much more (TestVersitygw's
// root, 1,400 and more objects when foreign objects and killed prunes
// check it after each prune, 72 of them the bundle's) answers with what
// those lookups read, where objects read every object twice over.
type listing struct {
	s      *server
	prefix string
	keys   map[string]bool // bundle paths
	read   map[string]stored
}

// listing lists what is under prefix ("": the whole bucket).
func (s *server) listing(prefix string) *listing {
	s.t.Helper()
	s.proxy.pause()
	defer s.proxy.resume()
	if prefix != "" {
		prefix += "/"
	}
	l := &listing{s: s, prefix: prefix, keys: map[string]bool{}, read: map[string]stored{}}
	for _, k := range s.list(prefix) {
		l.keys[strings.TrimPrefix(k, prefix)] = true
	}
	return l
}

func (l *listing) object(path string) (stored, bool) {
	l.s.t.Helper()
	if !l.keys[path] {
		return stored{}, false
	}
	if o, ok := l.read[path]; ok {
		return o, true
	}
	l.s.proxy.pause()
	defer l.s.proxy.resume()
	o, ok, err := l.s.stat(l.prefix + path)
	if err != nil {
		l.s.t.Fatal(err)
	}
	if !ok {
		delete(l.keys, path) // gone when read: absent, as in objects
		return stored{}, false
	}
	l.read[path] = o
	return o, true
}

// readers is how many of the test's own reads are under way at once:
// TestVersitygw's foreign objects and killed prunes read the whole bucket
// back after every prune, thousands of requests each, one at a time before.
const readers = 4

// each calls f with every key, readers at a time, and returns the error
// of the first key that failed, in keys' order.
func each(keys []string, f func(key string) error) error {
	errs := make([]error, len(keys))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(readers, len(keys)) {
		wg.Go(func() {
			for i := range next {
				errs[i] = f(keys[i])
			}
		})
	}
	for i := range keys {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// put stores a file the test makes, as another tool would.
func (s *server) put(key string, data string) {
	s.t.Helper()
	s.proxy.pause()
	defer s.proxy.resume()
	if _, err := s.client().PutObject(context.Background(), testBucket, key, strings.NewReader(data), int64(len(data)), minio.PutObjectOptions{}); err != nil {
		s.t.Fatal(err)
	}
}

// get reads one object as the server keeps it, if it is there.
func (s *server) get(key string) (string, bool) {
	s.t.Helper()
	s.proxy.pause()
	defer s.proxy.resume()
	data, ok, err := s.read(key)
	if err != nil {
		s.t.Fatal(err)
	}
	return data, ok
}

// read is get's request, for get and gets: one object's bytes, and whether
// it is there.
func (s *server) read(key string) (string, bool, error) {
	obj, err := s.client().GetObject(context.Background(), testBucket, key, minio.GetObjectOptions{})
	if err != nil {
		return "", false, err
	}
	defer obj.Close()
	data, err := io.ReadAll(obj)
	if notFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(data), true, nil
}

// gets is get of every key, readers at a time: the ones there, with their
// bytes.
func (s *server) gets(keys []string) map[string]string {
	s.t.Helper()
	s.proxy.pause()
	defer s.proxy.resume()
	var mu sync.Mutex
	out := map[string]string{}
	err := each(keys, func(key string) error {
		data, ok, err := s.read(key)
		if ok {
			mu.Lock()
			out[key] = data
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// replace writes a file the test makes over an object, as another tool
// would. gofakes3 keeps the old object's metadata when one is written
// again; a real server (S3, versitygw) does not, so the object is removed
// first to give every server the same result.
func (s *server) replace(key string, data string) {
	s.t.Helper()
	s.proxy.pause()
	if err := s.client().RemoveObject(context.Background(), testBucket, key, minio.RemoveObjectOptions{}); err != nil {
		s.t.Fatal(err)
	}
	s.proxy.resume()
	s.put(key, data)
}

// fault is what the proxy does to a request instead of passing it on.
type fault int

const (
	pass      fault = iota
	fail500         // an InternalError before the server sees it
	slowDown        // 503 SlowDown
	throttle        // 429
	failAfter       // the server does it, the client hears 500
	stall           // no answer until the client gives up
	cut             // the connection closes with no answer
	faultKinds
	denied // 403 AccessDenied: a bucket that refuses deletes (never chosen at random)
)

// proxy passes requests to the server, logging the PUTs it answered with
// success, and injects the faults choose picks.
type proxy struct {
	next http.Handler

	mu     sync.Mutex
	puts   []string // the paths of successful PUTs, in order
	dels   []string
	choose func(r *http.Request) fault // nil: pass everything
	paused int                         // the test's own requests: no faults, no log
	onSeen func(r *http.Request)       // called with each of publish's requests
	heads  int                         // publish's HEAD requests of objects
}

func (p *proxy) pause()  { p.mu.Lock(); p.paused++; p.mu.Unlock() }
func (p *proxy) resume() { p.mu.Lock(); p.paused--; p.mu.Unlock() }

// log is the paths under prefix that were PUT and DELETEd since the
// last call, in the order the server saw them.
func (p *proxy) log(prefix string) (puts, dels []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range p.puts {
		puts = append(puts, strings.TrimPrefix(k, prefix+"/"))
	}
	for _, k := range p.dels {
		dels = append(dels, strings.TrimPrefix(k, prefix+"/"))
	}
	p.puts, p.dels = nil, nil
	return puts, dels
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/"+publish.LeasePath) {
		p.next.ServeHTTP(w, r) // the lease's own tests look at it (lease_test.go)
		return
	}
	p.mu.Lock()
	f, paused := pass, p.paused > 0
	if !paused {
		if r.Method == http.MethodHead && strings.TrimPrefix(r.URL.Path, "/"+testBucket+"/") != "" && r.URL.Path != "/"+testBucket {
			p.heads++
		}
		if p.onSeen != nil {
			p.onSeen(r)
		}
		if p.choose != nil {
			f = p.choose(r)
		}
	}
	p.mu.Unlock()
	switch f {
	case fail500:
		s3Error(w, 500, "InternalError")
		return
	case slowDown:
		s3Error(w, 503, "SlowDown")
		return
	case throttle:
		s3Error(w, 429, "TooManyRequests")
		return
	case denied:
		s3Error(w, 403, "AccessDenied")
		return
	case stall:
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
		return
	case cut:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
	}
	rec := &status{ResponseWriter: w, code: 200}
	if f == failAfter {
		rec.ResponseWriter = httptest.NewRecorder()
	}
	p.next.ServeHTTP(rec, r)
	if f == failAfter {
		s3Error(w, 500, "InternalError")
	}
	if !paused && rec.code < 300 {
		key := strings.TrimPrefix(r.URL.Path, "/"+testBucket+"/")
		p.mu.Lock()
		switch {
		case r.Method == http.MethodPut:
			p.puts = append(p.puts, key)
		case r.Method == http.MethodDelete:
			p.dels = append(p.dels, key)
		}
		p.mu.Unlock()
	}
}

func s3Error(w http.ResponseWriter, code int, s3code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(code)
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>`+s3code+`</Code><Message>injected by the test</Message></Error>`)
}

type status struct {
	http.ResponseWriter
	code int
}

func (s *status) WriteHeader(code int) { s.code = code; s.ResponseWriter.WriteHeader(code) }

// faults makes the proxy inject a fault into a fraction of publish's
// requests, picked at random from kinds, reproducibly for a seed.
func (p *proxy) faults(seed uint64, fraction float64, kinds ...fault) {
	rng := rand.New(rand.NewPCG(seed, 1))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.choose = func(*http.Request) fault {
		if rng.Float64() >= fraction {
			return pass
		}
		return kinds[rng.IntN(len(kinds))]
	}
}

func (p *proxy) noFaults() {
	p.mu.Lock()
	p.choose, p.onSeen = nil, nil
	p.mu.Unlock()
}

// tree copies the examples into a temporary folder, to build and change.
func tree(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skills")
	if err := os.CopyFS(dir, os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// builtBundle builds skills into dist, signed, and opens it. The signer is a
// stand-in (publish treats signatures as opaque files), and unlike
// Sigstore's it signs the same bytes the same way, so that a republish
// of an unchanged artifact finds its signature present.
func builtBundle(t testing.TB, skills, dist string, marketplaces ...string) *publish.Upload {
	t.Helper()
	if _, err := build.Run([]string{skills}, build.Options{Out: dist, Sign: signtest.Stub, SignFolder: signtest.StubStatement, Marketplaces: marketplaces}); err != nil {
		t.Fatal(err)
	}
	b, err := publish.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// change edits one file of one skill (csv-profiler), a change lint
// accepts, so that the skill's files and archives change.
func change(t testing.TB, skills string, n int) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(skills, "csv-profiler", "references", "REFERENCE.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\nRevision " + strings.Repeat("i", n) + ".\n"); err != nil {
		t.Fatal(err)
	}
}

// results collects the Results of a run.
type results struct {
	mu   sync.Mutex
	list []publish.Result
}

func (r *results) add(res publish.Result) { r.mu.Lock(); r.list = append(r.list, res); r.mu.Unlock() }

// paths are the paths of the results in a state, sorted.
func (r *results) paths(s publish.State) []string {
	var out []string
	for _, res := range r.list {
		if res.State == s {
			out = append(out, res.Object.Path)
		}
	}
	slices.Sort(out)
	return out
}

// consistent checks what a reader may rely on at any moment: every file
// the published documents name is there, and every archive they name has
// the bytes of its digest. A skill's own files at their fixed paths may
// hold the next release's bytes while a run is stopped between its files
// and its indexes (see package publish); complete says that no run is
// stopped, and then every file must have its digest too.
func consistent(t testing.TB, got listed, complete bool) {
	t.Helper()
	want := map[string]layout.Digest{}
	if data, ok := got.object(layout.MCPResources); ok {
		list, err := layout.DecodeResources(data.data)
		if err != nil {
			t.Fatalf("published %s: %v", layout.MCPResources, err)
		}
		for _, r := range list {
			want[r.Path] = r.Digest
		}
	}
	if data, ok := got.object(layout.V2Index); ok {
		idx, err := layout.DecodeIndexV2(data.data)
		if err != nil {
			t.Fatalf("published %s: %v", layout.V2Index, err)
		}
		for _, e := range idx.Skills {
			p, ok := layout.ParseIndexURL(e.URL)
			if !ok {
				t.Fatalf("index url %q", e.URL)
			}
			want[p.String()] = e.Digest
		}
	}
	if data, ok := got.object(layout.Checksums); ok {
		sums, err := layout.ParseChecksums(data.data)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sums {
			want[s.Path] = s.Digest
		}
	}
	if data, ok := got.object(layout.V1Index); ok {
		idx, err := layout.DecodeIndexV1(data.data)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range idx.Skills {
			for _, f := range e.Files {
				if _, ok := got.object(layout.LegacyFile(e.Name, f)); !ok {
					t.Errorf("%s names %s, which is not published", layout.V1Index, layout.LegacyFile(e.Name, f))
				}
			}
		}
	}
	for p, d := range want {
		o, ok := got.object(p)
		pp, _ := layout.ParsePath(p)
		switch {
		case !ok:
			t.Errorf("the published documents name %s, which is not published", p)
		case o.digest != d && (complete || pp.Kind == layout.KindArchive):
			t.Errorf("the published documents give %s the digest %s; it holds %s", p, d, o.digest)
		}
	}
}

// matches checks that everything of b is stored with its bytes and
// headers, and its digest as the server keeps it.
func matches(t testing.TB, s *server, got listed, b *publish.Upload) {
	t.Helper()
	for _, o := range b.Objects {
		st, ok := got.object(o.Path)
		if !ok {
			t.Errorf("%s is not published", o.Path)
			continue
		}
		if st.digest != o.Digest {
			t.Errorf("%s holds %s, want %s", o.Path, st.digest, o.Digest)
		}
		if cache := st.info.Metadata.Get("Cache-Control"); st.info.ContentType != o.ContentType || (s.cacheControl || cache != "") && cache != o.CacheControl {
			t.Errorf("%s: Content-Type %q, Cache-Control %q; want %q, %q", o.Path, st.info.ContentType, st.info.Metadata.Get("Cache-Control"), o.ContentType, o.CacheControl)
		}
		var kept layout.Digest
		for k, v := range st.info.UserMetadata {
			if strings.EqualFold(k, metaDigest) {
				kept = layout.Digest(v)
			}
		}
		if kept != o.Digest {
			t.Errorf("%s: metadata digest %q, want %s", o.Path, kept, o.Digest)
		}
		if s.checksums && st.info.ChecksumSHA256 == "" {
			t.Errorf("%s: the server keeps no sha256 checksum", o.Path)
		}
	}
}

// releases is the release list (publish.ReleasesList) as a reader
// decodes it.
type releases struct {
	Releases []struct {
		Record, Bundle layout.Digest
		Published      time.Time
	}
}

// A lease lasts a second in the tests (a killed child's holds up the next
// run that long), and is renewed four times a second.
func init() { leaseTTL = time.Second }
