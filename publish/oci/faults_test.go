package oci

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"oras.land/oras-go/v2/registry/remote"

	"github.com/skillpack/skillpack/publish"
)

// faulty are the options of a run through a proxy that misbehaves: many
// quick retries, and a short bound on an attempt so that a stalled
// request is given up soon.
var faulty = Options{Retry: publish.Retry{Attempts: 12, Backoff: time.Millisecond, Timeout: 2 * time.Second}}

// fixture is a registry behind a proxy, to which the examples were
// published once (as latest).
type fixture struct {
	px     *proxy
	skills string
	b      *publish.Upload
	target string
	repo   *remote.Repository // straight, not through the proxy
}

func published(t *testing.T) *fixture {
	t.Helper()
	reg := startRegistry(t)
	f := &fixture{px: startProxy(t, reg.host), repo: repoOf(t, reg.host, "acme/skills")}
	f.skills, f.b = newBundle(t)
	f.target = "oci://" + f.px.host + "/acme/skills"
	publishTo(t, f.b, f.target, Options{})
	return f
}

// change appends a line to one skill's SKILL.md and rebuilds.
func (f *fixture) change(t *testing.T, name, line string) {
	t.Helper()
	md := filepath.Join(f.skills, name, "SKILL.md")
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, append(data, "\n"+line+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	f.b = rebuild(t, f.skills, f.b.Dir)
}

// rerun publishes the bundle with no faults and checks that latest is
// then this bundle's collection, complete.
func (f *fixture) rerun(t *testing.T, after string) {
	t.Helper()
	f.px.setDecide(nil)
	publishTo(t, f.b, f.target, Options{})
	if got := complete(t, f.repo, "latest"); got.Annotations[annBundleKey] != string(f.b.Key) {
		t.Errorf("%s: after a rerun latest is bundle %s, not %s", after, got.Annotations[annBundleKey], f.b.Key)
	}
}

// A registry that fails, loses the answer to, or stalls a fifth of the
// requests: the run gets through on retries, or stops; either way the
// release tag names a complete collection (the old one or the new), and
// a rerun finishes the job.
func TestFaultsLeaveTheTagComplete(t *testing.T) {
	f := published(t)

	for round, seed := range []uint64{1, 2, 3} {
		f.change(t, "repo-hygiene", "Round "+string(rune('A'+round)))
		var mu sync.Mutex
		rng := rand.New(rand.NewPCG(seed, 0))
		faults := map[fault]int{}
		f.px.setDecide(func(n int, r *http.Request) fault {
			mu.Lock()
			defer mu.Unlock()
			f := pass
			switch x := rng.IntN(100); {
			case x < 10:
				f = fail
			case x < 18:
				f = lose
			case x < 19:
				f = stall
			}
			faults[f]++
			return f
		})
		var res results
		err := Publish(context.Background(), f.b, f.target, faulty, res.add)
		t.Logf("round %d: faults %v, states %v, err %v", round, faults, res.count(), err)
		idx := complete(t, f.repo, "latest")
		if err == nil && idx.Annotations[annBundleKey] != string(f.b.Key) {
			t.Errorf("round %d: the run succeeded but latest is bundle %s, not %s", round, idx.Annotations[annBundleKey], f.b.Key)
		}
		if faults[fail]+faults[lose]+faults[stall] == 0 {
			t.Errorf("round %d: no fault was injected", round)
		}
		f.rerun(t, fmt.Sprintf("round %d", round))
	}
}

// A run killed after any number of requests leaves latest naming a
// complete collection; the next run completes it.
func TestKilledRunsLeaveTheTagComplete(t *testing.T) {
	f := published(t)

	// How many requests a publish of one changed skill makes, to spread
	// the kills over.
	f.change(t, "csv-profiler", "Kill 0")
	f.rerun(t, "a clean run")
	total := len(f.px.log())

	rng := rand.New(rand.NewPCG(7, 7))
	for round := 1; round <= 6; round++ {
		f.change(t, "csv-profiler", "Kill "+string(rune('0'+round)))
		at := 1 + rng.IntN(total)
		ctx, cancel := context.WithCancel(context.Background())
		f.px.setDecide(func(n int, r *http.Request) fault {
			if n >= at {
				cancel()
				return fail
			}
			return pass
		})
		err := Publish(ctx, f.b, f.target, Options{}, func(publish.Result) {})
		cancel()
		if err == nil && at <= total {
			t.Logf("round %d: killed at request %d of about %d, yet the run ended well", round, at, total)
		}
		complete(t, f.repo, "latest")
		f.rerun(t, fmt.Sprintf("round %d (killed at request %d)", round, at))
	}
}
