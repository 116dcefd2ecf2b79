package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// Plugin archives and their index are signed as skill archives are, by
// `build --sign` and by `skillpack sign`, and verify holds them to it: a
// missing signature, or one of another archive, is a problem.
func TestPluginSignatures(t *testing.T) {
	src := filepath.Join("..", "build", "testdata", "plugins")
	signed := filepath.Join(t.TempDir(), "signed")
	fake := func(data []byte) ([]byte, error) {
		return json.Marshal(fakeSig{Digest: layout.DigestOf(data).Hex(), Good: true})
	}
	if _, err := build.Run([]string{src}, build.Options{Out: signed, Sign: fake, SignFolder: signFolder}); err != nil {
		t.Fatal(err)
	}
	wantOK(t, check(t, signed, Options{RequireSignatures: true, Verifier: &fakeVerifier{}}))

	dir := filepath.Join(t.TempDir(), "dist")
	if _, err := build.Run([]string{src}, build.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	rep := check(t, dir, Options{RequireSignatures: true, Verifier: &fakeVerifier{}})
	wantProblem(t, rep, layout.PluginsIndex, "has no signature")
	var archives []string
	for _, a := range sign(t, dir) {
		if strings.HasPrefix(a, layout.PluginsDir+"/") && a != layout.PluginsIndex {
			archives = append(archives, a)
			if _, err := os.Stat(filepath.Join(signed, filepath.FromSlash(layout.Signature(a)))); err != nil {
				t.Errorf("build --sign did not sign %s: %v", a, err)
			}
		}
	}
	if len(archives) != 6 { // 3 plugins × 2 archives
		t.Fatalf("signed the plugin archives %v, want 6", archives)
	}
	wantOK(t, check(t, dir, Options{RequireSignatures: true, Verifier: &fakeVerifier{}}))

	// One archive's signature in place of another's is refused.
	slices.Sort(archives)
	other, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(layout.Signature(archives[1]))))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(layout.Signature(archives[0]))), other, 0o644); err != nil {
		t.Fatal(err)
	}
	wantProblem(t, check(t, dir, Options{RequireSignatures: true, Verifier: &fakeVerifier{}}), layout.Signature(archives[0]), "does not verify")
}
