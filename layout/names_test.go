package layout

import "testing"

// What the documents name is what the plan lays out: every skill's
// served files (both trees) and archives, and the documents checksums.txt
// lists; nothing outside the bundle.
func TestNames(t *testing.T) {
	b := plan(t, twoSkills(), Options{Plugins: []Plugin{testPlugin("pdf", "a")}, Versioned: &Versioning{Release: "1.0.0"}})
	named := map[string]bool{}
	for _, doc := range Naming {
		e, ok := b.Lookup(doc)
		if !ok {
			t.Fatalf("the plan has no %s", doc)
		}
		paths, err := Names(doc, docBytes(t, e))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		for _, p := range paths {
			if _, ok := b.Lookup(p); !ok {
				t.Errorf("%s names %s, which the plan does not lay out", doc, p)
			}
			named[p] = true
		}
	}
	for e, err := range b.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		if (e.Kind != KindDoc || pluginArchive(e.Path)) && !named[e.Path] {
			t.Errorf("%s is named by no document", e.Path)
		}
	}
	if _, err := Names(V2Index, []byte("{")); err == nil {
		t.Error("a document that does not decode names nothing, without an error")
	}
	if _, err := Names(VersionsIndex, []byte(`{"versions": [], "releases": [{"version": "1.0.0"}], "skills": []}`)); err == nil {
		t.Error("a versions.json that breaks its rules names nothing, without an error")
	}
}
