package build

import (
	"reflect"
	"sync"
	"testing"

	"github.com/skillpack/skillpack/build/internal/scratch"
	"github.com/skillpack/skillpack/layout"
)

func testSummaries() []*summary {
	return []*summary{
		{rec: layout.RecordSkill{Name: "a"}},
		{
			rec: layout.RecordSkill{
				Name: "pdf-tools", Key: "k", Lint: "l", Findings: []byte(`[{"rule":"x"}]`),
				Files: []layout.File{
					{Path: "SKILL.md", Digest: layout.DigestOf([]byte("a")), Size: 1},
					{Path: "scripts/run.sh", Digest: layout.DigestOf(nil), Size: 1 << 40, Exec: true},
				},
				TarGz:         layout.Archive{Digest: layout.DigestOf([]byte("t")), Size: 1234},
				Zip:           layout.Archive{Digest: layout.DigestOf([]byte("z")), Size: 5678},
				ContentDigest: layout.DigestOf([]byte("c")),
			},
			description: "Fill <forms> & \u2028 ünïcode", frontmatter: []byte(`{"name":"pdf-tools","version":"1.0.0"}`), version: "1.0.0",
			license: "MIT", compat: "claude",
			leftOut: []string{".DS_Store", "__pycache__/x.pyc"},
		},
	}
}

// What a summary is read back as must be what was written, whatever the
// order workers add them in.
func TestSummariesRoundTrip(t *testing.T) {
	s, err := scratch.New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := &packed{sums: s}
	want := testSummaries()
	for range 50 {
		want = append(want, testSummaries()...)
	}
	spots := make([]scratch.Spot, len(want))
	var wg sync.WaitGroup
	for i, sum := range want {
		wg.Go(func() {
			at, err := s.Add(sum.encode())
			if err != nil {
				t.Error(err)
			}
			spots[i] = at
		})
	}
	wg.Wait()
	if err := s.Seal(); err != nil {
		t.Fatal(err)
	}
	for i, at := range spots {
		got, err := p.summary(&work{at: at, name: want[i].rec.Name})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("summary %d read back as\n%+v\nwant\n%+v", i, got, want[i])
		}
	}
}

// A cut or damaged summary is an error, never a panic or a wrong value
// taken for right.
func TestSummaryCut(t *testing.T) {
	data := testSummaries()[1].encode()
	for n := range len(data) {
		if _, err := decodeSummary(data[:n]); err == nil {
			t.Errorf("a summary cut to %d of %d bytes decoded without error", n, len(data))
		}
	}
	if _, err := decodeSummary(append(data, 0)); err == nil {
		t.Error("a summary with a trailing byte decoded without error")
	}
}

func FuzzDecodeSummary(f *testing.F) {
	for _, s := range testSummaries() {
		f.Add(s.encode())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sum, err := decodeSummary(data)
		if err == nil && !reflect.DeepEqual(sum.encode(), data) {
			// Varints have one shortest form; anything else must not decode.
			if again, err := decodeSummary(sum.encode()); err != nil || !reflect.DeepEqual(again, sum) {
				t.Errorf("decoded %x to %+v, which does not round-trip", data, sum)
			}
		}
	})
}
