package cli

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillpack/skillpack/internal/testtool"
)

func TestMain(m *testing.M) {
	testscript.Main(removeHelper{m}, map[string]func(){
		"skillpack": func() {
			code := scriptMain(os.Args[1:])
			noteHWM() // for runChild
			os.Exit(code)
		},
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script: exit
// codes, every output format, --explain and config overrides, as a user
// would see them.
func TestScripts(t *testing.T) {
	signHelper(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		WorkdirRoot:         t.TempDir(), // testscript's own root outlived a -run of one script
		RequireExplicitExec: true,
		UpdateScripts:       *updateScripts,
		Setup: func(env *testscript.Env) error {
			env.Setenv("GITHUB_ACTIONS", "")
			// GNU tar may be gtar (macOS with Homebrew's gnu-tar); the
			// scripts run it as "$GNUTAR" under [tool:gnutar].
			if p, err := testtool.Look(testtool.GNUTar); err == nil {
				env.Setenv("GNUTAR", p)
			}
			return schemaSetup(env)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":    exits,
			"treestat": treestat,
			"fakes3":   fakeS3,
			"s3put":    s3Put,
			"untar":    untar,
		},
		Condition: toolCondition,
	})
}

// toolCondition is the scripts' [tool:NAME] condition: true when the
// program NAME is installed (gnutar: a GNU tar; see internal/testtool). A
// script that needs a tool skips without it, naming it
// ([!tool:bsdtar] skip 'bsdtar is not installed'), or guards the lines
// that run it; under SKILLPACK_REQUIRE_TOOLS=1 a missing tool fails the
// script instead, so CI cannot lose a tool silently.
func toolCondition(cond string) (bool, error) {
	name, ok := strings.CutPrefix(cond, "tool:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	ok, fail, err := testtool.Check(name)
	if fail {
		return false, err
	}
	return ok, nil
}

// untar ARCHIVE DIR unpacks the .tar.gz that the glob ARCHIVE names, one
// file, into DIR, as an installer would: regular files with their
// permission bits. It stands in for tar, which a fresh machine's PATH in
// CI does not have.
func untar(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: untar ARCHIVE DIR")
	}
	names, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(names) != 1 {
		ts.Fatalf("untar: %s names %d files, not one", args[0], len(names))
	}
	f, err := os.Open(names[0])
	ts.Check(err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	ts.Check(err)
	root, err := os.OpenRoot(ts.MkAbs(args[1]))
	ts.Check(err)
	defer root.Close()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		ts.Check(err)
		if h.Typeflag != tar.TypeReg {
			ts.Fatalf("untar: %s is not a regular file", h.Name)
		}
		if dir := filepath.Dir(filepath.FromSlash(h.Name)); dir != "." {
			ts.Check(root.MkdirAll(dir, 0o755))
		}
		out, err := root.OpenFile(filepath.FromSlash(h.Name), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, fs.FileMode(h.Mode).Perm())
		ts.Check(err)
		_, err = io.Copy(out, tr)
		ts.Check(err)
		ts.Check(out.Close())
	}
}

// treestat DIR prints a line for every file and folder at or below DIR:
// path, permission bits, size, modification time in nanoseconds and inode
// number, sorted. It stands in for GNU find and stat -c, which macOS lacks,
// to show that a refused build left a bundle exactly as it was.
func treestat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: treestat DIR")
	}
	var lines []string
	err := filepath.WalkDir(ts.MkAbs(args[0]), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ts.MkAbs("."), p)
		// The inode shows a file replaced by a copy of itself; Sys is a
		// *syscall.Stat_t on Unix, and has no Ino elsewhere.
		ino := ""
		if v := reflect.ValueOf(info.Sys()); v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
			if f := v.Elem().FieldByName("Ino"); f.IsValid() {
				ino = fmt.Sprint(f.Interface())
			}
		}
		lines = append(lines, fmt.Sprintf("%s %o %d %d %s", filepath.ToSlash(rel), info.Mode().Perm(), info.Size(), info.ModTime().UnixNano(), ino))
		return nil
	})
	ts.Check(err)
	sort.Strings(lines)
	fmt.Fprintln(ts.Stdout(), strings.Join(lines, "\n"))
}

// updateScripts rewrites the scripts' golden files (the files that cmp
// compares with) from what the commands print, for a deliberate change of
// output: go test ./cmd/skillpack/internal/cli -run TestScripts -update-scripts.
var updateScripts = flag.Bool("update-scripts", false, "rewrite the scripts' golden files from the output")

// exits N PROG ARGS... runs a program as exec does (the script's PATH,
// environment, folder and stdin) and checks its exit code, which exec
// only tells apart as zero or not. Its stdout and stderr are the script's
// to check next, with stdout and stderr: one run checks both the code and
// the output.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// TestErrorLineEscaped gives a command a path with control characters:
// the error line names it with them escaped, so it cannot act on the
// terminal, and a multi-line message keeps its lines and their leading
// tabs. (A line break in a path still breaks the line: the message's own
// lines cannot be told from it here. Findings, which carry most names,
// escape it: see lint.Printable.)
func TestErrorLineEscaped(t *testing.T) {
	ios, _, stderr := fakeIO(nil)
	code := run(ios, []string{"lint", "no\x1b[31mred\x07"})
	got := stderr.String()
	if code == ExitOK || strings.ContainsAny(got, "\x1b\x07") || !strings.Contains(got, `no\x1b[31mred\a`) {
		t.Errorf("exit %d, stderr %q", code, got)
	}
	if got := printableLines("a\n\tb\x07\n\t\tc"); got != "a\n\tb\\a\n\t\tc" {
		t.Errorf("printableLines: %q", got)
	}
}
