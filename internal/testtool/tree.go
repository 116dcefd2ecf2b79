package testtool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteTree writes files under root, by slash-separated path, making
// their folders: a key ending in "/" is a folder, any other a file (mode
// 0644) holding the value.
func WriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
