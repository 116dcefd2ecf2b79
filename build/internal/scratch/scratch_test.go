package scratch

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// Records added at once come back whole, at their spots and in order of
// adding; the file leaves nothing behind.
func TestScratch(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 500
	want := make([][]byte, n)
	spots := make([]Spot, n)
	var wg sync.WaitGroup
	for i := range n {
		want[i] = bytes.Repeat([]byte(fmt.Sprintf("record %d;", i)), i%37)
		wg.Go(func() {
			at, err := s.Add(want[i])
			if err != nil {
				t.Error(err)
			}
			spots[i] = at
		})
	}
	wg.Wait()
	if err := s.Seal(); err != nil {
		t.Fatal(err)
	}
	for i, at := range spots {
		var got []byte
		err := s.Read(at, func(b []byte) error { got = bytes.Clone(b); return nil })
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Fatalf("record %d: %q, %v", i, got, err)
		}
	}
	seen := map[string]int{}
	if err := s.Scan(func(b []byte) bool { seen[string(b)]++; return true }); err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if seen[string(w)] == 0 {
			t.Errorf("Scan missed record %d", i)
		}
	}
	stop := 0
	s.Scan(func([]byte) bool { stop++; return stop < 3 })
	if stop != 3 {
		t.Errorf("Scan went on after fn returned false: %d calls", stop)
	}
}
