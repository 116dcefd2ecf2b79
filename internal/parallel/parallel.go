// Package parallel runs independent pieces of work on a bounded number of
// goroutines, so that every stage of skillpack bounds its time by the cores
// and its memory by the workers in the same way.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls fn(i) for every i in [0, n) on at most jobs goroutines (one
// per CPU when jobs <= 0) and returns the error of the lowest index that
// failed. After a failure no new index is started, so a build stops
// promptly; indexes already running finish.
func Each(n, jobs int, fn func(i int) error) error {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	var (
		next   atomic.Int64
		failed atomic.Bool
		mu     sync.Mutex
		first  = n
		err    error
		wg     sync.WaitGroup
	)
	for range min(jobs, n) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n && !failed.Load(); i = int(next.Add(1)) - 1 {
				if e := fn(i); e != nil {
					failed.Store(true)
					mu.Lock()
					if i < first {
						first, err = i, e
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return err
}
