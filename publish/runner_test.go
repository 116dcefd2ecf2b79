package publish

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
)

// Stages lists every stage in publishing order.
var Stages = []Stage{Archives, Files, MCP, Indexes, Record}

func objects(perStage int) []Object {
	var out []Object
	// Given out of order: the runner orders them by stage.
	for i := len(Stages) - 1; i >= 0; i-- {
		for j := range perStage {
			out = append(out, Object{Path: fmt.Sprintf("%s/%d", Stages[i], j), Stage: Stages[i]})
		}
	}
	return out
}

var errFlaky = errors.New("503 slow down")

func noSleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

// No object of a stage starts before every object of the stages before
// it has succeeded, whatever the concurrency.
func TestRunnerStageBarrier(t *testing.T) {
	for _, jobs := range []int{1, 3, 16} {
		var mu sync.Mutex
		done := map[Stage]int{}
		var results []Result
		r := &Runner{Retry: Retry{Jobs: jobs, Sleep: noSleep}, Retryable: func(err error) bool { return errors.Is(err, errFlaky) },
			Report: func(res Result) { results = append(results, res) }}
		var calls atomic.Int32
		err := r.Run(context.Background(), objects(20), func(ctx context.Context, o Object) (State, error) {
			mu.Lock()
			for s := Archives; s < o.Stage; s++ {
				if done[s] != 20 {
					t.Errorf("jobs %d: %s started with %d of stage %s done", jobs, o.Path, done[s], s)
				}
			}
			mu.Unlock()
			if calls.Add(1)%3 == 0 {
				return "", errFlaky // overcome by a retry
			}
			mu.Lock()
			done[o.Stage]++
			mu.Unlock()
			return Uploaded, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != 100 {
			t.Errorf("%d results, want 100", len(results))
		}
		for _, res := range results {
			if res.State != Uploaded || res.Attempts < 1 {
				t.Errorf("%+v", res)
			}
		}
	}
}

// A failure that retries do not overcome stops the run at its stage: the
// later stages are not tried, and every object is reported.
func TestRunnerStopsAtAFailedStage(t *testing.T) {
	states := map[Stage]map[State]int{}
	var attempts atomic.Int32
	var slept []time.Duration
	r := &Runner{MaxBackoff: 3 * time.Second,
		Retry: Retry{Jobs: 2, Attempts: 4, Backoff: time.Second,
			Sleep: func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }},
		Retryable: func(err error) bool { return errors.Is(err, errFlaky) },
		Report: func(res Result) {
			if states[res.Object.Stage] == nil {
				states[res.Object.Stage] = map[State]int{}
			}
			states[res.Object.Stage][res.State]++
		}}
	err := r.Run(context.Background(), objects(5), func(ctx context.Context, o Object) (State, error) {
		if o.Path == "files/3" {
			attempts.Add(1)
			return "", errFlaky
		}
		return Present, nil
	})
	if err == nil || !strings.Contains(err.Error(), "files/3") || !strings.Contains(err.Error(), "after 4 attempts") || !errors.Is(err, errFlaky) {
		t.Fatalf("error %v", err)
	}
	if attempts.Load() != 4 {
		t.Errorf("%d attempts, want 4", attempts.Load())
	}
	for i, d := range slept {
		if bound := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}[i]; d <= 0 || d > bound {
			t.Errorf("retry %d waited %v, want up to %v", i+1, d, bound)
		}
	}
	if states[Archives][Present] != 5 || states[Files][Failed] != 1 || states[Files][Present]+states[Files][Skipped] != 4 {
		t.Errorf("archives and files: %v", states)
	}
	for _, s := range []Stage{MCP, Indexes, Record} {
		if states[s][Skipped] != 5 {
			t.Errorf("stage %s: %v, want all skipped", s, states[s])
		}
	}

	// An error the target does not call retryable is tried once.
	attempts.Store(0)
	err = (&Runner{Retryable: func(error) bool { return false }}).Run(context.Background(), objects(1),
		func(ctx context.Context, o Object) (State, error) { attempts.Add(1); return "", errors.New("403") })
	if err == nil || attempts.Load() != 1 {
		t.Errorf("%v after %d attempts", err, attempts.Load())
	}
}

// A cancelled run returns the context's error, tries nothing more and
// reports the rest as skipped.
func TestRunnerCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var after atomic.Int32
	skipped := 0
	r := &Runner{Retry: Retry{Jobs: 1}, Retryable: func(error) bool { return true }, Report: func(res Result) {
		if res.State == Skipped {
			skipped++
		}
	}}
	err := r.Run(ctx, objects(4), func(ctx context.Context, o Object) (State, error) {
		if o.Stage > Files {
			after.Add(1)
		}
		if o.Path == "files/1" {
			cancel()
			return "", ctx.Err()
		}
		return Uploaded, nil
	})
	if !errors.Is(err, context.Canceled) || after.Load() != 0 || skipped != 14 {
		t.Errorf("error %v, %d objects after the stage, %d skipped (want 14)", err, after.Load(), skipped)
	}
}

// An attempt that hangs is given up at the Timeout and tried again.
func TestRunnerTimesOutAStalledAttempt(t *testing.T) {
	var calls atomic.Int32
	r := &Runner{Retry: Retry{Timeout: 20 * time.Millisecond, Sleep: noSleep}}
	err := r.Run(context.Background(), objects(1)[:1], func(ctx context.Context, o Object) (State, error) {
		if calls.Add(1) == 1 {
			<-ctx.Done() // a stalled server: only the timeout ends it
			return "", ctx.Err()
		}
		return Uploaded, nil
	})
	if err != nil || calls.Load() != 2 {
		t.Errorf("error %v after %d calls, want success on the second", err, calls.Load())
	}
}

// The progress line is redrawn in place and cleared at the end, so that
// what is printed next starts on a clean line.
func TestRunnerProgress(t *testing.T) {
	var out strings.Builder
	r := &Runner{Retry: Retry{Progress: &out}}
	objs := objects(2)
	for i := range objs {
		objs[i].Size = 1500
	}
	if err := r.Run(context.Background(), objs, func(context.Context, Object) (State, error) { return Uploaded, nil }); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.HasPrefix(s, "\r\x1b[Kpublish: ") || !strings.HasSuffix(s, "\r\x1b[K") ||
		!strings.Contains(s, "record, 10 of 10 objects, 10 sent (14.6 KiB)") || strings.Contains(s, "\n") {
		t.Errorf("progress %q", s)
	}
	out.Reset()
	(&Runner{}).Run(context.Background(), objs, func(context.Context, Object) (State, error) { return Present, nil })
	if out.Len() != 0 {
		t.Errorf("no Progress, yet %q", out.String())
	}
}

// Objects that wait for earlier ones of their stage (Ready) are sent only
// once those are reported; one whose dependency failed while it waited
// is not tried and is reported skipped with the reason, and the stage
// fails with the dependency's error.
func TestRunnerReady(t *testing.T) {
	for _, jobs := range []int{1, 2, 8} {
		// blob/i and then manifest/i, for 50 pairs, in one stage. With
		// more than one job, blob/7 fails for good once manifest/7 waits
		// for it.
		var objs []Object
		for i := range 50 {
			objs = append(objs, Object{Path: fmt.Sprintf("blob/%d", i)}, Object{Path: fmt.Sprintf("manifest/%d", i)})
		}
		done := map[string]chan struct{}{}
		for _, o := range objs {
			done[o.Path] = make(chan struct{})
		}
		waiting := make(chan struct{})
		var mu sync.Mutex
		states := map[string]State{}
		errs := map[string]error{}
		r := &Runner{Retry: Retry{Jobs: jobs, Sleep: noSleep},
			Ready: func(ctx context.Context, o Object) error {
				blob, ok := strings.CutPrefix(o.Path, "manifest/")
				if !ok {
					return nil
				}
				if blob == "7" {
					close(waiting)
				}
				select {
				case <-done["blob/"+blob]:
				case <-ctx.Done():
					return ctx.Err()
				}
				mu.Lock()
				defer mu.Unlock()
				if states["blob/"+blob] != Uploaded {
					return fmt.Errorf("blob %s is not there", blob)
				}
				return nil
			},
			Report: func(res Result) {
				mu.Lock()
				states[res.Object.Path], errs[res.Object.Path] = res.State, res.Err
				mu.Unlock()
				close(done[res.Object.Path])
			}}
		err := r.Run(context.Background(), objs, func(ctx context.Context, o Object) (State, error) {
			if o.Path == "blob/7" && jobs > 1 {
				<-waiting
				return "", errors.New("refused")
			}
			if blob, ok := strings.CutPrefix(o.Path, "manifest/"); ok {
				select {
				case <-done["blob/"+blob]:
				default:
					t.Errorf("jobs %d: %s sent before its blob was reported", jobs, o.Path)
				}
			}
			return Uploaded, nil
		})
		if len(states) != len(objs) {
			t.Errorf("jobs %d: %d objects reported, want %d", jobs, len(states), len(objs))
		}
		if jobs == 1 {
			if err != nil {
				t.Errorf("jobs 1: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "blob/7: refused") {
			t.Errorf("jobs %d: error %v, want blob/7's", jobs, err)
		}
		if states["manifest/7"] != Skipped || errs["manifest/7"] == nil || !strings.Contains(errs["manifest/7"].Error(), "blob 7 is not there") {
			t.Errorf("jobs %d: manifest/7 is %s (%v), want skipped because of its blob", jobs, states["manifest/7"], errs["manifest/7"])
		}
	}
}

// A server that refuses every request for 10 seconds is waited out, and
// the wait is said; one that is down for longer than the budget fails
// within it, with ErrUnavailable in the chain.
func TestRunnerOutlastsAnOutage(t *testing.T) {
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for _, outage := range []time.Duration{10 * time.Second, time.Hour} {
		clock := testtool.NewClock(start)
		var log strings.Builder
		var attempts atomic.Int32
		// One at a time: every sleep moves the one clock.
		r := &Runner{Retry: Retry{Jobs: 1, Log: &log, Now: clock.Now, Sleep: clock.Sleep}, Server: "s3://skills/site",
			Retryable: func(err error) bool { return errors.Is(err, errFlaky) }}
		err := r.Run(context.Background(), objects(2), func(ctx context.Context, o Object) (State, error) {
			attempts.Add(1)
			if clock.Now().Sub(start) < outage {
				return "", fmt.Errorf("put %s: %w", o.Path, errFlaky)
			}
			return Uploaded, nil
		})
		waited := clock.Now().Sub(start)
		if outage < DefaultBudget {
			if err != nil || attempts.Load() <= 6 {
				t.Errorf("a %v outage: %v after %d attempts", outage, err, attempts.Load())
			}
		} else if !errors.Is(err, ErrUnavailable) || !errors.Is(err, errFlaky) || waited > DefaultBudget {
			t.Errorf("a %v outage: error %v after waiting %v", outage, err, waited)
		}
		if !strings.Contains(log.String(), "publish: waiting for s3://skills/site: put archives/") || !strings.Contains(log.String(), "retrying in") || !strings.Contains(log.String(), "giving up in 1m0s") {
			t.Errorf("a %v outage: the log says\n%s", outage, log.String())
		}
		if lines := strings.Count(log.String(), "\n"); lines > int(waited/time.Second)+1 {
			t.Errorf("a %v outage: %d lines of log over %v", outage, lines, waited)
		}
	}
}
