package s3

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/minio/minio-go/v7"
)

// errorResponse is the S3 error in err's chain, or the zero one.
func errorResponse(err error) minio.ErrorResponse {
	var e minio.ErrorResponse
	if errors.As(err, &e) {
		return e
	}
	return minio.ErrorResponse{}
}

// retryCodes are the S3 error codes that say "try again later", whatever
// the status they come with.
var retryCodes = map[string]bool{
	"InternalError":              true,
	"ServiceUnavailable":         true,
	"SlowDown":                   true,
	"Throttling":                 true,
	"ThrottlingException":        true,
	"RequestLimitExceeded":       true,
	"RequestThrottled":           true,
	"RequestTimeout":             true,
	"OperationAborted":           true,
	"TooManyRequests":            true,
	"XMinioServerNotInitialized": true,
}

// Retryable reports whether an S3 request that failed with err is worth
// another try: a 5xx, throttling (429, SlowDown), a request timeout, or a
// connection that failed, was reset or ended early. Anything else (a
// denial, a missing bucket, a file that changed) fails the same way
// again.
func Retryable(err error) bool {
	if errors.Is(err, errChanged) {
		return false
	}
	if e := errorResponse(err); e.StatusCode != 0 || e.Code != "" {
		return e.StatusCode >= 500 || e.StatusCode == http.StatusTooManyRequests ||
			e.StatusCode == http.StatusRequestTimeout || retryCodes[e.Code]
	}
	// A request that got no answer (a reset, a dropped or refused
	// connection, a timeout: minio-go rewrites an early EOF into a
	// message of its own) is worth another, unless what failed will fail
	// the same way again: a host that does not exist, a certificate that
	// does not verify.
	var ue *url.Error
	var op *net.OpError
	if errors.As(err, &ue) || errors.As(err, &op) {
		return !permanent(err)
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// permanent reports whether a transport error is one a retry cannot mend.
func permanent(err error) bool {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var header tls.RecordHeaderError // https to a plain http server
	return errors.As(err, &dns) && dns.IsNotFound ||
		errors.As(err, &cert) || errors.As(err, &authority) || errors.As(err, &host) || errors.As(err, &invalid) ||
		errors.As(err, &header) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}
