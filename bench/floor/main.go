//go:build bench

// The bench tag keeps this program out of `go install ./...`, which the
// pre-commit hook runs in a clone: only skillpack goes into a user's PATH.

// Command floor reads and hashes every file below a folder with a fixed
// number of workers and prints the file count, bytes and a combined digest.
//
//	go run -tags bench ./bench/floor [-j 2] DIR
//
// It is the benchmark's floor: no build, however clever, can tell that
// nothing changed without reading every input byte once, and this does
// only that, in the same language and with the same hash as skillpack.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("floor", flag.ContinueOnError)
	flags.SetOutput(stderr)
	jobs := flags.Int("j", 2, "files hashed at once")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() != 1 || *jobs < 1 {
		fmt.Fprintln(stderr, "usage: floor [-j N] DIR")
		return 2
	}
	n, size, sum, err := hashTree(flags.Arg(0), *jobs)
	if err != nil {
		fmt.Fprintln(stderr, "floor:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d files, %d bytes, sha256 of sums %x\n", n, size, sum)
	return 0
}

// hashTree hashes every regular file below root. The combined digest is
// over the per-file sums in path order, so the work cannot be skipped by
// the compiler and the answer does not depend on scheduling.
func hashTree(root string, jobs int) (int, int64, [32]byte, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return 0, 0, [32]byte{}, err
	}
	sort.Strings(paths)
	sums := make([][32]byte, len(paths))
	sizes := make([]int64, len(paths))
	errs := make([]error, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := sha256.New()
			buf := make([]byte, 64<<10)
			for i := range next {
				sizes[i], errs[i] = hashFile(paths[i], h, buf)
				h.Sum(sums[i][:0])
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	all := sha256.New()
	var total int64
	for i := range paths {
		if errs[i] != nil {
			return 0, 0, [32]byte{}, errs[i]
		}
		all.Write(sums[i][:])
		total += sizes[i]
	}
	var sum [32]byte
	all.Sum(sum[:0])
	return len(paths), total, sum, nil
}

func hashFile(p string, h interface {
	io.Writer
	Reset()
}, buf []byte) (int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h.Reset()
	return io.CopyBuffer(h, f, buf)
}
