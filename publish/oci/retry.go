package oci

import (
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"

	"oras.land/oras-go/v2/registry/remote/errcode"
)

// retryable tells the errors worth another try: the registry's 5xx,
// throttling (429) and request timeouts (408), and a connection that was
// refused, reset, cut short or timed out. A 4xx other than those is the
// request's fault (a bad credential, a refused manifest) and would fail
// again.
func retryable(err error) bool {
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		s := resp.StatusCode
		return s >= 500 || s == http.StatusTooManyRequests || s == http.StatusRequestTimeout
	}
	var ne net.Error
	return errors.As(err, &ne) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}
