//go:build bench

// The bench tag keeps this program out of `go install ./...`, which the
// pre-commit hook runs in a clone: only skillpack goes into a user's PATH.

// Command floor reads and hashes every file below a folder with a fixed
// number of workers and prints the file count, bytes and a combined digest.
//
//	go run -tags bench ./bench/floor [-j 2] DIR
//	go run -tags bench ./bench/floor [-j 2] -fresh OUT DIR
//
// It is the benchmark's floor: no build, however clever, can tell that
// nothing changed without reading every input byte once, and this does
// only that, in the same language and with the same hash as skillpack.
//
// With -fresh it is the floor of a fresh build instead: each folder at
// the top of DIR is a skill, and a worker reads each of its files once,
// hashes it, writes one copy of it below OUT (the served copy) and
// deflates it into one stream for the skill (pack's compressor and
// level, one deflate shared by both archives), which it writes twice (the
// .tar.gz and the .zip). No build can write a bundle with less: no lint,
// no archive headers, no documents, no staging or swap.
package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/klauspost/compress/flate"

	"github.com/skillpack/skillpack/pack"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("floor", flag.ContinueOnError)
	flags.SetOutput(stderr)
	jobs := flags.Int("j", 2, "files hashed at once (with -fresh, skills at once)")
	fresh := flags.String("fresh", "", "also write a copy of every file and each skill's deflated stream twice into this new `folder`")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() != 1 || *jobs < 1 {
		fmt.Fprintln(stderr, "usage: floor [-j N] [-fresh OUT] DIR")
		return 2
	}
	n, size, sum, err := hashTree(flags.Arg(0), *jobs)
	if *fresh != "" {
		n, size, sum, err = freshTree(flags.Arg(0), *fresh, *jobs)
	}
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
	paths, err := regularFiles(root)
	if err != nil {
		return 0, 0, [32]byte{}, err
	}
	sums := make([][32]byte, len(paths))
	sizes := make([]int64, len(paths))
	errs := make([]error, len(paths))
	each(len(paths), jobs, func() func(int) {
		h := sha256.New()
		buf := make([]byte, 64<<10)
		return func(i int) {
			sizes[i], errs[i] = hashFile(paths[i], h, buf)
			h.Sum(sums[i][:0])
		}
	})
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

// freshTree is the fresh-build floor (see the command's doc): every skill
// below root written to out by jobs workers, a skill at a time. The
// combined digest is over the file sums in path order, as hashTree's.
func freshTree(root, out string, jobs int) (int, int64, [32]byte, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return 0, 0, [32]byte{}, err
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return 0, 0, [32]byte{}, err
	}
	var skills []string
	for _, e := range ents {
		if e.IsDir() {
			skills = append(skills, e.Name())
		}
	}
	type done struct {
		sums  [][32]byte
		bytes int64
		err   error
	}
	results := make([]done, len(skills))
	each(len(skills), jobs, func() func(int) {
		fw, _ := flate.NewWriter(nil, pack.Level)
		buf := make([]byte, 64<<10)
		return func(i int) {
			r := &results[i]
			r.sums, r.bytes, r.err = freshSkill(filepath.Join(root, skills[i]), filepath.Join(out, skills[i]), fw, buf)
		}
	})
	all := sha256.New()
	var n int
	var total int64
	for _, r := range results {
		if r.err != nil {
			return 0, 0, [32]byte{}, r.err
		}
		for _, s := range r.sums {
			all.Write(s[:])
		}
		n += len(r.sums)
		total += r.bytes
	}
	var sum [32]byte
	all.Sum(sum[:0])
	return n, total, sum, nil
}

// freshSkill writes one skill: a copy of each file below dst, and the
// skill's deflated stream twice beside dst.
func freshSkill(src, dst string, fw *flate.Writer, buf []byte) ([][32]byte, int64, error) {
	paths, err := regularFiles(src)
	if err != nil {
		return nil, 0, err
	}
	var stream bytes.Buffer
	fw.Reset(&stream)
	h := sha256.New()
	sums := make([][32]byte, len(paths))
	var total int64
	for i, p := range paths {
		rel, _ := filepath.Rel(src, p)
		n, err := copyFile(p, filepath.Join(dst, rel), io.MultiWriter(h, fw), buf)
		if err != nil {
			return nil, 0, err
		}
		h.Sum(sums[i][:0])
		h.Reset()
		total += n
	}
	if err := fw.Close(); err != nil {
		return nil, 0, err
	}
	for _, ext := range []string{".tar.gz", ".zip"} {
		if err := os.WriteFile(dst+ext, stream.Bytes(), 0o644); err != nil {
			return nil, 0, err
		}
	}
	return sums, total, nil
}

// copyFile copies src to dst, making dst's folder, and writes what it
// reads to also.
func copyFile(src, dst string, also io.Writer, buf []byte) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	n, err := io.CopyBuffer(io.MultiWriter(out, also), in, buf)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// regularFiles lists the regular files below root, sorted.
func regularFiles(root string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	})
	sort.Strings(paths)
	return paths, err
}

// each calls work(i) for every i in [0, n) on jobs workers, each with the
// function newWorker makes for it (holding its own buffers).
func each(n, jobs int, newWorker func() func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		work := newWorker()
		wg.Go(func() {
			for i := range next {
				work(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
