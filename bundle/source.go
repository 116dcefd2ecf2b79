package bundle

import (
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// A Source is where a built bundle's bytes come from: a dist folder
// (Folder), a URL it is served at (Site), or what a publish target holds
// (a Store, read through Stored). Everything it returns is untrusted:
// the caller checks the bytes against the digests that vouch for them.
type Source interface {
	// Open returns the bytes at loc, a dist path (slash-separated,
	// relative to dist/) or, for a Site, an absolute URL that an index
	// points at outside the bundle, and their size if it is known (else
	// -1). A file the source does not have is an error that is an
	// fs.ErrNotExist. The reader enforces no size limit: OpenMax does.
	Open(ctx context.Context, loc string) (r io.ReadCloser, size int64, err error)
	String() string // the folder, URL or store, for messages
	Close() error
}

// ErrNotFound is a file the source does not have: absent from the folder
// or the store, or HTTP 404 or 410. It is an fs.ErrNotExist.
var ErrNotFound error = notFound{}

type notFound struct{}

func (notFound) Error() string        { return "not found" }
func (notFound) Is(target error) bool { return target == fs.ErrNotExist }

// OpenSource is the bundle at loc: an http or https URL (of the folder
// that holds .well-known/), or else a folder.
func OpenSource(loc string, o HTTPOptions) (Source, error) {
	if strings.Contains(loc, "://") {
		return OpenURL(loc, o)
	}
	return OpenFolder(loc)
}

// OpenMax opens the file at p, refusing a body whose size is known to be
// over max before a byte of it is read, and failing the read that goes
// past max: an endless or huge body is never buffered.
func OpenMax(ctx context.Context, src Source, p string, max int64) (io.ReadCloser, int64, error) {
	rc, size, err := src.Open(ctx, p)
	if err == nil && size > max {
		rc.Close()
		err = tooLarge(max, size)
	}
	if err != nil {
		return nil, 0, err
	}
	return struct {
		io.Reader
		io.Closer
	}{&LimitReader{R: rc, Limit: max}, rc}, size, nil
}

// ReadAll reads the whole file at p, up to max bytes; its errors name p.
func ReadAll(ctx context.Context, src Source, p string, max int64) ([]byte, error) {
	rc, _, err := OpenMax(ctx, src, p, max)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return data, nil
}

// Folder reads a dist folder through an os.Root, which refuses any path
// or symbolic link that leads outside the folder. The root is held open
// but on Windows, where an open folder cannot be renamed, as a build's swap
// renames the bundle a server reads: there each look-up opens it (open).
type Folder struct {
	dir  string
	root *os.Root // nil on Windows
	// list is Root's, on Windows, opened once when asked for.
	list     *os.Root
	listOnce sync.Once
}

// OpenFolder is the bundle in the folder dir.
func OpenFolder(dir string) (*Folder, error) {
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			msg := dir + ": no such folder"
			if abs, err := filepath.Abs(dir); err == nil && abs != dir {
				msg += " (looked for " + abs + ")"
			}
			return nil, noFolder(msg)
		}
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is a file, not a folder", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS == "windows" {
		root.Close()
		root = nil
	}
	return &Folder{dir: dir, root: root}, nil
}

// noFolder is a folder that is not there, said in full; as ErrNotFound,
// it is an fs.ErrNotExist.
type noFolder string

func (e noFolder) Error() string      { return string(e) }
func (noFolder) Is(target error) bool { return target == fs.ErrNotExist }

func (d *Folder) String() string { return d.dir }

func (d *Folder) Close() error {
	if d.list != nil {
		d.list.Close()
	}
	if d.root == nil {
		return nil
	}
	return d.root.Close()
}

// Root is the folder, for listing what it holds; it stays open until
// Close, on Windows too.
func (d *Folder) Root() *os.Root {
	if d.root != nil {
		return d.root
	}
	d.listOnce.Do(func() { d.list, _ = os.OpenRoot(d.dir) })
	return d.list
}

// open returns the folder's root for one look-up, and what lets go of it.
func (d *Folder) open() (*os.Root, func(), error) {
	if d.root != nil {
		return d.root, func() {}, nil
	}
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return nil, nil, err
	}
	return root, func() { root.Close() }, nil
}

func (d *Folder) Open(ctx context.Context, loc string) (io.ReadCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	f, info, err := d.File(loc)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, ErrNotFound
	}
	if err != nil {
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// File opens the regular file at the dist path loc, for a reader that
// keeps the file itself (serve holds it open, and stats it per request).
// The info is what the folder said of it before it was opened.
func (d *Folder) File(loc string) (*os.File, fs.FileInfo, error) {
	if err := layout.CheckPath(loc); err != nil {
		return nil, nil, err
	}
	name := filepath.FromSlash(loc)
	root, done, err := d.open()
	if err != nil {
		return nil, nil, err
	}
	defer done() // an open file outlives its root
	info, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, cmp.Or(errors.Unwrap(err), err) // the cause alone: the caller names the path
	}
	if err != nil {
		if link := linkOnPath(root, loc); link != "" {
			return nil, nil, fmt.Errorf("is in %s, a symbolic link that leads outside the bundle folder; replace it with the folder", link)
		}
		return nil, nil, fmt.Errorf("cannot be read inside the folder: %w", err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		if info, err = root.Stat(name); err != nil {
			return nil, nil, errors.New("is a symbolic link that leads outside the bundle folder or nowhere; replace it with the file")
		}
	}
	// Opening a named pipe would block and a device could be endless:
	// only regular files are read.
	if !info.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("is not a regular file (%v)", info.Mode().Type())
	}
	f, err := root.Open(name)
	return f, info, err
}

// linkOnPath returns the first folder on the dist path loc that is a
// symbolic link, or "": the root refuses to follow one out of the folder.
func linkOnPath(root *os.Root, loc string) string {
	for i := range len(loc) {
		if loc[i] != '/' {
			continue
		}
		if info, err := root.Lstat(filepath.FromSlash(loc[:i])); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return loc[:i]
		}
	}
	return ""
}

// Defaults of the zero HTTPOptions.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 5
)

// HTTPOptions are how a Site is fetched; the zero value has the defaults.
type HTTPOptions struct {
	Timeout      time.Duration // each request, body included (0 = DefaultTimeout)
	MaxRedirects int           // followed per request (0 = DefaultMaxRedirects)
	MaxSize      int64         // the largest body unpacked from gzip (0 = pack.MaxFile)
	// Header is added to every request to the origin (scheme, host and
	// port) of the URL given, and to no other: not to a file an index
	// points to on another origin, as curl keeps credentials without
	// --location-trusted. (Redirects stay on that origin anyway.)
	Header http.Header
	// HeaderFlagPrefix names the flags that give Header, for the message
	// of a request the server refused: "" for verify's --token-file and
	// --header, "previous-" for build's.
	HeaderFlagPrefix string
}

// Site fetches a bundle as a client would.
type Site struct {
	base     *url.URL // the bundle root, path ending in '/'
	index    *url.URL
	client   *http.Client
	o        HTTPOptions
	timeouts timeouts
}

// MaxTimeouts is how many requests may time out before the rest are not
// sent: a server that stalls every request must not make a run last
// (files × timeout).
const MaxTimeouts = 3

// timeouts counts a source's requests that timed out, each after d.
type timeouts struct {
	d time.Duration
	n atomic.Int32
}

// check refuses a request once MaxTimeouts requests to the server (to)
// have timed out; the count, not the same every run, is not said.
func (t *timeouts) check(to string) error {
	if t.n.Load() >= MaxTimeouts {
		return fmt.Errorf("not fetched: %d or more requests to %s timed out (--timeout)", MaxTimeouts, to)
	}
	return nil
}

// add counts one more and says what happened.
func (t *timeouts) add() error {
	t.n.Add(1)
	return fmt.Errorf("timed out after %v (--timeout)", t.d)
}

// body is a source's reader, whose read errors are put the source's way
// (describe), and whose request ends (done) when it is closed.
type body struct {
	io.ReadCloser
	describe func(error) error
	done     context.CancelFunc
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.describe(err)
	}
	return n, err
}

func (b *body) Close() error {
	err := b.ReadCloser.Close()
	b.done()
	return err
}

// OpenURL is the bundle served at raw, an http or https URL of the folder
// that holds .well-known/ (or of the v0.2 index itself).
func OpenURL(raw string, o HTTPOptions) (*Site, error) {
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	o.MaxRedirects = cmp.Or(o.MaxRedirects, DefaultMaxRedirects)
	o.MaxSize = cmp.Or(o.MaxSize, pack.MaxFile)
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a valid URL: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%q: give an http or https URL such as https://example.com", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%q: remove the query, fragment or user info", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, layout.V2Index)
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawPath = ""
	index := *u
	index.Path += layout.V2Index

	tr := http.DefaultTransport.(*http.Transport).Clone()
	// We ask for gzip ourselves and unpack it under the size limit, and
	// must see Content-Encoding to catch archives served with it.
	tr.DisableCompression = true
	tr.ResponseHeaderTimeout = o.Timeout
	client := &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > o.MaxRedirects {
				return fmt.Errorf("too many redirects (more than %d), starting at %s", o.MaxRedirects, via[0].URL)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to %s, which is not http or https", req.URL)
			}
			// A bundle's files must come from where its index came from;
			// a redirect elsewhere is what a hijacked host looks like. It
			// would also carry Options.Header there: the client copies a
			// request's headers to its redirects, and keeps even
			// Authorization for the same host on another port. Refused
			// here, the request is never sent.
			if Origin(req.URL) != Origin(via[0].URL) {
				return fmt.Errorf("redirect from %s to another origin, %s; if the bundle has moved there, give its new address instead", via[0].URL, req.URL)
			}
			return nil
		},
	}
	return &Site{base: u, index: &index, client: client, o: o, timeouts: timeouts{d: o.Timeout}}, nil
}

// Origin is u's scheme, host and port as a browser compares them: the
// host in lower case, the scheme's default port left out.
func Origin(u *url.URL) string {
	host := strings.ToLower(u.Host)
	if p := u.Port(); p == "80" && u.Scheme == "http" || p == "443" && u.Scheme == "https" {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return u.Scheme + "://" + host
}

func (h *Site) String() string { return h.base.String() }
func (h *Site) Close() error   { h.client.CloseIdleConnections(); return nil }

// Index is the URL of the bundle's v0.2 index, against which its urls
// resolve.
func (h *Site) Index() *url.URL { return h.index }

// url is the URL of a location.
func (h *Site) url(loc string) string {
	if strings.Contains(loc, "://") {
		return loc
	}
	u := *h.base
	u.Path += loc
	return u.String()
}

func (h *Site) Open(ctx context.Context, loc string) (io.ReadCloser, int64, error) {
	if !strings.Contains(loc, "://") {
		if err := layout.CheckPath(loc); err != nil {
			return nil, 0, err
		}
	}
	if err := h.timeouts.check("this server"); err != nil {
		return nil, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url(loc), nil)
	if err != nil {
		return nil, 0, err
	}
	// Credentials are for the origin they were given with, never for a
	// URL that an index, which anyone with write access to the bundle
	// controls, points to.
	sent := len(h.o.Header) > 0 && Origin(req.URL) == Origin(h.base)
	if sent {
		req.Header = h.o.Header.Clone()
	}
	// We unpack gzip ourselves, under the size limit (see OpenURL).
	req.Header.Set("Accept-Encoding", "gzip")
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "skillpack-verify")
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, 0, h.describe(err)
	}
	fail := func(err error) (io.ReadCloser, int64, error) {
		resp.Body.Close()
		return nil, 0, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return fail(ErrNotFound)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fail(h.denied(resp, sent))
	case resp.StatusCode != http.StatusOK:
		return fail(fmt.Errorf("HTTP %s from %s", resp.Status, resp.Request.URL))
	}
	body := &body{ReadCloser: resp.Body, describe: h.describe, done: func() {}}
	switch enc := strings.ToLower(resp.Header.Get("Content-Encoding")); enc {
	case "", "identity":
		return body, resp.ContentLength, nil
	case "gzip":
		if layout.ArchiveFormat(loc) != "" {
			return fail(errors.New("served with Content-Encoding: gzip, so clients unpack it and get bytes that do not match its digest; serve archives with no Content-Encoding"))
		}
		// The length declared is the compressed one, which the caller
		// does not see (OpenMax refuses a declared length over the
		// limit): refused here, before a byte is read.
		if resp.ContentLength > h.o.MaxSize {
			return fail(tooLarge(h.o.MaxSize, resp.ContentLength))
		}
		zr, err := gzip.NewReader(body)
		if err != nil {
			return fail(fmt.Errorf("Content-Encoding gzip, but the body is not gzip: %w", err))
		}
		return struct {
			io.Reader
			io.Closer
		}{zr, body}, -1, nil
	default:
		return fail(fmt.Errorf("served with Content-Encoding %q, which was not asked for", enc))
	}
}

// denied says why a server refused a request (401 or 403) and what to do,
// without a word of the headers' values.
func (h *Site) denied(resp *http.Response, sent bool) error {
	who := fmt.Sprintf("%s answered %d %s", Origin(resp.Request.URL), resp.StatusCode, http.StatusText(resp.StatusCode))
	switch {
	case sent:
		return fmt.Errorf("%s to the headers given; check that the token is current and may read this bundle", who)
	case len(h.o.Header) > 0:
		return fmt.Errorf("%s; the headers given (--%sheader, --%stoken-file) are sent only to %s, the origin of the URL given", who, h.o.HeaderFlagPrefix, h.o.HeaderFlagPrefix, Origin(h.base))
	}
	return fmt.Errorf("%s; pass a token with --%stoken-file or --%sheader 'Authorization: …'", who, h.o.HeaderFlagPrefix, h.o.HeaderFlagPrefix)
}

// describe makes a transport error say what happened without Go's
// wrapping ("Get \"...\": ...").
func (h *Site) describe(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return h.timeouts.add()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// tooLarge is a file over the size limit, of size bytes if that is known
// (else 0).
func tooLarge(limit, size int64) error {
	if size > 0 {
		return fmt.Errorf("is %d bytes, more than the %d-byte limit (--max-size); not read", size, limit)
	}
	return fmt.Errorf("is larger than the %d-byte limit (--max-size); stopped reading", limit)
}

// LimitReader fails once more than Limit bytes have been read, so that an
// endless or huge body is never buffered.
type LimitReader struct {
	R     io.Reader
	Limit int64
	n     int64
}

func (l *LimitReader) Read(p []byte) (int, error) {
	if l.n > l.Limit {
		return 0, tooLarge(l.Limit, 0)
	}
	if rest := l.Limit + 1 - l.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := l.R.Read(p)
	l.n += int64(n)
	if l.n > l.Limit {
		return n, tooLarge(l.Limit, 0)
	}
	return n, err
}
