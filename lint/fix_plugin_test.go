package lint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestFixPluginBytes pins what the plugin fix writes: each command split,
// every other byte as it was.
func TestFixPluginBytes(t *testing.T) {
	dir := t.TempDir()
	files := map[string][2]string{
		"p/plugin.json": {"{\n  \"name\": \"p\"\n}\n", "{\n  \"name\": \"p\"\n}\n"},
		"p/mcp.json": {`{"mcpServers": {"a": {"type": "stdio", "command": "npx -y @acme/a"},` + "\n" +
			`  "b": {"args": ["--x"], "type": "stdio", "command": "uvx  b-server"}, "c": {"type": "stdio", "command": "sh -c 'x'"}}}`,
			`{"mcpServers": {"a": {"type": "stdio", "command": "npx", "args": ["-y","@acme/a"]},` + "\n" +
				`  "b": {"args": ["b-server", "--x"], "type": "stdio", "command": "uvx"}, "c": {"type": "stdio", "command": "sh -c 'x'"}}}`},
	}
	for name, c := range files {
		p := filepath.Join(dir, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(c[0]), 0o644))
	}
	opts := Options{Base: dir}
	res, err := Run([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Fix(context.Background(), res, FixOptions{Lint: opts}); err != nil {
		t.Fatal(err)
	}
	for name, c := range files {
		got, _ := os.ReadFile(filepath.Join(dir, name))
		if string(got) != c[1] {
			t.Errorf("%s:\n got %s\nwant %s", name, got, c[1])
		}
	}
}
