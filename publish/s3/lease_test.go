package s3

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"

	"github.com/skillpack/skillpack/publish"
)

// The lease against a server with conditional writes (versitygw's; AWS,
// R2 and MinIO keep them too): a second run waits for the first and
// gives up when it holds on, a killed run's expired lease is taken over,
// a lease taken over ends the run that lost it, a lease skillpack did not
// write is refused, and two publishes with --prune started at once both
// end complete, one after the other.
func TestLeaseFake(t *testing.T) { testLease(t, fakeServer(t)) }

func testLease(t *testing.T, s *server) {
	ctx := context.Background()
	o := s.options()
	bk, err := OpenBucket(s.target("leased"), o)
	if err != nil {
		t.Fatal(err)
	}
	runner := func() *publish.Runner { return o.Runner(bk.String(), DefaultJobs, Retryable) }
	key := "leased/" + publish.LeasePath
	ttl := 400 * time.Millisecond

	a, actx, err := publish.Lock(ctx, bk, runner(), ttl, nil)
	if err != nil {
		t.Fatal(err)
	}
	var held struct{ Owner string }
	if data, ok := s.get(key); !ok || json.Unmarshal([]byte(data), &held) != nil || !strings.Contains(held.Owner, "process") {
		t.Fatalf("the lease holds %q", data)
	}
	// Held and renewed past its ttl: the second run waits, then gives up.
	var log bytes.Buffer
	start := time.Now()
	_, _, err = publish.Lock(ctx, bk, runner(), ttl, &log)
	var busy *publish.BusyError
	if !errors.As(err, &busy) || busy.ExitClass() != 2 || time.Since(start) < ttl || !strings.Contains(log.String(), "waiting for another publish to "+bk.String()) {
		t.Fatalf("second Lock after %v: %v, log %q; want a BusyError after waiting %v", time.Since(start), err, log.String(), ttl)
	}
	if actx.Err() != nil {
		t.Fatal("the holder's run ended")
	}
	// A renewal written whose answer was lost: the lease is still this
	// run's, renewed and then released.
	data, _ := s.get(key)
	var mine map[string]any
	if err := json.Unmarshal([]byte(data), &mine); err != nil {
		t.Fatal(err)
	}
	mine["expires"] = time.Now().Add(ttl).UTC().Format(time.RFC3339Nano)
	lost, _ := json.Marshal(mine)
	s.put(key, string(lost))
	time.Sleep(ttl)
	if err := publish.Lost(actx); err != nil {
		t.Fatalf("a renewal whose answer was lost: %v", err)
	}
	a.Release()
	if _, ok := s.get(key); ok {
		t.Fatal("Release left the lease")
	}

	// A killed run's lease on this host, not expired: taken over at once
	// when its process is gone, waited for while it runs.
	host, _ := os.Hostname()
	for _, live := range []bool{false, true} {
		cmd := exec.Command("sleep", "30")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !live {
			cmd.Process.Kill()
			cmd.Wait()
		}
		held, _ := json.Marshal(map[string]any{"owner": "killed", "host": host, "pid": cmd.Process.Pid, "since": time.Now(), "expires": time.Now().Add(time.Hour)})
		s.put(key, string(held))
		log.Reset()
		l, _, err := publish.Lock(ctx, bk, runner(), ttl, &log)
		if live {
			cmd.Process.Kill()
			cmd.Wait()
			if !errors.As(err, &busy) {
				t.Fatalf("the lease of a process still running here: %v, log %q; want a BusyError", err, log.String())
			}
			continue
		}
		if err != nil || !strings.Contains(log.String(), "taking over the lease of a publish to "+bk.String()+" that ended without releasing it (killed)") {
			t.Fatalf("the lease of a process gone from this host: %v, log %q", err, log.String())
		}
		l.Release()
	}

	// Another host's lease that says it lasts a day (that host's clock
	// ahead of ours), never renewed: taken over once unchanged for ttl
	// (every publish waited, then gave up, until that day).
	s.put(key, `{"owner": "ci-runner-7, process 9", "host": "ci-runner-7", "pid": 9, "since": "2099-01-01T00:00:00Z", "expires": "2099-01-02T00:00:00Z"}`)
	log.Reset()
	start = time.Now()
	c, _, err := publish.Lock(ctx, bk, runner(), ttl, &log)
	if err != nil || !strings.Contains(log.String(), "not renewed for "+ttl.String()) || time.Since(start) < ttl {
		t.Fatalf("a lease from a clock ahead, not renewed: %v after %v, log %q", err, time.Since(start), log.String())
	}
	c.Release()

	// A killed run's lease, expired: taken over at once.
	s.put(key, `{"owner": "ci-7, process 42", "since": "2026-01-02T03:04:05Z", "expires": "2026-01-02T03:06:05Z"}`)
	log.Reset()
	b, bctx, err := publish.Lock(ctx, bk, runner(), ttl, &log)
	if err != nil || log.Len() > 0 {
		t.Fatalf("an expired lease: %v, log %q", err, log.String())
	}
	// Taken over by another while held: the run that lost it ends.
	s.put(key, `{"owner": "ci-8, process 43", "since": "2026-01-02T03:04:05Z", "expires": "2099-01-02T03:06:05Z"}`)
	select {
	case <-bctx.Done():
		if err := publish.Lost(bctx); err == nil || !strings.Contains(err.Error(), "taken over") {
			t.Errorf("lost lease: %v", err)
		}
	case <-time.After(10 * ttl):
		t.Fatal("a run whose lease was taken over goes on")
	}
	b.Release()
	if data, _ := s.get(key); !strings.Contains(data, "ci-8") {
		t.Errorf("Release deleted another run's lease: %q", data)
	}

	// Not a lease skillpack wrote: refused, not waited for.
	s.put(key, "<html>")
	if _, _, err := publish.Lock(ctx, bk, runner(), ttl, nil); err == nil || !strings.Contains(err.Error(), "not a lease skillpack wrote") {
		t.Fatalf("a foreign lease object: %v", err)
	}
	s.proxy.pause()
	if err := s.client().RemoveObject(ctx, testBucket, key, minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	s.proxy.resume()

	// Two publishes with --prune at once, with a lease as long as a
	// publish here takes: both end complete, one waiting for the other.
	defer func(d time.Duration) { leaseTTL = d }(leaseTTL)
	leaseTTL = time.Minute
	skills := tree(t)
	var bundles [2]*publish.Upload
	for i := range bundles {
		change(t, skills, i+1)
		bundles[i] = builtBundle(t, skills, filepath.Join(t.TempDir(), "dist"))
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	logs := make([]bytes.Buffer, 2)
	for i, b := range bundles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := s.options()
			o.Prune, o.Keep, o.Log = true, 1, &logs[i]
			errs[i] = Publish(ctx, b, s.target("leased"), o, nil)
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || !strings.Contains(logs[0].String()+logs[1].String(), "waiting for another publish") {
		t.Fatalf("concurrent publishes: %v, %v; logs %q, %q", errs[0], errs[1], logs[0].String(), logs[1].String())
	}
	got := s.objects("leased")
	if _, ok := got[publish.LeasePath]; ok {
		t.Error("the lease is left")
	}
	// The prefix serves the release that ended last, whole.
	var last *publish.Upload
	for _, b := range bundles {
		if got[b.Record().Path].digest == b.Record().Digest {
			last = b
		}
	}
	if last == nil {
		t.Fatal("the prefix holds neither release's record")
	}
	matches(t, s, got, last)
	consistent(t, got, true)
}

// A server that answers a conditional write with 501 Not Implemented, or
// ignores its condition and writes, has no lease to give: the publish
// goes on without one, says so, and leaves no lease object behind.
func TestLeaseUnsupported(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprint("ignores ", ignore), func(t *testing.T) { testLeaseUnsupported(t, ignore) })
	}
}

func testLeaseUnsupported(t *testing.T, ignore bool) {
	mem := s3mem.New()
	if err := mem.CreateBucket(testBucket); err != nil {
		t.Fatal(err)
	}
	faker := gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method != http.MethodPut || r.Header.Get("If-None-Match") == "" && r.Header.Get("If-Match") == "":
		case ignore:
			r.Header.Del("If-None-Match")
			r.Header.Del("If-Match")
		default:
			s3Error(w, http.StatusNotImplemented, "NotImplemented")
			return
		}
		faker.ServeHTTP(w, r)
	}))
	b := builtBundle(t, tree(t), filepath.Join(t.TempDir(), "dist"))
	var log bytes.Buffer
	o := s.options()
	o.Log = &log
	if err := Publish(context.Background(), b, s.target("plain"), o, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "keeps no conditional writes, so nothing keeps a second publish out") {
		t.Errorf("no note of the missing lease: %q", log.String())
	}
	got := s.objects("plain")
	if _, ok := got[publish.LeasePath]; ok {
		t.Error("a lease object was left")
	}
	matches(t, s, got, b)
}
