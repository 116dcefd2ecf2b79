package publish

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"io/fs"
	"net"
	"strings"
	"syscall"
)

// Transient reports whether err is a request that got no answer, or one
// cut short: a connection refused, reset, dropped or timed out, a body
// that ended early. Those are worth another try, unless what failed will
// fail the same way again: a host that does not exist, a certificate
// that does not verify, https to a plain http server. A target's
// Retryable adds its protocol's own answers (a 5xx, throttling) to it.
func Transient(err error) bool {
	// A local file's error (reading DIST, writing a pull) is not the
	// network's, though its syscall.Errno has a net.Error's methods.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return false
	}
	var ne net.Error // *url.Error and *net.OpError among them
	if errors.As(err, &ne) {
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

// Loopback reports whether host (host[:port]) is this machine: the only
// host that plain HTTP may reach without --insecure, since nothing on a
// network sits between the two ends.
func Loopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
}
