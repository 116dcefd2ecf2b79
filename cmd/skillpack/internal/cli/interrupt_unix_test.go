//go:build unix

package cli

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
		ctx, stop := interruptible(context.Background(), &IO{})
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

// A client that hangs up mid-answer does not stop serve. The write that
// finds it gone raises SIGPIPE, as a write to a closed stdout does, and
// serve took it for a closed pipe: it stopped at the conformance suite's
// first hang-up, and every client after it found no server.
func TestServeOutlivesHangUp(t *testing.T) {
	root := t.TempDir()
	noise := make([]byte, 8<<20)
	rand.NewChaCha8([32]byte{}).Read(noise)
	testtool.WriteTree(t, root, map[string]string{
		"skills/alpha/SKILL.md":         "---\nname: alpha\ndescription: Test skill alpha that does one small thing for the tests.\n---\n# alpha\n\nSee [noise](assets/noise.bin).\n",
		"skills/alpha/assets/noise.bin": string(noise),
	})
	dist := filepath.Join(root, "dist")
	quiet := &IO{In: strings.NewReader(""), Out: io.Discard, Err: new(testtool.Buffer), Getenv: func(string) string { return "" }, Now: time.Now}
	if code := run(quiet, []string{"build", filepath.Join(root, "skills"), "-o", dist, "-q"}); code != ExitOK {
		t.Fatalf("build: exit %d: %s", code, quiet.Err)
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	errb := new(testtool.Buffer)
	ios := &IO{In: strings.NewReader(""), Out: io.Discard, Err: errb, Getenv: func(string) string { return "" }, Now: time.Now}
	done := make(chan int, 1)
	go func() { done <- run(ios, []string{"serve", dist, "--addr", addr, "-q"}) }()
	url := "http://" + addr + "/.well-known/agent-skills/alpha/assets/noise.bin"
	get := func() error {
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s, %v", resp.Status, err)
		}
		return nil
	}
	for deadline := time.Now().Add(20 * time.Second); get() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not serving after 20 s; it said:\n%s", errb)
		}
	}
	// Clients that read a little of the answer and reset the connection,
	// then a SIGPIPE as the kernel raises it.
	for range 5 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Write(c)
		io.ReadFull(c, make([]byte, 64<<10))
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}
	syscall.Kill(os.Getpid(), syscall.SIGPIPE)
	select {
	case code := <-done:
		t.Fatalf("serve ended (exit %d) once clients hung up; it said:\n%s", code, errb)
	case <-time.After(time.Second):
	}
	if err := get(); err != nil {
		t.Fatalf("after clients hung up: %v", err)
	}
}
