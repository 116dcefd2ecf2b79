package build

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Skills left out only because their names clash in one bundle are no lint
// errors (lint only warns of them): when they are all there is, the build
// says so, and does not count them as lint errors that lint never reported
// (issue 31: "every skill is invalid (66 lint errors)" where lint said 0).
func TestSkipInvalidAllClash(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	for _, p := range []string{"discord", "telegram"} {
		writeSkillFile(t, src, p, ".claude-plugin/plugin.json", `{"name": "`+p+`"}`)
		writeSkill(t, filepath.Join(src, p, "skills", "access"), "access", map[string]string{"notes.md": "for " + p + "\n"})
	}
	_, err := Run([]string{src}, Options{Out: filepath.Join(root, "dist"), SkipInvalid: true})
	var le *LintError
	if !errors.As(err, &le) || !le.All || le.Errors != 0 || le.Clashes != 2 {
		t.Fatalf("got %v (%+v), want a LintError with no lint errors and 2 clashing skills", err, le)
	}
	if msg := err.Error(); strings.Contains(msg, "lint error") || !strings.Contains(msg, "2 skills whose name another skill of the bundle has") {
		t.Errorf("message %q", msg)
	}
	for _, c := range []struct {
		e    LintError
		want string
	}{
		{LintError{Errors: 3, All: true}, "every skill is invalid (3 lint errors); nothing was written"},
		{LintError{Errors: 1, Clashes: 2, All: true}, "no skill is left to publish (1 lint error, and 2 skills whose name another skill of the bundle has); nothing was written"},
		{LintError{Errors: 2}, "2 lint errors; nothing was written"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}
