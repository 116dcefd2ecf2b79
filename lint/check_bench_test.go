//go:build unix

package lint

import (
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/skillpack/skillpack/bench"
	"github.com/skillpack/skillpack/skill"
)

// BenchmarkCheck lints the build benchmark's synthetic tree the way the
// build does: skills discovered and their files collected beforehand, then
// Check with those files. It runs one job and reports the process's CPU
// time per skill besides wall time: on a loaded machine the CPU time is
// the figure to compare (see bench/prof).
func BenchmarkCheck(b *testing.B) {
	const n = 200
	tree := filepath.Join(b.TempDir(), "skills")
	if err := bench.Generate(tree, n); err != nil {
		b.Fatal(err)
	}
	skills, err := skill.Discover(tree)
	if err != nil {
		b.Fatal(err)
	}
	if len(skills) != n {
		b.Fatalf("found %d skills, want %d", len(skills), n)
	}
	files := make(map[*skill.Skill]*skill.Files, n)
	for _, s := range skills {
		if files[s], err = skill.Collect(s.Dir); err != nil {
			b.Fatal(err)
		}
	}
	opts := Options{Base: tree, Jobs: 1}
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	cpu, mallocs := cpuTime(), ms.Mallocs
	for b.Loop() {
		for _, s := range skills {
			if _, fs := CheckSkill(s, files[s], nil, nil, opts); len(fs) != 0 {
				b.Fatalf("%d findings on a tree that lints clean, the first %v", len(fs), fs[0])
			}
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*n), "cpu-ns/skill")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/skill")
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Mallocs-mallocs)/float64(b.N*n), "allocs/skill")
}

// cpuTime is the process's user plus system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
