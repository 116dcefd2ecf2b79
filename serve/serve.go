// Package serve serves a built bundle, unchanged, over HTTP (net/http
// alone) and over MCP (streamable HTTP at /mcp, or stdio).
//
// It reads only what the build wrote, through package bundle: the indexes,
// mcp/*.json, checksums.txt and the build record. It serves exactly the
// files those documents name, each hashed once against its recorded digest
// (see Open), and refuses bytes whose digest no longer matches. Watch alone
// writes, by asking a caller's rebuild to replace the bundle.
//
// It must not parse a skill folder, derive a digest or a document from
// skills, or import build or verify. Static traffic at scale belongs on a
// static host or a CDN, which the bundle is made for.
package serve

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/netutil"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
)

// Options control a Server. The zero value serves with the defaults.
type Options struct {
	// MaxConns bounds the connections served at once; more wait in the
	// system's accept queue until one closes, so that a flood of clients
	// costs a bounded amount of memory. 0 = 1024.
	MaxConns int
	// Cache gives the Cache-Control lifetimes. nil = layout.DefaultCache.
	Cache *layout.Cache
	// BaseURL is the address the bundle is served at, which the catalog
	// shows in its install commands. "" = the scheme and host each
	// request came to.
	BaseURL string
	// Tokens, when there are any, are the bearer tokens of which every
	// request over HTTP (files and MCP) must carry one.
	Tokens []string
	// Log receives events worth an operator's attention (refused files,
	// reloads) and, with LogRequests, a record per HTTP request. nil =
	// silent.
	Log         *slog.Logger
	LogRequests bool

	// The bounds below are fixed; tests set them lower.

	readHeaderTimeout time.Duration // for the request headers, against slowloris clients (0 = 10 s)
	// writeTimeout is how long a client may take to accept each write,
	// beyond the time its bytes take at minRate (0 = 30 s).
	writeTimeout time.Duration
	maxBodyBytes int64 // of an MCP request (0 = 1 MiB)
	pageSize     int   // of resources/list, skills/list and resources/directory/read (0 = 100)
	// grace is how long running requests may go on once the server stops
	// (0 = 25 s): within the 30 s a Kubernetes pod and the 90 s a systemd
	// unit get between SIGTERM and SIGKILL.
	grace time.Duration
}

func (o Options) withDefaults() Options {
	if o.MaxConns <= 0 {
		o.MaxConns = 1024
	}
	o.readHeaderTimeout = cmp.Or(o.readHeaderTimeout, 10*time.Second)
	o.writeTimeout = cmp.Or(o.writeTimeout, 30*time.Second)
	o.maxBodyBytes = cmp.Or(o.maxBodyBytes, 1<<20)
	o.pageSize = cmp.Or(o.pageSize, 100)
	o.grace = cmp.Or(o.grace, 25*time.Second)
	o.Cache = cmp.Or(o.Cache, &layout.DefaultCache)
	o.Log = cmp.Or(o.Log, slog.New(slog.DiscardHandler))
	return o
}

// A Server serves one Held bundle at a time over HTTP and MCP. Swap replaces
// the bundle atomically: a request sees the old bundle or the new one,
// never a mix.
type Server struct {
	opts   Options
	bundle atomic.Pointer[Held]
	mcp    *mcp.Server
	mu     sync.Mutex // serializes Swap
	reload sync.Mutex // serializes Reload
	tokens atomic.Pointer[[][sha256.Size]byte]
	pages  pages // the catalog with this server's address in it

	// turns are the MCP requests over HTTP being answered: a few per CPU,
	// the rest waiting first in, first out (as a channel wakes them).
	// Answered all at once, a hundred requests on two CPUs each take fifty
	// times as long.
	turns   chan struct{}
	running atomic.Int64 // HTTP requests being answered, for the log when the server stops
	// conns are the connections open, of MaxConns; listens the
	// subscriptions/listen streams among them, which last as long as
	// their clients (Handler keeps half of MaxConns for the rest).
	conns, listens atomic.Int64
	// When the log last said each was at its bound, in Unix seconds.
	connsFull, listensFull atomic.Int64
	baseHost               string // BaseURL's: the one name besides loopback a loopback request may carry (rebound)
}

// New returns a server for b. The server holds b open as long as it
// serves it, whatever the caller does with its own hold (see Held.Close).
func New(b *Held, opts Options) *Server {
	b.acquire()
	s := &Server{opts: opts.withDefaults(), turns: make(chan struct{}, 4*runtime.GOMAXPROCS(0))}
	if u, err := url.Parse(s.opts.BaseURL); err == nil {
		s.baseHost = u.Hostname()
	}
	s.SetTokens(s.opts.Tokens)
	s.bundle.Store(b)
	s.mcp = s.newMCP()
	s.register(nil, b)
	return s
}

// SetTokens replaces the bearer tokens requests must carry; none lets
// every request in. Requests already admitted are not affected.
func (s *Server) SetTokens(tokens []string) {
	sums := make([][sha256.Size]byte, len(tokens))
	for i, t := range tokens {
		sums[i] = sha256.Sum256([]byte(t))
	}
	s.tokens.Store(&sums)
}

// Held is the bundle being served.
func (s *Server) Held() *Held { return s.bundle.Load() }

// Swap serves b from now on. The server lets go of the previous bundle,
// which closes once the responses being written from it are done.
func (s *Server) Swap(b *Held) {
	b.acquire()
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.bundle.Swap(b)
	s.register(old, b)
	if old != nil {
		old.release()
	}
}

// acquire returns the bundle being served, held until release: a
// response is written wholly from the one bundle it began with.
func (s *Server) acquire() *Held {
	for {
		if b := s.bundle.Load(); b.acquire() {
			return b
		}
		// b was swapped out and closed in between; the next Load sees
		// its successor.
	}
}

// Serve serves HTTP (the static tree and MCP at /mcp) on ln until ctx is
// cancelled, then shuts down gracefully: it stops accepting, lets running
// requests finish for up to Options.grace, says what it cut, and returns
// nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.opts.readHeaderTimeout,
		MaxHeaderBytes:    16 << 10, // the request line and headers
		// No ReadTimeout or WriteTimeout: MCP streams and large archives
		// outlive any fixed bound. Each write has a deadline instead (see
		// response), and an MCP request body one to be read (mcpHandler).
		// A kept-alive connection holds one of MaxConns while it waits.
		IdleTimeout: 30 * time.Second,
		// Handlers see ctx, so open MCP streams end when the server stops.
		BaseContext: func(net.Listener) context.Context { return ctx },
		ConnState: func(_ net.Conn, state http.ConnState) {
			switch state {
			case http.StateNew:
				if s.conns.Add(1) == int64(s.opts.MaxConns) {
					s.crowded(&s.connsFull, "%d connections, --max-connections: more wait until one closes", s.opts.MaxConns)
				}
			case http.StateClosed, http.StateHijacked:
				s.conns.Add(-1)
			}
		},
		ErrorLog: slog.NewLogLogger(s.opts.Log.Handler(), slog.LevelWarn),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		if n := s.running.Load(); n > 0 {
			s.logf("stopping: waiting up to %s for %s", s.opts.grace, human.Plural(int(n), "running request", "running requests"))
		}
		shut, cancel := context.WithTimeout(context.Background(), s.opts.grace)
		defer cancel()
		if srv.Shutdown(shut) != nil {
			s.warnf("stopped: %s cut short after %s", human.Plural(int(s.running.Load()), "request", "requests"), s.opts.grace)
			srv.Close()
		}
	}()
	err := srv.Serve(netutil.LimitListener(ln, s.opts.MaxConns))
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}

// crowded warns that the server is at one of its bounds, at most once a
// minute: a crowd would say it on every connection.
func (s *Server) crowded(said *atomic.Int64, format string, args ...any) {
	now, last := time.Now().Unix(), said.Load()
	if now-last >= 60 && said.CompareAndSwap(last, now) {
		s.warnf(format, args...)
	}
}

func (s *Server) logf(format string, args ...any) {
	s.opts.Log.Info(fmt.Sprintf(format, args...))
}

// warnf logs what went wrong: a rebuild or a bundle not served, which a
// quiet log (-q) still shows.
func (s *Server) warnf(format string, args ...any) {
	s.opts.Log.Warn(fmt.Sprintf(format, args...))
}
