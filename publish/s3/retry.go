package s3

import (
	"errors"
	"net/http"

	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/publish"
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
// connection that failed, was reset or ended early (publish.Transient;
// minio-go rewrites an early EOF into a message of its own, in a
// *url.Error). Anything else (a denial, a missing bucket, a file that
// changed) fails the same way again.
func Retryable(err error) bool {
	if errors.As(err, new(*bundle.ChangedError)) {
		return false
	}
	if e := errorResponse(err); e.StatusCode != 0 || e.Code != "" {
		return e.StatusCode >= 500 || e.StatusCode == http.StatusTooManyRequests ||
			e.StatusCode == http.StatusRequestTimeout || retryCodes[e.Code]
	}
	return publish.Transient(err)
}
