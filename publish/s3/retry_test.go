package s3

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"syscall"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/bundle"
)

func TestRetryable(t *testing.T) {
	wrap := func(err error) error { return &url.Error{Op: "Put", URL: "http://127.0.0.1:1/b/k", Err: err} }
	for _, c := range []struct {
		err  error
		want bool
	}{
		{minio.ErrorResponse{StatusCode: 500, Code: "InternalError"}, true},
		{minio.ErrorResponse{StatusCode: 503, Code: "SlowDown"}, true},
		{minio.ErrorResponse{StatusCode: 429}, true},
		{minio.ErrorResponse{StatusCode: 400, Code: "RequestTimeout"}, true},
		{fmt.Errorf("put: %w", minio.ErrorResponse{StatusCode: 502}), true},
		{minio.ErrorResponse{StatusCode: 403, Code: "AccessDenied"}, false},
		{minio.ErrorResponse{StatusCode: 404, Code: "NoSuchBucket"}, false},
		{minio.ErrorResponse{StatusCode: 400, Code: "BadDigest"}, false},
		{wrap(&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), true},
		{wrap(&net.OpError{Op: "read", Err: syscall.ECONNRESET}), true},
		{wrap(io.ErrUnexpectedEOF), true},
		{wrap(errors.New("Connection closed by foreign host http://127.0.0.1:1/b/k. Retry again.")), true},
		{wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), false},
		{wrap(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}}), false},
		{wrap(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), false},
		{fmt.Errorf("k: %w", &bundle.ChangedError{Read: 2}), false},
		{wrap(&fs.PathError{Op: "read", Path: "dist/a.zip", Err: syscall.EIO}), false},
	} {
		if got := Retryable(c.err); got != c.want {
			t.Errorf("Retryable(%v) = %v", c.err, got)
		}
	}
}
