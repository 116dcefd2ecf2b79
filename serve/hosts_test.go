package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
)

// TestCodexConnects starts serve as the Codex CLI's MCP server (pinned in
// .ci/mcp/package.json) over HTTP, and asks Codex's app server what it
// made of it, as its /mcp command shows: connected, the skills' SKILL.md
// files listed, no error. Codex calls tools/list whatever a server
// declares and counted serve's "method not found" as a failed start.
// The network is shut but for loopback.
func TestCodexConnects(t *testing.T) {
	bin := testtool.Need(t, "codex")
	base, _ := serveBundle(t, open(t, pristine(t)), Options{})
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	if err := os.Mkdir(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	config := "[mcp_servers.skills]\nurl = \"" + base + MCPPath + "\"\n"
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	// A bound for a hung client, not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome, "HTTPS_PROXY=http://127.0.0.1:9",
		"HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost", "NO_COLOR=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	send := func(m string) {
		if _, err := in.Write([]byte(m + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	type server struct {
		Name       string `json:"name"`
		ToolsError string `json:"toolsError"`
		Resources  []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	}
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 16<<20)
	// The status of an MCP server still starting has no resources yet:
	// asked again until it has them or an error.
	send(`{"method":"initialize","id":0,"params":{"clientInfo":{"name":"skillpack-test","title":"t","version":"1"}}}`)
	send(`{"method":"initialized"}`)
	var got server
	for id := 1; ctx.Err() == nil && len(got.Resources) == 0 && got.ToolsError == ""; id++ {
		time.Sleep(500 * time.Millisecond)
		send(`{"method":"mcpServerStatus/list","id":` + strconv.Itoa(id) + `,"params":{}}`)
		for lines.Scan() {
			var m struct {
				ID     *int `json:"id"`
				Result struct {
					Data []server `json:"data"`
				} `json:"result"`
			}
			if json.Unmarshal(lines.Bytes(), &m) != nil || m.ID == nil || *m.ID != id {
				continue
			}
			for _, s := range m.Result.Data {
				if s.Name == "skills" {
					got = s
				}
			}
			break
		}
	}
	var uris []string
	for _, r := range got.Resources {
		uris = append(uris, r.URI)
	}
	if got.ToolsError != "" || !strings.Contains(strings.Join(uris, " "), "skill://commit-messages/SKILL.md") {
		t.Errorf("Codex made of serve: error %q, resources %q; want the skills' SKILL.md files and no error", got.ToolsError, uris)
	}
}
