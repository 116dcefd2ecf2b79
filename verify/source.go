package verify

import (
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
	"slices"
	"strings"
	"sync/atomic"

	"github.com/skillpack/skillpack/layout"
)

// errNotFound is a file the source does not have: absent from the folder,
// or HTTP 404 or 410. It is an fs.ErrNotExist, for Reader's callers.
var errNotFound error = notFound{}

type notFound struct{}

func (notFound) Error() string        { return "not found" }
func (notFound) Is(target error) bool { return target == fs.ErrNotExist }

// A source is where a bundle's bytes come from. A location (loc) is a
// dist path, slash-separated and relative to dist/, or, for an HTTP
// source, an absolute URL that an index points at outside the bundle.
type source interface {
	// open returns the bytes at loc, and their size if it is known
	// (else -1). The reader need not enforce a size limit; callers wrap
	// it.
	open(ctx context.Context, loc string) (r io.ReadCloser, size int64, err error)
	// locate maps an index entry's url, relative to the v0.2 index or
	// absolute, to a location.
	locate(ref string) (string, error)
	// folder reports whether the source is a dist folder, where the build
	// record and the set of files present can be checked too.
	folder() (*os.Root, bool)
	String() string
	close()
}

// dirSource reads a dist folder through an os.Root, which refuses any
// path or symbolic link that leads outside the folder.
type dirSource struct {
	dir  string
	root *os.Root
}

func newDirSource(dir string) (*dirSource, error) {
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such folder", dir)
		}
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a folder; give a built dist folder or an http(s) URL", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &dirSource{dir: dir, root: root}, nil
}

func (d *dirSource) String() string                    { return d.dir }
func (d *dirSource) close()                            { d.root.Close() }
func (d *dirSource) folder() (*os.Root, bool)          { return d.root, true }
func (d *dirSource) locate(ref string) (string, error) { return locateIn(fakeIndex, ref, true) }

func (d *dirSource) open(ctx context.Context, loc string) (io.ReadCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if err := layout.CheckPath(loc); err != nil {
		return nil, 0, err
	}
	name := filepath.FromSlash(loc)
	info, err := d.root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, errNotFound
	}
	if err != nil {
		return nil, 0, fmt.Errorf("cannot be read inside the folder: %w", err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		if info, err = d.root.Stat(name); err != nil {
			return nil, 0, errors.New("is a symbolic link that leads outside the bundle folder or nowhere; replace it with the file")
		}
	}
	// Opening a named pipe would block and a device could be endless:
	// only regular files are read.
	if !info.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("is not a regular file (%v)", info.Mode().Type())
	}
	f, err := d.root.Open(name)
	return f, info.Size(), err
}

// fakeIndex is where a folder's v0.2 index would be served, so that its
// relative urls resolve the same way in both sources.
var fakeIndex = &url.URL{Scheme: "http", Host: "dist.invalid", Path: "/" + layout.V2Index}

// locateIn resolves ref against the v0.2 index at index, whose bundle root
// is two folders up. A folder cannot know where a --base-url build will be
// served, so there an absolute url is mapped by its place in the layout.
func locateIn(index *url.URL, ref string, folder bool) (string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("url %q is not a valid URL", ref)
	}
	abs := index.ResolveReference(r)
	if abs.Scheme != "http" && abs.Scheme != "https" {
		return "", fmt.Errorf("url %q is not an http or https URL", ref)
	}
	base := strings.TrimSuffix(index.Path, layout.V2Index)
	if abs.Scheme == index.Scheme && abs.Host == index.Host && strings.HasPrefix(abs.Path, base) && abs.RawQuery == "" {
		return strings.TrimPrefix(abs.Path, base), nil
	}
	if !folder {
		return abs.String(), nil
	}
	p, ok := layout.ParseIndexURL(ref)
	if !ok {
		return "", fmt.Errorf("url %q is outside the bundle (not a skill's file or archive under /%s/)", ref, layout.SkillsDir)
	}
	return p.String(), nil
}

// httpSource fetches a bundle as a client would.
type httpSource struct {
	base     *url.URL // the bundle root, path ending in '/'
	index    *url.URL
	client   *http.Client
	o        Options
	timeouts atomic.Int32
}

// maxTimeouts is how many requests may time out before the rest are not
// sent: a server that stalls every request must not make a run last
// (files × timeout).
const maxTimeouts = 3

func newHTTPSource(raw string, o Options) (*httpSource, error) {
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
	max := o.MaxRedirects
	client := &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > max {
				return fmt.Errorf("too many redirects (more than %d), starting at %s", max, via[0].URL)
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
			if origin(req.URL) != origin(via[0].URL) {
				return fmt.Errorf("redirect from %s to another origin, %s; verify that URL directly if it is meant", via[0].URL, req.URL)
			}
			return nil
		},
	}
	return &httpSource{base: u, index: &index, client: client, o: o}, nil
}

// origin is u's scheme, host and port as a browser compares them: the
// host in lower case, the scheme's default port left out.
func origin(u *url.URL) string {
	host := strings.ToLower(u.Host)
	if p := u.Port(); p == "80" && u.Scheme == "http" || p == "443" && u.Scheme == "https" {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return u.Scheme + "://" + host
}

func (h *httpSource) String() string           { return h.base.String() }
func (h *httpSource) close()                   { h.client.CloseIdleConnections() }
func (h *httpSource) folder() (*os.Root, bool) { return nil, false }
func (h *httpSource) locate(ref string) (string, error) {
	return locateIn(h.index, ref, false)
}

// url is the URL of a location.
func (h *httpSource) url(loc string) string {
	if strings.Contains(loc, "://") {
		return loc
	}
	u := *h.base
	u.Path += loc
	return u.String()
}

func (h *httpSource) open(ctx context.Context, loc string) (io.ReadCloser, int64, error) {
	if !strings.Contains(loc, "://") {
		if err := layout.CheckPath(loc); err != nil {
			return nil, 0, err
		}
	}
	// The count is not in the message: with requests in flight at once,
	// it is not the same every run.
	if h.timeouts.Load() >= maxTimeouts {
		return nil, 0, fmt.Errorf("not fetched: %d or more requests to this server timed out (--timeout)", maxTimeouts)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url(loc), nil)
	if err != nil {
		return nil, 0, err
	}
	// Credentials are for the origin they were given with, never for a
	// URL that an index, which anyone with write access to the bundle
	// controls, points to.
	sent := len(h.o.Header) > 0 && origin(req.URL) == origin(h.base)
	if sent {
		for k, v := range h.o.Header {
			req.Header[k] = slices.Clone(v)
		}
	}
	// We unpack gzip ourselves, under the size limit (see newHTTPSource).
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
		return fail(errNotFound)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fail(h.denied(resp, sent))
	case resp.StatusCode != http.StatusOK:
		return fail(fmt.Errorf("HTTP %s from %s", resp.Status, resp.Request.URL))
	}
	body := &httpBody{ReadCloser: resp.Body, h: h}
	switch enc := strings.ToLower(resp.Header.Get("Content-Encoding")); enc {
	case "", "identity":
		return body, resp.ContentLength, nil
	case "gzip":
		if isArchive(loc) {
			return fail(errors.New("served with Content-Encoding: gzip, so clients unpack it and get bytes that do not match its digest; serve archives with no Content-Encoding"))
		}
		// The length declared is the compressed one, which the caller
		// does not see (checker.open refuses a declared length over
		// the limit): refused here, before a byte is read.
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
func (h *httpSource) denied(resp *http.Response, sent bool) error {
	who := fmt.Sprintf("%s answered %d %s", origin(resp.Request.URL), resp.StatusCode, http.StatusText(resp.StatusCode))
	switch {
	case sent:
		return fmt.Errorf("%s to the headers given; check that the token is current and may read this bundle", who)
	case len(h.o.Header) > 0:
		return fmt.Errorf("%s; the headers given (--%sheader, --%stoken-file) are sent only to %s, the origin of the URL given", who, h.o.HeaderFlagPrefix, h.o.HeaderFlagPrefix, origin(h.base))
	}
	return fmt.Errorf("%s; pass a token with --%stoken-file or --%sheader 'Authorization: …'", who, h.o.HeaderFlagPrefix, h.o.HeaderFlagPrefix)
}

// httpBody turns timeouts while reading a body into plain messages.
type httpBody struct {
	io.ReadCloser
	h *httpSource
}

func (b *httpBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.h.describe(err)
	}
	return n, err
}

// describe makes a transport error say what happened without Go's
// wrapping ("Get \"...\": ...").
func (h *httpSource) describe(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		h.timeouts.Add(1)
		return fmt.Errorf("timed out after %v (--timeout)", h.o.Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// isArchive reports whether loc names an archive by its extension, as a
// client would take it; whether its name is right is checked on its own.
func isArchive(loc string) bool { return layout.ArchiveFormat(loc) != "" }

// tooLargeError is a file over Options.MaxSize.
type tooLargeError struct{ limit, size int64 }

func tooLarge(limit, size int64) error { return &tooLargeError{limit, size} }

func (e *tooLargeError) Error() string {
	if e.size > 0 {
		return fmt.Sprintf("is %d bytes, more than the %d-byte limit (--max-size); not read", e.size, e.limit)
	}
	return fmt.Sprintf("is larger than the %d-byte limit (--max-size); stopped reading", e.limit)
}

// limitReader fails once more than limit bytes have been read, so that an
// endless or huge body is never buffered.
type limitReader struct {
	r     io.Reader
	n     int64
	limit int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n > l.limit {
		return 0, tooLarge(l.limit, 0)
	}
	if rest := l.limit + 1 - l.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		return n, tooLarge(l.limit, 0)
	}
	return n, err
}
