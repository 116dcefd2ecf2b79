package bundle_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/skillpack/skillpack/bundle"
)

// TestFolderLetsGo renames a bundle folder while a Folder reads it, as a
// build's swap does under a server: Windows renames no folder that is
// open, so there the Folder holds it open only while it looks a file up.
// Elsewhere any folder can be renamed, and it proves nothing: skipped.
// (Not t.TempDir: under Wine, which ran it, RemoveAll fails on a
// folder's files.)
func TestFolderLetsGo(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("Windows alone renames no open folder: the test runs there (under Wine here)")
	}
	tmp, err := os.MkdirTemp("", "folder")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "dist")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := bundle.OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	data, err := bundle.ReadAll(context.Background(), d, "a.txt", 10)
	if err != nil || string(data) != "a" {
		t.Fatalf("read %q, %v", data, err)
	}
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatalf("a build could not move the folder aside: %v", err)
	}
	os.Remove(filepath.Join(dir+".old", "a.txt"))
	os.Remove(dir + ".old")
	os.Remove(tmp)
}
