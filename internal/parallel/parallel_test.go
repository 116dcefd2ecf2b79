package parallel

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestEachRunsEveryIndexOnce(t *testing.T) {
	for _, jobs := range []int{0, 1, 3, 64} {
		seen := make([]atomic.Int32, 1000)
		if err := Each(len(seen), jobs, func(i int) error { seen[i].Add(1); return nil }); err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if n := seen[i].Load(); n != 1 {
				t.Fatalf("jobs %d: index %d ran %d times", jobs, i, n)
			}
		}
	}
	if err := Each(0, 4, func(int) error { t.Fatal("called with n = 0"); return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestEachBoundsWorkers(t *testing.T) {
	var running, most atomic.Int32
	Each(200, 3, func(int) error {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		defer running.Add(-1)
		for range 1000 {
			_ = fmt.Sprint()
		}
		return nil
	})
	if m := most.Load(); m > 3 || m < 1 {
		t.Fatalf("%d workers ran at once, want 1 to 3", m)
	}
}

func TestEachStopsAtFirstError(t *testing.T) {
	var ran atomic.Int32
	boom := errors.New("boom")
	err := Each(10000, 1, func(i int) error {
		ran.Add(1)
		if i == 5 {
			return fmt.Errorf("index %d: %w", i, boom)
		}
		return nil
	})
	if !errors.Is(err, boom) || err.Error() != "index 5: boom" {
		t.Fatalf("err = %v", err)
	}
	if n := ran.Load(); n != 6 {
		t.Fatalf("one worker ran %d indexes, want 6: no new index starts after a failure", n)
	}
}
