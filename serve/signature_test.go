package serve

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
)

// A signed bundle is served with its signatures beside the artifacts, so
// that `skillpack verify URL --require-signatures` works against serve as
// against any static host; a signature changed while serving is refused.
func TestServesSignatures(t *testing.T) {
	tmp := t.TempDir()
	skills := filepath.Join(tmp, "skills")
	if err := os.CopyFS(skills, os.DirFS("../examples")); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(tmp, "dist")
	// A stand-in signer: serve treats signatures as opaque bytes.
	sign := func(data []byte) ([]byte, error) { return []byte(`{"signed":"` + layout.DigestOf(data) + `"}`), nil }
	signFolder := func(st []byte) ([]byte, error) { return []byte(`{"folder":` + string(st) + `}`), nil }
	if _, err := build.Run([]string{skills}, build.Options{Out: dist, Sign: sign, SignFolder: signFolder}); err != nil {
		t.Fatal(err)
	}
	base, _ := start(t, dist, Options{})

	var sigs []string
	filepath.WalkDir(dist, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, layout.SignatureSuffix) {
			rel, _ := filepath.Rel(dist, p)
			sigs = append(sigs, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(sigs) < 10 {
		t.Fatalf("the build wrote %d signatures", len(sigs))
	}
	folderSig := layout.FolderSignature("csv-profiler")
	for _, p := range append(sigs, folderSig) {
		want, _ := os.ReadFile(filepath.Join(dist, filepath.FromSlash(p)))
		resp, err := http.Get(base + "/" + p)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Equal(got, want) {
			t.Errorf("GET %s: %d, %d bytes; want 200 and the %d bytes on disk", p, resp.StatusCode, len(got), len(want))
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") && p != folderSig {
			t.Errorf("GET %s: Content-Type %q", p, ct)
		}
	}

	// Served over HTTP, but no MCP resource: mcp/resources.json does not
	// list it, though its path is that of a skill's file.
	uri := layout.URIScheme + "csv-profiler/" + layout.FolderSignatureFile
	if _, err := connectHTTP(t, base, "").ReadResource(ctx(t), &mcp.ReadResourceParams{URI: uri}); err == nil {
		t.Errorf("resources/read %s: no error; the folder signature is not an MCP resource", uri)
	}

	// Changed after startup: the snapshot's bytes are served, never the
	// new ones.
	p := sigs[0]
	orig, _ := os.ReadFile(filepath.Join(dist, filepath.FromSlash(p)))
	if err := os.WriteFile(filepath.Join(dist, filepath.FromSlash(p)), []byte(`{"signed":"forged"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(base + "/" + p)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, orig) {
		t.Errorf("a signature changed while serving: %d %q, want 200 and the bytes verified at startup", resp.StatusCode, body)
	}
}
