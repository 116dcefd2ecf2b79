package lint

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillpack/skillpack/internal/testtool"
)

// Every rule has a case file testdata/rules/<ID>.txtar. Its files form a
// tree of skills: folders named bad* must each draw at least one finding of
// the rule, folders named good* none. The "want" file lists the rule's
// findings exactly, one "path:line:col [message substring]" a line.
//
// The archive's comment may hold directives for what txtar cannot carry:
//
//	chmod 0755 PATH         set a mode
//	symlink PATH TARGET     make a symlink
//	mkfifo PATH             make a named pipe
//	crlf PATH               turn LF into CRLF
//	bom PATH                prepend a UTF-8 byte order mark
//	hex PATH HEX            append raw bytes
//	big PATH SIZE           make a file SIZE bytes long (K, M, G suffixes), extending
//	                        the archive's file, if any, with a hole (zero bytes)
//	git ARGS...             run git in the tree (skipped without git)
//	profile NAME            lint with a profile
//	strict                  lint with --strict
//	all                     lint with --all: every skill found, clients' install folders too
func TestRules(t *testing.T) {
	for _, r := range Rules() {
		t.Run(r.ID, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", "rules", r.ID+".txtar")
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatalf("every rule needs a case file: %v", err)
			}
			dir := t.TempDir()
			opts, want := materialize(t, dir, ar)
			var bad, good []string
			for _, f := range ar.Files {
				top, _, _ := strings.Cut(f.Name, "/")
				switch {
				case strings.HasPrefix(top, "bad") && !slices.Contains(bad, top):
					bad = append(bad, top)
				case strings.HasPrefix(top, "good") && !slices.Contains(good, top):
					good = append(good, top)
				}
			}
			if len(bad) == 0 || len(good) == 0 {
				t.Fatalf("%s needs at least one bad* and one good* skill folder", path)
			}
			opts.Base = dir
			res, err := Run([]string{dir}, opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []Finding
			for _, f := range res.Findings {
				if f.Rule == r.ID {
					got = append(got, f)
				}
			}
			for _, f := range got {
				if f.Fix == "" {
					t.Errorf("%s:%d:%d says what is wrong but not how to fix it: %s", f.Path, f.Line, f.Column, f.Message)
				}
			}
			for _, g := range good {
				for _, f := range got {
					if strings.HasPrefix(f.Path, g+"/") || f.Path == g {
						t.Errorf("good case %s drew %s:%d:%d: %s", g, f.Path, f.Line, f.Column, f.Message)
					}
				}
			}
			for _, b := range bad {
				if !slices.ContainsFunc(got, func(f Finding) bool { return strings.HasPrefix(f.Path, b+"/") || f.Path == b }) {
					t.Errorf("bad case %s drew no %s finding", b, r.ID)
				}
			}
			checkWant(t, got, want)
		})
	}
}

func checkWant(t *testing.T, got []Finding, want []string) {
	t.Helper()
	var gotPos []string
	for _, f := range got {
		gotPos = append(gotPos, fmt.Sprintf("%s:%d:%d", f.Path, f.Line, f.Column))
	}
	if len(got) != len(want) {
		t.Errorf("got %d findings, want %d:\n got: %s\nwant: %s", len(got), len(want),
			strings.Join(describe(got), "\n      "), strings.Join(want, "\n      "))
		return
	}
	for i, w := range want {
		pos, sub, _ := strings.Cut(w, " ")
		// sub is in the message, or after "fix: " in the fix.
		if gotPos[i] != pos || !strings.Contains(got[i].Message+" fix: "+got[i].Fix, sub) {
			t.Errorf("finding %d: got %s %q, want %s", i, gotPos[i], got[i].Message, w)
		}
	}
}

func describe(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s:%d:%d %s", f.Path, f.Line, f.Column, f.Message))
	}
	return out
}

// materialize writes the archive into dir and applies its directives.
func materialize(t *testing.T, dir string, ar *txtar.Archive) (Options, []string) {
	t.Helper()
	var want []string
	for _, f := range ar.Files {
		if f.Name == "want" {
			for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				if l = strings.TrimSpace(l); l != "" {
					want = append(want, l)
				}
			}
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, f.Data, 0o644))
	}
	var opts Options
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		args := strings.Fields(l)
		if len(args) == 0 || strings.HasPrefix(args[0], "#") {
			continue
		}
		at := func(i int) string { return filepath.Join(dir, filepath.FromSlash(args[i])) }
		switch args[0] {
		case "chmod":
			var mode uint32
			fmt.Sscanf(args[1], "%o", &mode)
			must(t, os.Chmod(at(2), os.FileMode(mode)))
		case "symlink":
			must(t, os.MkdirAll(filepath.Dir(at(1)), 0o755))
			must(t, os.Symlink(args[2], at(1)))
		case "mkdir":
			must(t, os.MkdirAll(at(1), 0o755))
		case "mkfifo":
			must(t, mkfifo(at(1)))
		case "crlf":
			b, err := os.ReadFile(at(1))
			must(t, err)
			must(t, os.WriteFile(at(1), bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")), 0o644))
		case "bom":
			b, err := os.ReadFile(at(1))
			must(t, err)
			must(t, os.WriteFile(at(1), append([]byte("\uFEFF"), b...), 0o644))
		case "utf16":
			b, err := os.ReadFile(at(1))
			must(t, err)
			u := utf16.Encode([]rune(string(b)))
			out := []byte{0xFF, 0xFE}
			for _, c := range u {
				out = binary.LittleEndian.AppendUint16(out, c)
			}
			must(t, os.WriteFile(at(1), out, 0o644))
		case "hex":
			var raw []byte
			fmt.Sscanf(args[2], "%x", &raw)
			f, err := os.OpenFile(at(1), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
			must(t, err)
			_, err = f.Write(raw)
			must(t, err)
			must(t, f.Close())
		case "big":
			var n int64
			var unit string
			fmt.Sscanf(args[2], "%d%s", &n, &unit)
			switch unit {
			case "K":
				n <<= 10
			case "M":
				n <<= 20
			case "G":
				n <<= 30
			}
			must(t, os.MkdirAll(filepath.Dir(at(1)), 0o755))
			f, err := os.OpenFile(at(1), os.O_WRONLY|os.O_CREATE, 0o644)
			must(t, err)
			must(t, f.Truncate(n))
			must(t, f.Close())
		case "git":
			testtool.Git(t, dir, args[1:]...)
		case "profile":
			p, err := LookupProfile(args[1])
			must(t, err)
			opts.Settings.Profile = p
		case "strict":
			opts.Strict = true
		case "all":
			opts.All = true
		default:
			t.Fatalf("unknown directive %q", l)
		}
	}
	return opts, want
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRuleDocs checks that every rule documents itself fully, since the
// registry is the only source of --explain, SARIF and the README.
func TestRuleDocs(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.ID] {
			t.Errorf("duplicate rule ID %s", r.ID)
		}
		seen[r.ID] = true
		if r.ID != strings.ToLower(r.ID) || strings.ContainsAny(r.ID, " _") {
			t.Errorf("%s: IDs are kebab-case", r.ID)
		}
		if r.Title == "" || r.Explain == "" || r.Bad == "" || r.Good == "" || r.Category == "" {
			t.Errorf("%s: title, category, explanation and bad and good examples are all required", r.ID)
		}
		if r.Severity == Off {
			t.Errorf("%s: a default severity is required", r.ID)
		}
		if checks := btoi(r.Check != nil) + btoi(r.CheckRun != nil); (checks > 0) == r.Engine {
			t.Errorf("%s: Check, CheckRun or both, or else Engine, must be set", r.ID)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNameForFix checks that the fix for a SKILL.md without a name offers
// a name that name-format accepts, and the folder's rename it takes; and
// that name-non-ascii offers the folder's name when it is valid, as
// name-format does, not a second spelling; and that name-format offers a
// name no other skill has.
func TestNameForFix(t *testing.T) {
	dir := t.TempDir()
	for p, data := range map[string]string{
		"Agent-Skills/SKILL.md": "# Agent skills\n",
		"pdf-tools/SKILL.md":    "---\n- a list\n---\n# PDF\n",
		"cafe-menu/SKILL.md":    "---\nname: café-menu\ndescription: Read the menu of a café to the user.\n---\n# Menu\n",
		// Its folder's name and the one its name spells are the first's.
		"devops/chaos/SKILL.md": "---\nname: chaos\ndescription: Run chaos experiments for the user.\n---\n# Chaos\n",
		"sre/chaos/SKILL.md":    "---\nname: Chaos\ndescription: Run chaos game days for the user.\n---\n# Chaos\n",
	} {
		p = filepath.Join(dir, filepath.FromSlash(p))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data), 0o644))
	}
	res := lintDir(t, dir, Options{Base: dir})
	want := map[string]string{
		"frontmatter-missing":     "name: agent-skills and description:",
		"frontmatter-not-mapping": "name: pdf-tools, then description:",
		"name-non-ascii":          "set name: cafe-menu, the folder's name", // as name-format would
		"name-format":             "name: sre-chaos, and rename the folder to match",
	}
	for _, f := range res.Findings {
		if w, ok := want[f.Rule]; ok {
			if !strings.Contains(f.Fix, w) {
				t.Errorf("%s: fix %q lacks %q", f.Rule, f.Fix, w)
			}
			if rename := strings.Contains(f.Fix, "rename the folder"); rename != (f.Rule == "frontmatter-missing" || f.Rule == "name-format") {
				t.Errorf("%s: fix %q, rename said %v", f.Rule, f.Fix, rename)
			}
			delete(want, f.Rule)
		}
	}
	for rule := range want {
		t.Errorf("no %s finding: %v", rule, res.Findings)
	}
}

// A CRLF checkout of a body (Git for Windows' core.autocrlf) is estimated
// as its LF one: the \r was counted, and 600 lines crossed the budget.
func TestEstimateTokensLineEnds(t *testing.T) {
	lf := bytes.Repeat([]byte("Step 001: read the guide line ok\n"), 600)
	crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
	a, _, _ := estimateTokens(lf)
	if b, _, _ := estimateTokens(crlf); a != b || a != (600*33+3)/4 {
		t.Errorf("estimateTokens: %d with LF, %d with CRLF; want %d both", a, b, (600*33+3)/4)
	}
}

// skill-md-encoding places a byte that is not UTF-8 at its column in
// characters, as every rule does: after "Café, " it is column 7, not 8.
func TestEntryEncodingColumn(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "menu", "SKILL.md")
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte("---\nname: menu\ndescription: Read the menu of the cafe to the user.\n---\n# Menu\n\nCafé, \xe9clair\n"), 0o644))
	res := lintDir(t, dir, Options{Base: dir})
	for _, f := range res.Findings {
		if f.Rule == "skill-md-encoding" {
			if f.Line != 7 || f.Column != 7 {
				t.Errorf("at %d:%d, want 7:7", f.Line, f.Column)
			}
			return
		}
	}
	t.Errorf("no skill-md-encoding finding: %v", res.Findings)
}
