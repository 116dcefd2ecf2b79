//go:build unix

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
)

// A command stops cleanly at the first Ctrl-C; a second kills it at once,
// as it would any command, even in a step that does not look at the
// context. The test runs itself as the child that takes both signals.
func TestSecondInterruptKills(t *testing.T) {
	if os.Getenv("SKILLPACK_INTERRUPT_CHILD") == "1" {
		ctx, stop := interruptible(context.Background())
		defer stop()
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-ctx.Done()
		// A step that does not end, and the user pressing Ctrl-C again.
		for range 200 {
			time.Sleep(50 * time.Millisecond)
			syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondInterruptKills$")
	// The child, killed, cannot remove what TestMain made in its TMPDIR.
	cmd.Env = append(os.Environ(), "SKILLPACK_INTERRUPT_CHILD=1", "TMPDIR="+t.TempDir())
	start := time.Now()
	err := cmd.Run()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("after two interrupts the command ended with %v after %s; want killed by the second", err, time.Since(start).Round(time.Second))
	}
}

// A closed pipe (build | head) stops a build as an interrupt does, exit
// 130 and its staging removed, where SIGPIPE killed it mid-write and left
// the staging folder, its owner file and the lock beside the output.
func TestClosedPipeInterrupts(t *testing.T) {
	if dir := os.Getenv("SKILLPACK_PIPE_CHILD"); dir != "" {
		os.Exit(Main([]string{"build", filepath.Join(dir, "skills"), "-o", filepath.Join(dir, "dist")}, nil, os.Stdout, os.Stderr))
	}
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"skills/hello/SKILL.md": "---\nname: hello\ndescription: Says hello to the user in a friendly way.\n---\n# Hello\n"})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader, head, is gone
	cmd := exec.Command(os.Args[0], "-test.run=^TestClosedPipeInterrupts$")
	cmd.Env = append(os.Environ(), "SKILLPACK_PIPE_CHILD="+dir, "TMPDIR="+t.TempDir())
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Run()
	w.Close()
	if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() || ws.ExitStatus() != ExitInterrupted {
		t.Errorf("build into a closed pipe ended with %v; want exit %d", err, ExitInterrupted)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "skills" {
			t.Errorf("left beside the output: %s", e.Name())
		}
	}
}
