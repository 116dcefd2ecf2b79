//go:build !linux

package serve

import (
	"errors"
	"net"
	"os"
	"time"
)

// canSendfile is false where sendfile at an offset of the caller's is not
// to be had: files kept open go to net/http, which serves them with
// ServeContent.
const canSendfile = false

func sendFile(net.Conn, []byte, *os.File, int64, time.Duration) error { return errors.ErrUnsupported }
