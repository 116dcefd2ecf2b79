//go:build bench

// The bench tag keeps this program out of `go install ./...`, which the
// pre-commit hook runs in a clone: only skillpack goes into a user's PATH.

// Command gen writes a synthetic tree of skills for the build benchmark.
//
//	go run -tags bench ./bench/gen -n 10000 DIR
//	go run -tags bench ./bench/gen -n 10000 -findings DIR
//	go run -tags bench ./bench/gen -n 10000 -marketplace DIR
//
// -findings writes the same tree with a lint warning and a lint info in
// every skill (bench.GenerateFindings); -marketplace, the same skills as
// a plugin each, in one marketplace (bench.GenerateMarketplace). See
// package bench for what the tree holds.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/skillpack/skillpack/bench"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 10000, "number of skills")
	findings := fs.Bool("findings", false, "give every skill a lint warning and a lint info (no error)")
	market := fs.Bool("marketplace", false, "put every skill in a plugin of its own, all in one marketplace")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gen [-n N] [-findings | -marketplace] DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *n < 1 {
		fs.Usage()
		return 2
	}
	generate := bench.Generate
	switch {
	case *findings && *market:
		fs.Usage()
		return 2
	case *findings:
		generate = bench.GenerateFindings
	case *market:
		generate = bench.GenerateMarketplace
	}
	if err := generate(fs.Arg(0), *n); err != nil {
		fmt.Fprintln(stderr, "gen:", err)
		return 1
	}
	return 0
}
