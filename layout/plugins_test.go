package layout

import (
	"strings"
	"testing"
)

// testPlugin is a plugin whose archives hold the given bytes.
func testPlugin(name string, skills ...string) Plugin {
	arch := func(b string) PluginBytes {
		return PluginBytes{Digest: DigestOf([]byte(b)), Size: int64(len(b)), Write: fixed([]byte(b))}
	}
	return Plugin{Name: name, Version: "1.0.0", Description: "PDF tools.", Skills: skills, TarGz: arch(name + " tgz"), Zip: arch(name + " zip")}
}

// The plugins' archives and their index are in the bundle, in
// checksums.txt, at content-addressed paths the index names relative to
// itself (or under the base URL).
func TestPluginsPlan(t *testing.T) {
	p := testPlugin("acme.pdf", "a")
	b := plan(t, twoSkills(), Options{Plugins: []Plugin{p}})
	tgz := PluginArchivePath(p.Name, p.TarGz.Digest, TarGz)
	if !strings.HasPrefix(tgz, PluginsDir+"/acme.pdf-") || !strings.HasSuffix(tgz, ".tar.gz") {
		t.Fatalf("archive path %s", tgz)
	}
	e, ok := b.Lookup(tgz)
	if !ok || e.Digest != p.TarGz.Digest || e.Size != p.TarGz.Size {
		t.Fatalf("the plan has %s as %+v", tgz, e)
	}
	sums, _ := b.Lookup(Checksums)
	if !strings.Contains(string(docBytes(t, sums)), p.TarGz.Digest.Hex()+"  "+tgz+"\n") {
		t.Errorf("checksums.txt does not list %s", tgz)
	}
	idx, _ := b.Lookup(PluginsIndex)
	doc, err := DecodePlugins(docBytes(t, idx))
	if err != nil {
		t.Fatal(err)
	}
	got := doc.Plugins[0]
	if got.Name != "acme.pdf" || got.Version != "1.0.0" || len(got.Skills) != 1 || len(got.Archives) != 2 ||
		got.Archives[0].URL != strings.TrimPrefix(tgz, PluginsDir+"/") || got.Archives[0].Digest != p.TarGz.Digest ||
		got.Archives[0].MediaType != "application/gzip" || got.Archives[1].MediaType != "application/zip" {
		t.Errorf("index entry %+v", got)
	}
	ab := plan(t, twoSkills(), Options{Plugins: []Plugin{p}, BaseURL: "https://example.com/x"})
	idx, _ = ab.Lookup(PluginsIndex)
	doc, _ = DecodePlugins(docBytes(t, idx))
	if u := doc.Plugins[0].Archives[0].URL; u != "https://example.com/x/"+tgz {
		t.Errorf("with a base URL, the archive's URL is %s", u)
	}
	if pp, ok := PluginPath(doc.Plugins[0].Archives[0].URL); !ok || pp != tgz {
		t.Errorf("PluginPath(%s) = %s, %t", doc.Plugins[0].Archives[0].URL, pp, ok)
	}
	// Content-addressed, so cached for good, as the skills' archives are.
	if c := DefaultCache.Control(tgz); c != Immutable {
		t.Errorf("%s is served with Cache-Control %q", tgz, c)
	}
	hd, _ := b.Lookup(Headers)
	if h := string(docBytes(t, hd)); !strings.Contains(h, "\n/"+PluginsDir+"/*.tar.gz\n  Content-Type: application/gzip\n  Cache-Control: "+Immutable+"\n") ||
		!strings.Contains(h, "\n/"+PluginsIndex+"\n") {
		t.Errorf("_headers has no rules for the plugins:\n%s", h)
	}
	mb := plan(t, twoSkills(), Options{Plugins: []Plugin{p}, Marketplace: &Marketplace{Name: "acme", Owner: "Acme", Files: []string{ClaudeMarketplace}}})
	mk, ok := mb.Lookup(ClaudeMarketplace)
	if !ok {
		t.Fatal("no Claude marketplace when asked for one")
	}
	m, err := DecodeClaudeMarketplace(docBytes(t, mk))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "acme" || m.Owner.Name != "Acme" || len(m.Plugins) != 1 || m.Plugins[0].Source != "./"+SkillsDir ||
		m.Plugins[0].Strict || len(m.Plugins[0].Skills) != 1 || m.Plugins[0].Skills[0] != "./a" {
		t.Errorf("marketplace %+v", m)
	}
	sums, _ = mb.Lookup(Checksums)
	if !strings.Contains(string(docBytes(t, sums)), "  "+ClaudeMarketplace+"\n") {
		t.Error("checksums.txt does not list the marketplace")
	}
	if _, ok := plan(t, twoSkills(), Options{Plugins: []Plugin{p}}).Lookup(ClaudeMarketplace); ok {
		t.Error("a marketplace nobody asked for")
	}
	if _, err := Plan(List(twoSkills()), Options{Plugins: []Plugin{p, p}}); err == nil {
		t.Error("two plugins of one name are planned")
	}
	if bare := plan(t, twoSkills(), Options{}); func() bool { _, ok := bare.Lookup(PluginsIndex); return ok }() {
		t.Error("a bundle without plugins has a plugins index")
	}
}
