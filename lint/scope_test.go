package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// defaultNamed tests names, not patterns: every default pattern must be a
// plain folder name for it to be right.
func TestDefaultIgnoreNames(t *testing.T) {
	for _, p := range skill.DefaultIgnore {
		name, ok := strings.CutSuffix(p, "/")
		if !ok || name == "" || strings.ContainsAny(name, `*?[\!/`) {
			t.Errorf("default pattern %q is no plain folder name: defaultNamed cannot stand in for it", p)
		}
	}
	if !defaultNamed("r", filepath.Join("r", "a", "tests", "b")) || defaultNamed("r", filepath.Join("r", "a", "testing")) {
		t.Error("defaultNamed")
	}
}

// TestRunCopies checks that lint judges identical copies once, as the
// build publishes them, and says which copy it kept; copies that differ
// are two skills.
func TestRunCopies(t *testing.T) {
	md := "---\nname: pdf-join\ndescription: Join PDF documents into one for the user.\n---\n# Join\n"
	res, dirs := linted(t, map[string]string{
		"a/.claude-plugin/plugin.json": `{"name": "a"}`,
		"a/skills/pdf-join/SKILL.md":   md,
		"b/.claude-plugin/plugin.json": `{"name": "b"}`,
		"b/skills/pdf-join/SKILL.md":   md,
		"c/.claude-plugin/plugin.json": `{"name": "c"}`,
		"c/skills/pdf-join/SKILL.md":   md + "\nMore.\n",
	})
	if want := []string{"a/skills/pdf-join", "c/skills/pdf-join"}; !slices.Equal(dirs, want) {
		t.Errorf("checked %v, want %v", dirs, want)
	}
	if want := "pdf-join: 2 identical copies, published once, from a/skills/pdf-join (the first in path order); not from b/skills/pdf-join"; !slices.Contains(res.Notes, want) {
		t.Errorf("notes %q lack %q", res.Notes, want)
	}
}

// TestRunDeeperCopies checks that a skill where no client looks, named
// like one where clients look and not identical to it, is left out as a
// stale copy (jamiemills/opencode-skills' package payload), with a note;
// an identical one is Dedupe's, and a name of its own is kept, also in a
// folder named like another skill's (j4flmao/agent-skills).
func TestRunDeeperCopies(t *testing.T) {
	md := func(name string) string {
		return "---\nname: " + name + "\ndescription: Plan the work for the user, step by step.\n---\n# Plan\n"
	}
	res, dirs := linted(t, map[string]string{
		"plan/SKILL.md":                            md("plan"),
		"build/SKILL.md":                           md("build"),
		"bootstrap/payload/skills/plan/SKILL.md":   md("plan") + "\nOlder.\n",
		"bootstrap/payload/skills/build/SKILL.md":  md("build"),
		"bootstrap/payload/skills/scan/SKILL.md":   md("scan"),
		"deploy/SKILL.md":                          md("deploy"),
		"bootstrap/payload/skills/deploy/SKILL.md": md("payload-deploy"),
	})
	if want := []string{"bootstrap/payload/skills/deploy", "bootstrap/payload/skills/scan", "build", "deploy", "plan"}; !slices.Equal(dirs, want) {
		t.Errorf("checked %v, want %v", dirs, want)
	}
	said := slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "left out 1 skill where no client looks") && strings.Contains(n, "bootstrap/payload/skills/plan")
	})
	if !said || !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "build: 2 identical copies") }) {
		t.Errorf("notes %q lack the stale copy's and the identical copies'", res.Notes)
	}
}

// TestRunNested checks that a skill inside another skill's folder is left
// out, with a note, as no client loads it as a skill, and that its files
// are linted as the outer skill's (they are in its archive); a manifest
// naming its folder, or --all, takes it as a skill, which then reports
// them. A skill at the root holds none: a collection's overview.
func TestRunNested(t *testing.T) {
	md := func(name string) string {
		return "---\nname: " + name + "\ndescription: Run the office for the user, step by step.\n---\n# Office\n"
	}
	tree := map[string]string{
		"skills/office/SKILL.md":             md("office") + "See roles/asset/SKILL.md.\n",
		"skills/office/roles/asset/SKILL.md": md("asset") + "See latin.md.\n",
		"skills/office/roles/asset/latin.md": "caf\xe9\n",
		"skills/plain/SKILL.md":              md("plain"),
	}
	encoding := func(res *Result) []string {
		var at []string
		for _, f := range res.Findings {
			if f.Rule == "text-encoding" {
				at = append(at, f.Path)
			}
		}
		return at
	}
	res, dirs := linted(t, tree)
	said := slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "left out 1 skill inside other skills' folders") && strings.Contains(n, "skills/office/roles/asset")
	})
	if !slices.Equal(dirs, []string{"skills/office", "skills/plain"}) || !said || len(encoding(res)) != 1 {
		t.Errorf("checked %v, notes %q, text-encoding at %v; want office and plain, a note, and latin.md reported", dirs, res.Notes, encoding(res))
	}
	tree[".claude-plugin/plugin.json"] = `{"name": "p", "skills": ["./skills/", "./skills/office/roles/asset"]}`
	if res, dirs := linted(t, tree); len(dirs) != 3 || len(encoding(res)) != 1 {
		t.Errorf("named by the manifest: checked %v, text-encoding at %v; want 3 skills, latin.md reported once", dirs, encoding(res))
	}
	delete(tree, ".claude-plugin/plugin.json")
	tree["SKILL.md"] = md("overview")
	if _, dirs := linted(t, tree); len(dirs) != 3 {
		t.Errorf("under a root skill: checked %v; want the root's and the 2 of skills/", dirs)
	}
	// So is skills/' own SKILL.md (grahama1970/agent-skills): the skills
	// beside it are no files of it, as the Vercel skills CLI finds them.
	delete(tree, "SKILL.md")
	tree["skills/SKILL.md"] = md("overview")
	if _, dirs := linted(t, tree); !slices.Equal(dirs, []string{"skills", "skills/office", "skills/plain"}) {
		t.Errorf("under skills/SKILL.md: checked %v; want it and the 2 of skills/", dirs)
	}
}

// TestRunInManifests checks that a skill inside a plugin's manifest folder
// is left out, with a note, in a plugin below the root as at it: no
// client loads a skill from .claude-plugin/.
func TestRunInManifests(t *testing.T) {
	md := func(name string) string {
		return "---\nname: " + name + "\ndescription: Plan the work for the user, step by step.\n---\n# Plan\n"
	}
	res, dirs := linted(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json":         `{"name": "p"}`,
		"plugins/p/.claude-plugin/skills/foo/SKILL.md": md("foo"),
		"plugins/p/skills/bar/SKILL.md":                md("bar"),
		"plugins/q/.codex-plugin/skills/baz/SKILL.md":  md("baz"),
		"plugins/q/.codex-plugin/plugin.json":          `{"name": "q"}`,
	})
	said := slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "left out 2 skills inside plugins' manifest folders") && strings.Contains(n, "plugins/p/.claude-plugin/skills/foo")
	})
	if !slices.Equal(dirs, []string{"plugins/p/skills/bar"}) || !said {
		t.Errorf("checked %v, notes %q; want bar alone, and a note", dirs, res.Notes)
	}
}

// TestRunLocked checks that the skills an install folder at the top holds
// and skills-lock.json records (by folder, as the Vercel skills CLI
// compares them) are left out, with a note: copies installed from
// other repositories, never this one's, even when they are all it has.
func TestRunLocked(t *testing.T) {
	md := func(name string) string {
		return "---\nname: " + name + "\ndescription: Review the code for the user, step by step.\n---\n# Review\n"
	}
	res, dirs := linted(t, map[string]string{
		"skills-lock.json":                    `{"version": 1, "skills": {"Grill Me": {"source": "o/r", "sourceType": "github"}, "tidy_up": {}}}`,
		".agents/skills/grill-me/SKILL.md":    md("grill-me"),
		".agents/skills/tidy-up/SKILL.md":     md("tidy-up"),
		".agents/skills/own-review/SKILL.md":  md("own-review"),
		"tools/app/.agents/skills/x/SKILL.md": md("grill-me"),
	})
	said := slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "left out 2 skills that skills-lock.json records") && strings.Contains(n, "2 in .agents/skills")
	})
	if want := []string{".agents/skills/own-review"}; !slices.Equal(dirs, want) || !said {
		t.Errorf("checked %v, notes %q; want %v and a note on the 2 locked", dirs, res.Notes, want)
	}
}

// linted writes files (slash paths to their bytes) below a new folder,
// lints it, and returns the result and the folders of the skills checked,
// relative to it.
func linted(t *testing.T, files map[string]string) (*Result, []string) {
	t.Helper()
	dir, opts := fixTree(t, files)
	res := lintDir(t, dir, opts)
	var dirs []string
	for _, s := range res.Skills {
		dirs = append(dirs, filepath.ToSlash(strings.TrimPrefix(s.Dir, dir+string(filepath.Separator))))
	}
	return res, dirs
}

// TestRunSharedPluginFolder checks how a folder several marketplace
// entries name is one plugin: the marketplace's own folder named after the
// marketplace, never the checkout; another after its folder; each said.
// Entries naming a folder whose manifest names it are aliases of that
// plugin (expo/skills), said nothing of, unless they declare other
// skills: other plugins, of which one is published.
func TestRunSharedPluginFolder(t *testing.T) {
	dir := t.TempDir()
	md := "---\nname: %s\ndescription: Does the %s work when the user asks for it.\n---\n# X\n"
	testtool.WriteTree(t, dir, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "acme", "plugins": [
			{"name": "tools", "source": "./", "skills": ["./tools/a"]}, {"name": "docs", "source": "./", "skills": ["./docs/b"]},
			{"name": "x", "source": "./shared"}, {"name": "y", "source": "./shared"},
			{"name": "old", "source": "./aliased"}, {"name": "new", "source": "./aliased"},
			{"name": "b1", "source": "./bundled", "skills": ["./skills/e"]}, {"name": "b2", "source": "./bundled", "skills": ["./skills/f"]}]}`,
		"tools/a/SKILL.md":                   strings.ReplaceAll(md, "%s", "a"),
		"docs/b/SKILL.md":                    strings.ReplaceAll(md, "%s", "b"),
		"shared/skills/c/SKILL.md":           strings.ReplaceAll(md, "%s", "c"),
		"aliased/.claude-plugin/plugin.json": `{"name": "aliased-plugin"}`,
		"aliased/skills/d/SKILL.md":          strings.ReplaceAll(md, "%s", "d"),
		"bundled/.claude-plugin/plugin.json": `{"name": "bundled-plugin"}`,
		"bundled/skills/e/SKILL.md":          strings.ReplaceAll(md, "%s", "e"),
		"bundled/skills/f/SKILL.md":          strings.ReplaceAll(md, "%s", "f"),
	})
	res, err := Run([]string{dir}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Plugins {
		names = append(names, p.Name)
	}
	if want := []string{"acme", "aliased-plugin", "bundled-plugin", "shared"}; !slices.Equal(names, want) {
		t.Errorf("plugins %q, want %q", names, want)
	}
	var said []string
	for _, n := range res.Notes {
		if strings.Contains(n, "stands for") {
			said = append(said, n)
		}
	}
	want := []string{
		"plugin acme (.) stands for the 2 marketplace entries that name its folder as their source (tools, docs): " +
			"a bundle publishes a folder as one plugin, here named after the marketplace; give each entry a folder of its own to publish them apart",
		"plugin bundled-plugin (bundled) stands for the 2 marketplace entries that name its folder as their source (b1, b2): " +
			"a bundle publishes a folder as one plugin, here named after its manifest; give each entry a folder of its own to publish them apart",
		"plugin shared (shared) stands for the 2 marketplace entries that name its folder as their source (x, y): " +
			"a bundle publishes a folder as one plugin, here named after the folder; give each entry a folder of its own to publish them apart",
	}
	if !slices.Equal(said, want) {
		t.Errorf("notes %q\nwant  %q", said, want)
	}
}

// A link in skills/ to a skill out of the folder given is a warning (the
// skill is left out: helper-120's repro/4 had no word of it, even with
// -v); given as well, the skill is linted and the link is no finding.
func TestLinkOutOfRoot(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	md := "---\nname: %s\ndescription: Do one thing for the user, when asked to.\n---\n# X\n"
	testtool.WriteTree(t, root, map[string]string{"skills/own/SKILL.md": fmt.Sprintf(md, "own")})
	testtool.WriteTree(t, outside, map[string]string{"far/SKILL.md": fmt.Sprintf(md, "far")})
	if err := os.Symlink(filepath.Join(outside, "far"), filepath.Join(root, "skills", "far")); err != nil {
		t.Fatal(err)
	}
	dangling := func(res *Result) (n int) {
		for _, f := range res.Findings {
			if f.Rule == "skill-dangling" && strings.Contains(f.Message, "out of the folder given") {
				n++
			}
		}
		return n
	}
	if res := lintDir(t, root, Options{Base: root}); len(res.Skills) != 1 || dangling(res) != 1 {
		t.Errorf("one root: %d skills, findings %+v; want 1 skill and the link out reported", len(res.Skills), res.Findings)
	}
	res, err := Run([]string{root, filepath.Join(outside, "far")}, Options{Base: root})
	if err != nil || len(res.Skills) != 2 || dangling(res) != 0 {
		t.Errorf("both given: %d skills, findings %+v, %v; want 2 skills and no finding", len(res.Skills), res.Findings, err)
	}
}

// A plugin linted from its own folder whose manifest cannot be read is
// kept, for the plugin rules to report the manifest: it was left out as
// named by nothing, and lint passed what lint of its parent failed.
func TestBrokenManifestAtRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "myplugin")
	md := "---\nname: alpha\ndescription: Do one thing for the user, when asked to.\n---\n# X\n"
	testtool.WriteTree(t, root, map[string]string{".claude-plugin/plugin.json": "{\"name\": \"myplugin\",\n", "skills/alpha/SKILL.md": md})
	for _, dir := range []string{root, filepath.Dir(root)} {
		res, err := Run([]string{dir}, Options{Base: dir})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Rule == "plugin-manifest" && f.Severity == Error }) {
			t.Errorf("lint %s: findings %+v, want the manifest's plugin-manifest error", dir, res.Findings)
		}
	}
}

// A marketplace git ignores (made by a build step: flycrum/colada) that
// leaves skills out is a warning: a clone, and CI, has none and takes them.
func TestIgnoredMarketplace(t *testing.T) {
	testtool.Need(t, "git")
	root := t.TempDir()
	md := "---\nname: %s\ndescription: Do one thing for the user, when asked to.\n---\n# X\n"
	testtool.WriteTree(t, root, map[string]string{
		".gitignore":                            ".claude-plugin/\n",
		"plugins/p1/.cursor-plugin/plugin.json": `{"name": "p1"}`,
		"plugins/p1/skills/one/SKILL.md":        fmt.Sprintf(md, "one"),
		"plugins/p2/.cursor-plugin/plugin.json": `{"name": "p2"}`,
		"plugins/p2/skills/two/SKILL.md":        fmt.Sprintf(md, "two"),
		".claude-plugin/marketplace.json":       `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p1", "source": "./plugins/p1"}]}`,
	})
	warned := func() bool {
		res := lintDir(t, root, Options{Base: root})
		return len(res.Skills) == 1 && slices.ContainsFunc(res.Notes, func(n string) bool {
			return strings.HasPrefix(n, "warning: git ignores .claude-plugin/marketplace.json")
		})
	}
	if warned() {
		t.Error("warned outside git")
	}
	testtool.Git(t, root, "init", "-q")
	if !warned() {
		t.Error("no warning that git ignores the marketplace that left p2's skill out")
	}
}

// TestRemoteSourcesGrouped: a marketplace of other repositories' plugins
// written as strings ("github:o/p", 442 entries in one found) draws
// maxPerFile findings and one saying how many more, not one a line.
func TestRemoteSourcesGrouped(t *testing.T) {
	root := t.TempDir()
	var entries []string
	for i := range maxPerFile + 5 {
		entries = append(entries, fmt.Sprintf(`{"name": "p%d", "source": "github:o/p%d"}`, i, i))
	}
	testtool.WriteTree(t, root, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [` + strings.Join(entries, ",\n") + `]}`,
		"skills/a/SKILL.md":               "---\nname: a\ndescription: Plan the work for the user, step by step.\n---\n# Plan\n",
	})
	var got []string
	for _, f := range lintDir(t, root, Options{Base: root}).Findings {
		if f.Rule == "marketplace-plugin-source" {
			got = append(got, f.Message)
		}
	}
	if len(got) != maxPerFile+1 || !strings.HasPrefix(got[maxPerFile], "5 more entries from here on") {
		t.Errorf("%d findings, the last %q; want %d, the last saying 5 more", len(got), got[len(got)-1], maxPerFile+1)
	}
}

// TestInvisibleGrouped: past maxPerFile runs of invisible characters in a
// file, one finding says how many more, in words that fit their number
// (Qwayk/safe-agent-skills: "1 more runs", fix "delete it").
func TestInvisibleGrouped(t *testing.T) {
	for more, want := range map[int]string{1: "1 more run of", 20: "20 more runs of"} {
		root := t.TempDir()
		var text strings.Builder
		for i := range maxPerFile + more {
			fmt.Fprintf(&text, "para %d\n\u200b\n", i)
		}
		testtool.WriteTree(t, root, map[string]string{
			"a/SKILL.md":            "---\nname: a\ndescription: Plan the work for the user, step by step.\n---\n# Plan\nSee [the guide](references/guide.md).\n",
			"a/references/guide.md": text.String(),
		})
		var got []Finding
		for _, f := range lintDir(t, root, Options{Base: root}).Findings {
			if f.Rule == "invisible-char" {
				got = append(got, f)
			}
		}
		if last := got[len(got)-1]; len(got) != maxPerFile+1 || !strings.HasPrefix(last.Message, want) || last.Fix != "delete them" {
			t.Errorf("%d more: %d findings, the last %q (fix %q); want %d, the last %q..., fix \"delete them\"", more, len(got), last.Message, last.Fix, maxPerFile+1, want)
		}
	}
}

// TestPluginPackLimits: lint reports what the build leaves a plugin out
// for, past the archive limits verify and pull hold every archive to, as
// errors at the plugin; a file over them inside one of its skills is the
// skill's finding, said once.
func TestPluginPackLimits(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		"p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"p/skills/a/SKILL.md":          "---\nname: a\ndescription: Plan the work for the user, step by step.\n---\n# Plan\n",
	})
	sparse := map[string]int64{"p/data/big.bin": pack.MaxFile + 1, "p/skills/a/big.bin": pack.MaxFile + 1}
	for i := range 4 {
		sparse[fmt.Sprintf("p/data/part%d.bin", i)] = pack.MaxFile
	}
	for name, size := range sparse {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(root, name), size); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, f := range lintDir(t, root, Options{Base: root}).Findings {
		if f.Rule == "file-too-large" || f.Rule == "skill-too-large" {
			got = append(got, fmt.Sprintf("%s %s %s", f.Severity, f.Rule, f.Path))
		}
	}
	slices.Sort(got)
	// (The skill's own warning: more than MCP hosts take.)
	want := []string{"error file-too-large p/data/big.bin", "error file-too-large p/skills/a/big.bin", "error skill-too-large p", "warning skill-too-large p/skills/a"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// TestRunPluginIsSkill checks that a plugin the marketplace lists whose
// folder is a skill is that skill, as Claude Code 2.1.332 loads it, with
// a plugin of ordinary skills/<name> beside it: without a manifest, with
// one of no skills field, and with "skills": ["./"]. One holding a skills/
// folder of its own is a plugin of those (Claude Code loads inner only).
func TestRunPluginIsSkill(t *testing.T) {
	md := func(name string) string {
		return "---\nname: " + name + "\ndescription: Test the plugin " + name + " for the user, step by step.\n---\n# " + name + "\n"
	}
	_, dirs := linted(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [
			{"name": "p1", "source": "./plugins/p1"}, {"name": "p2", "source": "./plugins/p2"},
			{"name": "p3", "source": "./plugins/p3"}, {"name": "p4", "source": "./plugins/p4"},
			{"name": "q", "source": "./plugins/q"}]}`,
		"plugins/p1/.claude-plugin/plugin.json": `{"name": "p1"}`,
		"plugins/p1/SKILL.md":                   md("p1"),
		"plugins/p2/.claude-plugin/plugin.json": `{"name": "p2", "skills": ["./"]}`,
		"plugins/p2/SKILL.md":                   md("p2"),
		"plugins/p3/SKILL.md":                   md("p3"),
		"plugins/p4/SKILL.md":                   md("p4"),
		"plugins/p4/skills/inner/SKILL.md":      md("inner"),
		"plugins/q/skills/s/SKILL.md":           md("s"),
	})
	if want := []string{"plugins/p1", "plugins/p2", "plugins/p3", "plugins/p4/skills/inner", "plugins/q/skills/s"}; !slices.Equal(dirs, want) {
		t.Errorf("checked %v, want %v", dirs, want)
	}
	// A marketplace of such plugins alone declares no skills of the
	// repository: every skill found is taken, as the Vercel CLI lists them
	// (choru-k/skills-for-ai's private/common/*).
	_, dirs = linted(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p1", "source": "./public/p1"}]}`,
		"public/p1/SKILL.md":              md("p1"),
		"private/common/x/SKILL.md":       md("x"),
	})
	if want := []string{"private/common/x", "public/p1"}; !slices.Equal(dirs, want) {
		t.Errorf("checked %v, want %v", dirs, want)
	}
}

// TestRunPluginDeepSkills checks that a skill deeper than a plugin's
// skills/<name> (skills/<group>/<name>), which neither Claude Code nor the
// Vercel CLI loads from a plugin, is left out with a note; the root's
// skills/<category>/<name>, which the Vercel CLI searches, is not.
func TestRunPluginDeepSkills(t *testing.T) {
	md := func(name string) string {
		return "---\nname: " + name + "\ndescription: Test the skill " + name + " for the user, step by step.\n---\n# " + name + "\n"
	}
	res, dirs := linted(t, map[string]string{
		".claude-plugin/marketplace.json":      `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/skills/a/SKILL.md":          md("a"),
		"plugins/p/skills/group/x/SKILL.md":    md("x"),
		"skills/cat/y/SKILL.md":                md("y"),
	})
	if want := []string{"plugins/p/skills/a", "skills/cat/y"}; !slices.Equal(dirs, want) {
		t.Errorf("checked %v, want %v", dirs, want)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "left out 1 skill deeper than the folders of skills their plugins declare") && strings.Contains(n, "plugins/p/skills/group/x")
	}) {
		t.Errorf("notes %q lack the deep skill's", res.Notes)
	}
	// Codex walks a folder its manifest declares to any depth, a skill's
	// folders too (hashgraph-online/awesome-codex-plugins).
	_, dirs = linted(t, map[string]string{
		".agents/plugins/marketplace.json":    `{"name": "m", "plugins": [{"name": "p", "source": {"source": "local", "path": "./plugins/p"}}]}`,
		"plugins/p/.codex-plugin/plugin.json": `{"name": "p", "skills": "./skills/"}`,
		"plugins/p/skills/a/SKILL.md":         md("a"),
		"plugins/p/skills/group/x/SKILL.md":   md("x"),
		"plugins/p/skills/a/more/y/SKILL.md":  md("y"),
	})
	if want := []string{"plugins/p/skills/a", "plugins/p/skills/a/more/y", "plugins/p/skills/group/x"}; !slices.Equal(dirs, want) {
		t.Errorf("Codex plugin: checked %v, want %v", dirs, want)
	}
}

// TestPluginSkillsListed checks that plugin-skills takes the skills paths
// of a strict:false marketplace entry as the manifest's, without the run's
// skills, as the build runs the plugin rules (lucasilverentand/skills at
// 0d65714: "skills/ holds no skill" where Claude Code loads two).
func TestPluginSkillsListed(t *testing.T) {
	md := "---\nname: x\ndescription: Test the plugin's skills for the user, step by step.\n---\n# X\n"
	dir, opts := fixTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [
			{"name": "q", "source": "./plugins/q", "strict": false, "skills": ["./skills/group"]},
			{"name": "r", "source": "./plugins/r"}]}`,
		"plugins/q/skills/group/x/SKILL.md": md,
		"plugins/r/skills/group/x/SKILL.md": md,
	})
	f, err := opts.Scope().Find([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, fd := range CheckAcross(nil, f.Plugins, f.Markets, nil, opts) {
		if fd.Rule == "plugin-skills" {
			at = append(at, filepath.ToSlash(fd.Path))
		}
	}
	if len(at) != 1 || !strings.HasSuffix(at[0], "plugins/r/skills") {
		t.Errorf("plugin-skills at %q, want plugins/r/skills alone", at)
	}
}
