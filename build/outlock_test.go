//go:build unix

package build

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/outlock"
)

// holdEnv makes the test binary a process that holds the lock of an
// output folder until its stdin closes (or it is killed).
const holdEnv = "SKILLPACK_TEST_HOLD_OUTPUT_LOCK"

// One build at a time per output folder, between real processes: a
// second build meets the lock and is refused as the user's to fix (an
// OutputError, exit 2), naming the other process; once that process is
// killed with SIGKILL, the next build takes the lock it left.
func TestOutputLockTwoProcesses(t *testing.T) {
	if out := os.Getenv(holdEnv); out != "" {
		unlock, err := lockOutput(out, "build")
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		os.Stdin.Read(make([]byte, 1)) // until the test closes stdin or kills us
		unlock()
		os.Exit(0)
	}
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkill(t, filepath.Join(src, "hello"), "hello", nil)
	dist := filepath.Join(root, "dist")

	holder := exec.Command(os.Args[0], "-test.run=^TestOutputLockTwoProcesses$")
	holder.Env = append(os.Environ(), holdEnv+"="+dist)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		holder.Process.Kill()
		holder.Wait()
		t.Fatalf("the other process: %q", line)
	}

	_, err = Run([]string{src}, Options{Out: dist})
	var oe *OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("a build beside a running one: %v, want an OutputError", err)
	}
	for _, want := range []string{"another skillpack is writing " + dist, "a build, pid " + strconv.Itoa(holder.Process.Pid) + ", since 20", "wait for it to finish"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if _, err := os.Lstat(dist); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused build made %s: %v", dist, err)
	}
	if _, err := Sign(dist, nil, nil, nil); !errors.As(err, &oe) {
		t.Errorf("sign beside a running build: %v, want an OutputError", err)
	}

	// kill -9: the kernel lets go of the lock, and the file it leaves
	// does not stop the next build.
	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	lockFile := filepath.Join(root, ".dist"+outlock.Suffix)
	if _, err := os.Stat(lockFile); err != nil {
		t.Fatalf("the killed process left no lock file to take over: %v", err)
	}
	mustBuild(t, []string{src}, Options{Out: dist})
	if _, err := os.Stat(lockFile); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the build left its lock file: %v", err)
	}
}
