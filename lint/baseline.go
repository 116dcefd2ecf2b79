package lint

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// A baseline is how a team adopts a linter on a large repository: it
// records today's findings, and later runs fail only on new ones. Like
// ESLint's suppressions file it counts findings per file and rule rather
// than remembering lines or messages, so that editing a file above a known
// finding does not make it new; when a file gains a finding of a rule, every
// finding of that rule in the file is reported again, since which one is
// new cannot be told.

// BaselineVersion is the format of the files WriteBaseline writes.
const BaselineVersion = 1

// Baseline is a parsed baseline file: finding counts by path and rule.
// Paths are relative to the baseline file's folder, so that a baseline
// works from wherever lint is run.
type Baseline struct {
	Path   string                    // where it was read from
	Counts map[string]map[string]int // path → rule → findings
	sum    [32]byte                  // of the file's bytes, for the verdict key
}

type baselineFile struct {
	Tool     string                    `json:"tool"`
	Version  int                       `json:"version"`
	Findings map[string]map[string]int `json:"findings"`
}

// WriteBaseline writes the findings as a baseline: JSON, sorted keys, one
// path a line, so that it diffs well in review. Paths in the findings are
// relative to base and are stored relative to the file's folder.
func WriteBaseline(w io.Writer, file, base string, fs []Finding) error {
	counts := map[string]map[string]int{}
	for _, f := range fs {
		p := rebase(f.Path, base, filepath.Dir(file))
		if counts[p] == nil {
			counts[p] = map[string]int{}
		}
		counts[p][f.Rule]++
	}
	// encoding/json sorts map keys, which makes the file deterministic.
	data, err := json.MarshalIndent(baselineFile{Tool: "skillpack", Version: BaselineVersion, Findings: counts}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// IsBaseline reports whether path is a regular file that skillpack wrote
// as a baseline, of any version: the one file --write-baseline replaces.
func IsBaseline(path string) bool {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	data, err := os.ReadFile(path)
	var bf baselineFile
	return err == nil && json.Unmarshal(data, &bf) == nil && bf.Tool == "skillpack"
}

// LoadBaseline reads a baseline file. A file that is not one, or that a
// newer skillpack wrote, is an error that says so: a baseline silently
// ignored would fail every build, and one half-read would hide findings.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("baseline %s does not exist; write one with `skillpack lint --write-baseline %s`", path, path)
		}
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var bf baselineFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&bf); err != nil {
		return nil, fmt.Errorf("%s: not a skillpack baseline (%w); write it again with `skillpack lint --write-baseline %s`", path, err, path)
	}
	if bf.Tool != "skillpack" {
		return nil, fmt.Errorf("%s: not a skillpack baseline (no \"tool\": \"skillpack\"); write it with `skillpack lint --write-baseline %s`", path, path)
	}
	if bf.Version != BaselineVersion {
		return nil, fmt.Errorf("%s: baseline version %d, but this skillpack reads version %d; write it again with `skillpack lint --write-baseline %s`", path, bf.Version, BaselineVersion, path)
	}
	for p, rules := range bf.Findings {
		for id, n := range rules {
			if n < 1 {
				return nil, fmt.Errorf("%s: %s: %s has count %d; counts are 1 or more", path, p, id, n)
			}
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return &Baseline{Path: abs, Counts: bf.Findings, sum: sha256.Sum256(data)}, nil
}

// filter drops the findings the baseline knows of: for each file and rule,
// all of them while there are no more than recorded. It notes in seen the
// entries that a finding matched. A nil baseline drops nothing.
func (b *Baseline) filter(fs []Finding, base string, seen map[[2]string]bool) []Finding {
	if b == nil || len(fs) == 0 {
		return fs
	}
	keys := make([][2]string, len(fs))
	n := map[[2]string]int{}
	for i, f := range fs {
		keys[i] = [2]string{rebase(f.Path, base, filepath.Dir(b.Path)), f.Rule}
		n[keys[i]]++
		seen[keys[i]] = true
	}
	kept := fs[:0]
	for i, f := range fs {
		if k := keys[i]; n[k] > b.Counts[k[0]][k[1]] {
			kept = append(kept, f)
		}
	}
	return kept
}

// stale lists the entries that no finding matched ("path: rule (n)"),
// when the run looked at every entry's folder: a run over a part of the
// tree cannot tell (name-duplicate needs the other copy, outside it), and
// the rewrite it suggested dropped every entry outside that part.
func (b *Baseline) stale(seen map[[2]string]bool, paths []string) []string {
	if b == nil {
		return nil
	}
	top := "" // the folder holding every entry's file
	from, _ := filepath.Abs(filepath.Dir(b.Path))
	for p := range b.Counts {
		dir := filepath.Dir(filepath.Join(from, filepath.FromSlash(p)))
		for top != "" && !below(top, dir) && filepath.Dir(top) != top {
			top = filepath.Dir(top)
		}
		if top == "" {
			top = dir
		}
	}
	if top != "" && !slices.ContainsFunc(paths, func(root string) bool { return below(root, top) }) {
		return nil
	}
	var out []string
	for p, rules := range b.Counts {
		for id, n := range rules {
			if !seen[[2]string{p, id}] {
				out = append(out, fmt.Sprintf("%s: %s (%d)", p, id, n))
			}
		}
	}
	slices.Sort(out)
	return out
}

// rebase turns a slash path relative to one folder into one relative to
// another.
func rebase(p, from, to string) string {
	if from == to || from == "" {
		return p
	}
	// Both absolute: a baseline given as ci/baseline.json (to "ci") beside
	// an absolute base made Rel fail, and the paths were kept unchanged.
	from, err1 := filepath.Abs(from)
	to, err2 := filepath.Abs(to)
	if err1 != nil || err2 != nil {
		return p
	}
	rel, err := filepath.Rel(to, filepath.Join(from, filepath.FromSlash(p)))
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}
