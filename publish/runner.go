package publish

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/parallel"
)

// State is what became of an object in a run.
type State string

// The states of a Result.
const (
	Uploaded    State = "uploaded"     // sent: it was missing or held other bytes
	Present     State = "present"      // already there with the same digest: not sent
	Deleted     State = "deleted"      // removed by --prune
	WouldUpload State = "would-upload" // a dry run: it would be sent
	WouldDelete State = "would-delete" // a dry run: --prune would remove it
	Failed      State = "failed"       // the last attempt failed; Err says why
	Skipped     State = "skipped"      // not tried: an earlier stage failed, or the run was stopped
)

// Result is what a run did with one object.
type Result struct {
	Object   Object
	State    State
	Err      error // for Failed, and Skipped when the run was stopped
	Attempts int   // how many times the object was tried; 0 for Skipped
}

// MarshalJSON is the object, its state and the error as text: the line
// of publish --json for one object.
func (r Result) MarshalJSON() ([]byte, error) {
	var msg string
	if r.Err != nil {
		msg = r.Err.Error()
	}
	return json.Marshal(struct {
		Object
		State    State  `json:"state"`
		Error    string `json:"error,omitempty"`
		Attempts int    `json:"attempts,omitempty"`
	}{r.Object, r.State, msg, r.Attempts})
}

// Do is a target's work for one object: make it present (or remove it)
// and say which State that was. It must be safe to repeat after an error
// the Runner's Retryable accepts.
type Do func(ctx context.Context, o Object) (State, error)

// Defaults of a Runner's zero fields.
const (
	DefaultJobs       = 8
	DefaultBackoff    = 250 * time.Millisecond
	DefaultMaxBackoff = 15 * time.Second
	DefaultTimeout    = 2 * time.Minute
	// DefaultBudget outlasts the outages a server's restart or a
	// failover makes (seconds to tens of seconds), and is short enough
	// that a server that is down for good is reported within a minute.
	DefaultBudget = time.Minute
)

// ErrTimeout is the error of an attempt that did not end within the
// Runner's Timeout. It is always retried.
var ErrTimeout = errors.New("no answer in time")

// ErrUnavailable is in the chain of a request's error when the server
// kept failing in a way worth retrying until the retries ran out.
var ErrUnavailable = errors.New("the server kept failing")

// Runner runs a target's Do over a bundle's objects in the safe order:
// stage by stage, each starting only when every object of the one before
// succeeded; within a stage, Jobs objects at a time, started in the order
// given. An error Retryable accepts is tried again after a backoff that
// doubles from Backoff up to MaxBackoff, with full jitter (so that
// workers throttled at once do not come back at once), until Budget has
// passed since the request first failed; the wait is said on Log. The
// zero Runner is usable: zero fields mean the defaults, and nothing is
// retried.
type Runner struct {
	Retry
	MaxBackoff time.Duration // the largest bound; 0: DefaultMaxBackoff

	// Retryable tells the errors worth another try (a 5xx, throttling, a
	// connection reset); nil retries nothing, and an error of the run's
	// own context is never retried.
	Retryable func(error) bool

	// Report hears of every object once, when its fate is known, in no
	// particular order within a stage; calls never overlap.
	Report func(Result)

	// Ready, when not nil, is called before an object's first attempt,
	// outside its Timeout, and returns when the object may be sent (an
	// OCI manifest once its blobs are). It must wait only on objects given
	// to Run before o: a stage hands its objects out in order, so those
	// are running or done. An error leaves the object untried (Skipped,
	// with the error) and fails the stage; it should return when ctx ends.
	Ready func(ctx context.Context, o Object) error

	// Server names the server in what Log is told ("s3://bucket/prefix"),
	// and Command the command that waits ("": publish).
	Server  string
	Command string

	// StageName names a stage in the error of one that failed; nil names
	// it as a bucket's ("archives stage").
	StageName func(Stage) string

	mu     sync.Mutex // serializes Report, the progress line and Log
	logged time.Time  // when Log was last written
}

// Retry is how a target's requests are run and retried, as the target's
// Options take it: a Runner's settings, without the run's own hooks.
type Retry struct {
	Jobs     int           // requests at once; 0: the target's default (a Runner's: DefaultJobs)
	Attempts int           // tries per request, the first included; 0: as many as Budget allows
	Backoff  time.Duration // the first retry's bound; 0: DefaultBackoff
	// Budget is how long after its first failure a request is tried
	// again; 0: DefaultBudget. No retry starts after it.
	Budget time.Duration

	// Timeout bounds each attempt, so that a stalled connection is tried
	// again instead of holding a worker for ever; 0: DefaultTimeout.
	Timeout time.Duration

	// Progress, when not nil, gets a progress line redrawn in place
	// (carriage returns): give it a terminal only.
	Progress io.Writer

	// Log, when not nil (stderr), is told what a retry waits for and how
	// long, at most once a second.
	Log io.Writer

	// Sleep waits for d or until ctx ends (nil: a timer), and Now is the
	// Budget's clock (nil: time.Now); tests replace both.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
}

// Runner is a Runner with these settings (jobs is the target's default
// of Jobs) for the requests to server, retrying what retryable accepts.
func (o Retry) Runner(server string, jobs int, retryable func(error) bool) *Runner {
	o.Jobs = cmp.Or(o.Jobs, jobs)
	return &Runner{Retry: o, Retryable: retryable, Server: server}
}

// Run runs do for every object, in the safe order. It returns the first
// object's error that was not overcome by retries (naming the object), or
// the context's error when the run was stopped; every object is reported
// either way, those never tried as Skipped.
func (r *Runner) Run(ctx context.Context, objects []Object, do Do) error {
	objects = slices.Clone(objects)
	slices.SortStableFunc(objects, func(x, y Object) int { return cmp.Compare(x.Stage, y.Stage) })
	p := &progress{w: r.Progress, total: len(objects)}
	defer p.finish(&r.mu)

	var failed error
	for len(objects) > 0 {
		n := 1
		for n < len(objects) && objects[n].Stage == objects[0].Stage {
			n++
		}
		stage := objects[:n]
		objects = objects[n:]
		if failed == nil {
			failed = r.stage(ctx, stage, do, p)
		} else {
			for _, o := range stage {
				r.report(p, Result{Object: o, State: Skipped})
			}
		}
	}
	return failed
}

// stage runs one stage and reports every object of it.
func (r *Runner) stage(ctx context.Context, objects []Object, do Do, p *progress) error {
	tried := make([]bool, len(objects))
	err := parallel.Each(len(objects), cmp.Or(r.Jobs, DefaultJobs), func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		tried[i] = true
		o := objects[i]
		res := Result{Object: o, State: Skipped}
		var err error
		if r.Ready != nil {
			err = r.Ready(ctx, o)
		}
		if err == nil {
			res.State, res.Attempts, err = r.try(ctx, o, do)
		}
		res.Err = err
		r.report(p, res)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		}
		return fmt.Errorf("%s: %w", o.Path, err)
	})
	why := ctx.Err()
	err = cmp.Or(err, why) // stopped after the last object was handed out
	for i, o := range objects {
		if !tried[i] {
			r.report(p, Result{Object: o, State: Skipped, Err: why})
		}
	}
	if err != nil && why == nil {
		name := objects[0].Stage.String() + " stage"
		if r.StageName != nil {
			name = r.StageName(objects[0].Stage)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return err
}

// Call runs fn, one request that is not an object's (a listing, a
// read of a document), with the retries, backoff and timeout of the
// objects' requests.
func (r *Runner) Call(ctx context.Context, fn func(ctx context.Context) error) error {
	_, _, err := r.try(ctx, Object{}, func(ctx context.Context, _ Object) (State, error) { return "", fn(ctx) })
	return err
}

// Retried is what fn returns, run as r.Call runs it.
func Retried[T any](ctx context.Context, r *Runner, fn func(context.Context) (T, error)) (v T, err error) {
	err = r.Call(ctx, func(ctx context.Context) (err error) {
		v, err = fn(ctx)
		return err
	})
	return v, err
}

// try runs do until it succeeds, fails for good, or runs out of attempts
// or budget.
func (r *Runner) try(ctx context.Context, o Object, do Do) (State, int, error) {
	bound := cmp.Or(r.Backoff, DefaultBackoff)
	var first time.Time
	for n := 1; ; n++ {
		state, err := r.once(ctx, o, do)
		if err == nil {
			return state, n, nil
		}
		now := r.now()
		if n == 1 {
			first = now
		}
		left := first.Add(cmp.Or(r.Budget, DefaultBudget)).Sub(now)
		retry := errors.Is(err, ErrTimeout) || r.Retryable != nil && r.Retryable(err)
		switch {
		case ctx.Err() != nil || !retry:
			if n > 1 {
				err = fmt.Errorf("%w (after %d attempts)", err, n)
			}
			return Failed, n, err
		case left <= 0 || r.Attempts > 0 && n >= r.Attempts:
			return Failed, n, fmt.Errorf("%w (after %d attempts over %v: %w)", err, n, now.Sub(first).Round(time.Second), ErrUnavailable)
		}
		// Full jitter: anywhere up to the bound, and not past the budget.
		d := min(rand.N(bound)+1, left)
		r.waiting(err, d, left)
		if serr := r.sleep(ctx, d); serr != nil {
			// Stopped while waiting: what it waited for is the news.
			return Failed, n, fmt.Errorf("%w (after %d attempts, then %w)", err, n, serr)
		}
		bound = min(2*bound, cmp.Or(r.MaxBackoff, DefaultMaxBackoff))
	}
}

// waiting tells Log what a retry waits for, at most once a second: many
// workers meet the same outage at once.
func (r *Runner) waiting(err error, d, left time.Duration) {
	if r.Log == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if !r.logged.IsZero() && now.Sub(r.logged) < time.Second {
		return
	}
	r.logged = now
	if r.Progress != nil {
		fmt.Fprint(r.Progress, "\r\x1b[K") // the next result redraws it
	}
	fmt.Fprintf(r.Log, "%s: waiting for %s: %v; retrying in %v, giving up in %v\n",
		cmp.Or(r.Command, "publish"), cmp.Or(r.Server, "the server"), err, d.Round(100*time.Millisecond), left.Round(time.Second))
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// once is one attempt, bounded by Timeout.
func (r *Runner) once(ctx context.Context, o Object, do Do) (State, error) {
	actx, cancel := context.WithTimeoutCause(ctx, cmp.Or(r.Timeout, DefaultTimeout), ErrTimeout)
	defer cancel()
	state, err := do(actx, o)
	if err != nil && ctx.Err() == nil && context.Cause(actx) == ErrTimeout {
		err = fmt.Errorf("%w after %v: %w", ErrTimeout, cmp.Or(r.Timeout, DefaultTimeout), err)
	}
	return state, err
}

func (r *Runner) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	select {
	case <-time.After(d): // collected once it fires or is dropped (Go 1.23)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Runner) report(p *progress, res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Report != nil {
		r.Report(res)
	}
	p.add(res)
}

// progress is the line a Runner redraws on a terminal, at most every
// tenth of a second, so that a run of 200,000 present objects does not
// spend its time on the terminal.
type progress struct {
	w          io.Writer // nil: no line
	total      int
	done, sent int
	bytes      int64
	stage      Stage
	last       time.Time
	drawn      bool
}

// add counts a result, under the Runner's lock.
func (p *progress) add(r Result) {
	p.done++
	p.stage = r.Object.Stage
	if r.State == Uploaded {
		p.sent++
		p.bytes += r.Object.Size
	}
	if p.w == nil || time.Since(p.last) < 100*time.Millisecond && p.done < p.total {
		return
	}
	p.last = time.Now()
	p.drawn = true
	fmt.Fprintf(p.w, "\r\x1b[Kpublish: %s, %d of %d objects, %d sent (%s)", p.stage, p.done, p.total, p.sent, human.Bytes(p.bytes))
}

// finish clears the line, so that what is printed next starts clean.
func (p *progress) finish(mu *sync.Mutex) {
	mu.Lock()
	defer mu.Unlock()
	if p.w != nil && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
