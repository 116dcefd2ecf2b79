package verify

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"testing/iotest"
)

func reserve(t *testing.T, m *memory, size int64) *held {
	t.Helper()
	h, err := m.reserve(context.Background(), m.chunks(size))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A body is held whole in consecutive chunks of the slab, read in any
// sizes; the chunks come back for the next body.
func TestHeld(t *testing.T) {
	m := newMemory(3 << 20)
	if m.chunk != 1<<20 || m.total != 4 {
		t.Fatalf("chunk %d, total %d; want 1 MiB and 4", m.chunk, m.total)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), (2<<20+12345)/16)
	small := reserve(t, m, 10)
	h := reserve(t, m, int64(len(data)))
	if err := h.fill(iotest.HalfReader(bytes.NewReader(data))); err != nil || !bytes.Equal(h.bytes(), data) {
		t.Fatalf("fill: %v; the bytes held differ from the body", err)
	}
	if _, ok := m.tryReserve(2); ok {
		t.Fatal("reserved two chunks where one is free")
	}
	small.release()
	h.release()
	if h, ok := m.tryReserve(m.total); !ok || len(h.room) != m.total*m.chunk {
		t.Fatal("the slab is not whole again")
	} else {
		h.release()
	}
}

// A file longer than its size said is refused, not read past the room
// reserved for it, and an empty body is held as an empty, non-nil slice.
func TestHeldGrew(t *testing.T) {
	m := newMemory(100)
	h := reserve(t, m, 50)
	if err := h.fill(bytes.NewReader(make([]byte, 102))); !errors.Is(err, errGrew) {
		t.Fatalf("err = %v, want errGrew", err)
	}
	h.release()
	h = reserve(t, m, 0)
	if err := h.fill(bytes.NewReader(nil)); err != nil || h.bytes() == nil || len(h.bytes()) != 0 {
		t.Fatalf("empty body: %v, %q", err, h.bytes())
	}
	h.release()
}

// Reservations wait their turn: a small one does not pass one for the
// whole slab, and a cancelled one gives its place back.
func TestMemoryReserve(t *testing.T) {
	m := newMemory(4<<20 - 1) // four chunks
	first := reserve(t, m, 1)
	whole := make(chan *held)
	go func() { whole <- reserve(t, m, -1) }()
	for waiting := 0; waiting == 0; {
		m.mu.Lock()
		waiting = len(m.queue)
		m.mu.Unlock()
	}
	if _, ok := m.tryReserve(1); ok {
		t.Fatal("a small reservation passed one that waits for the whole slab")
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.reserve(cancelled, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled reserve: %v", err)
	}
	first.release()
	h := <-whole
	if h.at != 0 || h.n != m.total || len(m.queue) != 0 {
		t.Fatalf("reserved chunks %d to %d, %d waiting; want the whole slab, none waiting", h.at, h.at+h.n, len(m.queue))
	}
	h.release()
}
