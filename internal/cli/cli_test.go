package cli

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"skillpack": func() { os.Exit(scriptMain(os.Args[1:])) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script: exit
// codes, every output format, --explain and config overrides, as a user
// would see them.
func TestScripts(t *testing.T) {
	signHelper(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *updateScripts,
		Setup: func(env *testscript.Env) error {
			env.Setenv("GITHUB_ACTIONS", "")
			return schemaSetup(env)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits},
	})
}

// updateScripts rewrites the scripts' golden files (the files that cmp
// compares with) from what the commands print, for a deliberate change of
// output: go test ./internal/cli -run TestScripts -update-scripts.
var updateScripts = flag.Bool("update-scripts", false, "rewrite the scripts' golden files from the output")

// exits N PROG ARGS... runs a program from the script's PATH and checks its
// exit code, which testscript's exec only tells apart as zero or not.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	prog := args[1]
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, prog); fileExists(p) {
			prog = p
			break
		}
	}
	cmd := exec.Command(prog, args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	out, err := cmd.CombinedOutput()
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d; output:\n%s", strings.Join(args[1:], " "), got, want, out)
	}
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}
