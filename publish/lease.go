package publish

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// LeasePath is the object that keeps a second publish out of a bucket
// prefix while one runs: two at once interleave their stages, and one's
// prune can delete what the other is about to name. A folder target has
// a lock file beside it instead (outlock).
const LeasePath = ".skillpack/lease.json"

// LeaseTTL is how long a lease lasts unless renewed (every LeaseTTL/4),
// so only a killed publish leaves one behind, for LeaseTTL at most, and a
// publish that finds another's waits as long before it gives up.
const LeaseTTL = 2 * time.Minute

// A Swapper is a Bucket that writes an object only if it is as the caller
// last saw it (S3's conditional writes).
type Swapper interface {
	Bucket
	// Swap puts data at path if the object there has the ETag etag, or,
	// with etag "", if there is none, and returns the new ETag. Another
	// object, or one where none was expected, is ErrChanged; a store
	// without conditional writes, errors.ErrUnsupported.
	Swap(ctx context.Context, path string, data []byte, etag string) (string, error)
}

// ErrChanged is in the chain of a Swap refused because the object is not
// as the caller last saw it.
var ErrChanged = errors.New("the object changed")

// lease is the lease object's body.
type lease struct {
	Owner   string    `json:"owner"` // host and process, for people
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	ID      string    `json:"id"` // this run's, told apart from the same process's others
	Since   time.Time `json:"since"`
	Expires time.Time `json:"expires"`
}

// BusyError is a prefix another publish held for as long as a lease
// lasts: its owner, and when it took it.
type BusyError struct {
	Target string
	Owner  string
	Since  time.Time
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s: another publish has been running since %s (%s), and still is after %v: publish again once it has ended "+
		"(if none is running, delete %s/%s)", e.Target, e.Since.UTC().Format(time.RFC3339), e.Owner, LeaseTTL, e.Target, LeasePath)
}

// ExitClass is the command's exit code: 2, as for a build's busy DIST.
func (*BusyError) ExitClass() int { return 2 }

// A Lease is this run's hold on a prefix (Lock).
type Lease struct {
	bk     Swapper
	r      *Runner
	etag   string
	id     string
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// Lock takes the prefix of bk for this run, and renews it until Release;
// r runs each request. Another run's lease is waited for until it is
// released or expires (on this host, one whose process has ended is
// taken over at once), for ttl at most: still held then, it is a
// BusyError. The context returned ends, with the cause (Lost), if another
// run took the lease over after this one could not renew it in time.
func Lock(ctx context.Context, bk Swapper, r *Runner, ttl time.Duration, log io.Writer) (*Lease, context.Context, error) {
	host, _ := os.Hostname()
	owner := fmt.Sprintf("%s, process %d", host, os.Getpid())
	id, since := rand.Text(), r.now()
	body := func() []byte {
		data, _ := json.Marshal(lease{Owner: owner, Host: host, PID: os.Getpid(), ID: id, Since: since, Expires: r.now().Add(ttl)})
		return data
	}
	swap := func(etag string) (string, error) {
		return Retried(ctx, r, func(ctx context.Context) (string, error) {
			return bk.Swap(ctx, LeasePath, body(), etag)
		})
	}
	var waited *lease
	// Another host's lease seen unchanged for ttl was not renewed (every
	// ttl/4): its publish ended, whatever its Expires says (that host's
	// clock ahead of ours). On this host, the process tells. The wait
	// lasts a little longer than ttl, for that to be seen.
	var seen string
	var seenAt time.Time
	deadline := r.now().Add(ttl + ttl/12)
	for {
		etag, err := swap("")
		if errors.Is(err, ErrChanged) {
			var held lease
			var st Stored
			st, held, err = readLease(ctx, bk, r)
			if err == nil && st.ETag != seen {
				seen, seenAt = st.ETag, r.now()
			}
			if err == nil && !r.now().Before(held.Expires) {
				etag, err = swap(st.ETag) // expired: a killed run's
			} else if err == nil && held.Host != host && st.ETag != "" && r.now().Sub(seenAt) >= ttl {
				fmt.Fprintf(log, "publish: taking over the lease of a publish to %s not renewed for %v (%s; it says it lasts until %s)\n",
					bk, ttl, held.Owner, held.Expires.UTC().Format(time.RFC3339))
				etag, err = swap(st.ETag)
			} else if err == nil && held.ended(host) {
				fmt.Fprintf(log, "publish: taking over the lease of a publish to %s that ended without releasing it (%s)\n", bk, held.Owner)
				etag, err = swap(st.ETag)
			} else if err == nil {
				err = ErrChanged
			}
			if errors.Is(err, ErrChanged) {
				if held.Owner != "" && (waited == nil || waited.Owner != held.Owner) { // "": released since
					fmt.Fprintf(log, "publish: waiting for another publish to %s (%s, since %s)\n", bk, held.Owner, held.Since.UTC().Format(time.RFC3339))
					waited = &held
				}
				if !r.now().Before(deadline) {
					return nil, nil, &BusyError{Target: bk.String(), Owner: held.Owner, Since: held.Since}
				}
				if err := r.sleep(ctx, ttl/24); err != nil {
					return nil, nil, err
				}
				continue
			}
		}
		if err != nil {
			return nil, nil, err
		}
		// A store that ignores If-None-Match writes over a held lease all
		// the same: a second write where this one now is must be refused.
		if _, err := swap(""); !errors.Is(err, ErrChanged) {
			if err == nil {
				err = fmt.Errorf("%s: %w: it took a write conditional on no object over the lease just written", bk, errors.ErrUnsupported)
			}
			r.Call(ctx, func(ctx context.Context) error { return bk.Delete(ctx, LeasePath) })
			return nil, nil, err
		}
		lctx, cancel := context.WithCancelCause(ctx)
		l := &Lease{bk: bk, r: r, etag: etag, id: id, cancel: cancel, done: make(chan struct{})}
		go l.renew(lctx, ttl, body)
		return l, lctx, nil
	}
}

// readLease is the lease object and what it says.
func readLease(ctx context.Context, bk Bucket, r *Runner) (Stored, lease, error) {
	var st Stored
	var data []byte
	err := r.Call(ctx, func(ctx context.Context) (err error) {
		if st, err = bk.Stat(ctx, LeasePath); err == nil {
			data, err = readAll(ctx, bk, LeasePath, 4<<10)
		}
		return err
	})
	var held lease
	if errors.Is(err, os.ErrNotExist) {
		return st, held, ErrChanged // released since: try again
	}
	if err == nil && (json.Unmarshal(data, &held) != nil || held.Expires.IsZero()) {
		err = Refused{Err: fmt.Errorf("%s/%s: not a lease skillpack wrote; delete it if no publish is running", bk, LeasePath), Class: 1}
	}
	return st, held, err
}

// ended reports whether the lease is a killed run's on this host: its
// process is gone. Elsewhere, or where that cannot be known, it is waited
// for until it expires.
func (l lease) ended(host string) bool {
	if l.Host != host || l.PID <= 0 || l.PID == os.Getpid() {
		return false
	}
	p, err := os.FindProcess(l.PID)
	return err == nil && errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// renew extends the lease every ttl/4 until the run ends; a lease another
// run has taken ends the run's context. A renewal whose answer was lost
// may have been written all the same: the lease, still this run's, is
// kept.
func (l *Lease) renew(ctx context.Context, ttl time.Duration, body func() []byte) {
	defer close(l.done)
	t := time.NewTicker(ttl / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		etag, err := l.bk.Swap(ctx, LeasePath, body(), l.etag)
		switch {
		case errors.Is(err, ErrChanged):
			if st, ok := l.held(ctx); ok {
				l.etag = st.ETag
				continue
			}
			l.cancel(fmt.Errorf("%s: this publish's lease %s was taken over by another, which may be publishing now; publish again once it has ended", l.bk, LeasePath))
			return
		case err == nil:
			l.etag = etag
		} // else the next tick tries again, within the lease
	}
}

// Lost is why the lease ended before Release, or nil: the cause of the
// context Lock returned, unless that is its parent's end.
func Lost(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// held is the lease object, if it is still this run's.
func (l *Lease) held(ctx context.Context) (Stored, bool) {
	st, held, err := readLease(ctx, l.bk, l.r)
	return st, err == nil && held.ID == l.id
}

// Release gives the prefix up: the lease is deleted if it is still this
// run's, even when the run was interrupted.
func (l *Lease) Release() {
	l.cancel(context.Canceled)
	<-l.done
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, ok := l.held(ctx); ok { // else gone, or another's
		l.r.Call(ctx, func(ctx context.Context) error { return l.bk.Delete(ctx, LeasePath) })
	}
}
