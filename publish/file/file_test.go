package file

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/verify"
)

// publishTo publishes b to the folder dir and returns each path's state.
func publishTo(t *testing.T, b *publish.Upload, dir string, o Options) (map[string]publish.State, error) {
	t.Helper()
	var mu sync.Mutex
	states := map[string]publish.State{}
	err := Publish(context.Background(), b, "file://"+filepath.ToSlash(dir), o, func(r publish.Result) {
		mu.Lock()
		states[r.Object.Path] = r.State
		mu.Unlock()
	})
	return states, err
}

func count(states map[string]publish.State, s publish.State) int {
	n := 0
	for _, st := range states {
		if st == s {
			n++
		}
	}
	return n
}

// A folder published to is the bundle, whole: verify finds it so. A
// second run copies nothing; a file changed there is copied again; a dry
// run writes nothing.
func TestPublish(t *testing.T) {
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{"../../examples"}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	b, err := publish.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	www := filepath.Join(t.TempDir(), "www")

	states, err := publishTo(t, b, www, Options{DryRun: true})
	if err != nil || count(states, publish.WouldUpload) != len(b.Objects) {
		t.Fatalf("dry run: %v, %d of %d would be copied", err, count(states, publish.WouldUpload), len(b.Objects))
	}
	if _, err := os.Stat(www); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote %s", www)
	}

	if states, err = publishTo(t, b, www, Options{}); err != nil || count(states, publish.Uploaded) != len(b.Objects) {
		t.Fatalf("first run: %v, %d of %d copied", err, count(states, publish.Uploaded), len(b.Objects))
	}
	rep, err := verify.Dist(context.Background(), www, verify.Options{})
	if err != nil || !rep.OK() {
		t.Fatalf("the folder published to does not verify: %v %v", err, rep.Problems)
	}

	victim := b.Skills[0].TarGz.Path
	if err := os.WriteFile(filepath.Join(www, filepath.FromSlash(victim)), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	states, err = publishTo(t, b, www, Options{})
	if err != nil || states[victim] != publish.Uploaded || count(states, publish.Present) != len(b.Objects)-1 {
		t.Fatalf("again: %v, %s is %s, %d present", err, victim, states[victim], count(states, publish.Present))
	}

	// A file of the bundle changed after it was opened is refused, and
	// the copy there is not replaced by it.
	if err := os.WriteFile(filepath.Join(dist, filepath.FromSlash(victim)), make([]byte, b.Skills[0].TarGz.Size), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(www, filepath.FromSlash(victim)))
	if _, err := publishTo(t, b, www, Options{}); err == nil || !strings.Contains(err.Error(), "but the build record says") {
		t.Errorf("a changed file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(www, filepath.FromSlash(victim))); !os.IsNotExist(err) {
		t.Errorf("the changed file was copied: %v", err)
	}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]string{
		"file:///srv/www": "/srv/www",
		"file://www/a":    "www/a",
		"file://":         "",
		"file:///x?y=1":   "",
	} {
		got, err := ParseTarget(in)
		if got != filepath.FromSlash(want) || (err == nil) != (want != "") {
			t.Errorf("ParseTarget(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
