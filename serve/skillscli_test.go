package serve

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/testtool"
)

// skillsCLI is the Vercel skills CLI the tests install with, and the Node
// it needs (its package.json asks for 22.20 or newer: it imports glob from
// fs/promises), for the messages of a test that cannot run it.
const skillsCLI = "npm install -g skills@1.7.4, with Node 22.20 or newer on PATH"

// needSkillsCLI returns the skills CLI's path, or skips the test naming
// what is missing (fails under SKILLPACK_REQUIRE_TOOLS=1).
func needSkillsCLI(t *testing.T) string {
	t.Helper()
	node := testtool.Need(t, "node")
	missing := func(why string) {
		t.Helper()
		if testtool.Required() {
			t.Fatalf("%s (%s), and %s=1 requires it", why, skillsCLI, testtool.Env)
		}
		t.Skipf("%s (%s)", why, skillsCLI)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		missing(fmt.Sprintf("node --version: %v", err))
	}
	v := strings.TrimSpace(string(out))
	var major, minor int
	if _, err := fmt.Sscanf(v, "v%d.%d", &major, &minor); err != nil || major < 22 || major == 22 && minor < 20 {
		missing("node is " + v + ", older than the skills CLI runs on")
	}
	ok, _, err := testtool.Check("skills")
	if !ok {
		missing(err.Error())
	}
	p, _ := testtool.Look("skills")
	return p
}

// TestSkillsCLIUnicode builds a skill written in Chinese (with an accented
// name, an emoji, a macOS screenshot name and a path long enough to take
// the USTAR prefix field), serves the bundle on 127.0.0.1, and installs it
// with the Vercel skills CLI, whose minimal tar reader takes a name from
// the USTAR name and prefix fields and skips PAX records: every file must
// arrive under its own name, byte for byte.
func TestSkillsCLIUnicode(t *testing.T) {
	cli := needSkillsCLI(t)
	tmp := t.TempDir()
	src := filepath.Join(tmp, "skills", "zh-notes")
	files := map[string]string{
		"SKILL.md": "---\nname: zh-notes\ndescription: 中文技能：测试中文文件名的打包、发布与安装。Use it in tests.\n---\n\n" +
			"# 中文\n\n阅读 [说明](参考/说明.md)、[café](references/café.md) 和 [截图](<assets/Screenshot 2024-05-01 at 10.15.32\u202fAM.png>)。\n" +
			"Run `sh scripts/运行.sh` or `sh scripts/🚀.sh`.\n",
		"assets/Screenshot 2024-05-01 at 10.15.32\u202fAM.png": "\x89PNG\r\n",
		"references/café.md": "café\n",
		"scripts/运行.sh":      "#!/bin/sh\necho 你好\n",
		"scripts/🚀.sh":       "#!/bin/sh\necho 🚀\n",
		"参考/说明.md":           strings.Repeat("说明：先读这个文件。\n", 400),
		strings.Repeat("目", 40) + "/" + strings.Repeat("文", 30) + ".md": "长路径\n",
	}
	testtool.WriteTree(t, src, files)
	dist := filepath.Join(tmp, "dist")
	res, err := build.Run([]string{filepath.Dir(src)}, build.Options{Out: dist})
	if err != nil {
		t.Fatalf("build: %v; findings %v", err, res.Findings)
	}
	base, _ := start(t, dist, Options{})

	home, proj := filepath.Join(tmp, "home"), filepath.Join(tmp, "project")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A bound for a hung client, not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, "add", base, "--yes", "--copy", "--agent", "claude-code", "--skill", "*")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "DO_NOT_TRACK=1", "DISABLE_TELEMETRY=1", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("skills add %s: %v\n%s", base, err, out)
	}

	installed := filepath.Join(proj, ".claude", "skills", "zh-notes")
	got := map[string]string{}
	err = filepath.WalkDir(installed, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(installed, p)
		b, err := os.ReadFile(p)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatalf("%v\nskills add said:\n%s", err, out)
	}
	for name, data := range files {
		switch g, ok := got[name]; {
		case !ok:
			t.Errorf("%s was not installed under its name", strconv.QuoteToGraphic(name))
		case !bytes.Equal([]byte(g), []byte(data)):
			t.Errorf("%s: installed bytes differ", name)
		}
	}
	for name := range got {
		if _, ok := files[name]; !ok {
			t.Errorf("%s was installed, but is no file of the skill", strconv.QuoteToGraphic(name))
		}
	}
	if t.Failed() {
		t.Logf("skills add said:\n%s", out)
	}
}

// TestSkillsCLIMarketplace builds three plugins with the four marketplaces
// (so each plugin's folder is served too, skills and all) and has the
// Vercel skills CLI read the bundle through the generated
// .claude-plugin/marketplace.json: it groups the skills by plugin, as the
// marketplace says, and installs every one byte for byte as served. The
// CLI reads a marketplace from a folder or a git checkout only (over
// HTTP it reads the discovery index), so it is given the bundle's folder.
func TestSkillsCLIMarketplace(t *testing.T) {
	cli := needSkillsCLI(t)
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	if res, err := build.Run([]string{filepath.Join("..", "build", "testdata", "plugins")}, build.Options{Out: dist, Marketplaces: []string{"claude", "codex", "cursor", "copilot"}}); err != nil {
		t.Fatalf("build: %v; findings %v", err, res.Findings)
	}
	home, proj := filepath.Join(tmp, "home"), filepath.Join(tmp, "project")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		// A bound for a hung client, not a timing assertion.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, cli, append([]string{"add", dist}, args...)...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "HOME="+home, "DO_NOT_TRACK=1", "DISABLE_TELEMETRY=1", "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("skills add %s %v: %v\n%s", dist, args, err, out)
		}
		return string(out)
	}
	list := run("--list")
	for _, group := range []string{"Db Tools", "Notes", "Pdf Tools"} {
		if !strings.Contains(list, "\n"+group+"\n") {
			t.Errorf("skills add --list shows no group %q, as the marketplace's plugin:\n%s", group, list)
		}
	}
	out := run("--yes", "--copy", "--agent", "claude-code", "--skill", "*")
	for _, name := range []string{"db-query", "meeting-notes", "pdf-fill", "pdf-merge"} {
		served := filepath.Join(dist, ".well-known", "agent-skills", name)
		installed := filepath.Join(proj, ".claude", "skills", name)
		err := filepath.WalkDir(served, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(served, p)
			want, _ := os.ReadFile(p)
			got, err := os.ReadFile(filepath.Join(installed, rel))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s/%s: not installed byte for byte (%v)", name, filepath.ToSlash(rel), err)
			}
			return nil
		})
		if err != nil {
			t.Errorf("%s: %v\nskills add said:\n%s", name, err, out)
		}
	}
}
