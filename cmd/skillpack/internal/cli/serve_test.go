package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
)

// serve --watch keeps a spare bundle beside DIST for its rebuilds to stage
// into (build.Spare), primed after the first build, and removes it when
// it stops: nothing is left beside DIST but DIST.
func TestServeWatchSpare(t *testing.T) {
	root := t.TempDir()
	skills, dist := filepath.Join(root, "skills"), filepath.Join(root, "dist")
	md := filepath.Join(skills, "alpha", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(md), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(body string) {
		t.Helper()
		text := "---\nname: alpha\ndescription: Test skill alpha that does one small thing for the tests.\n---\n# alpha\n\n" + body + "\n"
		if err := os.WriteFile(md, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("First.")
	errb := new(testtool.Buffer)
	ios := &IO{In: strings.NewReader(""), Out: new(testtool.Buffer), Err: errb, Getenv: func(string) string { return "" }, Now: time.Now}
	var opts *serveOptions
	parse(t, newServeCmd(ios, func(_ context.Context, o *serveOptions) error { opts = o; return nil }),
		[]string{dist, "--watch", skills, "--addr", "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, ios, opts) }()
	defer func() {
		cancel()
		<-done
	}()

	spares := func() []string {
		m, _ := filepath.Glob(filepath.Join(root, ".dist.skillpack-*"))
		return m
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s after 20 s; the server said:\n%s", what, errb.String())
			}
		}
	}
	served := func(text string) func() bool {
		return func() bool {
			data, _ := os.ReadFile(filepath.Join(dist, ".well-known", "agent-skills", "alpha", "SKILL.md"))
			return bytes.Contains(data, []byte(text))
		}
	}
	// The first build's staging folder is a folder and an owner file too:
	// only once it is DIST can two be the spare. An edit made before then
	// could be in the first build, and the count below be read before the
	// spare was primed.
	waitFor("first build", served("First."))
	// Primed: the folder and its owner file.
	waitFor("primed spare", func() bool { return len(spares()) == 2 })
	write("Second.")
	waitFor("rebuild", served("Second."))
	if n := len(spares()); n != 2 {
		t.Errorf("%d staging files and folders beside %s after a rebuild, want the spare and its owner file", n, dist)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	done <- nil // for the deferred wait
	if left := spares(); len(left) > 0 {
		t.Errorf("serve --watch left %v", left)
	}
}

// An address another server holds is the user's to change (exit 2), and
// the message offers the next port.
func TestListenInUse(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	// The port after it is taken too: the one named is one that was free.
	if next, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", n+1)); err == nil {
		defer next.Close()
	}
	_, err = listen(addr)
	code, msg := exitStatus(err)
	prefix := fmt.Sprintf("--addr %s is in use by another server: stop it, or serve on another port (--addr 127.0.0.1:", addr)
	named, ok := strings.CutPrefix(msg, prefix)
	free, _ := strconv.Atoi(strings.TrimSuffix(named, ")"))
	if code != ExitUsage || !ok || free <= n+1 {
		t.Fatalf("exit %d, %q; want 2, %q and a free port after %d", code, msg, prefix, n+1)
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", free))
	if err != nil {
		t.Fatalf("the port named, %d, is not free: %v", free, err)
	}
	l.Close()
}

// serve -q prints nothing while all is well: not even the serving line,
// as docs/serve.md says (-q keeps only what goes wrong).
func TestServeQuiet(t *testing.T) {
	root := t.TempDir()
	dist := filepath.Join(root, "dist")
	testtool.WriteTree(t, root, map[string]string{"skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Test skill alpha that does one small thing for the tests.\n---\n# alpha\n"})
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	errb := new(testtool.Buffer)
	ios := &IO{In: strings.NewReader(""), Out: new(testtool.Buffer), Err: errb, Getenv: func(string) string { return "" }, Now: time.Now, Quiet: true}
	var opts *serveOptions
	parse(t, newServeCmd(ios, func(_ context.Context, o *serveOptions) error { opts = o; return nil }),
		[]string{dist, "--watch", filepath.Join(root, "skills"), "--addr", addr})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, ios, opts) }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/.well-known/agent-skills/index.json"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving after 20 s; it said:\n%s", errb.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if errb.String() != "" {
		t.Errorf("serve -q printed:\n%s", errb.String())
	}
}
