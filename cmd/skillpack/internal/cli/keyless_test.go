package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/signtest"
	"github.com/skillpack/skillpack/internal/testtool"
)

// Keyless signing end to end, as a release workflow runs it, against a
// private Sigstore instance on loopback (Fulcio, Rekor over HTTP, a
// timestamp authority, a CT log): build --sign, then publish --sign to a
// real registry; verify checks the folder, the registry (the manifests'
// own signatures too), and a pulled skill with the workflow's identity and
// refuses another identity; cosign verify, when installed, accepts the
// release tag with that identity and refuses another.
func TestKeyless(t *testing.T) {
	signHelper(t)
	sg := signtest.StartSigstore(t)
	host := testtool.Registry(t, "")
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	target := "oci://" + host + "/acme/skills:v1"
	sp := func(argv ...string) (int, string, string) {
		t.Helper()
		// The signing helper writes to stderr from a goroutine of exec's.
		ios, stdout, _ := fakeIO(nil)
		errb := &testtool.Buffer{}
		ios.Err = errb
		return run(ios, argv), stdout.String(), errb.String()
	}
	with := func(argv []string, flags ...[]string) []string {
		for _, f := range flags {
			argv = append(argv, f...)
		}
		return argv
	}
	evil := []string{"--certificate-identity", "https://github.com/evil/fork/.github/workflows/release.yml@refs/tags/v1.2.0",
		"--certificate-oidc-issuer", sg.Issuer, "--trusted-root", sg.TrustedRoot}

	if code, out, errb := sp(with([]string{"build", "../../../../examples", "-o", dist, "--sign"}, sg.SignFlags())...); code != ExitOK {
		t.Fatalf("build --sign: exit %d\n%s%s", code, out, errb)
	}
	code, out, errb := sp(with([]string{"verify", dist, "--require-signatures"}, sg.VerifyFlags())...)
	if code != ExitOK || !strings.Contains(errb, "signatures verified; everything verified") {
		t.Errorf("verify DIST: exit %d\n%s%s", code, out, errb)
	}
	if code, out, _ := sp(with([]string{"verify", dist}, evil)...); code != ExitFindings || !strings.Contains(out, `wrong identity: the certificate's identity is "`+sg.Identity+`"`) {
		t.Errorf("verify DIST as another identity: exit %d\n%s", code, out)
	}

	code, out, errb = sp(with([]string{"publish", dist, target, "--sign"}, sg.SignFlags())...)
	if code != ExitOK || !strings.Contains(out, "uploaded signature:csv-profiler\n") || !strings.Contains(out, "uploaded signature:index:v1\n") {
		t.Fatalf("publish --sign: exit %d\n%s%s", code, out, errb)
	}
	code, out, errb = sp(with([]string{"verify", target, "--require-signatures"}, sg.VerifyFlags())...)
	if code != ExitOK || !strings.Contains(errb, "signatures verified; everything verified") {
		t.Errorf("verify %s: exit %d\n%s%s", target, code, out, errb)
	}
	// Each manifest's own signature (cosign's) is checked too.
	if code, out, _ := sp(with([]string{"verify", target}, evil)...); code != ExitFindings || !strings.Contains(out, "wrong identity") ||
		strings.Count(out, "none of its 1 signatures (cosign's, of the manifest) verifies") != 6 {
		t.Errorf("verify %s as another identity: exit %d, want the 5 skills' and the collection's signatures refused\n%s", target, code, out)
	}

	// The skill as an installer leaves it, with its folder signature.
	pulled := filepath.Join(tmp, "pulled")
	if code, out, errb := sp("pull", target, "-o", pulled, "--skill", "csv-profiler"); code != ExitOK {
		t.Fatalf("pull: exit %d\n%s%s", code, out, errb)
	}
	skill := filepath.Join(pulled, "csv-profiler")
	if code, out, errb := sp(with([]string{"verify", skill}, sg.VerifyFlags())...); code != ExitOK || !strings.Contains(errb, "1 signature verified; everything verified") {
		t.Errorf("verify the pulled skill: exit %d\n%s%s", code, out, errb)
	}
	if code, out, _ := sp(with([]string{"verify", skill}, evil)...); code != ExitFindings || !strings.Contains(out, "wrong identity") {
		t.Errorf("verify the pulled skill as another identity: exit %d\n%s", code, out)
	}

	cosign, err := testtool.Look("cosign")
	if err != nil {
		t.Logf("cosign verify not run: %v", err)
		return
	}
	ref := strings.TrimPrefix(target, "oci://")
	cmd := exec.Command(cosign, "verify", "--trusted-root", sg.TrustedRoot, "--certificate-identity", sg.Identity,
		"--certificate-oidc-issuer", sg.Issuer, "--allow-http-registry", ref)
	cmd.Env = append(os.Environ(), "TUF_ROOT="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("cosign verify %s: %v\n%s", ref, err, out)
	}
	cmd = exec.Command(cosign, "verify", "--trusted-root", sg.TrustedRoot, "--certificate-identity", evil[1],
		"--certificate-oidc-issuer", sg.Issuer, "--allow-http-registry", ref)
	cmd.Env = append(os.Environ(), "TUF_ROOT="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("cosign verify %s accepted another identity:\n%s", ref, out)
	}
}
