package verify

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/layout"
)

// installed is a skill as an installer leaves it: the signed bundle's
// .tar.gz of the skill unpacked into a folder, and the skill's folder
// signature fetched beside its files.
func installed(t *testing.T, name string) string {
	t.Helper()
	dir := copyBuilt(t)
	sign(t, dir)
	out := filepath.Join(t.TempDir(), name)
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(archiveOf(t, dir, name, layout.TarGz))))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, out, h.Name, data)
	}
	writeFile(t, out, layout.FolderSignatureFile, readFile(t, dir, layout.FolderSignature(name)))
	return out
}

func checkFolder(t *testing.T, dir, sig string, v SignatureVerifier) *Report {
	t.Helper()
	rep, err := Folder(context.Background(), dir, sig, Options{Verifier: v})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestFolder(t *testing.T) {
	t.Run("as installed", func(t *testing.T) {
		dir := installed(t, multi)
		if !IsSkillFolder(dir) {
			t.Error("IsSkillFolder: false")
		}
		// What OMS leaves out, an installer's or git's, is not compared.
		writeFile(t, dir, ".git/HEAD", []byte("ref: refs/heads/main\n"))
		writeFile(t, dir, ".gitignore", []byte("*.pyc\n"))
		v := &fakeVerifier{}
		rep := checkFolder(t, dir, "", v)
		wantOK(t, rep)
		if rep.Checked.Signatures != 1 || rep.Checked.Files != 4 || v.calls != 1 {
			t.Errorf("checked %+v with %d calls, want 1 signature and 4 files", rep.Checked, v.calls)
		}
		if len(rep.Signatures) != 1 || rep.Signatures[0].Status != SigVerified {
			t.Errorf("signatures %+v", rep.Signatures)
		}
	})
	t.Run("a file missing", func(t *testing.T) {
		dir := installed(t, multi)
		os.Remove(filepath.Join(dir, "SKILL.md"))
		rep := checkFolder(t, dir, "", &fakeVerifier{})
		wantProblem(t, rep, "SKILL.md", "is missing: the signature lists it with digest sha256:", "reinstall the skill")
		if rep.Signatures[0].Status != SigInvalid {
			t.Errorf("status %s", rep.Signatures[0].Status)
		}
	})
	t.Run("a file added", func(t *testing.T) {
		dir := installed(t, multi)
		writeFile(t, dir, "scripts/extra.py", []byte("print(1)\n"))
		wantProblem(t, checkFolder(t, dir, "", &fakeVerifier{}), "scripts/extra.py", "is not in the signed statement: a file added after signing; remove it")
	})
	t.Run("a file changed", func(t *testing.T) {
		dir := installed(t, multi)
		edit(t, dir, "SKILL.md", "CSV", "XLS")
		wantProblem(t, checkFolder(t, dir, "", &fakeVerifier{}), "SKILL.md", "has digest sha256:", "the file changed after signing")
	})
	t.Run("another identity", func(t *testing.T) {
		dir := installed(t, multi)
		edit(t, dir, layout.FolderSignatureFile, `"good":true`, `"good":false`)
		rep := checkFolder(t, dir, "", &fakeVerifier{})
		wantProblem(t, rep, layout.FolderSignatureFile, "does not verify: wrong identity")
		if len(rep.Problems) != 1 || rep.Checked.Signatures != 0 {
			t.Errorf("want only the signature's problem, got:\n%s", problems(rep))
		}
	})
	t.Run("another skill's signature", func(t *testing.T) {
		dir := installed(t, multi)
		src := installed(t, other)
		writeFile(t, dir, layout.FolderSignatureFile, readFile(t, src, layout.FolderSignatureFile))
		rep := checkFolder(t, dir, "", &fakeVerifier{})
		wantProblem(t, rep, "SKILL.md", "has digest")
		wantProblem(t, rep, "scripts/profile.py", "is not in the signed statement")
	})
	t.Run("no signature", func(t *testing.T) {
		dir := installed(t, multi)
		os.Remove(filepath.Join(dir, layout.FolderSignatureFile))
		rep := checkFolder(t, dir, "", &fakeVerifier{})
		wantProblem(t, rep, layout.FolderSignatureFile, "missing: the folder has no skill.oms.sig; fetch the one the bundle serves", "--signature")
		if rep.Signatures[0].Status != SigMissing {
			t.Errorf("status %s", rep.Signatures[0].Status)
		}
	})
	t.Run("signature outside the folder", func(t *testing.T) {
		dir := installed(t, multi)
		sig := filepath.Join(t.TempDir(), "skill.oms.sig")
		if err := os.Rename(filepath.Join(dir, layout.FolderSignatureFile), sig); err != nil {
			t.Fatal(err)
		}
		wantOK(t, checkFolder(t, dir, sig, &fakeVerifier{}))
		// Inside the folder under another name, it is left out of the walk.
		if err := os.Rename(sig, filepath.Join(dir, "csv.sig")); err != nil {
			t.Fatal(err)
		}
		wantOK(t, checkFolder(t, dir, filepath.Join(dir, "csv.sig"), &fakeVerifier{}))
	})
	t.Run("a symbolic link", func(t *testing.T) {
		dir := installed(t, multi)
		os.Remove(filepath.Join(dir, "SKILL.md"))
		if err := os.Symlink("/etc/passwd", filepath.Join(dir, "SKILL.md")); err != nil {
			t.Skip(err)
		}
		wantProblem(t, checkFolder(t, dir, "", &fakeVerifier{}), "SKILL.md", "is a symbolic link, and the signature covers regular files only")
	})
	t.Run("not a folder signature", func(t *testing.T) {
		dir := installed(t, multi)
		st, _ := json.Marshal(fakeFolderSig{Statement: []byte(`{"_type":"https://in-toto.io/Statement/v1","predicateType":"https://slsa.dev/provenance/v1"}`), Good: true})
		writeFile(t, dir, layout.FolderSignatureFile, st)
		wantProblem(t, checkFolder(t, dir, "", &fakeVerifier{}), layout.FolderSignatureFile, "not an OMS folder signature")
	})
	t.Run("no verifier", func(t *testing.T) {
		_, err := Folder(context.Background(), installed(t, multi), "", Options{})
		if err == nil || !strings.Contains(err.Error(), "give a verifier") {
			t.Errorf("err = %v", err)
		}
	})
	if IsSkillFolder(copyBuilt(t)) {
		t.Error("IsSkillFolder(a bundle) = true")
	}
}

// The specification's keyless test vector signs the reference tool's
// example model with ignore_paths ["ignore-me", "model.sig", ...]: those
// files are left out, and everything else must match.
func TestFolderSpecStatement(t *testing.T) {
	st, err := os.ReadFile(filepath.Join("..", "layout", "testdata", "oms", "spec-sigstore.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sig, _ := json.Marshal(fakeFolderSig{Statement: st, Good: true})
	writeFile(t, dir, "model.sig", sig)
	writeFile(t, dir, "signme-1", []byte("signme-1"))
	writeFile(t, dir, "signme-2", []byte("signme-2"))
	writeFile(t, dir, "ignore-me", nil)
	wantOK(t, checkFolder(t, dir, filepath.Join(dir, "model.sig"), &fakeVerifier{}))
	writeFile(t, dir, "signme-3", nil)
	wantProblem(t, checkFolder(t, dir, filepath.Join(dir, "model.sig"), &fakeVerifier{}), "signme-3", "is not in the signed statement")
}
