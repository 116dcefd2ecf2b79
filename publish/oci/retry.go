package oci

import (
	"errors"
	"net/http"

	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/skillpack/skillpack/publish"
)

// retryable tells the errors worth another try: the registry's 5xx,
// throttling (429) and request timeouts (408), and a request that got no
// answer or was cut short (publish.Transient). A 4xx other than those is
// the request's fault (a bad credential, a refused manifest) and would
// fail again.
func retryable(err error) bool {
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		s := resp.StatusCode
		return s >= 500 || s == http.StatusTooManyRequests || s == http.StatusRequestTimeout
	}
	return publish.Transient(err)
}
