package serve

import (
	"io"
	"log/slog"
	"net/http"
	"time"
)

// logRequests logs one record per request when it is answered: method,
// path, status, bytes sent, time taken and the client's address. The log
// handler quotes what a client controls, so a path cannot fake a record.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		s.opts.Log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", rec.status),
			slog.Int64("bytes", rec.n),
			slog.Duration("duration", time.Since(began)),
			slog.String("remote", r.RemoteAddr))
	})
}

// recorder notes the status and size of a response. It passes ReadFrom
// on, so that a file is still sent with sendfile, and Flush, which MCP's
// event streams need.
type recorder struct {
	http.ResponseWriter
	status int
	n      int64
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	n, err := r.ResponseWriter.Write(p)
	r.n += int64(n)
	return n, err
}

func (r *recorder) ReadFrom(src io.Reader) (int64, error) {
	n, err := io.Copy(r.ResponseWriter, src)
	r.n += n
	return n, err
}

func (r *recorder) Flush() { http.NewResponseController(r.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
