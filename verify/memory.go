package verify

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"
)

// memory is where verify holds the bytes it must see whole: a document
// to decode, an archive to unpack, a signature to check (everything else
// is hashed as it streams). It is one slab of MaxSize+1 bytes (in whole
// chunks), made at first use and shared by all the workers: a body is read
// into consecutive chunks reserved for it, handed on as a slice of the
// slab, and the chunks are given back. So a body is never copied (a
// doubling buffer leaves up to twice its size for the collector), a server
// that sends a huge body for every file makes verify fill the same slab
// again, and the workers together hold at most one largest file: the peak
// stays near one --max-size buffer.
type memory struct {
	chunk int // bytes in a chunk
	total int // chunks in the slab

	mu    sync.Mutex
	slab  []byte
	used  []bool    // reserved chunks
	queue []*waiter // reservations that wait, served in turn
}

type waiter struct {
	n     int
	h     *held
	ready chan struct{} // closed when h is reserved
}

func newMemory(maxSize int64) *memory {
	chunk := int(min(maxSize+1, 1<<20))
	total := int((maxSize + int64(chunk)) / int64(chunk)) // ⌈(maxSize+1)/chunk⌉
	return &memory{chunk: chunk, total: total, used: make([]bool, total)}
}

// chunks is how many chunks a body of size bytes needs: all of them when
// its size is not known (or is more than the slab, which the caller
// refuses before reading).
func (m *memory) chunks(size int64) int {
	if size < 0 {
		return m.total
	}
	return min(int((size+int64(m.chunk)-1)/int64(m.chunk)), m.total)
}

// fit reserves the first n consecutive free chunks, or returns nil.
// m.mu is held.
func (m *memory) fit(n int) *held {
	if m.slab == nil {
		m.slab = make([]byte, m.total*m.chunk)
	}
	if n == 0 {
		return &held{m: m, room: []byte{}}
	}
	for i, run := 0, 0; i < m.total; i++ {
		if run++; m.used[i] {
			run = 0
		} else if run == n {
			at := i + 1 - n
			for j := at; j <= i; j++ {
				m.used[j] = true
			}
			return &held{m: m, room: m.slab[at*m.chunk : (i+1)*m.chunk : (i+1)*m.chunk], at: at, n: n}
		}
	}
	return nil
}

// tryReserve reserves room for a body of n chunks if it is free and no
// one waits before.
func (m *memory) tryReserve(n int) (*held, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.queue) > 0 {
		return nil, false
	}
	h := m.fit(n)
	return h, h != nil
}

// reserve waits for room for a body of n chunks, in turn: a reservation of
// the whole slab is not starved by small ones. A caller must hold no
// reservation while it waits, so that no two wait on each other.
func (m *memory) reserve(ctx context.Context, n int) (*held, error) {
	w := &waiter{n: n, ready: make(chan struct{})}
	m.mu.Lock()
	m.queue = append(m.queue, w)
	m.grant()
	m.mu.Unlock()
	select {
	case <-w.ready:
		return w.h, nil
	case <-ctx.Done():
	}
	m.mu.Lock()
	if i := slices.Index(m.queue, w); i >= 0 {
		m.queue = slices.Delete(m.queue, i, i+1)
		m.grant()
		m.mu.Unlock()
	} else { // granted meanwhile
		m.mu.Unlock()
		w.h.release()
	}
	return nil, context.Cause(ctx)
}

// grant reserves room for the waiters at the head of the queue that now
// fit. m.mu is held.
func (m *memory) grant() {
	for len(m.queue) > 0 {
		w := m.queue[0]
		if w.h = m.fit(w.n); w.h == nil {
			return
		}
		m.queue = m.queue[1:]
		close(w.ready)
	}
}

// held is a body kept in memory: buf, at the start of room, the slab's
// chunks reserved for it.
type held struct {
	m     *memory
	room  []byte
	at, n int // the reserved chunks
	buf   []byte
}

// errGrew is a file longer than its size said when it was opened.
var errGrew = errors.New("grew while it was read; verify it again when nothing writes to it")

// fill reads r to its end into h's room.
func (h *held) fill(r io.Reader) error {
	n, err := io.ReadFull(r, h.room)
	h.buf = h.room[:n]
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return nil
	case err != nil:
		return err
	}
	// The room is full: the body must end here.
	var one [1]byte
	if n, err := io.ReadFull(r, one[:]); n > 0 {
		return errGrew
	} else if err != io.EOF {
		return err
	}
	return nil
}

// bytes returns the body, which is valid only until h is released.
func (h *held) bytes() []byte { return h.buf }

// release gives the chunks back; h must not be used after it.
func (h *held) release() {
	m := h.m
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.used[h.at : h.at+h.n])
	h.n, h.room, h.buf = 0, nil, nil
	m.grant()
}
