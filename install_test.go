package skillpack_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/internal/testtool"
)

// release is a fake GitHub release download site: files by path
// (/v0.1.0/checksums.txt), and the paths it was asked for.
type release struct {
	mu    sync.Mutex
	files map[string][]byte
	asked []string
}

func (r *release) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req.URL.Path)
	b, ok := r.files[req.URL.Path]
	if !ok {
		http.NotFound(w, req)
		return
	}
	w.Write(b)
}

// installRun runs scripts/install.sh VERSION BINDIR against the fake
// release at url, with env added, and returns its exit code and stderr.
func installRun(t *testing.T, url, version, bindir string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("sh", "scripts/install.sh", version, bindir)
	cmd.Env = append(os.Environ(), "SKILLPACK_RELEASES="+url, "COSIGN="+filepath.Join(t.TempDir(), "no-cosign"), "SKILLPACK_SIGN=false")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("install.sh %s: %s%s", version, out, stderr.String())
	if err != nil {
		if e, ok := err.(*exec.ExitError); ok {
			return e.ExitCode(), stderr.String()
		}
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// versionOf runs BINDIR/skillpack version and returns its first line.
func versionOf(t *testing.T, bindir string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(bindir, "skillpack"), "version").Output()
	if err != nil {
		t.Fatalf("skillpack version: %v", err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return first
}

func targz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, b := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

// TestInstallScript runs the Action's installer against a release served
// on loopback: it installs an archive that matches checksums.txt, and
// refuses one that does not, or whose signature cosign rejects, or that is
// another version; without a release it builds from source only when told
// where the source is.
func TestInstallScript(t *testing.T) {
	testtool.Need(t, "sh")
	testtool.Need(t, "curl")
	testtool.Need(t, "tar")
	if runtime.GOOS == "windows" || runtime.GOARCH == "arm" {
		t.Skip("the fake release holds a tar.gz named for " + runtime.GOOS + "/" + runtime.GOARCH)
	}
	rel := &release{files: map[string][]byte{}}
	srv := httptest.NewServer(rel) // 127.0.0.1
	defer srv.Close()
	// The release's skillpack is a stand-in that reports its version as a
	// stamped binary does: the installer runs it before installing.
	bin := []byte("#!/bin/sh\necho 'skillpack v0.1.0'\n")

	archive := fmt.Sprintf("skillpack_0.1.0_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
	body := targz(t, map[string][]byte{"skillpack": bin, "skillpack-sign": []byte("#!/bin/sh\n"), "LICENSE": []byte("MIT\n")})
	sum := fmt.Sprintf("%x", sha256.Sum256(body))
	publish := func(tag, sum string) {
		rel.mu.Lock()
		defer rel.mu.Unlock()
		name := strings.Replace(archive, "0.1.0", strings.TrimPrefix(tag, "v"), 1)
		rel.files["/"+tag+"/"+name] = body
		rel.files["/"+tag+"/checksums.txt"] = fmt.Appendf(nil, "%x  skillpack_%s_other_os.tar.gz\n%s  %s\n", sha256.Sum256(nil), tag, sum, name)
		rel.files["/"+tag+"/checksums.txt.sigstore.json"] = []byte("{}")
	}

	t.Run("wrong checksum", func(t *testing.T) {
		publish("v0.1.0", strings.Repeat("0", 64))
		dir := t.TempDir()
		code, stderr := installRun(t, srv.URL, "v0.1.0", dir)
		if code != 1 || !strings.Contains(stderr, archive+": SHA-256") {
			t.Fatalf("exit %d, want 1 and the archive named: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "skillpack")); err == nil {
			t.Fatal("installed an archive whose checksum does not match")
		}
	})

	t.Run("right checksum", func(t *testing.T) {
		publish("v0.1.0", sum)
		dir := t.TempDir()
		code, stderr := installRun(t, srv.URL, "v0.1.0", dir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got := versionOf(t, dir); got != "skillpack v0.1.0" {
			t.Fatalf("installed %q", got)
		}
		if _, err := os.Stat(filepath.Join(dir, "skillpack-sign")); err != nil {
			t.Fatal("skillpack-sign is not installed beside skillpack")
		}
		if !strings.Contains(stderr, "cosign is not on PATH") {
			t.Errorf("without cosign the installer does not say the signature went unchecked: %s", stderr)
		}
	})

	t.Run("cosign", func(t *testing.T) {
		publish("v0.1.0", sum)
		// A stand-in cosign: it records its arguments and exits as told.
		fake := filepath.Join(t.TempDir(), "cosign")
		args := fake + ".args"
		os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \""+args+"\"\nexit \"$FAKE_COSIGN_EXIT\"\n"), 0o755)
		dir := t.TempDir()
		if code, stderr := installRun(t, srv.URL, "v0.1.0", dir, "COSIGN="+fake, "FAKE_COSIGN_EXIT=1"); code != 1 {
			t.Fatalf("a signature cosign rejects: exit %d, want 1: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "skillpack")); err == nil {
			t.Fatal("installed a release whose signature does not verify")
		}
		if code, stderr := installRun(t, srv.URL, "v0.1.0", dir, "COSIGN="+fake, "FAKE_COSIGN_EXIT=0"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		got, _ := os.ReadFile(args)
		for _, want := range []string{"verify-blob", "--bundle", "https://github.com/skillpack/skillpack/.github/workflows/release.yml@refs/tags/v0.1.0", "https://token.actions.githubusercontent.com"} {
			if !strings.Contains(string(got), want+"\n") {
				t.Errorf("cosign was not given %q:\n%s", want, got)
			}
		}
	})

	t.Run("another version inside", func(t *testing.T) {
		publish("v0.1.1", sum) // the v0.1.0 binary, under v0.1.1
		dir := t.TempDir()
		if code, stderr := installRun(t, srv.URL, "v0.1.1", dir); code != 1 || !strings.Contains(stderr, `reports "skillpack v0.1.0"`) {
			t.Fatalf("exit %d, want 1: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "skillpack")); err == nil {
			t.Fatal("installed a binary of another version")
		}
	})

	t.Run("moving tag", func(t *testing.T) {
		publish("v0.1.0", sum)
		rel.mu.Lock()
		rel.files["/latest/checksums.txt"] = rel.files["/v0.1.0/checksums.txt"] // GitHub's latest release
		rel.mu.Unlock()
		latest := "SKILLPACK_LATEST=" + srv.URL + "/latest"
		dir := t.TempDir()
		if code, stderr := installRun(t, srv.URL, "v0", dir, latest); code != 0 {
			t.Fatalf("v0: exit %d: %s", code, stderr)
		}
		if got := versionOf(t, dir); got != "skillpack v0.1.0" {
			t.Errorf("v0 installed %q, want the newest v0 release", got)
		}
		cmd := exec.Command("sh", "scripts/install.sh", "--resolve", "v0.1")
		cmd.Env = append(os.Environ(), latest)
		if out, err := cmd.Output(); err != nil || string(out) != "v0.1.0\n" {
			t.Errorf("--resolve v0.1: %q, %v; want v0.1.0", out, err)
		}
		// v1 is not the newest release's major version: no release.
		if code, stderr := installRun(t, srv.URL, "v1", t.TempDir(), latest); code != 4 || !strings.Contains(stderr, "the newest release is v0.1.0") {
			t.Errorf("v1: exit %d, want 4: %s", code, stderr)
		}
	})

	t.Run("no release", func(t *testing.T) {
		rel.mu.Lock()
		rel.asked = nil
		rel.mu.Unlock()
		for _, v := range []string{"v9.9.9", "main", "0123456789abcdef0123456789abcdef01234567"} {
			if code, stderr := installRun(t, srv.URL, v, t.TempDir()); code != 4 || !strings.Contains(stderr, "SKILLPACK_SOURCE") {
				t.Errorf("%s: exit %d, want 4 and the way to build from source: %s", v, code, stderr)
			}
		}
		// Only the tag is looked up: a branch or a commit has no release.
		if want := []string{"/v9.9.9/checksums.txt"}; fmt.Sprint(rel.asked) != fmt.Sprint(want) {
			t.Errorf("asked for %v, want %v", rel.asked, want)
		}
	})
}

// TestInstallScriptSource checks the installer's source build stamps the
// version the Action was asked for into the variable internal/version
// reads, through a stand-in go command (a real build takes minutes on a
// cold cache; .goreleaser.yaml stamps the same variable).
func TestInstallScriptSource(t *testing.T) {
	testtool.Need(t, "sh")
	testtool.Need(t, "curl")
	src, err := os.ReadFile("internal/version/version.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte("\nvar stamped string\n")) {
		t.Fatal("internal/version has no `var stamped string`: scripts/install.sh and .goreleaser.yaml stamp it")
	}
	fakebin := t.TempDir()
	// It records its arguments, and writes to -o a program that reports
	// the stamp it was given.
	os.WriteFile(filepath.Join(fakebin, "go"), []byte(`#!/bin/sh
printf '%s\n' "$PWD" "$@" >> "$FAKE_GO_ARGS"
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift ;;
    -ldflags) stamp=${2#*stamped=}; shift ;;
  esac
  shift
done
printf '#!/bin/sh\necho "skillpack %s"\n' "${stamp:-(devel)}" > "$out"
chmod 755 "$out"
`), 0o755)
	srv := httptest.NewServer(&release{files: map[string][]byte{}}) // no release at all
	defer srv.Close()
	wd, _ := os.Getwd()
	for _, c := range []struct{ ref, stamp string }{
		{"v0.1.0", "v0.1.0"}, // a tag not released yet
		{"0123456789abcdef0123456789abcdef01234567", "v0.0.0-00000000000000-0123456789ab"},
		{"feature/x", "v0.0.0-feature-x"},
	} {
		args := filepath.Join(t.TempDir(), "args")
		dir := t.TempDir()
		code, stderr := installRun(t, srv.URL, c.ref, dir, "SKILLPACK_SOURCE="+wd, "FAKE_GO_ARGS="+args,
			"PATH="+fakebin+string(os.PathListSeparator)+os.Getenv("PATH"), "SKILLPACK_SIGN=true")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.ref, code, stderr)
		}
		if got := versionOf(t, dir); got != "skillpack "+c.stamp {
			t.Errorf("%s: installed %q, want skillpack %s", c.ref, got, c.stamp)
		}
		got, _ := os.ReadFile(args)
		for _, want := range []string{
			wd + "\nbuild\n", "-X github.com/skillpack/skillpack/internal/version.stamped=" + c.stamp + "\n./cmd/skillpack\n",
			filepath.Join(wd, "cmd", "skillpack-sign") + "\nbuild\n", "-X main.stamped=" + c.stamp + "\n.\n",
		} {
			if !strings.Contains(string(got), want) {
				t.Errorf("%s: go was not run with %q:\n%s", c.ref, want, got)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "skillpack-sign")); err != nil {
			t.Errorf("%s: skillpack-sign was not built", c.ref)
		}
	}
}

// TestPreCommitSystemHooks checks each hook that compiles skillpack
// (language: golang) has a twin that runs the installed one, doing the same.
func TestPreCommitSystemHooks(t *testing.T) {
	data, err := os.ReadFile(".pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type hook struct {
		ID            string   `yaml:"id"`
		Entry         string   `yaml:"entry"`
		Language      string   `yaml:"language"`
		Files         string   `yaml:"files"`
		Types         []string `yaml:"types"`
		TypesOr       []string `yaml:"types_or"`
		PassFilenames bool     `yaml:"pass_filenames"`
		AlwaysRun     bool     `yaml:"always_run"`
		RequireSerial bool     `yaml:"require_serial"`
	}
	var hooks []hook
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	byID := map[string]hook{}
	for _, h := range hooks {
		byID[h.ID] = h
	}
	n := 0
	for _, h := range hooks {
		if h.Language != "golang" {
			continue
		}
		n++
		twin, ok := byID[h.ID+"-system"]
		if !ok || twin.Language != "system" {
			t.Errorf("hook %s has no %s-system twin with language: system", h.ID, h.ID)
			continue
		}
		twin.ID, twin.Language = h.ID, h.Language
		if !reflect.DeepEqual(twin, h) {
			t.Errorf("hook %s-system does not do what %s does:\n%+v\n%+v", h.ID, h.ID, twin, h)
		}
	}
	if n == 0 {
		t.Error("no language: golang hook")
	}
	// A commit that only deletes files passes none, and would skip the
	// hook that catches the links it breaks. (TestPreCommitHooks runs
	// pre-commit on what its file selection decides.)
	if !byID["skillpack-lint-all"].AlwaysRun {
		t.Error("skillpack-lint-all does not run on every commit (always_run)")
	}
}

// TestPreCommitHooks runs the hooks with pre-commit itself (try-repo: this
// repository's .pre-commit-hooks.yaml as a user's config would take it),
// on what only pre-commit's file selection decides: a staged link that
// leaves the repository (pre-commit passes no link unless told), and a
// commit that changes only skillpack.yaml.
func TestPreCommitHooks(t *testing.T) {
	precommit := testtool.Need(t, "pre-commit")
	root, _ := os.Getwd()
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout: pre-commit try-repo needs one")
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "skillpack"), "./cmd/skillpack").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		testtool.Git(t, repo, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	}
	write := func(name, text string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755)
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("skills/a/SKILL.md", "---\nname: a\ndescription: Does a things for the tests. Use when asked to do them.\n---\nSee [the notes](missing.md).\n")
	git("add", "-A")
	git("commit", "-q", "-m", "init")
	run := func() (string, error) {
		cmd := exec.Command(precommit, "try-repo", root, "skillpack-lint-system")
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "cache"), "SKIP=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("not the repository's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(repo, "skills/a/out.txt")); err != nil {
		t.Skip(err)
	}
	git("add", "skills/a/out.txt")
	if out, err := run(); err == nil || !strings.Contains(out, "[symlink-escape]") {
		t.Errorf("a staged link leaving the repository passed the hook (%v):\n%s", err, out)
	}
	git("rm", "-q", "--cached", "skills/a/out.txt")
	os.Remove(filepath.Join(repo, "skills/a/out.txt"))

	write("skillpack.yaml", "rules:\n  link-broken: error\n")
	git("add", "skillpack.yaml")
	if out, err := run(); err == nil || !strings.Contains(out, "error: link target \"missing.md\"") {
		t.Errorf("a commit that makes a broken link an error in skillpack.yaml passed the hook (%v):\n%s", err, out)
	}
}
