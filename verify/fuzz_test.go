package verify

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// fuzzSkills are the skills of the bundle the fuzz targets verify: one of
// each type (an archive, a SKILL.md alone) and no more, so that each run
// checks some twenty small files, not the whole of the examples.
var fuzzSkills = []string{"../examples/" + other, "../examples/" + single}

// fuzzBundle builds fuzzSkills with o into a folder of tb's, once for each
// fuzzing process, and holds its files in memory too.
func fuzzBundle(tb testing.TB, o build.Options) (string, *memStore) {
	o.Out = filepath.Join(tb.TempDir(), "dist")
	if _, err := build.Run(fuzzSkills, o); err != nil {
		tb.Fatal(err)
	}
	return o.Out, newMemStore(tb, o.Out, false)
}

// fuzzOptions are the limits a fuzz run verifies under: a --max-size of
// 64 KiB, more than twice the bundle's largest file (index.html, 24 KB),
// keeps the memory verify sets aside (two --max-size) and each run's cost
// small.
var fuzzOptions = Options{Deadline: time.Minute, MaxSize: 64 << 10}

// fuzzFolder, set in the slot byte of an input, verifies the bundle from
// its folder (Dist) rather than from memory (Objects, as a bucket holding
// one bundle would give it).
const fuzzFolder = 0x80

// FuzzDocuments puts arbitrary bytes in place of one file of a valid
// bundle (which picks it: the low bits one of the slots below, fuzzFolder
// the source) and verifies the bundle. verify must not panic, must end
// well before its deadline, must name a file in each problem, and must
// never say "everything verified" of a bundle whose document or archive
// changed: the build record holds their digests. (The record itself may
// change harmlessly, say in its spacing.) The seeds in testdata/fuzz are
// the examples' documents and archives, emptied, cut short and bare JSON
// values.
func FuzzDocuments(f *testing.F) {
	dir, st := fuzzBundle(f, build.Options{})
	slots := []string{
		layout.V2Index, layout.V1Index, layout.MCPSkills, layout.MCPIndex, layout.MCPResources,
		layout.Checksums, layout.BuildRecord,
		archiveOf(f, dir, other, layout.TarGz), archiveOf(f, dir, other, layout.Zip),
	}
	// A record listing paths that are none: its problems are the
	// record's, not a file's named "" (they were).
	f.Add(uint8(6|fuzzFolder), []byte(`{"skills":[{}],"files":[""],"docs":[{}]}`))
	fuzzFiles(f, dir, st, slots, func(i int, orig []byte) {
		f.Add(uint8(i|fuzzFolder), orig)
	})
}

// fuzzFiles runs the fuzz target over the bundle in dir and st with
// arbitrary bytes in place of one of slots, after seed has had each slot's
// own bytes. The bundle is put back after each run.
func fuzzFiles(f *testing.F, dir string, st *memStore, slots []string, seed func(i int, orig []byte)) {
	orig := make([][]byte, len(slots))
	for i, p := range slots {
		orig[i] = st.files[p]
		seed(i, orig[i])
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		i := int(which&^fuzzFolder) % len(slots)
		p := slots[i]
		var rep *Report
		var err error
		if which&fuzzFolder != 0 {
			writeFile(t, dir, p, data)
			defer writeFile(t, dir, p, orig[i])
			rep, err = Dist(context.Background(), dir, fuzzOptions)
		} else {
			st.files[p] = data
			defer func() { st.files[p] = orig[i] }()
			rep, err = Objects(context.Background(), st, fuzzOptions)
			// A store whose index cannot be read at all cannot be
			// checked: that is the one error, and it names the index.
			if err != nil && p == layout.V2Index && strings.Contains(err.Error(), p) {
				return
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, pr := range rep.Problems {
			if strings.HasPrefix(pr.Message, "not verified:") {
				t.Fatalf("%s: the check did not end: %s", p, pr)
			}
			if pr.Path == "" || pr.Message == "" {
				t.Fatalf("%s: a problem with no file or no message: %q", p, pr)
			}
		}
		if rep.OK() && p != layout.BuildRecord && !bytes.Equal(data, orig[i]) {
			t.Fatalf("%s changed, but everything verified", p)
		}
	})
}

// FuzzDiscoveryDocuments is FuzzDocuments for llms.txt (merged into a
// site's) and the AI Catalog of a bundle built with them.
func FuzzDiscoveryDocuments(f *testing.F) {
	site := filepath.Join(f.TempDir(), "llms.txt")
	writeFile(f, filepath.Dir(site), "llms.txt", []byte("# Site\n\n"+layout.LLMsStart+"\n"+layout.LLMsEnd+"\n\n## After\n"))
	dir, st := fuzzBundle(f, build.Options{BaseURL: discoveryBase, LLMsTxtMerge: site, AICatalog: true})
	f.Add(uint8(0), []byte("# T\n"+layout.LLMsEnd+"\n"))
	f.Add(uint8(1), []byte(`{"specVersion":"1.0","entries":[{"identifier":"urn:air:skills.example.com:skill:md:release-notes","url":"https://skills.example.com/x/../../etc/passwd"}]}`))
	fuzzFiles(f, dir, st, []string{layout.LLMsTxt, layout.AICatalog}, func(i int, orig []byte) {
		for _, src := range []int{0, fuzzFolder} {
			f.Add(uint8(i|src), orig)
			f.Add(uint8(i|src), orig[:len(orig)/2])
			f.Add(uint8(i|src), []byte{})
		}
	})
}
