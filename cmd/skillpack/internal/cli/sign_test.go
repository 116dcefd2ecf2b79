package cli

import (
	"os"
	"sync"
	"testing"

	"github.com/skillpack/skillpack/internal/signtest"
)

// helper is skillpack-sign, built once for the test binary: TestScripts,
// TestKeyless, TestPublishSign and TestVerifyTargetRun each linked their
// own (a few seconds of the linker each, one after the other).
// removeHelper removes its folder when the tests end.
var helper struct {
	once sync.Once
	dir  string
	err  error
}

// signHelper puts skillpack-sign first on PATH for the rest of the test,
// built the first time: the scripts that sign and verify run it as a
// user's skillpack does, found on PATH.
func signHelper(t *testing.T) {
	t.Helper()
	helper.once.Do(func() {
		helper.dir, helper.err = os.MkdirTemp("", "skillpack-sign-helper-")
		if helper.err == nil {
			_, helper.err = signtest.Build(helper.dir)
		}
	})
	if helper.err != nil {
		t.Fatal(helper.err)
	}
	t.Setenv("PATH", helper.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// removeHelper runs the tests, then removes signHelper's folder.
type removeHelper struct{ m *testing.M }

func (r removeHelper) Run() int {
	code := r.m.Run()
	if helper.dir != "" {
		os.RemoveAll(helper.dir)
	}
	return code
}
