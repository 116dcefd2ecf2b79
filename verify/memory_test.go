package verify

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// reserved is a held body with memory reserved for size bytes.
func reserved(t *testing.T, m *memory, size int64) *held {
	t.Helper()
	n := m.chunks(size)
	if err := m.reserve(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	return &held{m: m, reserved: n}
}

// A body held in chunks reads back as it came, at any offset, as zip
// reads it.
func TestHeldReadAt(t *testing.T) {
	m := newMemory(3 << 20)
	if m.chunk != 1<<20 || m.total != 4 {
		t.Fatalf("chunk %d, total %d; want 1 MiB and 4", m.chunk, m.total)
	}
	data := make([]byte, 2<<20+12345)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	h := reserved(t, m, int64(len(data)))
	// One byte a read: chunk boundaries fall inside reads' ends.
	if err := h.fill(iotest.OneByteReader(bytes.NewReader(data[:3000]))); err != nil {
		t.Fatal(err)
	}
	h.release()
	h = reserved(t, m, int64(len(data)))
	if err := h.fill(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := iotest.TestReader(io.NewSectionReader(h, 0, h.n), data); err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 1<<20 - 1, 1 << 20, 2<<20 + 12000, int64(len(data))} {
		got := make([]byte, 1000)
		n, err := h.ReadAt(got, off)
		want := data[min(off, int64(len(data))):min(off+1000, int64(len(data)))]
		if !bytes.Equal(got[:n], want) || (n < len(got)) != (err == io.EOF) {
			t.Errorf("ReadAt(%d): %d bytes, %v", off, n, err)
		}
	}
	if !bytes.Equal(h.clone(), data) || !bytes.Equal(h.bytes(), data) {
		t.Error("the held bytes differ from the body")
	}
	h.release()
	if m.left != m.total || len(m.free) != 3 {
		t.Errorf("after release: %d of %d chunks left, %d free; want all back", m.left, m.total, len(m.free))
	}
}

// A file longer than its size said is refused, not read past what was
// reserved for it.
func TestHeldGrew(t *testing.T) {
	m := newMemory(100)
	h := reserved(t, m, 50)
	if err := h.fill(bytes.NewReader(make([]byte, 102))); !errors.Is(err, errGrew) {
		t.Fatalf("err = %v, want errGrew", err)
	}
	h.release()
	h = reserved(t, m, 0)
	if err := h.fill(bytes.NewReader(nil)); err != nil || h.bytes() == nil || len(h.bytes()) != 0 {
		t.Fatalf("empty body: %v, %q", err, h.bytes())
	}
}

// Reservations wait their turn: a small one does not pass one for the
// whole budget, and a cancelled one gives its place back.
func TestMemoryReserve(t *testing.T) {
	m := newMemory(4<<20 - 1) // four chunks
	ctx := context.Background()
	if err := m.reserve(ctx, 1); err != nil {
		t.Fatal(err)
	}
	whole := make(chan error)
	go func() { whole <- m.reserve(ctx, m.total) }()
	for waiting := 0; waiting == 0; {
		m.mu.Lock()
		waiting = len(m.queue)
		m.mu.Unlock()
	}
	if m.tryReserve(1) {
		t.Fatal("a small reservation passed one that waits for the whole budget")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.reserve(cancelled, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled reserve: %v", err)
	}
	m.release(1, nil)
	if err := <-whole; err != nil {
		t.Fatal(err)
	}
	if m.left != 0 || len(m.queue) != 0 {
		t.Fatalf("%d chunks left, %d waiting; want the whole budget reserved, none waiting", m.left, len(m.queue))
	}
	m.release(m.total, nil)
	if !m.tryReserve(m.total) {
		t.Fatal("the budget is not whole again")
	}
}
