package cli

import (
	"os"
	"testing"

	"github.com/skillpack/skillpack/internal/signtest"
)

// signHelper builds skillpack-sign and puts it first on PATH for the rest
// of the test: the scripts that sign and verify run it as a user's
// skillpack does, found on PATH.
func signHelper(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	if _, err := signtest.Build(dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}
