//go:build bench

// The bench tag keeps this program out of `go install ./...`, which the
// pre-commit hook runs in a clone: only skillpack goes into a user's PATH.

// Command prof runs build.Run on a tree with profiling on, to see where a
// fresh build or a no-op rebuild spends its time.
//
//	go run -tags bench ./bench/prof -cpuprofile noop.cpu -runs 3 SKILLS DIST
//	go tool pprof -top noop.cpu
//
// The first run builds DIST when it is missing and is not profiled unless
// -fresh is given; every later run is a no-op rebuild. Each run prints its
// wall and CPU seconds: on a loaded machine CPU seconds are the figure to
// compare.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/skillpack/skillpack/build"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("prof", flag.ContinueOnError)
	flags.SetOutput(stderr)
	cpu := flags.String("cpuprofile", "", "write a CPU profile of the measured runs to `file`")
	mem := flags.String("memprofile", "", "write a heap profile after the last run to `file`")
	runs := flags.Int("runs", 1, "measured runs")
	fresh := flags.Bool("fresh", false, "measure fresh builds (DIST removed before each run)")
	jobs := flags.Int("j", 0, "build jobs (0 = GOMAXPROCS)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() != 2 || *runs < 1 {
		fmt.Fprintln(stderr, "usage: prof [-cpuprofile F] [-memprofile F] [-runs N] [-fresh] SKILLS DIST")
		return 2
	}
	tree, out := flags.Arg(0), flags.Arg(1)
	opts := build.Options{Out: out, Jobs: *jobs}
	if err := measure(tree, opts, *cpu, *mem, *runs, *fresh, stdout); err != nil {
		fmt.Fprintln(stderr, "prof:", err)
		return 1
	}
	return 0
}

func measure(tree string, opts build.Options, cpu, mem string, runs int, fresh bool, stdout io.Writer) error {
	if _, err := os.Stat(opts.Out); errors.Is(err, os.ErrNotExist) && !fresh {
		if _, err := build.Run([]string{tree}, opts); err != nil {
			return err
		}
	}
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for i := range runs {
		if fresh {
			if err := os.RemoveAll(opts.Out); err != nil {
				return err
			}
		}
		start, cpu0 := time.Now(), cpuTime()
		res, err := build.Run([]string{tree}, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "run %d: %.2fs wall, %.2fs CPU, %d packed, %d reused, up to date %v\n",
			i+1, time.Since(start).Seconds(), (cpuTime() - cpu0).Seconds(), res.Packed, res.Reused, res.UpToDate)
	}
	if mem != "" {
		runtime.GC()
		f, err := os.Create(mem)
		if err != nil {
			return err
		}
		defer f.Close()
		return pprof.WriteHeapProfile(f)
	}
	return nil
}

// cpuTime is the process's user plus system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
