package oci

import (
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/skillpack/skillpack/publish"
)

// faulty are the options of a run through a proxy that misbehaves: many
// quick retries, and a short bound on an attempt so that a stalled
// request is given up soon.
var faulty = Options{Attempts: 12, Backoff: time.Millisecond, Timeout: time.Second}

// changeSkill appends a line to one skill's SKILL.md and rebuilds.
func changeSkill(t *testing.T, skills string, b *publish.Bundle, name, line string) *publish.Bundle {
	t.Helper()
	md := filepath.Join(skills, name, "SKILL.md")
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, append(data, "\n"+line+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	return rebuild(t, skills, b.Dir)
}

// A registry that fails, loses the answer to, or stalls a fifth of the
// requests: the run gets through on retries, or stops; either way the
// release tag names a complete collection (the old one or the new), and
// a rerun finishes the job.
func TestFaultsLeaveTheTagComplete(t *testing.T) {
	reg := startRegistry(t)
	px := startProxy(t, reg.host)
	skills, b := newBundle(t)
	target := "oci://" + px.host + "/acme/skills"
	repo := repoOf(t, reg.host, "acme/skills")
	publishTo(t, b, target, Options{})

	for round, seed := range []uint64{1, 2, 3} {
		b = changeSkill(t, skills, b, "repo-hygiene", "Round "+string(rune('A'+round)))
		var mu sync.Mutex
		rng := rand.New(rand.NewPCG(seed, 0))
		faults := map[fault]int{}
		px.setDecide(func(n int, r *http.Request) fault {
			mu.Lock()
			defer mu.Unlock()
			f := pass
			switch x := rng.IntN(100); {
			case x < 10:
				f = fail
			case x < 18:
				f = lose
			case x < 20:
				f = stall
			}
			faults[f]++
			return f
		})
		var res results
		err := Publish(context.Background(), b, target, faulty, res.add)
		t.Logf("round %d: faults %v, states %v, err %v", round, faults, res.count(), err)
		idx := complete(t, repo, "latest")
		if err == nil && idx.Annotations[annBundleKey] != string(b.Key) {
			t.Errorf("round %d: the run succeeded but latest is bundle %s, not %s", round, idx.Annotations[annBundleKey], b.Key)
		}
		if faults[fail]+faults[lose]+faults[stall] == 0 {
			t.Errorf("round %d: no fault was injected", round)
		}
		px.setDecide(nil)
		publishTo(t, b, target, Options{})
		if got := complete(t, repo, "latest"); got.Annotations[annBundleKey] != string(b.Key) {
			t.Errorf("round %d: after the rerun latest is bundle %s, not %s", round, got.Annotations[annBundleKey], b.Key)
		}
	}
}

// A run killed after any number of requests leaves latest naming a
// complete collection; the next run completes it.
func TestKilledRunsLeaveTheTagComplete(t *testing.T) {
	reg := startRegistry(t)
	px := startProxy(t, reg.host)
	skills, b := newBundle(t)
	target := "oci://" + px.host + "/acme/skills"
	repo := repoOf(t, reg.host, "acme/skills")
	publishTo(t, b, target, Options{})

	// How many requests a publish of one changed skill makes, to spread
	// the kills over.
	b = changeSkill(t, skills, b, "csv-profiler", "Kill 0")
	px.setDecide(nil)
	publishTo(t, b, target, Options{})
	total := len(px.log())

	rng := rand.New(rand.NewPCG(7, 7))
	for round := 1; round <= 6; round++ {
		b = changeSkill(t, skills, b, "csv-profiler", "Kill "+string(rune('0'+round)))
		at := 1 + rng.IntN(total)
		ctx, cancel := context.WithCancel(context.Background())
		px.setDecide(func(n int, r *http.Request) fault {
			if n >= at {
				cancel()
				return fail
			}
			return pass
		})
		err := Publish(ctx, b, target, Options{}, func(publish.Result) {})
		cancel()
		if err == nil && at <= total {
			t.Logf("round %d: killed at request %d of about %d, yet the run ended well", round, at, total)
		}
		complete(t, repo, "latest")
		px.setDecide(nil)
		publishTo(t, b, target, Options{})
		if got := complete(t, repo, "latest"); got.Annotations[annBundleKey] != string(b.Key) {
			t.Errorf("round %d (killed at %d): after the rerun latest is bundle %s, not %s", round, at, got.Annotations[annBundleKey], b.Key)
		}
	}
}
