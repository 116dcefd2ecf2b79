//go:build unix

package cli

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
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
