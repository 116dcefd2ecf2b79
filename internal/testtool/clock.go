package testtool

import (
	"context"
	"sync"
	"time"
)

// Clock is a clock that only its Sleep moves, for tests of retries and
// their budgets: an outage of any length costs no time. Its Now and Sleep
// go where publish takes a clock (Runner.Now and Sleep, the targets'
// options).
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock that reads now until something sleeps.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Sleep moves the clock by d at once; it fails only when ctx is done.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}
