package serve

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/skillpack/skillpack/bench"
	"github.com/skillpack/skillpack/build"
)

// A held bundle is marked by every garbage collection, so what it keeps is
// counted in heap objects a servable file: with directory resources made
// per request and MCP resources found through the file table (no second
// table of URIs), 400 generated skills hold 3.7; held as resources and a
// table of URIs, as before, 6.45.
func TestHeldObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 400 skills")
	}
	tmp := t.TempDir()
	skills, dist := filepath.Join(tmp, "skills"), filepath.Join(tmp, "dist")
	if err := bench.Generate(skills, 400); err != nil {
		t.Fatal(err)
	}
	if _, err := build.Run([]string{skills}, build.Options{Out: dist}); err != nil {
		t.Fatal(err)
	}
	objects := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapObjects
	}
	before := objects()
	b, err := Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	per := float64(objects()-before) / float64(len(b.files))
	t.Logf("%.2f heap objects a file (%d files)", per, len(b.files))
	if per > 4 {
		t.Errorf("the held bundle keeps %.2f heap objects a servable file; want at most 4", per)
	}
}
