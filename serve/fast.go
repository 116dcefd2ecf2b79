package serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The fast path. Most of a registry's traffic is plain GETs of small
// files (an index, a SKILL.md), and net/http spends more on each than the
// write that sends it: a header map, a read in the background while the
// handler runs, deadlines set and reset. It served them at half nginx's
// rate (bench/serve.sh), where a loop that reads a request and writes the
// answer keeps up with nginx. So each connection is read here first. A
// request that is a GET or HEAD of a file held in memory (or kept open,
// sent with sendfile where the system has it), with nothing in it that
// could change the answer, is answered here, with the headers net/http
// would give. At the first request that is anything else (a
// condition, a range, a body, a token to check, MCP, a path to refuse, a
// line net/http would read differently) the connection, with every byte
// read of it so far, goes to net/http for good. So net/http still decides
// everything but the commonest case, and the two cannot disagree on
// where one request ends and the next begins: a request whose framing is
// in any doubt is never answered here.

// fastListener serves connections on the fast path and hands net/http,
// through Accept, the ones it gives up.
type fastListener struct {
	net.Listener
	s       *Server
	handed  chan net.Conn
	done    chan struct{} // closed when the real listener fails or is closed
	closing atomic.Bool
	running sync.WaitGroup // accept, and every connection on the fast path
	mu      sync.Mutex
	live    map[net.Conn]struct{} // on the fast path now
}

func newFastListener(s *Server, ln net.Listener) *fastListener {
	l := &fastListener{Listener: ln, s: s, handed: make(chan net.Conn), done: make(chan struct{}), live: map[net.Conn]struct{}{}}
	l.running.Add(1)
	go l.accept()
	return l
}

// accept takes connections from the real listener, backing off as
// net/http does when it fails for a while (out of file descriptors).
func (l *fastListener) accept() {
	defer l.running.Done()
	defer close(l.done)
	var delay time.Duration
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if l.closing.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			l.s.opts.Log.Warn("accepting a connection: " + err.Error() + "; retrying in " + delay.String())
			time.Sleep(delay)
			continue
		}
		delay = 0
		l.running.Add(1) // while accept's own count holds, so never after drain's Wait began at zero
		go l.serve(c)
	}
}

// Accept returns the next connection handed over to net/http.
func (l *fastListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.handed:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting, and wakes the connections waiting for a request
// on the fast path, which then end; one being answered ends after it.
// net/http's Shutdown calls it.
func (l *fastListener) Close() error {
	l.closing.Store(true)
	err := l.Listener.Close()
	l.each(func(c net.Conn) { c.SetReadDeadline(time.Now()) })
	return err
}

// drain waits for the fast path's connections to end, as net/http's
// Shutdown waits for its own, until ctx ends; then it closes the rest.
func (l *fastListener) drain(ctx context.Context) {
	ended := make(chan struct{})
	go func() {
		l.running.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
		l.each(func(c net.Conn) { c.Close() })
		<-ended
	}
}

func (l *fastListener) each(fn func(net.Conn)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.live {
		fn(c)
	}
}

func (l *fastListener) track(c net.Conn, on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if on {
		l.live[c] = struct{}{}
	} else {
		delete(l.live, c)
	}
}

// serve answers the requests of one connection while they are plain, and
// hands the connection over at the first that is not.
func (l *fastListener) serve(c net.Conn) {
	defer l.running.Done()
	l.track(c, true)
	handed := false
	defer func() {
		l.track(c, false)
		if !handed {
			c.Close()
		}
	}()
	s := l.s
	br := bufio.NewReaderSize(c, fastHead)
	var out []byte
	// The vector a response is written from, made once per connection:
	// made per response, it escapes (into the conn's writev) and is a heap
	// allocation each time.
	var vec [2][]byte
	var bufs net.Buffers
	for first := true; ; first = false {
		// As net/http: the first request's head must come within
		// ReadHeaderTimeout of the accept; after that a connection may
		// wait idleTimeout for the next request, whose head must then
		// come within ReadHeaderTimeout. Each deadline is set before
		// closing is looked at, so that Close's wake-up is never undone.
		if !first {
			c.SetReadDeadline(time.Now().Add(idleTimeout))
			if l.closing.Load() {
				return
			}
			if _, err := br.Peek(1); err != nil {
				return
			}
		}
		c.SetReadDeadline(time.Now().Add(s.opts.ReadHeaderTimeout))
		if l.closing.Load() {
			return
		}
		head, err := peekHead(br)
		if err != nil {
			return // cut off or too slow: net/http would close it too
		}
		req, ok := parseHead(head, s.opts.MaxURLLength)
		var f *file
		var held *Bundle
		if ok {
			f, held = s.fastFile(req.path)
		}
		if f == nil {
			// Not ours to answer: net/http reads this request again from
			// its first byte, with its own deadlines.
			c.SetDeadline(time.Time{})
			select {
			case l.handed <- &handedConn{Conn: c, r: br}:
				handed = true
			case <-l.done:
			}
			return
		}
		var logged string
		if s.opts.LogRequests {
			logged = "/" + string(req.path)
		}
		br.Discard(len(head)) // req.path is not read after this
		began := time.Now()
		out = append(append(out[:0], s.wire(f)...), "Date: "...)
		out = append(began.UTC().AppendFormat(out, http.TimeFormat), "\r\n\r\n"...)
		size := f.size
		if req.head {
			size = 0
		}
		if s.onFast != nil {
			s.onFast() // before the write, so that a client that has the answer finds it counted
		}
		if held != nil {
			err = sendFile(c, out, f.fh, size, s.opts.WriteTimeout)
			held.release()
		} else {
			// A file held in memory is at most a piece (limits.small), so
			// one deadline paces it as sendFile paces each piece.
			c.SetWriteDeadline(writeDeadline(began, s.opts.WriteTimeout, int64(len(out))+size))
			vec = [2][]byte{out, f.data[:size]}
			bufs = vec[:]
			_, err = bufs.WriteTo(c)
		}
		if s.opts.LogRequests {
			s.opts.Log.LogAttrs(context.Background(), slog.LevelInfo, "request",
				slog.String("method", req.method),
				slog.String("path", logged),
				slog.Int("status", http.StatusOK),
				slog.Int64("bytes", size),
				slog.Duration("duration", time.Since(began)),
				slog.String("remote", c.RemoteAddr().String()))
		}
		if err != nil {
			return
		}
	}
}

// fastHead is the longest request head the fast path reads; a longer one
// goes to net/http, which has its own limit (Options.MaxHeaderBytes).
const fastHead = 4 << 10

// idleTimeout is how long a connection may wait between requests, on
// either path.
const idleTimeout = 2 * time.Minute

// peekHead returns the request head at the start of br, up to and with
// the blank line that ends it, without consuming it. A head longer than
// br's buffer is returned short, without its end, and parseHead refuses it.
func peekHead(br *bufio.Reader) ([]byte, error) {
	for {
		buf, _ := br.Peek(br.Buffered())
		if i := bytes.Index(buf, crlf2); i >= 0 {
			return buf[:i+len(crlf2)], nil
		}
		if len(buf) == br.Size() {
			return buf, nil
		}
		if _, err := br.Peek(len(buf) + 1); err != nil {
			return nil, err
		}
	}
}

var (
	crlf  = []byte("\r\n")
	crlf2 = []byte("\r\n\r\n")
)

// fastRequest is what the fast path needs of a request.
type fastRequest struct {
	method string // GET or HEAD
	path   []byte // the target without its leading slash, in the head's bytes
	head   bool   // HEAD: no body
}

// parseHead reads a request head that the fast path may answer, and
// reports false for any other: a method but GET or HEAD, a version but
// HTTP/1.1, a target that is not a plain path, a header that could change
// the answer or the framing (a body, conditions, ranges, credentials, a
// Connection but keep-alive), no Host or two, and any line net/http might
// read another way (folded, bare CR or LF, control characters, a
// malformed name).
func parseHead(head []byte, maxTarget int) (fastRequest, bool) {
	var r fastRequest
	if !bytes.HasSuffix(head, crlf2) {
		return r, false
	}
	line, rest, _ := bytes.Cut(head, crlf)
	switch {
	case bytes.HasPrefix(line, []byte("GET /")):
		r.method, line = http.MethodGet, line[len("GET "):]
	case bytes.HasPrefix(line, []byte("HEAD /")):
		r.method, r.head, line = http.MethodHead, true, line[len("HEAD "):]
	default:
		return r, false
	}
	target, ok := bytes.CutSuffix(line, []byte(" HTTP/1.1"))
	if !ok || len(target) > min(maxTarget, maxFastTarget) {
		return r, false
	}
	for _, c := range target {
		// Plain path bytes only: no query, fragment, escape, backslash,
		// space or control character, so the target is the path as is.
		if c <= ' ' || c >= 0x7f || c == '?' || c == '#' || c == '%' || c == '\\' {
			return r, false
		}
	}
	r.path = target[1:]
	hosts := 0
	for len(rest) > len(crlf) {
		line, rest, _ = bytes.Cut(rest, crlf)
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 || !token(name) || !fieldValue(value) {
			return r, false
		}
		value = bytes.TrimSpace(value)
		switch {
		case named(name, "Host"):
			if !plainHost(value) {
				return r, false // net/http's own check of a host is left to it
			}
			hosts++
		case named(name, "Connection"):
			if len(value) > 0 && !bytes.EqualFold(value, []byte("keep-alive")) {
				return r, false // close, upgrade, or a list: net/http's to act on
			}
		case slices.ContainsFunc(notPlain, func(k string) bool { return named(name, k) }):
			return r, false
		}
	}
	return r, hosts == 1
}

// notPlain are the request headers that make a request one the fast path
// does not answer: they frame a body, ask for a part or a condition (see
// conditions), carry credentials or change the protocol.
var notPlain = append([]string{"Content-Length", "Transfer-Encoding", "Expect", "Upgrade", "Trailer", "TE", "Authorization"}, conditions...)

// named reports whether the header name b is name, in any case.
func named(b []byte, name string) bool {
	return len(b) == len(name) && strings.EqualFold(string(b), name)
}

// maxFastTarget is the longest target the fast path takes; longer ones
// go to net/http, which answers 414 past Options.MaxURLLength.
const maxFastTarget = 1024

// token reports whether b is an HTTP token (RFC 9110 §5.6.2).
func token(b []byte) bool {
	for _, c := range b {
		if c >= 0x7f || c <= ' ' || bytes.IndexByte([]byte(`"(),/:;<=>?@[\]{}`), c) >= 0 {
			return false
		}
	}
	return true
}

// fieldValue reports whether b holds only visible ASCII, spaces and tabs.
// Other bytes are legal in values (obs-text), but the fast path has no
// use for them and leaves such requests to net/http.
func fieldValue(b []byte) bool {
	for _, c := range b {
		if (c < ' ' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// fastFile is the file the fast path may send for a request of path, on
// a server with no tokens: one the snapshot holds in memory, or one it
// keeps open where sendFile can send it, other than the catalog (whose
// install commands name the request's host). nil sends the request to
// net/http, which answers everything else, misses too.
//
// A file held in memory needs no reference to its bundle (its bytes are
// the garbage collector's, and a bundle's map of files never changes);
// for a file kept open, held is its bundle, acquired so that the
// descriptor stays open until the response is sent, and the file is
// stat'ed as net/http's path does: one changed in place since it was
// verified goes to net/http, which checks it again.
func (s *Server) fastFile(path []byte) (f *file, held *Bundle) {
	if len(*s.tokens.Load()) > 0 || len(path) == 0 {
		return nil, nil
	}
	b := s.bundle.Load()
	f = b.files[string(path)]
	switch {
	case f == nil:
		return nil, nil
	case f.how == inMemory:
		return f, nil
	case f.how == keptOpen && canSendfile && b.acquire():
		if f.intact() {
			return f, b
		}
		b.release()
	}
	return nil, nil
}

// intact reports whether f, kept open, is still the file last verified.
func (f *file) intact() bool {
	info, err := f.fh.Stat()
	if err != nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return unchanged(f.seen, info)
}

// wire is the status line and headers of a 200 for f, but Date: the
// headers serveFile and send give a plain GET, written once per file and
// server.
func (s *Server) wire(f *file) []byte {
	if w := f.wire.Load(); w != nil && w.s == s {
		return w.b
	}
	b := []byte("HTTP/1.1 200 OK\r\n")
	for _, h := range append(append(corsFields[:], s.fileFields(f.path, f.etag, f.ctype)...), plainFields(f.size, f.lastModified())...) {
		b = append(append(append(append(b, h.name...), ": "...), h.value...), "\r\n"...)
	}
	f.wire.Store(&wire{s: s, b: b})
	return b
}

// wire is what Server.wire keeps of a file.
type wire struct {
	s *Server
	b []byte
}

// handedConn is a connection handed to net/http with the bytes the fast
// path read of it and did not answer, which net/http reads first.
type handedConn struct {
	net.Conn
	r *bufio.Reader // nil once drained
}

func (c *handedConn) Read(p []byte) (int, error) {
	if c.r != nil {
		if c.r.Buffered() > 0 {
			return c.r.Read(p)
		}
		c.r = nil
	}
	return c.Conn.Read(p)
}

// ReadFrom and CloseWrite pass on what net/http looks for in a
// connection: ReadFrom is how a file goes out with sendfile.
func (c *handedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

func (c *handedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
