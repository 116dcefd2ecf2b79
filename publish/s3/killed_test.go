package s3

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/publish"
)

// pruneChild is the environment variable that makes TestPruneChild a
// publish --prune of its own process, for testKilledPrunes to kill.
const pruneChild = "SKILLPACK_TEST_PRUNE_CHILD"

// TestPruneChild publishes DIST to TARGET at ENDPOINT with --prune --keep 2,
// given as $SKILLPACK_TEST_PRUNE_CHILD="DIST TARGET ENDPOINT"; without it,
// it does nothing.
func TestPruneChild(t *testing.T) {
	args := strings.Fields(os.Getenv(pruneChild))
	if len(args) != 3 {
		t.Skip("run by testKilledPrunes")
	}
	b, err := publish.Open(args[0])
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Endpoint: args[2], AccessKey: testKey, SecretKey: testSecret, Region: "us-east-1", Prune: true, Keep: 2,
		Getenv: func(string) string { return "" }}
	if err := Publish(context.Background(), b, args[1], o, nil); err != nil {
		t.Fatal(err)
	}
}

// A user's files at the bucket's root (llms.txt and every foreign path
// shape) survive ten prunes killed with SIGKILL after one to three
// DELETEs, in a process of their own, each followed by a prune that runs
// to the end (twelve releases: in a bucket of its own the first two
// delete nothing): no request of a killed run, however far it got, deletes
// what no release record names.
func TestKilledPrunes(t *testing.T) { testKilledPrunes(t, fakeServer(t)) }

func testKilledPrunes(t *testing.T, s *server) {
	ctx := context.Background()
	want := map[string]string{}
	for _, p := range foreign {
		want[p] = "a user's file at " + p + ", killed prunes"
		s.put(p, want[p])
	}
	survived := func(when string) {
		t.Helper()
		got := s.gets(slices.Collect(maps.Keys(want)))
		for k, v := range want {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("%s: %s, a user's file, was deleted or changed", when, k)
			}
		}
	}
	skills := tree(t)
	dist := filepath.Join(t.TempDir(), "dist")
	killed := 0
	for round := range 12 {
		change(t, skills, 100+round)
		b := builtBundle(t, skills, dist)
		cmd := exec.Command(os.Args[0], "-test.run=^TestPruneChild$")
		cmd.Env = append(os.Environ(), pruneChild+"="+dist+" "+s.target("")+" "+s.url)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		dels := 0
		var child *os.Process // set once started, under the proxy's lock onSeen runs under
		s.proxy.mu.Lock()
		s.proxy.onSeen = func(r *http.Request) {
			if r.Method == http.MethodDelete {
				if dels++; dels == 1+round%3 && child != nil {
					child.Kill() // SIGKILL, as the request goes on to the server
				}
			}
		}
		s.proxy.mu.Unlock()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		s.proxy.mu.Lock()
		child = cmd.Process
		s.proxy.mu.Unlock()
		err := cmd.Wait()
		s.proxy.noFaults()
		if err == nil {
			if round > 1 { // the first two releases delete nothing (--keep 2)
				t.Errorf("round %d: the prune was not killed (%d deletes):\n%s", round, dels, out.String())
			}
		} else if cmd.ProcessState.ExitCode() != -1 {
			t.Fatalf("round %d: %v\n%s", round, err, out.String())
		} else {
			killed++
		}
		survived(fmt.Sprintf("round %d, killed prune", round))
		o := s.options()
		o.Prune, o.Keep = true, 2
		if err := Publish(ctx, b, s.target(""), o, nil); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		survived(fmt.Sprintf("round %d, prune", round))
		got := s.listing("") // what the checks look up, of the whole bucket
		consistent(t, got, true)
		matches(t, s, got, b)
		s.proxy.log("")
	}
	if killed < 10 {
		t.Errorf("%d prunes killed mid-way, want 10 or more", killed)
	}
}
