package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// name-mismatch offers the folder's name as the skill's only where it is
// a valid name: "set name: My_Skill" would trade the warning for a
// name-format error.
func TestNameMismatchFix(t *testing.T) {
	for folder, want := range map[string]string{
		"My_Skill": `rename the folder to "my-skill"`,
		"pdf":      `rename the folder to "my-skill" or set name: pdf`,
		"1":        `rename the folder to "my-skill" or set name: "1"`,
	} {
		dir := filepath.Join(t.TempDir(), folder)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: my-skill\ndescription: Process PDF forms and merge documents for the user.\n---\nBody.\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Run([]string{dir}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var fixes []string
		for _, f := range res.Findings {
			if f.Rule == "name-mismatch" {
				fixes = append(fixes, f.Fix)
			}
		}
		if len(fixes) != 1 || fixes[0] != want {
			t.Errorf("folder %s: fixes %q, want %q", folder, strings.Join(fixes, "; "), want)
		}
	}
}
