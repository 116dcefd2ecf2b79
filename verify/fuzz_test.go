package verify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/layout"
)

// fuzzSlots are the files FuzzDocuments replaces: every document verify
// reads, and an archive of each format.
func fuzzSlots(t testing.TB, dir string) []string {
	return []string{
		layout.V2Index, layout.V1Index, layout.MCPSkills, layout.MCPIndex, layout.MCPResources,
		layout.Checksums, layout.BuildRecord,
		archiveOf(t, dir, multi, layout.TarGz), archiveOf(t, dir, multi, layout.Zip),
	}
}

// FuzzDocuments puts arbitrary bytes in place of one file of a valid
// bundle (which picks it: see fuzzSlots) and verifies the folder. verify
// must not panic, must end well before its deadline, and must never say
// "everything verified" of a bundle whose document or archive changed: the
// build record holds their digests. (The record itself may change
// harmlessly, say in its spacing.) The seeds in testdata/fuzz are each
// slot's own bytes, emptied, cut short and bare JSON values. A 1 MiB
// --max-size, ten times the bundle's largest file, keeps each run's
// memory small and the runs many.
func FuzzDocuments(f *testing.F) {
	dir := filepath.Join(f.TempDir(), "dist")
	if err := os.CopyFS(dir, os.DirFS(built)); err != nil {
		f.Fatal(err)
	}
	slots := fuzzSlots(f, dir)
	fuzzFiles(f, dir, slots, func(int, []byte) {})
}

// fuzzFiles runs f over the bundle in dir with arbitrary bytes in place of
// one of slots (which the first argument picks), after seed has had each
// slot's own bytes. The bundle is put back after each run.
func fuzzFiles(f *testing.F, dir string, slots []string, seed func(i int, orig []byte)) {
	orig := make([][]byte, len(slots))
	for i, p := range slots {
		orig[i] = readFile(f, dir, p)
		seed(i, orig[i])
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		i := int(which) % len(slots)
		p := slots[i]
		writeFile(t, dir, p, data)
		defer writeFile(t, dir, p, orig[i])
		rep, err := Dist(context.Background(), dir, Options{Deadline: time.Minute, MaxSize: 1 << 20})
		if err != nil {
			t.Fatalf("%s: Dist: %v", p, err)
		}
		for _, pr := range rep.Problems {
			if strings.HasPrefix(pr.Message, "not verified:") {
				t.Fatalf("%s: the check did not end: %s", p, pr)
			}
		}
		if rep.OK() && p != layout.BuildRecord && !bytes.Equal(data, orig[i]) {
			t.Fatalf("%s changed, but everything verified", p)
		}
	})
}

// FuzzDiscoveryDocuments is FuzzDocuments for llms.txt and the AI Catalog
// of a bundle built with them.
func FuzzDiscoveryDocuments(f *testing.F) {
	dir := discoveryDist(f)
	f.Add(uint8(0), []byte("# T\n"+layout.LLMsEnd+"\n"))
	f.Add(uint8(1), []byte(`{"specVersion":"1.0","entries":[{"identifier":"urn:air:skills.example.com:skill:md:release-notes","url":"https://skills.example.com/x/../../etc/passwd"}]}`))
	fuzzFiles(f, dir, []string{layout.LLMsTxt, layout.AICatalog}, func(i int, orig []byte) {
		f.Add(uint8(i), orig)
		f.Add(uint8(i), orig[:len(orig)/2])
		f.Add(uint8(i), []byte{})
	})
}
