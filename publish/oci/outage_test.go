package oci

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// outage makes the registry fail every request (a 503, or an answer lost
// after the work was done) until the clock it returns has moved d past
// start; refused counts them.
func (f *fixture) outage(start time.Time, d time.Duration) (c *testtool.Clock, refused *int) {
	c, refused = testtool.NewClock(start), new(int)
	f.px.setDecide(func(int, *http.Request) fault {
		if c.Now().Sub(start) >= d {
			return pass
		}
		*refused++
		return []fault{fail, lose}[*refused%2]
	})
	return c, refused
}

// A registry that fails every request for 10 seconds (503s, answers
// lost after the work was done) is waited out with the default budget,
// and the wait is said; one that never comes back ends the run within
// the budget with publish.ErrUnavailable.
func TestOutage(t *testing.T) {
	f := published(t)
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for i, outage := range []time.Duration{10 * time.Second, time.Hour} {
		f.change(t, "repo-hygiene", "Outage "+outage.String())
		c, n := f.outage(start, outage)
		var log strings.Builder
		// One at a time: every sleep moves the one clock.
		o := Options{Retry: publish.Retry{Jobs: 1, Now: c.Now, Sleep: c.Sleep, Log: &log}}
		err := Publish(context.Background(), f.b, f.target, o, func(publish.Result) {})
		f.px.setDecide(nil)
		waited := c.Now().Sub(start)
		if i == 0 {
			if err != nil {
				t.Fatalf("a %v outage: %v", outage, err)
			}
			if got := complete(t, f.repo, "latest"); got.Annotations[annBundleKey] != string(f.b.Key) {
				t.Errorf("after a %v outage latest is bundle %s, not %s", outage, got.Annotations[annBundleKey], f.b.Key)
			}
		} else if !errors.Is(err, publish.ErrUnavailable) || waited > publish.DefaultBudget+time.Second {
			t.Errorf("a %v outage: error %v after %v", outage, err, waited)
		}
		if !strings.Contains(log.String(), "publish: waiting for "+f.target+":latest: ") || !strings.Contains(log.String(), "giving up in 1m0s") {
			t.Errorf("a %v outage: the log says\n%s", outage, log.String())
		}
		t.Logf("a %v outage: %d requests refused, %v waited, %v", outage, *n, waited, err)
	}
}

// A pull retries as a publish does: a registry that fails every request
// for 10 seconds (503s, answers lost) is waited out, saying so, and the
// skills are pulled whole; one that never comes back ends the pull within
// the budget with publish.ErrUnavailable, leaving no skill's folder.
func TestPullOutage(t *testing.T) {
	f := published(t)
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for i, outage := range []time.Duration{10 * time.Second, time.Hour} {
		c, n := f.outage(start, outage)
		var log strings.Builder
		out := t.TempDir()
		got, err := Pull(context.Background(), f.target, out, "", Options{Retry: publish.Retry{Now: c.Now, Sleep: c.Sleep, Log: &log}})
		f.px.setDecide(nil)
		waited := c.Now().Sub(start)
		if i == 0 {
			if err != nil || len(got) != len(f.b.Skills) {
				t.Fatalf("a %v outage: pulled %d skills of %d: %v", outage, len(got), len(f.b.Skills), err)
			}
			for _, s := range f.b.Skills {
				if want, have := tree(t, filepath.Join(f.b.Dir, filepath.FromSlash(layout.SkillDir(s.Name)))), tree(t, filepath.Join(out, s.Name)); !maps.Equal(want, have) {
					t.Errorf("a %v outage: skill %s pulled differs from DIST's", outage, s.Name)
				}
			}
		} else {
			if !errors.Is(err, publish.ErrUnavailable) || waited > publish.DefaultBudget+time.Second {
				t.Errorf("a %v outage: error %v after %v", outage, err, waited)
			}
			if left, _ := os.ReadDir(out); len(got) > 0 || len(left) > 0 {
				t.Errorf("a %v outage: pulled %v, left %v", outage, got, left)
			}
		}
		if !strings.Contains(log.String(), "pull: waiting for "+f.target+": ") || !strings.Contains(log.String(), "giving up in 1m0s") {
			t.Errorf("a %v outage: the log says\n%s", outage, log.String())
		}
		t.Logf("a %v outage: %d requests refused, %v waited, %v", outage, *n, waited, err)
	}
}
