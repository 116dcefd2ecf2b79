package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/skill"
)

// defaultNamed tests names, not patterns: every default pattern must be a
// plain folder name for it to be right.
func TestDefaultIgnoreNames(t *testing.T) {
	for _, p := range skill.DefaultIgnore {
		name, ok := strings.CutSuffix(p, "/")
		if !ok || name == "" || strings.ContainsAny(name, `*?[\!/`) {
			t.Errorf("default pattern %q is no plain folder name: defaultNamed cannot stand in for it", p)
		}
	}
	if !defaultNamed("r", filepath.Join("r", "a", "tests", "b")) || defaultNamed("r", filepath.Join("r", "a", "testing")) {
		t.Error("defaultNamed")
	}
}
