package verify

import (
	"context"
	"errors"
	"io"
	"sync"
)

// memory is where verify holds the bytes it must see whole: a document
// to decode, an archive to unpack, a signature to check. Everything else
// is hashed as it streams.
//
// Bytes are held in chunks of one size, from a budget of MaxSize+1 bytes
// that all the workers share, and given back to a free list when done.
// So a body is never copied to grow it (a doubling buffer leaves up to
// twice its size behind for the collector); a server that sends an
// endless body for every file makes verify fill the same chunks again,
// not new ones; and however many workers fetch at once, together they
// hold at most one largest file. The peak stays near one --max-size
// buffer.
type memory struct {
	chunk int // bytes in a chunk
	total int // chunks in the budget: enough for MaxSize+1 bytes

	mu    sync.Mutex
	left  int       // chunks not reserved
	free  [][]byte  // chunks given back, to be used again
	queue []*waiter // reservations that wait, served in turn
}

type waiter struct {
	n     int
	ready chan struct{} // closed when the chunks are reserved
}

func newMemory(maxSize int64) *memory {
	chunk := int(min(maxSize+1, 1<<20))
	total := int((maxSize + int64(chunk)) / int64(chunk)) // ⌈(maxSize+1)/chunk⌉
	return &memory{chunk: chunk, total: total, left: total}
}

// chunks is how many chunks a body of size bytes needs: the whole budget
// when its size is not known (or is more than the budget, which the
// caller refuses before reading).
func (m *memory) chunks(size int64) int {
	if size < 0 {
		return m.total
	}
	return min(int((size+int64(m.chunk)-1)/int64(m.chunk)), m.total)
}

// tryReserve reserves n chunks if they are free and no one waits for
// chunks before it.
func (m *memory) tryReserve(n int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.queue) > 0 || m.left < n {
		return false
	}
	m.left -= n
	return true
}

// reserve waits for n chunks, in turn: a reservation of the whole budget
// is not starved by small ones. A caller must hold no reservation while
// it waits, so that no two wait on each other.
func (m *memory) reserve(ctx context.Context, n int) error {
	m.mu.Lock()
	if len(m.queue) == 0 && m.left >= n {
		m.left -= n
		m.mu.Unlock()
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	m.queue = append(m.queue, w)
	m.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-w.ready: // granted meanwhile
		m.left += n
	default:
		for i, q := range m.queue {
			if q == w {
				m.queue = append(m.queue[:i], m.queue[i+1:]...)
				break
			}
		}
	}
	m.grant()
	return context.Cause(ctx)
}

// release gives back n reserved chunks and the chunks used under them.
func (m *memory) release(n int, used [][]byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.left += n
	m.free = append(m.free, used...)
	m.grant()
}

// grant reserves chunks for the waiters at the head of the queue that
// they now fit. m.mu is held.
func (m *memory) grant() {
	for len(m.queue) > 0 && m.left >= m.queue[0].n {
		w := m.queue[0]
		m.queue = m.queue[1:]
		m.left -= w.n
		close(w.ready)
	}
}

// get returns a chunk, to be used under a reservation.
func (m *memory) get() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k := len(m.free); k > 0 {
		c := m.free[k-1]
		m.free = m.free[:k-1]
		return c
	}
	return make([]byte, m.chunk)
}

// held is a body kept in memory, in chunks of its memory's size.
type held struct {
	m        *memory
	reserved int
	parts    [][]byte
	n        int64
}

// errGrew is a file longer than its size said when it was opened.
var errGrew = errors.New("grew while it was read; verify it again when nothing writes to it")

// fill reads r to its end into h's reserved chunks.
func (h *held) fill(r io.Reader) error {
	c := h.m.chunk
	for {
		if h.n == int64(len(h.parts)*c) {
			if len(h.parts) == h.reserved {
				// The reservation is full: the body must end here.
				var one [1]byte
				n, err := io.ReadFull(r, one[:])
				switch {
				case n > 0:
					return errGrew
				case err == io.EOF:
					return nil
				}
				return err
			}
			h.parts = append(h.parts, h.m.get())
		}
		last := h.parts[len(h.parts)-1]
		n, err := r.Read(last[h.n%int64(c):])
		h.n += int64(n)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ReadAt reads the held bytes at off, for zip.
func (h *held) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	c := int64(h.m.chunk)
	n := 0
	for n < len(p) && off < h.n {
		part := h.parts[off/c]
		end := min(c, h.n-off/c*c)
		k := copy(p[n:], part[off%c:end])
		n += k
		off += int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// bytes returns the held bytes in one slice, which is valid only until h
// is released.
func (h *held) bytes() []byte {
	if len(h.parts) == 1 {
		return h.parts[0][:h.n]
	}
	return h.clone()
}

// clone returns a copy of the held bytes, which the caller keeps.
func (h *held) clone() []byte {
	b := make([]byte, h.n)
	h.ReadAt(b, 0)
	return b
}

// release gives the memory back; h must not be used after it.
func (h *held) release() {
	h.m.release(h.reserved, h.parts)
	h.parts, h.reserved = nil, 0
}
