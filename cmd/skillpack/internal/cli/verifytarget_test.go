package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// scriptKeys writes the signing key and the two public keys of the
// build_sign_verify script into dir.
func scriptKeys(t *testing.T, dir string) {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/script/build_sign_verify.txtar")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".pem") {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o600); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if n != 3 {
		t.Fatalf("build_sign_verify.txtar has %d keys, want key.pem, pub.pem and other.pub.pem", n)
	}
}

// skillpack build --sign --publish oci://… then skillpack verify oci://…
// with the public key, on a real registry (the scripts cannot start one):
// every signature verifies, and the files a registry does not hold are
// counted; a blob changed in the registry's storage, another key, and a
// reference that is not a bundle's collection fail the check (exit 1);
// verify --json is what the schema says.
func TestVerifyTargetRun(t *testing.T) {
	signHelper(t)
	host, storage := testtool.RegistryStorage(t, "")
	tmp := t.TempDir()
	scriptKeys(t, tmp)
	key, pub, other := filepath.Join(tmp, "key.pem"), filepath.Join(tmp, "pub.pem"), filepath.Join(tmp, "other.pub.pem")
	dist := filepath.Join(tmp, "dist")
	target := "oci://" + host + "/acme/skills:v1"

	// The signing helper writes to stderr from a goroutine of exec's: a
	// bytes.Buffer there loses what is written beside its ReadFrom.
	ios, stdout, _ := fakeIO(nil)
	errb := &testtool.Buffer{}
	ios.Err = errb
	if code := run(ios, []string{"build", "../../../../examples", "-o", dist, "--sign", "--key", key, "--publish", target}); code != ExitOK {
		t.Fatalf("build --publish: exit %d: %s", code, errb)
	}
	// build --sign signs the manifests it publishes, as publish --sign.
	if !strings.Contains(stdout.String(), "uploaded manifest:csv-profiler\n") || !strings.Contains(stdout.String(), "uploaded signature:index:v1\n") ||
		!strings.Contains(errb.String(), target+": ") {
		t.Errorf("build --publish printed:\n%s\n%s", stdout, errb)
	}

	ios, stdout, _ = fakeIO(nil)
	errb = &testtool.Buffer{}
	ios.Err = errb
	if code := run(ios, []string{"verify", target, "--key", pub, "--require-signatures"}); code != ExitOK {
		t.Fatalf("verify: exit %d:\n%s%s", code, stdout, errb)
	}
	want := target + ": 5 skills, 39 files, 5 archives, 5 indexes, 14 signatures verified; everything verified; 28 files not held there (.zip archives, served copies; the .tar.gz archives vouch for the files)\n"
	if stdout.Len() != 0 || errb.String() != want {
		t.Errorf("verify printed:\n%s\n%s\nwant on stderr:\n%s", stdout, errb, want)
	}

	schemas, err := filepath.Abs(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	ios, stdout, _ = fakeIO(nil)
	code := run(ios, []string{"verify", target, "--json"})
	if err := validateDoc(schemas, "verify.schema.json", stdout.Bytes(), code); err != nil || code != ExitOK || !strings.Contains(stdout.String(), `"notHeld": 28`) {
		t.Errorf("verify --json: exit %d, %v\n%s", code, err, stdout)
	}

	// A pulled skill comes with its folder signature, which checks its
	// files as for any installed skill.
	pulled := filepath.Join(tmp, "pulled")
	ios, stdout, errs := fakeIO(nil)
	if code := run(ios, []string{"pull", target, "-o", pulled, "--skill", "csv-profiler"}); code != ExitOK {
		t.Fatalf("pull: exit %d\n%s%s", code, stdout, errs)
	}
	ios, stdout, _ = fakeIO(nil)
	errb = &testtool.Buffer{}
	ios.Err = errb
	if code := run(ios, []string{"verify", filepath.Join(pulled, "csv-profiler"), "--key", pub}); code != ExitOK || !strings.Contains(errb.String(), "1 signature verified; everything verified") {
		t.Errorf("verify the pulled folder: exit %d\n%s%s", code, stdout, errb)
	}
	ios, stdout, _ = fakeIO(nil)
	if code := run(ios, []string{"verify", filepath.Join(pulled, "csv-profiler"), "--key", other}); code != ExitFindings || !strings.Contains(stdout.String(), "skill.oms.sig: does not verify") {
		t.Errorf("verify the pulled folder with another key: exit %d\n%s", code, stdout)
	}

	ios, stdout, _ = fakeIO(nil)
	if code := run(ios, []string{"verify", target, "--key", other}); code != ExitFindings || !strings.Contains(stdout.String(), "mcp/skills.json.sigstore.json: does not verify mcp/skills.json: the signature does not verify with the public key in "+other) {
		t.Errorf("another key: exit %d\n%s", code, stdout)
	}

	// An archive changed in the registry's storage, as a registry whose
	// copy is corrupt would serve it.
	var archive string
	var digest layout.Digest
	for _, p := range mustGlob(t, filepath.Join(dist, ".well-known", "agent-skills", "csv-profiler-*.tar.gz")) {
		data, _ := os.ReadFile(p)
		archive, digest = ".well-known/agent-skills/"+filepath.Base(p), layout.DigestOf(data)
	}
	blob := filepath.Join(storage, "docker", "registry", "v2", "blobs", "sha256", digest.Hex()[:2], digest.Hex(), "data")
	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ios, stdout, _ = fakeIO(nil)
	line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(archive) + `: the registry's blob ` + string(digest) + ` is sha256:[0-9a-f]{64}, but its manifest says ` + string(digest))
	if code := run(ios, []string{"verify", target}); code != ExitFindings || !line.MatchString(stdout.String()) {
		t.Errorf("a changed blob: exit %d\n%s", code, stdout)
	}

	for _, tc := range []struct {
		argv []string
		code int
		err  string
	}{
		{[]string{"verify", "oci://" + host + "/acme/skills:release-notes-1.2.0"}, ExitFindings, "is one skill's artifact, not a bundle"},
		{[]string{"verify", "oci://" + host + "/acme/nothing"}, ExitFindings, "not found"},
		{[]string{"verify", "oci://" + host + "/acme/skills", "--token-file", "t.txt"}, ExitUsage, "--header and --token-file are for an http(s) URL"},
		{[]string{"verify", "oci://ghcr.io"}, ExitUsage, "not an OCI source"},
	} {
		ios, _, errb := fakeIO(nil)
		if code := run(ios, tc.argv); code != tc.code || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.argv, code, errb, tc.code, tc.err)
		}
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) != 1 {
		t.Fatalf("%s: %v, %v; want one file", pattern, m, err)
	}
	return m
}

// verify oci:// of a hostile registry is bounded as pull is: a manifest
// over 4 MiB by tag is not read, and --timeout bounds each request,
// Check's reads of manifests included (it was ignored there), within
// --deadline. Each exits 1 naming the reference and the limit.
func TestVerifyTargetHostile(t *testing.T) {
	h := startHostile(t)
	h.objects["manifests/huge"] = hostileObject{mediaType: ocispec.MediaTypeImageIndex, digest: string(digest.FromString("huge")), body: []byte(`{"manifests":[`), length: 200 << 20}
	h.objects["manifests/slow"] = hostileObject{mediaType: ocispec.MediaTypeImageIndex, body: []byte(`{"schemaVersion":2}`), trickle: true}
	src := "oci://" + h.host + "/acme/skills:"
	for _, tc := range []struct {
		argv []string
		err  string
	}{
		{[]string{src + "huge"}, src + "huge: the registry sends a manifest of 209715200 bytes for huge, more than the 4194304 a manifest may be"},
		{[]string{src + "slow", "--timeout", "1s", "--deadline", "1m"}, src + "slow: no answer within 1s, the time a request has (--timeout)"},
	} {
		before := h.sent.Load()
		code, errb, rss := runChild(t, append([]string{"verify"}, tc.argv...)...)
		if code != ExitFindings || !strings.Contains(errb, tc.err) {
			t.Errorf("%v: exit %d, %s\nwant exit 1 and %q", tc.argv, code, errb, tc.err)
		}
		if rss > maxRSS {
			t.Errorf("%v: peak RSS %d bytes, over %d", tc.argv, rss, maxRSS)
		}
		t.Logf("%v: peak RSS %.1f MiB, %d bytes sent", tc.argv, float64(rss)/(1<<20), h.sent.Load()-before)
		if sent := h.sent.Load() - before; sent > 32<<20 {
			t.Errorf("%v: the registry got %d bytes out", tc.argv, sent)
		}
	}
}
