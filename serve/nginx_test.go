package serve

import (
	"bytes"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// TestNginxConfig runs docs/nginx.conf, the configuration the docs give
// for serving a bundle from nginx, and asks it and skillpack serve for
// every file of one bundle (the examples, a file of every type skillpack
// knows, llms.txt, the AI Catalog, and the versions of a versioned build): both must answer with the same
// status, bytes, type, cache lifetime and CORS headers. ETag is left
// out: nginx's is its own (time and size), serve's the digest.
func TestNginxConfig(t *testing.T) {
	nginx := testtool.Need(t, "nginx")
	skills, _ := newSkills(t)
	every := filepath.Join(skills, "every-type")
	files := map[string]string{"SKILL.md": "---\nname: every-type\ndescription: A file of every type skillpack knows, to check a host's configuration gives each its type.\n---\n\n# Every type\n"}
	for i, ext := range layout.Extensions() {
		files[fmt.Sprintf("assets/f%d%s", i, ext)] = "x\n"
	}
	files["assets/UPPER.MD"] = "# upper\n"
	files["assets/.gitignore"] = "*.tmp\n" // a name whose only dot is its first: nginx takes no extension from it
	files["assets/none"] = "no extension\n"
	for name, body := range files {
		p := filepath.Join(every, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A plugin, served as archives and, for Codex's marketplace, a folder.
	if err := os.MkdirAll(filepath.Join(skills, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, ".claude-plugin", "plugin.json"), []byte(`{"name": "examples", "version": "1.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{skills}, build.Options{Out: dist, BaseURL: "https://skills.example.com", LLMsTxt: true, AICatalog: true, Versioned: true, Release: "1.0.0",
		Marketplaces: []string{"claude", "codex"}}); err != nil {
		t.Fatal(err)
	}
	ours, _ := start(t, dist, Options{})
	theirs := runNginx(t, nginx, dist)

	var paths []string
	err := filepath.WalkDir(dist, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dist, p)
			paths = append(paths, "/"+filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Folders, which serve and nginx answer alike (nginx said 403 where no index.html is).
	paths = append(paths, "/missing.json", "/.well-known/agent-skills/missing.tar.gz", "/.well-known/agent-skills/every-type/", "/.well-known/", "/skills/", "/")
	// A folder named without its slash: 404 from both, not nginx's 301 to
	// the slash (an absolute URL, http:// behind a TLS front).
	once := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/.well-known/agent-skills/every-type", "/.well-known/agent-skills/every-type/assets", "/.well-known"} {
		for _, base := range []string{ours, theirs} {
			resp, err := once.Get(base + p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s%s: %d, want 404", base, p, resp.StatusCode)
			}
		}
	}
	headers := []string{"Content-Type", "Cache-Control", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "X-Content-Type-Options", "Content-Length"}
	for _, p := range paths {
		a, abody := get(t, ours+p)
		b, bbody := get(t, theirs+p)
		if a.StatusCode != b.StatusCode {
			t.Errorf("GET %s: serve %d, nginx %d", p, a.StatusCode, b.StatusCode)
			continue
		}
		if a.StatusCode != http.StatusOK {
			continue
		}
		if !bytes.Equal(abody, bbody) {
			t.Errorf("GET %s: serve and nginx send different bytes", p)
		}
		for _, h := range headers {
			if got, want := b.Header.Get(h), a.Header.Get(h); got != want {
				t.Errorf("GET %s: nginx gives %s %q, serve %q", p, h, got, want)
			}
		}
	}
	if len(paths) < 60 {
		t.Fatalf("only %d paths compared", len(paths))
	}
	// A page's preflight, before a conditional GET.
	for _, p := range []string{"/.well-known/agent-skills/index.json", "/index.html"} {
		var got [2]*http.Response
		for i, base := range []string{ours, theirs} {
			req, _ := http.NewRequest(http.MethodOptions, base+p, nil)
			req.Header.Set("Origin", "https://example.org")
			req.Header.Set("Access-Control-Request-Method", "GET")
			req.Header.Set("Access-Control-Request-Headers", "if-none-match")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got[i] = resp
		}
		if got[0].StatusCode != got[1].StatusCode {
			t.Errorf("OPTIONS %s: serve %d, nginx %d", p, got[0].StatusCode, got[1].StatusCode)
		}
		for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Max-Age"} {
			if a, b := got[0].Header.Get(h), got[1].Header.Get(h); a != b {
				t.Errorf("OPTIONS %s: nginx gives %s %q, serve %q", p, h, b, a)
			}
		}
	}
}

// runNginx runs nginx with docs/nginx.conf's server block serving dist on
// a free loopback port until the test ends, and returns its base URL.
func runNginx(t *testing.T, nginx, dist string) string {
	t.Helper()
	server, err := os.ReadFile("../docs/nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	conf := strings.NewReplacer("listen 80;", "listen "+addr+";", "root /srv/skills/dist;", "root "+dist+";").Replace(string(server))
	if conf == string(server) {
		t.Fatal("docs/nginx.conf no longer has the listen and root lines this test replaces")
	}
	prefix := t.TempDir()
	main := fmt.Sprintf("daemon off;\nmaster_process off;\nerror_log %[1]s/error.log;\npid %[1]s/nginx.pid;\nevents {}\nhttp {\n access_log off;\n client_body_temp_path %[1]s;\n proxy_temp_path %[1]s;\n fastcgi_temp_path %[1]s;\n uwsgi_temp_path %[1]s;\n scgi_temp_path %[1]s;\n%[2]s\n}\n", prefix, conf)
	if err := os.WriteFile(filepath.Join(prefix, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginx, "-p", prefix, "-c", filepath.Join(prefix, "nginx.conf"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		if i == 100 {
			log, _ := os.ReadFile(filepath.Join(prefix, "error.log"))
			t.Fatalf("nginx did not start: %s%s", out.String(), log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
