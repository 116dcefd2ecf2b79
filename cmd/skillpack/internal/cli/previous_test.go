package cli

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/serve"
)

// build --previous reads a bundle published on a private registry (serve
// --auth-token-file) with --previous-token-file or --previous-header, and
// a refusal names those flags, not verify's.
func TestBuildPreviousPrivate(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	writeSkills(t, map[string]string{
		"skills/good/SKILL.md": strings.Replace(cleanSkill, "---\n#", "metadata:\n  version: \"1.0.0\"\n---\n#", 1),
		"token.txt":            token + "\n",
	})
	if code := Main([]string{"build", "skills", "-o", "dist", "--versioned"}, nil, new(bytes.Buffer), new(bytes.Buffer)); code != 0 {
		t.Fatalf("build exited %d", code)
	}
	b, err := serve.Open("dist")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	srv := httptest.NewServer(serve.New(b, serve.Options{Tokens: []string{token}}).Handler())
	defer srv.Close()

	for _, tc := range []struct {
		args   []string
		code   int
		stderr string // a line of it
	}{
		{[]string{"--previous-token-file", "token.txt"}, ExitOK, "• guard: 1 skill compared with " + srv.URL},
		{[]string{"--previous-header", "Authorization: Bearer " + token}, ExitOK, "• guard: 1 skill compared with " + srv.URL},
		{nil, ExitFindings, "answered 401 Unauthorized; pass a token with --previous-token-file or --previous-header 'Authorization: …'"},
	} {
		var stdout, stderr bytes.Buffer
		os.RemoveAll("next")
		code := Main(append([]string{"build", "skills", "-o", "next", "--versioned", "--previous", srv.URL}, tc.args...), nil, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.stderr)
		}
		if strings.Contains(stdout.String()+stderr.String(), token) {
			t.Errorf("%q: the output prints the token", tc.args)
		}
	}

	// The credentials are for a URL.
	var stderr bytes.Buffer
	code := Main([]string{"build", "skills", "-o", "next", "--previous", "dist", "--previous-token-file", "token.txt"}, nil, new(bytes.Buffer), &stderr)
	if want := "skillpack: --previous-header and --previous-token-file are for a URL; --previous dist is a folder, read without HTTP, so leave them out\n"; code != ExitUsage || stderr.String() != want {
		t.Errorf("a folder with a token: exit %d, %q; want %d, %q", code, stderr.String(), ExitUsage, want)
	}
	// A mistake in the second of two headers names the flag it was given with.
	stderr.Reset()
	code = Main([]string{"build", "skills", "-o", "next", "--previous", srv.URL, "--previous-header", "X-A: 1", "--previous-header", "X-B"}, nil, new(bytes.Buffer), &stderr)
	if want := "skillpack: --previous-header #2 has no ':'; give it as 'Name: value', such as --previous-header 'Authorization: Bearer TOKEN'\n"; code != ExitUsage || stderr.String() != want {
		t.Errorf("a bad second header: exit %d, %q; want %d, %q", code, stderr.String(), ExitUsage, want)
	}
	stderr.Reset()
	code = Main([]string{"build", "skills", "-o", "next", "--previous-header", "Authorization: Bearer " + token}, nil, new(bytes.Buffer), &stderr)
	if want := "skillpack: --previous-header and --previous-token-file are for the --previous URL; give --previous, or leave them out\n"; code != ExitUsage || stderr.String() != want {
		t.Errorf("no --previous: exit %d, %q; want %d, %q", code, stderr.String(), ExitUsage, want)
	}
}

// skillpack.yaml's build section gives build the settings its flags do,
// paths relative to the file, and a flag given wins.
func TestBuildConfigSettings(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	versioned := strings.Replace(cleanSkill, "---\n#", "metadata:\n  version: \"1.0.0\"\n---\n#", 1)
	dir := writeSkills(t, map[string]string{
		"proj/skills/good/SKILL.md": versioned,
		"proj/site/llms.txt":        "# Site\n\n> A site.\n\n<!-- skillpack:agent-skills:start -->\n<!-- skillpack:agent-skills:end -->\n",
		"proj/skillpack.yaml": "build:\n  base-url: https://skills.example.com\n  llms-txt-merge: site/llms.txt\n  ai-catalog: true\n" +
			"  versioned: true\n  previous: ../published\n",
	})
	run := func(args ...string) (int, string) {
		var stderr bytes.Buffer
		code := Main(args, nil, new(bytes.Buffer), &stderr)
		return code, stderr.String()
	}
	t.Chdir(dir + "/proj")
	// The previous folder does not exist yet: the config's key is named.
	if code, stderr := run("build", "skills", "-o", "dist"); code != ExitUsage || !strings.Contains(stderr, "skillpack.yaml: build.previous "+dir+"/published: no such folder") {
		t.Fatalf("previous missing: exit %d, %s", code, stderr)
	}
	// A flag wins over the key.
	if code, stderr := run("build", "skills", "-o", "../published", "--previous", ""); code != ExitOK {
		t.Fatalf("first build: exit %d, %s", code, stderr)
	}
	for _, f := range []string{"llms.txt", ".well-known/ai-catalog.json", ".well-known/agent-skills/versions.json", ".well-known/agent-skills/good/1.0.0/SKILL.md"} {
		if _, err := os.Stat(dir + "/published/" + f); err != nil {
			t.Errorf("the config's build section: %v", err)
		}
	}
	if data, _ := os.ReadFile(dir + "/published/llms.txt"); !bytes.HasPrefix(data, []byte("# Site\n")) || !bytes.Contains(data, []byte("https://skills.example.com/.well-known/agent-skills/good/SKILL.md")) {
		t.Errorf("llms.txt is not the site's with the section merged:\n%s", data)
	}
	// Now the guard reads ../published: an edit without a bump is refused.
	if err := os.WriteFile("skills/good/SKILL.md", []byte(versioned+"\nOne more line.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := run("build", "skills", "-o", "dist"); code != ExitFindings || !strings.Contains(stderr, "bump metadata.version in skills/good/SKILL.md") {
		t.Errorf("the config's previous: exit %d, %s", code, stderr)
	}
	// The folder as publish file:// names it is the same folder; a target
	// no --previous reads is refused as the user's mistake, by build and
	// by verify alike.
	abs, _ := filepath.Abs(dir + "/published")
	if code, stderr := run("build", "skills", "-o", "dist", "--previous", "file://"+abs); code != ExitFindings || !strings.Contains(stderr, "bump metadata.version in skills/good/SKILL.md") {
		t.Errorf("--previous file://: exit %d, %s", code, stderr)
	}
	for _, cmd := range [][]string{{"build", "skills", "-o", "dist"}, {"verify", dir + "/published"}} {
		if code, stderr := run(append(cmd, "--previous", "s3://bucket/skills")...); code != ExitUsage || !strings.Contains(stderr, "a s3:// target is read by verify, not here") {
			t.Errorf("%s --previous s3://: exit %d, %s", cmd[0], code, stderr)
		}
	}
	if code, stderr := run("build", "skills", "-o", "dist", "--versioned=false", "--previous", "", "--ai-catalog=false", "--llms-txt-merge", ""); code != ExitOK {
		t.Fatalf("flags over the keys: exit %d, %s", code, stderr)
	}
	for _, f := range []string{".well-known/ai-catalog.json", ".well-known/agent-skills/versions.json", "llms.txt"} {
		if _, err := os.Stat("dist/" + f); err == nil {
			t.Errorf("dist/%s written although its flag said no", f)
		}
	}
}
