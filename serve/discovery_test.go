package serve

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/verify"
)

// TestDiscoveryEndToEnd builds the examples with llms.txt merged into a
// site's own and the AI Catalog, under the base URL of a real server on
// 127.0.0.1, serves the bundle there, and checks what a client gets: both
// documents with their types and the bytes checksums.txt gives them, a
// catalog that passes its published schema, and a bundle that verify
// finds whole, over HTTP and as a folder.
func TestDiscoveryEndToEnd(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	tmp := t.TempDir()
	site := filepath.Join(tmp, "site-llms.txt")
	siteText := []byte("# Example\n\n> Docs.\n\n## Docs\n\n- [Guide](https://example.com/guide.md)\n\n" +
		layout.LLMsStart + "\n" + layout.LLMsEnd + "\n\n## Optional\n\n- [Blog](https://example.com/blog.md)\n")
	if err := os.WriteFile(site, siteText, 0o644); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(tmp, "dist")
	opts := build.Options{Out: dist, BaseURL: base, LLMsTxtMerge: site, AICatalog: true}
	if _, err := build.Run([]string{"../examples"}, opts); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(site); !bytes.Equal(got, siteText) {
		t.Fatal("the build changed the site's llms.txt; it may only read it")
	}
	serveOn(t, New(open(t, dist), Options{}), ln)

	sums := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(readFileT(t, dist, layout.Checksums))), "\n") {
		hex, p, _ := strings.Cut(l, "  ")
		sums[p] = "sha256:" + hex
	}
	for p, ct := range map[string]string{
		layout.LLMsTxt:   "text/plain; charset=utf-8",
		layout.AICatalog: "application/ai-catalog+json",
	} {
		resp, err := http.Get(base + "/" + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != ct || digest(body) != sums[p] {
			t.Errorf("GET %s: %s, Content-Type %q, digest %s; want 200, %q, %s", p, resp.Status, resp.Header.Get("Content-Type"), digest(body), ct, sums[p])
		}
		if cc := resp.Header.Get("Cache-Control"); cc != layout.DefaultCache.Control(p) {
			t.Errorf("GET %s: Cache-Control %q", p, cc)
		}
		if !bytes.Contains(readFileT(t, dist, layout.Headers), []byte("\n/"+p+"\n  Content-Type: "+ct+"\n")) {
			t.Errorf("_headers has no rule for %s", p)
		}
		if p == layout.AICatalog {
			validateCatalog(t, body)
		}
	}
	llms := string(readFileT(t, dist, layout.LLMsTxt))
	for _, s := range []string{"## Docs\n", "## Optional\n", "- [csv-profiler](" + base + "/.well-known/agent-skills/csv-profiler/SKILL.md): Profiles CSV files"} {
		if !strings.Contains(llms, s) {
			t.Errorf("llms.txt has no %q:\n%s", s, llms)
		}
	}

	for _, run := range []func() (*verify.Report, error){
		func() (*verify.Report, error) { return verify.URL(context.Background(), base, verify.Options{}) },
		func() (*verify.Report, error) { return verify.Dist(context.Background(), dist, verify.Options{}) },
	} {
		rep, err := run()
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		rep.WriteText(&text)
		// v0.2, v0.1, the three MCP documents, llms.txt and the catalog.
		if !rep.OK() || rep.Checked.Indexes != 7 || rep.Checked.Archives != 10 {
			t.Errorf("%s\n%s", rep.Summary(), text.String())
		}
	}
}

func readFileT(t *testing.T, dist, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// validateCatalog checks an AI Catalog against the v0.9 JSON Schema kept
// in layout's testdata (see the README there), formats asserted.
func validateCatalog(t *testing.T, doc []byte) {
	t.Helper()
	s := testtool.JSONSchema(t, filepath.Join("..", "layout", "testdata", "ai-catalog", "ai-catalog-0.9.schema.json"))
	if err := testtool.Validate(s, doc); err != nil {
		t.Errorf("the served catalog fails the schema: %v", err)
	}
}
