// Package serve serves a built bundle, unchanged, over HTTP and over MCP
// (streamable HTTP at /mcp, or stdio).
//
// It reads only what the build wrote: the indexes, mcp/*.json,
// checksums.txt and the build record. It never parses a skill folder nor
// derives an index; it serves exactly the files those documents name,
// hashing each once only to check it against its recorded digest (see
// Open), and refuses to send bytes whose digest no longer matches. The one exception to "read only"
// is Watch, which asks a caller-supplied rebuild to replace the bundle and
// then swaps the new one in.
package serve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options control a Server. The zero value serves with the defaults.
type Options struct {
	// ReadHeaderTimeout bounds how long a client may take to send its
	// request headers, against slow-header (slowloris) clients.
	// 0 = 10 seconds.
	ReadHeaderTimeout time.Duration
	// MaxHeaderBytes bounds the request line and headers. 0 = 16 KiB.
	MaxHeaderBytes int
	// MaxURLLength bounds the request target; longer ones get 414.
	// 0 = 2048 bytes.
	MaxURLLength int
	// MaxBodyBytes bounds an MCP request body. 0 = 1 MiB.
	MaxBodyBytes int64
	// PageSize is the number of items per page of resources/list,
	// skills/list and resources/directory/read. 0 = 100.
	PageSize int
	// TTL is the freshness hint (ttlMs) of MCP results. 0 = 5 minutes,
	// the max-age of index.json over HTTP.
	TTL time.Duration
	// Log receives one line per event worth an operator's attention:
	// refused files, rebuilds. nil = silent.
	Log io.Writer
}

func (o Options) withDefaults() Options {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 10 * time.Second
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = 16 << 10
	}
	if o.MaxURLLength <= 0 {
		o.MaxURLLength = 2048
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.PageSize <= 0 {
		o.PageSize = 100
	}
	if o.TTL <= 0 {
		o.TTL = 5 * time.Minute
	}
	return o
}

// A Server serves one Bundle at a time over HTTP and MCP. Swap replaces
// the bundle atomically: a request sees the old bundle or the new one,
// never a mix.
type Server struct {
	opts   Options
	bundle atomic.Pointer[Bundle]
	mcp    *mcp.Server
	mu     sync.Mutex // serializes Swap
	logMu  sync.Mutex
}

// New returns a server for b.
func New(b *Bundle, opts Options) *Server {
	s := &Server{opts: opts.withDefaults()}
	s.bundle.Store(b)
	s.mcp = s.newMCP()
	s.register(nil, b)
	return s
}

// Bundle is the bundle being served.
func (s *Server) Bundle() *Bundle { return s.bundle.Load() }

// Swap serves b from now on. The previous bundle's folder handle is closed
// a little later, so that requests that already hold it can finish
// opening their files.
func (s *Server) Swap(b *Bundle) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.bundle.Swap(b)
	s.register(old, b)
	if old != nil && old != b {
		time.AfterFunc(10*time.Second, func() { old.Close() })
	}
}

// Serve serves HTTP (the static tree and MCP at /mcp) on ln until ctx is
// cancelled, then shuts down gracefully: it stops accepting, lets running
// requests finish for up to five seconds, and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		MaxHeaderBytes:    s.opts.MaxHeaderBytes,
		// No ReadTimeout or WriteTimeout: MCP streams and large archives
		// legitimately outlive any fixed bound. MCP request bodies get a
		// read deadline of their own (see mcpHandler).
		IdleTimeout: 2 * time.Minute,
		// Handlers see ctx, so open MCP streams end when the server stops.
		BaseContext: func(net.Listener) context.Context { return ctx },
		ErrorLog:    log.New(cmp.Or[io.Writer](s.opts.Log, io.Discard), "serve: http: ", 0),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(shut) != nil {
			srv.Close()
		}
	}()
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}

// logf writes one line to the log, if there is one.
func (s *Server) logf(format string, args ...any) {
	if s.opts.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.opts.Log, "serve: "+format+"\n", args...)
}
