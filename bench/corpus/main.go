//go:build bench

// The bench tag keeps this program out of `go install ./...`, which the
// pre-commit hook runs in a clone: only skillpack goes into a user's PATH.

// Command corpus runs skillpack on a folder of real skill repositories and
// prints, per repository, what a new user would meet: how many skills, how
// many findings of each severity, whether the default build and the
// --skip-invalid build succeed, how many skills the latter publishes and
// whether its bundle verifies, and every exit code seen.
//
//	go run -tags bench ./bench/corpus [-skillpack BIN] [-tsv OUT] [-rules] DIR
//
// DIR holds one folder per repository (see run.sh and repos.txt). Every run
// goes through the skillpack binary, as a user's would; the default is to
// build it from this checkout first. Repositories are run one at a time, each
// command under -timeout; a command that ends in exit 3 or later, or times
// out (124), has the last lines of its stderr printed on stderr, as it is a
// bug to report.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

type report struct {
	Skills   int `json:"skills"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	Findings []struct {
		Path     string `json:"path"`
		Line     int    `json:"line"`
		Rule     string `json:"rule"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
	} `json:"findings"`
}

// class is one rule's error findings over the corpus.
type class struct {
	count   int
	repos   map[string]bool
	example string
}

var timeout = flag.Duration("timeout", 10*time.Minute, "give up on one skillpack command after this long (recorded as exit 124)")

func main() {
	bin := flag.String("skillpack", "", "skillpack binary (default: build this checkout's)")
	rules := flag.Bool("rules", false, "also print every rule's count per severity, and the error findings by rule with one example each")
	profile := flag.String("profile", "", "lint and build with this profile")
	tsv := flag.String("tsv", "", "also write one tab-separated row per repository to this file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: corpus [-skillpack BIN] [-tsv OUT] [-rules] [-profile P] [-timeout D] DIR")
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
	var rows io.Writer = io.Discard
	if *tsv != "" {
		f, err := os.Create(*tsv)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		rows = f
	}
	fmt.Fprintln(rows, "repository\tskill_files\tskills\terrors\twarnings\tinfos\tlint\tbuild\tskip_invalid\tpublished\tverify\texits\tbuild_refused")

	total := map[string]map[string]int{} // rule → severity → count
	classes := map[string]*class{}       // rule → its error findings
	fmt.Println("| repository | skills | errors | warnings | infos | build | build --skip-invalid | published | verify | exits | rules with errors |")
	fmt.Println("|---|---:|---:|---:|---:|---|---|---:|---|---|---|")
	var sum report
	var published, files int
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir, _ := filepath.Abs(filepath.Join(root, e.Name()))
		seen := map[int]bool{}
		var r report
		out, lintCode := run(e.Name(), dir, *bin, append([]string{"lint", "--format", "json", "--fail-on", "never", "."}, extra...)...)
		seen[lintCode] = true
		if err := json.Unmarshal(out, &r); err != nil {
			fmt.Fprintf(os.Stderr, "%s: lint output unreadable (exit %d): %v\n", e.Name(), lintCode, err)
		}
		errRules := map[string]int{}
		for _, f := range r.Findings {
			if total[f.Rule] == nil {
				total[f.Rule] = map[string]int{}
			}
			total[f.Rule][f.Severity]++
			if f.Severity == "error" {
				errRules[f.Rule]++
				c := classes[f.Rule]
				if c == nil {
					c = &class{repos: map[string]bool{}, example: fmt.Sprintf("%s/%s:%d: %s", e.Name(), f.Path, f.Line, f.Message)}
					classes[f.Rule] = c
				}
				c.count++
				c.repos[e.Name()] = true
			}
		}
		dist := filepath.Join(tmp, "dist-"+e.Name())
		out, build := run(e.Name(), dir, *bin, append([]string{"build", ".", "-o", dist, "--json"}, extra...)...)
		seen[build] = true
		why := refusal(out)
		os.RemoveAll(dist)
		out, skip := run(e.Name(), dir, *bin, append([]string{"build", ".", "-o", dist, "--skip-invalid", "--json"}, extra...)...)
		seen[skip] = true
		var built buildJSON
		json.Unmarshal(out, &built)
		verify := -1 // not run: nothing was built
		if skip == 0 {
			_, verify = run(e.Name(), dir, *bin, "verify", dist)
			seen[verify] = true
		}
		os.RemoveAll(dist)
		n := skillFiles(dir)
		fmt.Fprintf(rows, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", e.Name(), n, r.Skills, r.Errors, r.Warnings, r.Infos,
			lintCode, build, skip, len(built.Skills), verify, codes(seen), why)
		fmt.Printf("| %s | %d | %d | %d | %d | %s | %s | %d | %s | %s | %s |\n", e.Name(), r.Skills, r.Errors, r.Warnings, r.Infos,
			verdict(build), verdict(skip), len(built.Skills), verdict(verify), codes(seen), tally(errRules))
		sum.Skills += r.Skills
		sum.Errors += r.Errors
		sum.Warnings += r.Warnings
		sum.Infos += r.Infos
		published += len(built.Skills)
		files += n
	}
	fmt.Printf("| **all** | %d | %d | %d | %d | | | %d | | | |\n", sum.Skills, sum.Errors, sum.Warnings, sum.Infos, published)
	fmt.Fprintf(rows, "all\t%d\t%d\t%d\t%d\t%d\t\t\t\t%d\t\t\n", files, sum.Skills, sum.Errors, sum.Warnings, sum.Infos, published)

	if *rules {
		ids := make([]string, 0, len(total))
		for id := range total {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		fmt.Println()
		fmt.Println("| rule | errors | warnings | infos |")
		fmt.Println("|---|---:|---:|---:|")
		for _, id := range ids {
			c := total[id]
			fmt.Printf("| %s | %d | %d | %d |\n", id, c["error"], c["warning"], c["info"])
		}
		ids = ids[:0]
		for id := range classes {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool {
			if classes[ids[i]].count != classes[ids[j]].count {
				return classes[ids[i]].count > classes[ids[j]].count
			}
			return ids[i] < ids[j]
		})
		fmt.Println()
		fmt.Println("| rule | errors | repositories | example |")
		fmt.Println("|---|---:|---:|---|")
		for _, id := range ids {
			c := classes[id]
			fmt.Printf("| %s | %d | %d | %s |\n", id, c.count, len(c.repos), strings.ReplaceAll(c.example, "|", `\|`))
		}
	}
}

// run runs skillpack in dir and returns its standard output and exit code
// (124 when it ran past -timeout). When skillpack fails, exit 3 or later, the
// command and the last lines of its stderr go to stderr.
func run(repo, dir, bin string, args ...string) ([]byte, int) {
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		code = 124
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		fail(err)
	}
	if code >= 3 || code < 0 {
		lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		fmt.Fprintf(os.Stderr, "%s: skillpack %s: exit %d\n    %s\n", repo, strings.Join(args, " "), code, strings.Join(lines, "\n    "))
	}
	return stdout.Bytes(), code
}

// refusal says why a build refused, from its --json document: the rules of
// its error findings, else the first line of its error.
func refusal(doc []byte) string {
	var b struct {
		Error    string `json:"error"`
		Findings []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
		} `json:"findings"`
	}
	json.Unmarshal(doc, &b)
	rules := map[string]int{}
	for _, f := range b.Findings {
		if f.Severity == "error" {
			rules[f.Rule]++
		}
	}
	if len(rules) > 0 {
		return tally(rules)
	}
	msg, _, _ := strings.Cut(b.Error, "\n")
	return msg
}

// skillFiles counts the files named SKILL.md in any case below dir, the
// skills a reader of the repository would count.
func skillFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(d.Name(), "SKILL.md") {
			n++
		}
		return nil
	})
	return n
}

func verdict(code int) string {
	switch code {
	case -1:
		return "-"
	case 0:
		return "ok"
	case 1:
		return "refused"
	case 2:
		return "usage error"
	case 124:
		return "timed out"
	}
	return fmt.Sprintf("failed (exit %d)", code)
}

// codes lists the exit codes seen, in order.
func codes(seen map[int]bool) string {
	var cs []int
	for c := range seen {
		cs = append(cs, c)
	}
	sort.Ints(cs)
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ",")
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

// buildJSON is what `build --json` says of the skills it published.
type buildJSON struct {
	Skills []json.RawMessage `json:"skills"`
}
