package serve

import (
	"log/slog"
	"net/http"
	"time"
)

// minRate is the slowest a client may read a response: below it the
// connection is closed. A client reading a byte a minute would otherwise
// hold a connection, and a goroutine, for as long as it likes.
const minRate = 64 << 10 // bytes a second

// response wraps every response writer: it gives each write a deadline
// (see paced) and notes the status and size for the request log. It has no
// ReadFrom, so that ServeContent writes 32 KiB at a time, and it cuts a
// larger write (an MCP answer, written whole) into such pieces, each under
// its own deadline: a client that falls behind is cut off at once (a
// 5 MB answer's one deadline gave a client that read nothing 110 s, and
// 1,024 of them held every connection). It passes Flush on, which MCP's
// event streams need.
type response struct {
	http.ResponseWriter
	rc     *http.ResponseController
	grace  time.Duration
	status int
	n      int64
	// closing sends Connection: close, whatever the handler set (the MCP
	// SDK sets keep-alive on its event streams), so that the connection
	// is given back once the response is sent.
	closing, wrote bool
}

// paced sets the connection's write deadline for sending n more bytes:
// the grace period, plus the time those bytes take at minRate.
func (r *response) paced(n int64) {
	r.rc.SetWriteDeadline(time.Now().Add(r.grace + time.Duration(n)*time.Second/minRate))
}

func (r *response) WriteHeader(code int) {
	if r.closing {
		r.Header().Set("Connection", "close")
	}
	r.status, r.wrote = code, code >= http.StatusOK
	r.paced(0)
	r.ResponseWriter.WriteHeader(code)
}

func (r *response) Write(p []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	written := 0
	for len(p) > 0 {
		piece := p[:min(len(p), 32<<10)]
		r.paced(int64(len(piece)))
		n, err := r.ResponseWriter.Write(piece)
		written += n
		r.n += int64(n)
		if err != nil {
			return written, err
		}
		p = p[n:]
	}
	return written, nil
}

func (r *response) Flush() {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	r.paced(0)
	r.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *response) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// logRequest logs one record for an answered request: method, path,
// status, bytes sent, time taken and the client's address. The log
// handler quotes what a client controls, so a path cannot fake a record.
func (s *Server) logRequest(r *http.Request, w *response, began time.Time) {
	s.opts.Log.LogAttrs(r.Context(), slog.LevelInfo, "request",
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", w.status),
		slog.Int64("bytes", w.n),
		slog.Duration("duration", time.Since(began)),
		slog.String("remote", r.RemoteAddr))
}
