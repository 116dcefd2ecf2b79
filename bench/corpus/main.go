//go:build bench

// The bench tag keeps this program out of `go install ./...`, which the
// pre-commit hook runs in a clone: only skillpack goes into a user's PATH.

// Command corpus runs skillpack on a folder of real skill repositories and
// prints, per repository, what a new user would meet: how many skills, how
// many findings of each severity, whether the default build and the
// --skip-invalid build succeed, and which rules gave the errors.
//
//	go run -tags bench ./bench/corpus [-skillpack BIN] [-rules] DIR
//
// DIR holds one folder per repository (a `git archive HEAD | tar -x` of
// each). Every run goes through the skillpack binary, as a user's would; the
// default is to build it from this checkout first.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

type report struct {
	Skills   int `json:"skills"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	Findings []struct {
		Rule     string `json:"rule"`
		Severity string `json:"severity"`
	} `json:"findings"`
}

func main() {
	bin := flag.String("skillpack", "", "skillpack binary (default: build this checkout's)")
	rules := flag.Bool("rules", false, "also print every rule's count per severity over all repositories")
	profile := flag.String("profile", "", "lint and build with this profile")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: corpus [-skillpack BIN] [-rules] [-profile P] DIR")
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "skillpack-corpus-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	if *bin == "" {
		*bin = filepath.Join(tmp, "skillpack")
		cmd := exec.Command("go", "build", "-o", *bin, "./cmd/skillpack")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("go build: %w", err))
		}
	}
	*bin, _ = filepath.Abs(*bin)
	root := flag.Arg(0)
	entries, err := os.ReadDir(root)
	if err != nil {
		fail(err)
	}
	var extra []string
	if *profile != "" {
		extra = []string{"--profile", *profile}
	}

	total := map[string]map[string]int{} // rule → severity → count
	fmt.Println("| repository | skills | errors | warnings | infos | build | build --skip-invalid | rules with errors |")
	fmt.Println("|---|---:|---:|---:|---:|---|---|---|")
	var sum report
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir, _ := filepath.Abs(filepath.Join(root, e.Name()))
		var r report
		out, _ := run(dir, *bin, append([]string{"lint", "--format", "json", "--fail-on", "never", "."}, extra...)...)
		if err := json.Unmarshal(out, &r); err != nil {
			fmt.Printf("| %s | lint output unreadable: %v |\n", e.Name(), err)
			continue
		}
		errRules := map[string]int{}
		for _, f := range r.Findings {
			if total[f.Rule] == nil {
				total[f.Rule] = map[string]int{}
			}
			total[f.Rule][f.Severity]++
			if f.Severity == "error" {
				errRules[f.Rule]++
			}
		}
		dist := filepath.Join(tmp, "dist-"+e.Name())
		build := verdict(run(dir, *bin, append([]string{"build", ".", "-o", dist}, extra...)...))
		os.RemoveAll(dist)
		skip := verdict(run(dir, *bin, append([]string{"build", ".", "-o", dist, "--skip-invalid"}, extra...)...))
		os.RemoveAll(dist)
		fmt.Printf("| %s | %d | %d | %d | %d | %s | %s | %s |\n", e.Name(), r.Skills, r.Errors, r.Warnings, r.Infos, build, skip, tally(errRules))
		sum.Skills += r.Skills
		sum.Errors += r.Errors
		sum.Warnings += r.Warnings
		sum.Infos += r.Infos
	}
	fmt.Printf("| **all** | %d | %d | %d | %d | | | |\n", sum.Skills, sum.Errors, sum.Warnings, sum.Infos)

	if *rules {
		fmt.Println()
		fmt.Println("| rule | errors | warnings | infos |")
		fmt.Println("|---|---:|---:|---:|")
		ids := make([]string, 0, len(total))
		for id := range total {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			c := total[id]
			fmt.Printf("| %s | %d | %d | %d |\n", id, c["error"], c["warning"], c["info"])
		}
	}
}

// run runs skillpack in dir and returns its standard output and exit code.
func run(dir, bin string, args ...string) ([]byte, int) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return stdout.Bytes(), ee.ExitCode()
	} else if err != nil {
		fail(err)
	}
	return stdout.Bytes(), 0
}

func verdict(_ []byte, code int) string {
	switch code {
	case 0:
		return "ok"
	case 1:
		return "refused"
	case 2:
		return "usage error"
	}
	return fmt.Sprintf("failed (exit %d)", code)
}

// tally lists rules by count, most first.
func tally(m map[string]int) string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if m[ids[i]] != m[ids[j]] {
			return m[ids[i]] > m[ids[j]]
		}
		return ids[i] < ids[j]
	})
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s %d", id, m[id])
	}
	return strings.Join(parts, ", ")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "corpus:", err)
	os.Exit(1)
}
