package layout

import (
	"slices"
	"testing"
)

// FuzzPlan feeds arbitrary names, descriptions and paths to Plan: it must
// never panic, and whatever it accepts every reader must accept too.
func FuzzPlan(f *testing.F) {
	f.Add("pdf", "Does PDFs.", "scripts/a.py")
	f.Add("a-b", "x", "v1..2.md")
	f.Add("-x", "", "../a")
	f.Add("ok", "d", "a/./b")
	f.Add("ok", "d", "what?#[]%.md")
	f.Fuzz(func(t *testing.T, name, desc, path string) {
		s := makeSkill(name, desc, content{"SKILL.md": "s", path: "p"}, "")
		b, err := Plan(List{s, good2()}, Options{})
		if err != nil {
			return
		}
		fe := fetcher{site: "https://example.com/", b: b}
		names, dropped, err := v2Reader(data(t, b, V2Index), fe)
		if err != nil || len(dropped) > 0 || len(names) != 2 {
			t.Fatalf("v0.2 reader: %v %v %v", names, dropped, err)
		}
		names, err = v1Reader(data(t, b, V1Index), fe)
		excluded := len(b.Excluded) == 1 && b.Excluded[0].Name == name
		if err != nil || len(names)+len(b.Excluded) != 2 || !excluded && !slices.Contains(names, name) {
			t.Fatalf("v0.1 reader: %v %v %v", names, b.Excluded, err)
		}
		table, err := resourceTable(data(t, b, MCPResources), b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mcpReader(data(t, b, MCPSkills), table); err != nil {
			t.Fatal(err)
		}
		if _, err := mcpcReader(data(t, b, MCPIndex), table); err != nil {
			t.Fatal(err)
		}
	})
}
