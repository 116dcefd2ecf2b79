package build

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The catalog's masthead is an input of the bundle: a rebuild with another
// title, publisher or source writes index.html again rather than keeping
// the page it has (the bundle key names them), and one with the same
// masthead is a no-op.
func TestCatalogMasthead(t *testing.T) {
	src, dist, _ := builtExamples(t, Options{CatalogTitle: "Acme skills"})
	page := func() []byte {
		data, err := os.ReadFile(filepath.Join(dist, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if !bytes.Contains(page(), []byte("<title>Acme skills</title>")) {
		t.Fatal("index.html lacks the title given")
	}
	if res := mustBuild(t, []string{src}, Options{Out: dist, CatalogTitle: "Acme skills"}); !res.UpToDate {
		t.Error("a rebuild with the same masthead is not a no-op")
	}
	for _, o := range []Options{
		{CatalogTitle: "Acme tools"},
		{CatalogTitle: "Acme tools", CatalogPublisher: "Acme Inc."},
		{CatalogTitle: "Acme tools", CatalogPublisher: "Acme Inc.", CatalogSource: "https://github.com/acme/skills"},
	} {
		o.Out = dist
		if res := mustBuild(t, []string{src}, o); res.UpToDate {
			t.Errorf("title %q, publisher %q, source %q: a rebuild with another masthead kept the old page", o.CatalogTitle, o.CatalogPublisher, o.CatalogSource)
		}
	}
	if p := page(); !bytes.Contains(p, []byte(`by <strong>Acme Inc.</strong> · <a href="https://github.com/acme/skills"`)) {
		t.Error("index.html lacks the publisher and source given")
	}
}
