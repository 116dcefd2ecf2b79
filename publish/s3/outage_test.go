package s3

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/publish"
)

// A bucket that refuses every request for 10 seconds (errors, throttling,
// connections cut) is waited out with the default budget, and the wait
// is said; one that never comes back ends the run within the budget with
// publish.ErrUnavailable, which the command reports as the server's
// failure, not skillpack's.
func TestOutage(t *testing.T) { testOutage(t, fakeServer(t)) }

func testOutage(t *testing.T, s *server) {
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for _, outage := range []time.Duration{10 * time.Second, time.Hour} {
		c := testtool.NewClock(start)
		kinds := []fault{fail500, slowDown, cut}
		n := 0
		s.proxy.mu.Lock()
		s.proxy.choose = func(*http.Request) fault {
			if c.Now().Sub(start) >= outage {
				return pass
			}
			n++
			return kinds[n%len(kinds)]
		}
		s.proxy.mu.Unlock()
		o := s.options()
		o.Backoff, o.Attempts = 0, 0               // the default backoff and budget, on the test's clock
		o.Jobs, o.Now, o.Sleep = 1, c.Now, c.Sleep // one at a time: every sleep moves the one clock
		var log strings.Builder
		o.Log = &log
		err := Publish(context.Background(), b, s.target("outage"), o, nil)
		s.proxy.noFaults()
		waited := c.Now().Sub(start)
		if outage < publish.DefaultBudget {
			if err != nil {
				t.Fatalf("a %v outage: %v", outage, err)
			}
			got := s.objects("outage")
			matches(t, s, got, b)
			consistent(t, got, true)
		} else if !errors.Is(err, publish.ErrUnavailable) || waited > publish.DefaultBudget+time.Second {
			t.Errorf("a %v outage: error %v after %v", outage, err, waited)
		}
		if !strings.Contains(log.String(), "publish: waiting for s3://skills/outage: ") || !strings.Contains(log.String(), "giving up in 1m0s") {
			t.Errorf("a %v outage: the log says\n%s", outage, log.String())
		}
		t.Logf("a %v outage: %d requests refused, %v waited, %v\n%s", outage, n, waited, err, log.String())
	}
}
