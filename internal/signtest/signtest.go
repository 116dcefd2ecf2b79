// Package signtest builds the skillpack-sign helper for the tests that
// sign and verify through it, end to end, as a user's skillpack does.
package signtest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Build compiles cmd/skillpack-sign, a module of its own, into dir and
// returns the program's path. The first build compiles sigstore-go (minutes
// from an empty cache); later ones only link.
func Build(dir string) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("signtest: no source path")
	}
	src := filepath.Join(filepath.Dir(file), "..", "..", "cmd", "skillpack-sign")
	name := "skillpack-sign"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	out := filepath.Join(dir, name)
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("signtest: the go command builds the helper: %w", err)
	}
	cmd := exec.Command(gobin, "build", "-o", out, ".")
	cmd.Dir = src
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("signtest: building %s: %w\n%s", src, err, msg)
	}
	return out, nil
}
