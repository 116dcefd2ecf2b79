package serve

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// canSendfile says whether the fast path sends files kept open. On Linux
// it does, with sendfile(2) at an offset of its own: every response
// shares the one descriptor the snapshot holds, and none opens the file
// again (net/http's path opens it through /proc for an offset of its
// own), which is what nginx's open_file_cache and sendfile do.
const canSendfile = true

// sendFile writes head and then size bytes of fh from its start to c, a
// piece at a time, each piece under its own write deadline (grace and
// its time at minRate), as net/http's path paces a body: a client that
// stops reading is cut off within a piece's time, not the whole body's.
// head goes with MSG_MORE, so that it leaves in the body's first segment
// rather than alone.
func sendFile(c net.Conn, head []byte, fh *os.File, size int64, grace time.Duration) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return errors.ErrUnsupported
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	src := int(fh.Fd())
	var off int64
	for first := true; first || off < size; first = false {
		end := min(off+piece, size)
		c.SetWriteDeadline(writeDeadline(time.Now(), grace, int64(len(head))+end-off))
		var werr error
		err := rc.Write(func(fd uintptr) bool {
			for len(head) > 0 {
				flags := syscall.MSG_NOSIGNAL
				if size > 0 {
					flags |= syscall.MSG_MORE
				}
				n, err := syscall.SendmsgN(int(fd), head, nil, nil, flags)
				switch {
				case err == syscall.EAGAIN:
					return false // wait until the socket takes more
				case err == syscall.EINTR:
					continue
				case err != nil:
					werr = err
					return true
				}
				head = head[n:]
			}
			for off < end {
				n, err := syscall.Sendfile(int(fd), src, &off, int(end-off))
				switch {
				case err == syscall.EAGAIN:
					return false
				case err == syscall.EINTR:
					continue
				case err != nil:
					werr = err
					return true
				case n == 0:
					werr = io.ErrUnexpectedEOF // the file is shorter than its record
					return true
				}
			}
			return true
		})
		if err == nil {
			err = werr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
