package skill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIdentical holds copies of a skill equal and tells apart folders that
// differ in one byte, one execute bit or one file.
func TestIdentical(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 5000) // longer than one read
	write := func(dir string, files map[string]string, exec string) *Skill {
		for p, data := range files {
			p = filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			mode := os.FileMode(0o644)
			if p == filepath.Join(dir, exec) {
				mode = 0o755
			}
			if err := os.WriteFile(p, []byte(data), mode); err != nil {
				t.Fatal(err)
			}
		}
		return &Skill{Dir: dir, File: FileName}
	}
	base := map[string]string{"SKILL.md": "---\nname: s\ndescription: d\n---\n", "scripts/run.sh": "echo\n", "references/big.md": big}
	with := func(p, data string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		m[p] = data
		return m
	}
	root := t.TempDir()
	a := write(filepath.Join(root, "a", "s"), base, "scripts/run.sh")
	for _, c := range []struct {
		name  string
		files map[string]string
		exec  string
		want  bool
	}{
		{"copy", base, "scripts/run.sh", true},
		{"a byte late in a large file", with("references/big.md", big[:len(big)-1]+"F"), "scripts/run.sh", false},
		{"an execute bit", base, "", false},
		{"one more file", with("assets/x.txt", "x"), "scripts/run.sh", false},
	} {
		b := write(filepath.Join(root, c.name, "s"), c.files, c.exec)
		if got := Identical(a, b); got != c.want {
			t.Errorf("%s: Identical = %v, want %v", c.name, got, c.want)
		}
	}
}
