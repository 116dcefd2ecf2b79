//go:build unix

package catalog

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// The pages of a real tree, such as bench/run.sh's (KEEP=1 keeps it),
// named by CATALOG_TREE: the folder of the skills' folders.
//
//	CATALOG_TREE=/dev/shm/skillpack-bench.X/3000/skills go test ./catalog -run XXX -bench TreePages -benchtime 3x -cpu 2
//	CATALOG_TREE=... go test ./catalog -run TreeDigest -v
//
// On a machine shared with other work, compare cpu-s/op (the process's
// CPU time a run of Pages), not ns/op.

// treeSkills reads CATALOG_TREE's skills into memory, each with its
// files, made-up digests and archives, so that only the catalog is
// measured.
func treeSkills(tb testing.TB) []Skill {
	root := os.Getenv("CATALOG_TREE")
	if root == "" {
		tb.Skip("CATALOG_TREE is not set")
	}
	dirs, err := os.ReadDir(root)
	if err != nil {
		tb.Fatal(err)
	}
	var ss []Skill
	for _, d := range dirs {
		dir := filepath.Join(root, d.Name())
		s := Skill{License: "MIT"}
		s.Name, s.Description = d.Name(), "The skill "+d.Name()+"."
		var body []byte
		var size int64
		err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			info, err := e.Info()
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if rel == layout.EntryFile {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				body = skill.Body(data)
			}
			// The digests are made up: the pages show them, nothing checks them.
			rel = filepath.ToSlash(rel)
			size += info.Size()
			s.Files = append(s.Files, layout.File{Path: rel, Size: info.Size(), Digest: layout.DigestOf([]byte(p))})
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
		s.ContentDigest = layout.DigestOf([]byte(dir))
		s.TarGz = layout.Archive{Digest: layout.DigestOf([]byte(dir + ".tar.gz")), Size: size / 3}
		s.Zip = layout.Archive{Digest: layout.DigestOf([]byte(dir + ".zip")), Size: size / 2}
		s.Body = func() ([]byte, error) { return body, nil }
		ss = append(ss, s)
	}
	return ss
}

func BenchmarkTreePages(b *testing.B) {
	ss := treeSkills(b)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if err := Pages(List(ss), Options{Generator: "skillpack bench"}, func(int, []byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-start)/float64(b.N), "cpu-s/op")
}

// cpuTime is the process's user and system time so far, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// TestTreeDigest prints a digest of CATALOG_TREE's pages, with relative
// links and with a base URL, to compare the pages before and after a
// change.
func TestTreeDigest(t *testing.T) {
	ss := treeSkills(t)
	for _, o := range []Options{{Generator: "g"}, {BaseURL: "https://example.com/x", Title: "T", Publisher: "P", Source: "https://github.com/a/b"}} {
		var mu sync.Mutex
		sums := make([][sha256.Size]byte, len(ss))
		err := Pages(List(ss), o, func(i int, page []byte) error {
			mu.Lock()
			defer mu.Unlock()
			sums[i] = sha256.Sum256(page)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		all := sha256.New()
		for _, s := range sums {
			all.Write(s[:])
		}
		fmt.Printf("pages of %s, base URL %q: %x\n", os.Getenv("CATALOG_TREE"), o.BaseURL, all.Sum(nil))
	}
}
