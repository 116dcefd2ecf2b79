// Package testtool finds the programs that some tests run to check
// skillpack's output against the real thing: bsdtar, unzip, GNU tar,
// sha256sum, git, cosign.
//
// A fresh machine with only Go has none of them, and macOS has no GNU tools,
// yet `go test ./...` must pass there: a test that needs a missing tool
// skips, naming it. CI installs the tools and sets SKILLPACK_REQUIRE_TOOLS=1,
// under which a missing tool fails the test instead, so that a tool CI lost
// cannot turn its tests into silent skips. Optional tools (cosign, which
// Debian does not package, and MinIO) skip even then. Registry runs one of them,
// docker-registry, for the tests that publish to a registry. JSONSchema
// compiles a specification's published schema for the tests that check a
// document against it; WriteTree writes a test's tree of files.
package testtool

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Env is the variable that turns a missing tool from a skip into a failure.
const Env = "SKILLPACK_REQUIRE_TOOLS"

// GNUTar names GNU tar, as tar or gtar: the tests that read its verbose
// listing or its warnings need GNU tar, not whatever tar is installed.
const GNUTar = "gnutar"

// tools says where each tool comes from, for the message of a test that
// skips or fails without it. A tool not listed is looked up by name.
var tools = map[string]struct {
	install  string
	optional bool // not installable from Debian's packages: never required
}{
	"bsdtar":    {install: "Debian: libarchive-tools; macOS has it"},
	"unzip":     {install: "Debian: unzip; macOS has it"},
	"zip":       {install: "Debian: zip; macOS has it"},
	GNUTar:      {install: "Debian: tar; macOS: brew install gnu-tar"},
	"tar":       {install: "Debian: tar; macOS has it"},
	"sha256sum": {install: "Debian: coreutils; macOS: brew install coreutils"},
	"gzip":      {install: "Debian: gzip; macOS has it"},
	"gunzip":    {install: "Debian: gzip; macOS has it"},
	"git":       {install: "Debian: git; macOS: xcode-select --install"},
	"bash":      {install: "Debian: bash; macOS has it"},
	"patch":     {install: "Debian: patch; macOS has it"},
	// layout's tests run the llms.txt proposal's reference parser.
	"python3": {install: "Debian: python3; macOS has it"},
	"cosign":  {install: "go install github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3", optional: true},
	// publish/oci's tests: a real registry on 127.0.0.1, and the stock
	// client that must read what skillpack pushes.
	"docker-registry": {install: "Debian: docker-registry"},
	"oras":            {install: "go install oras.land/oras/cmd/oras@latest"},
	// publish/s3's integration test: a real S3-compatible server on
	// 127.0.0.1 that keeps Content-Type, Cache-Control and checksums.
	"versitygw": {install: "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"},
	// The same test against MinIO, the most deployed on premises: it
	// takes seven minutes to build, so CI leaves it out.
	"minio": {install: "go install github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c", optional: true},
	// serve's test of docs/nginx.conf against skillpack serve.
	"nginx": {install: "Debian: nginx-light"},
	// build's test of the marketplaces with the clients that read them,
	// pinned in .ci/mcp/package.json (.ci/run puts them on PATH).
	"claude":  {install: "cd .ci/mcp && npm ci: @anthropic-ai/claude-code"},
	"codex":   {install: "cd .ci/mcp && npm ci: @openai/codex"},
	"copilot": {install: "cd .ci/mcp && npm ci: @github/copilot"},
}

// Required reports whether SKILLPACK_REQUIRE_TOOLS asks for every tool.
func Required() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0" && v != "false"
}

var cache sync.Map // name → func() (string, error), run once

// Look returns the path of the named tool, or an error that names it and
// says where it comes from. GNUTar finds a tar or gtar that is GNU tar.
func Look(name string) (string, error) {
	f, _ := cache.LoadOrStore(name, sync.OnceValues(func() (string, error) {
		look, what := exec.LookPath, name+" is not installed"
		if name == GNUTar {
			look, what = lookGNUTar, "GNU tar is not installed"
		}
		if p, err := look(name); err == nil {
			return p, nil
		}
		if hint := tools[name].install; hint != "" {
			what += " (" + hint + ")"
		}
		return "", errors.New(what)
	}))
	return f.(func() (string, error))()
}

func lookGNUTar(string) (string, error) {
	for _, name := range []string{"tar", "gtar"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		// macOS's tar is bsdtar, which reads the same archives but lists
		// them in another format.
		if out, err := exec.Command(p, "--version").Output(); err == nil && bytes.Contains(out, []byte("GNU tar")) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// Check is Look as a verdict: ok when the tool is there; when it is not,
// fail is set if SKILLPACK_REQUIRE_TOOLS requires it, and err says why.
func Check(name string) (ok bool, fail bool, err error) {
	if _, err := Look(name); err != nil {
		if Required() && !tools[name].optional {
			return false, true, fmt.Errorf("%w, and %s=1 requires it", err, Env)
		}
		return false, false, err
	}
	return true, false, nil
}

// Git runs git with args in dir for a test that needs it (Need), and
// fails the test when git fails.
func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(Need(t, "git"), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Need returns the path of the named tool for a test that cannot run
// without it. When the tool is missing the test is skipped with its name,
// or fails under SKILLPACK_REQUIRE_TOOLS=1 (unless the tool is optional).
func Need(t testing.TB, name string) string {
	t.Helper()
	if ok, fail, err := Check(name); fail {
		t.Fatal(err)
	} else if !ok {
		t.Skip(err)
	}
	p, _ := Look(name)
	return p
}
