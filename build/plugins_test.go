package build

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/pack"
)

// A repository of three Agent Plugins and a Claude marketplace builds in
// one run into their archives, at digests pinned here (a change moves
// every published plugin URL: update with -update only when intended),
// their skills published as skills; a second build is a no-op, and a
// change to a plugin's file (not a skill's) builds again.
func TestPluginsGolden(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
	out := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{src}, Options{Out: out})
	idx := pluginsIndex(t, out)
	var b strings.Builder
	b.WriteString("# testdata/plugins' archives at the default time (1980-01-01), as <plugin> <url> <digest> <size> <skills>.\n")
	b.WriteString("# Regenerate with: go test ./build -run TestPluginsGolden -update\n")
	for _, p := range idx.Plugins {
		for _, a := range p.Archives {
			fmt.Fprintf(&b, "%s %s %s %d %s\n", p.Name, a.URL, a.Digest, a.Size, strings.Join(p.Skills, ","))
		}
	}
	checkGolden(t, "plugins.golden", b.String(), "plugin archives", "TestPluginsGolden")

	// The plugin's whole folder, flat, the script's exec bit kept.
	tgz, err := os.ReadFile(filepath.Join(out, layout.PluginsDir, idx.Plugins[2].Archives[0].URL))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tr := tar.NewReader(zr)
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		names = append(names, fmt.Sprintf("%s %o", h.Name, h.Mode))
	}
	if got, want := strings.Join(names, "\n"), "plugin.json 644\nskills/pdf-fill/SKILL.md 644\nskills/pdf-fill/scripts/fill.py 755\nskills/pdf-merge/SKILL.md 644"; got != want {
		t.Errorf("%s holds\n%s\nwant\n%s", idx.Plugins[2].Name, got, want)
	}
	v2, _ := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.V2Index)))
	for _, s := range []string{"pdf-fill", "pdf-merge", "db-query", "meeting-notes"} {
		if !strings.Contains(string(v2), `"name": "`+s+`"`) {
			t.Errorf("skill %s is not published", s)
		}
	}

	if res := mustBuild(t, []string{src}, Options{Out: out}); !res.UpToDate {
		t.Error("a second build of the same plugins is not a no-op")
	}
	mcp := filepath.Join(src, "plugins", "db-tools", "mcp.json")
	data, _ := os.ReadFile(mcp)
	if err := os.WriteFile(mcp, bytes.Replace(data, []byte("db-server"), []byte("db-server@2"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := mustBuild(t, []string{src}, Options{Out: out}); res.UpToDate {
		t.Error("a change to a plugin's mcp.json leaves the bundle as it was")
	}
}

// A plugin whose files no archive may hold as they are (a path too long
// for a tar header, two names that differ only in case) is left out of
// the plugins, and the build goes on with every skill: a plugin is a whole
// repository at times (.claude-plugin/plugin.json at its root).
func TestPluginUnpackable(t *testing.T) {
	for name, file := range map[string]string{
		"long": strings.Repeat("x", 120) + ".sh",
		"case": "Notes.MD",
	} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "repo")
			copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
			dir := filepath.Join(src, "plugins", "notes")
			if name == "case" {
				if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("a"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, file), []byte("b"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "dist")
			mustBuild(t, []string{src}, Options{Out: out})
			if got := pluginNames(t, out); got != "db-tools,pdf-tools" {
				t.Errorf("plugins %v; want notes left out, the other two kept", got)
			}
			v2, _ := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.V2Index)))
			if !strings.Contains(string(v2), `"name": "meeting-notes"`) {
				t.Error("the left-out plugin's skill is not published")
			}
		})
	}
}

// pluginNames are the names the plugins index of the bundle in out lists,
// joined by ",".
func pluginNames(t *testing.T, out string) string {
	t.Helper()
	var names []string
	for _, p := range pluginsIndex(t, out).Plugins {
		names = append(names, p.Name)
	}
	return strings.Join(names, ",")
}

// pluginsIndex reads the plugins index of the bundle in out.
func pluginsIndex(t *testing.T, out string) *layout.IndexPlugins {
	t.Helper()
	return readDoc(t, out, layout.PluginsIndex, layout.DecodePlugins)
}

// claudeMarket reads the Claude Code marketplace of the bundle in out.
func claudeMarket(t *testing.T, out string) *layout.ClaudeMarketplaceDoc {
	t.Helper()
	return readDoc(t, out, layout.ClaudeMarketplace, layout.DecodeClaudeMarketplace)
}

// readDoc reads the document at p of the bundle in out with decode.
func readDoc[T any](t *testing.T, out, p string, decode func([]byte) (T, error)) T {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	v, err := decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A plugin at the root of the tree it is built from holds the build's
// output folder (the default, dist/), its staging folder, owner file and
// lock while it runs, and another build's bundle: none goes into its
// archives, which stay the same from build to build, so the second build
// is a no-op.
func TestPluginLeavesOutOutput(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("testdata", "plugins", "plugins", "pdf-tools"), src, copyOpts{umask: 0o022})
	mustBuild(t, []string{src}, Options{Out: filepath.Join(src, "public")}) // another build's bundle
	out := filepath.Join(src, "dist")
	var digests []layout.Digest
	for i := range 2 {
		res := mustBuild(t, []string{src}, Options{Out: out})
		if i == 1 && !res.UpToDate {
			t.Error("the second build is not a no-op")
		}
		idx := pluginsIndex(t, out)
		a := idx.Plugins[0].Archives[0]
		digests = append(digests, a.Digest)
		for _, e := range readTarGz(t, filepath.Join(out, layout.PluginsDir, a.URL), epoch1980) {
			if first, _, _ := strings.Cut(e.Name, "/"); first == "dist" || first == "public" || strings.HasPrefix(first, ".dist.skillpack") {
				t.Errorf("build %d: the plugin's archive holds %s", i+1, e.Name)
			}
		}
	}
	if digests[0] != digests[1] {
		t.Errorf("the plugin's archive changed from build to build: %s, %s", digests[0], digests[1])
	}
}

// With SkipInvalid, a skill left out for an error of its own is left out
// of its plugin's archives too, which would otherwise publish what the
// bundle does not; the plugin and its other skills are published. A link
// out of the plugin's folder is left out of them, with a note.
func TestPluginWithSkippedSkill(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
	writeSkillFile(t, filepath.Join(src, "plugins", "pdf-tools", "skills"), "bad", "SKILL.md", "---\nname: p:bad\ndescription: A bad skill. Use when testing.\n---\n# Bad\n")
	// A skill nested in it is a file of it (the scope leaves it out), left
	// out with it and not named.
	writeSkillFile(t, filepath.Join(src, "plugins", "pdf-tools", "skills", "bad"), "roles/x", "SKILL.md", "---\nname: X_Bad\ndescription: A role of the bad skill. Use when testing.\n---\n# X\n")
	// Links out of the plugin are left out too, and said so, in one line;
	// a link to its own skills (canva's .cursor/skills -> ../skills) is
	// said as one, not as skills the bundle does not publish.
	for _, name := range []string{"LICENSE", "NOTICE"} {
		if err := os.Symlink("../../.claude-plugin/marketplace.json", filepath.Join(src, "plugins", "pdf-tools", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(src, "plugins", "pdf-tools", ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../skills", filepath.Join(src, "plugins", "pdf-tools", ".cursor", "skills")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dist")
	var log bytes.Buffer
	res := mustBuild(t, []string{src}, Options{Out: out, SkipInvalid: true, Log: &log})
	if len(res.Skipped) != 1 {
		t.Fatalf("skipped %v; want the bad skill", res.Skipped)
	}
	idx := pluginsIndex(t, out)
	if got := pluginNames(t, out); got != "db-tools,notes,pdf-tools" {
		t.Fatalf("plugins %v; want all three", got)
	}
	var names []string
	for _, e := range readTarGz(t, filepath.Join(out, layout.PluginsDir, idx.Plugins[2].Archives[0].URL), epoch1980) {
		names = append(names, e.Name)
	}
	if got, want := strings.Join(names, " "), "plugin.json skills/pdf-fill/SKILL.md skills/pdf-fill/scripts/fill.py skills/pdf-merge/SKILL.md"; got != want {
		t.Errorf("pdf-tools' archive holds %s; want %s", got, want)
	}
	if !strings.Contains(log.String(), "plugin pdf-tools (") || !strings.Contains(log.String(), "its archives leave out 1 skill folder the bundle does not publish: skills/bad\n") ||
		!strings.Contains(log.String(), "its archives leave out LICENSE, NOTICE: a symbolic link out of the plugin's folder, which is in no git work tree") ||
		!strings.Contains(log.String(), "its archives leave out .cursor/skills, a symbolic link to the plugin's own skill folders") {
		t.Errorf("the log does not say what pdf-tools' archives leave out:\n%s", log.String())
	}
}

// A plugin's archives carry the skills the bundle vouches for: not a test's
// fixture the scope leaves out (which no rule checked: here it holds a
// token), nor two skills of one name in one plugin; but a skill left out
// only because another plugin's skill has its name stays, as the plugin
// names its skills within itself. An identical copy published from another
// plugin is listed as the plugin's skill, in the index and in the entry of
// Claude Code's marketplace, which is made of the served skills.
func TestPluginArchivesVouched(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
	skillMD := func(name string) string {
		return "---\nname: " + name + "\ndescription: A skill of the test, which exercises plugins' archives.\n---\n# " + name + "\n"
	}
	plugins := filepath.Join(src, "plugins")
	writeSkillFile(t, filepath.Join(plugins, "pdf-tools", "tests"), "fx", "SKILL.md", skillMD("fx"))
	writeSkillFile(t, filepath.Join(plugins, "pdf-tools", "tests"), "fx", "deploy.conf", "GITHUB_TOKEN=gh"+"p_Zq7Lm2Rt9Vx4Kp8Nw3Hs6Jd1Fg5Cb0Ay2Ue\n")
	// A folder of the plugin's that holds a SKILL.md no manifest declares:
	// its commands read it by path (edwinhu/claude-plugins' lib/skills).
	writeSkillFile(t, filepath.Join(plugins, "pdf-tools", "lib"), "phase", "SKILL.md", skillMD("phase"))
	writeSkillFile(t, filepath.Join(plugins, "pdf-tools", "skills"), "dup-a", "SKILL.md", skillMD("dup"))
	writeSkillFile(t, filepath.Join(plugins, "pdf-tools", "skills"), "dup-b", "SKILL.md", skillMD("dup"))
	// Two skills of one name, not copies: a clash across the plugins.
	writeSkillFile(t, filepath.Join(plugins, "db-tools", "skills"), "shared", "SKILL.md", skillMD("shared"))
	writeSkillFile(t, filepath.Join(plugins, "notes", "skills"), "shared", "SKILL.md", skillMD("shared")+"More.\n")
	// Identical copies: published once, from db-tools; notes keeps its own.
	writeSkillFile(t, filepath.Join(plugins, "db-tools", "skills"), "copy", "SKILL.md", skillMD("copy"))
	writeSkillFile(t, filepath.Join(plugins, "notes", "skills"), "copy", "SKILL.md", skillMD("copy"))
	out := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{src}, Options{Out: out, SkipInvalid: true, Marketplaces: []string{"claude"}})
	holds := map[string]string{}
	for _, p := range pluginsIndex(t, out).Plugins {
		if (p.Name == "db-tools" || p.Name == "notes") && !slices.Contains(p.Skills, "copy") {
			t.Errorf("the index lists %s's skills as %v; want copy among them", p.Name, p.Skills)
		}
		var names []string
		for _, e := range readTarGz(t, filepath.Join(out, layout.PluginsDir, p.Archives[0].URL), epoch1980) {
			names = append(names, e.Name)
		}
		holds[p.Name] = strings.Join(names, " ")
	}
	for _, plugin := range []string{"db-tools", "notes"} {
		for _, want := range []string{"skills/shared/SKILL.md", "skills/copy/SKILL.md"} {
			if !strings.Contains(holds[plugin], want) {
				t.Errorf("%s's archive holds %s; want %s in it", plugin, holds[plugin], want)
			}
		}
	}
	m := claudeMarket(t, out)
	for _, e := range m.Plugins {
		if (e.Name == "db-tools" || e.Name == "notes") && !slices.Contains(e.Skills, "./copy") {
			t.Errorf("Claude Code's marketplace gives %s the skills %v; want ./copy among them", e.Name, e.Skills)
		}
	}
	for _, no := range []string{"tests/fx", "skills/dup-a", "skills/dup-b"} {
		if strings.Contains(holds["pdf-tools"], no) {
			t.Errorf("pdf-tools' archive holds %s: %s", no, holds["pdf-tools"])
		}
	}
	if !strings.Contains(holds["pdf-tools"], "lib/phase/SKILL.md") {
		t.Errorf("pdf-tools' archive holds %s; want lib/phase/SKILL.md, a file of the plugin, in it", holds["pdf-tools"])
	}
}

// A secret in a plugin's folder outside its skills (a stray deploy.conf,
// also in a folder of the plugin's files that holds a SKILL.md no manifest
// declares) leaves the plugin out, whose archives would publish it; its
// skills are built.
func TestPluginSecret(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
	token := "GITHUB_TOKEN=gh" + "p_Zq7Lm2Rt9Vx4Kp8Nw3Hs6Jd1Fg5Cb0Ay2Uez\n" // split, so that no scanner takes this file for a leak
	for _, at := range []string{"deploy.conf", "lib/phase/deploy.conf"} {
		writeSkillFile(t, filepath.Join(src, "plugins", "pdf-tools"), "", at, token)
	}
	writeSkillFile(t, filepath.Join(src, "plugins", "pdf-tools", "lib"), "phase", "SKILL.md", "---\nname: phase\ndescription: A phase the plugin's commands read.\n---\n")
	out := filepath.Join(t.TempDir(), "dist")
	res := mustBuild(t, []string{src}, Options{Out: out})
	if got := pluginNames(t, out); got != "db-tools,notes" {
		t.Errorf("plugins %v; want pdf-tools left out, the other two kept", got)
	}
	for _, at := range []string{"deploy.conf", "lib/phase/deploy.conf"} {
		if !slices.ContainsFunc(res.Findings, func(f lint.Finding) bool {
			return f.Rule == "secret" && strings.HasSuffix(f.Path, "repo/plugins/pdf-tools/"+at)
		}) {
			t.Errorf("no secret finding at the plugin's %s: %v", at, res.Findings)
		}
	}
	v2, _ := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.V2Index)))
	if !strings.Contains(string(v2), `"name": "pdf-fill"`) {
		t.Error("the left-out plugin's skills are not published")
	}

	// So for a plugin at the root of the build, built from there (its
	// findings' paths are below ".").
	root := filepath.Join(src, "plugins", "pdf-tools")
	t.Chdir(root)
	res = mustBuild(t, []string{"."}, Options{Out: filepath.Join(t.TempDir(), "dist")})
	if _, err := os.Stat(filepath.Join(res.Out, filepath.FromSlash(layout.PluginsIndex))); !os.IsNotExist(err) {
		t.Errorf("a root plugin with a secret is published (%v)", err)
	}
}

// A plugin's archives are packed once: a rebuild whose plugin files are
// unchanged takes them from the last bundle (the record keeps them by the
// key of what they hold), a no-op too, whatever else changed; a change to
// one of its files packs them again.
func TestPluginArchivesReused(t *testing.T) {
	src := t.TempDir()
	copyTree(t, filepath.Join("testdata", "plugins", "plugins", "pdf-tools"), filepath.Join(src, "pdf-tools"), copyOpts{umask: 0o022})
	writeSkillFile(t, src, "other", "SKILL.md", "---\nname: other\ndescription: A skill of no plugin, to change. Use it in tests.\n---\n# Other\n\nUse it in tests.\n")
	packed := 0
	withSeam(t, &onPackPlugin, func(string) { packed++ })
	out := filepath.Join(t.TempDir(), "dist")
	archives := func() []layout.PluginArchiveE { return pluginsIndex(t, out).Plugins[0].Archives }

	mustBuild(t, []string{src}, Options{Out: out})
	first := archives()
	for i, change := range []func(){
		func() {}, // a no-op
		func() { writeSkillFile(t, src, "other", "notes.md", "More.\n") },
		func() { writeSkillFile(t, src, "pdf-tools", "skills/pdf-fill/scripts/fill.py", "print('changed')\n") },
	} {
		change()
		res := mustBuild(t, []string{src}, Options{Out: out})
		if i == 0 && !res.UpToDate {
			t.Error("the second build is not a no-op")
		}
		if want := 1 + max(i-1, 0); packed != want {
			t.Errorf("build %d: plugin archives packed %d times in all, want %d", i+2, packed, want)
		}
		now := archives()
		if same := now[0].Digest == first[0].Digest && now[1].Digest == first[1].Digest; same != (i < 2) {
			t.Errorf("build %d: the archives are %v, first %v", i+2, now, first)
		}
		for _, a := range now {
			if !reuse.Verified(filepath.Join(out, layout.PluginsDir, a.URL), a.Digest, a.Size) {
				t.Errorf("build %d: %s does not hold what the index says", i+2, a.URL)
			}
		}
	}
}

// TestPluginClientCopies: a plugin whose Codex manifest declares a folder
// of its own holding a copy of each of the plugin's skills is one plugin:
// no name clash, the plugin's own skill published, the copy only in the
// plugin's archives. The folder is a client's variant folder, codex/
// holding skills/ (KingInYellows/yellow-plugins), or any other folder that
// manifest alone names (codex-skills/).
func TestPluginClientCopies(t *testing.T) {
	for folder, copies := range map[string]string{"codex/skills": "p/codex", "codex-skills": "p/codex-skills"} {
		src := t.TempDir()
		md := "---\nname: ci-status\ndescription: Show recent CI runs%s. Use when asked for CI status.\n---\nRun gh run list.\n"
		testtool.WriteTree(t, src, map[string]string{
			".claude-plugin/marketplace.json":     `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p"}]}`,
			"p/.claude-plugin/plugin.json":        `{"name": "p", "version": "1.0.0"}`,
			"p/.codex-plugin/plugin.json":         `{"name": "p", "version": "1.0.0", "skills": "./` + folder + `"}`,
			"p/skills/ci-status/SKILL.md":         fmt.Sprintf(md, ""),
			"p/" + folder + "/ci-status/SKILL.md": fmt.Sprintf(md, " (Codex)"),
		})
		out := filepath.Join(t.TempDir(), "dist")
		var log bytes.Buffer
		res := mustBuild(t, []string{src}, Options{Out: out, Log: &log})
		if len(res.Findings) != 0 || len(res.Skills) != 1 || filepath.Base(filepath.Dir(res.Skills[0].Dir)) != "skills" ||
			filepath.Base(filepath.Dir(filepath.Dir(res.Skills[0].Dir))) != "p" {
			t.Fatalf("%s: findings %v, skills %+v; want none, and p/skills/ci-status", folder, res.Findings, res.Skills)
		}
		idx := pluginsIndex(t, out)
		var names []string
		for _, e := range readTarGz(t, filepath.Join(out, layout.PluginsDir, idx.Plugins[0].Archives[0].URL), epoch1980) {
			names = append(names, e.Name)
		}
		want := []string{".claude-plugin/plugin.json", ".codex-plugin/plugin.json", folder + "/ci-status/SKILL.md", "skills/ci-status/SKILL.md"}
		slices.Sort(want)
		if got := strings.Join(names, " "); got != strings.Join(want, " ") {
			t.Errorf("%s: p's archive holds %s; want %s", folder, got, want)
		}
		if want := copies + " holds a client's copies of its plugin's skills, published only in the plugin's archives: ci-status"; !strings.Contains(log.String(), want) {
			t.Errorf("the build said:\n%s\nwant %q", log.String(), want)
		}
		verified(t, out)
	}
}

// A plugin whose Codex manifest names a folder of plugins as its skills
// ("./plugins/", HDeibler/universal-design-principles) holds their skills
// too: Codex loads every skill below that path, and its archives hold them.
func TestPluginSkillsPathHoldsPlugins(t *testing.T) {
	src := t.TempDir()
	md := "---\nname: %s\ndescription: Says %s when the user asks.\n---\nSay it.\n"
	testtool.WriteTree(t, src, map[string]string{
		".codex-plugin/plugin.json":               `{"name": "suite", "version": "1.0.0", "skills": "./plugins/"}`,
		"plugins/alpha/.codex-plugin/plugin.json": `{"name": "alpha", "version": "1.0.0", "skills": "./skills/"}`,
		"plugins/alpha/skills/hello/SKILL.md":     fmt.Sprintf(md, "hello", "hello"),
		"plugins/beta/.claude-plugin/plugin.json": `{"name": "beta", "version": "1.0.0"}`,
		"plugins/beta/skills/bye/SKILL.md":        fmt.Sprintf(md, "bye", "goodbye"),
	})
	out := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{src}, Options{Out: out})
	got := map[string]string{}
	for _, p := range pluginsIndex(t, out).Plugins {
		got[p.Name] = strings.Join(p.Skills, " ")
	}
	if want := map[string]string{"suite": "bye hello", "alpha": "hello", "beta": "bye"}; !maps.Equal(got, want) {
		t.Errorf("the plugins' skills are %v; want %v", got, want)
	}
	verified(t, out)
}

// A plugin of more files than an archive may hold is left out, with the
// reason and the fix, rather than published in archives that verify and
// pull refuse; its skills are built.
func TestPluginOverPackLimits(t *testing.T) {
	src := filepath.Join(t.TempDir(), "many")
	writeSkillFile(t, src, ".", ".claude-plugin/plugin.json", `{"name": "many", "description": "Many files."}`)
	writeSkillFile(t, src, ".", "skills/x/SKILL.md", "---\nname: x\ndescription: Does x things. Use when asked for x.\n---\nBody.\n")
	data := filepath.Join(src, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range pack.MaxEntries {
		if err := os.WriteFile(filepath.Join(data, strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "dist")
	var log bytes.Buffer
	res, err := Run([]string{src}, Options{Out: out, Log: &log, Inventory: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := ") left out: 1 error (skill-too-many-files)"; !strings.Contains(log.String(), want) {
		t.Errorf("the log does not say %q:\n%s", want, log.String())
	}
	if len(res.Skills) != 1 {
		t.Errorf("built %d skills, want the plugin's 1", len(res.Skills))
	}
	verified(t, out)
}

// A marketplace named as Claude Code keeps for Anthropic's own (the name
// anthropics/skills' marketplace has) is refused by `claude plugin
// marketplace add` from the bundle: the build says so; another name is
// no note.
func TestClaudeReservedName(t *testing.T) {
	for name, want := range map[string]bool{"anthropic-agent-skills": true, "claude-plugins-x": true, "acme-skills": false} {
		src := filepath.Join(t.TempDir(), "repo")
		writeSkill(t, filepath.Join(src, "plugins", "pdf", "skills", "pdf"), "pdf", nil)
		writeSkillFile(t, src, ".", ".claude-plugin/marketplace.json", `{"name": "`+name+`", "owner": {"name": "Acme"}, "plugins": [{"name": "pdf", "source": "./plugins/pdf"}]}`)
		writeSkillFile(t, src, ".", "plugins/pdf/.claude-plugin/plugin.json", `{"name": "pdf"}`)
		var log bytes.Buffer
		mustBuild(t, []string{src}, Options{Out: filepath.Join(t.TempDir(), "dist"), Marketplaces: []string{"claude"}, Log: &log})
		if got := strings.Contains(log.String(), "note: the marketplace is named "+name+", a name Claude Code"); got != want {
			t.Errorf("%s: noted %v, want %v:\n%s", name, got, want, log.String())
		}
	}
	// A plugin's name, which `claude plugin validate` fails alike.
	for name, want := range map[string]bool{"claude-helper": true, "my-claude-helper": false} {
		src := filepath.Join(t.TempDir(), "repo")
		writeSkill(t, filepath.Join(src, "plugins", "p", "skills", "pdf"), "pdf", nil)
		writeSkillFile(t, src, ".", "plugins/p/.claude-plugin/plugin.json", `{"name": "`+name+`"}`)
		var log bytes.Buffer
		mustBuild(t, []string{src}, Options{Out: filepath.Join(t.TempDir(), "dist"), Marketplaces: []string{"claude"}, Log: &log})
		if got := strings.Contains(log.String(), "on 1 plugin ("+name+"), named as Anthropic's own"); got != want {
			t.Errorf("plugin %s: noted %v, want %v:\n%s", name, got, want, log.String())
		}
	}
}

// A marketplace entry of the marketplace's own folder that lists skills is
// those skills: Claude Code 2.1.332 does not load that folder's skills/ too,
// as it does for a plugin elsewhere (Przemocny/generic-skills). A skill of
// skills/ it does not list is published where every client looks, but is
// no skill of the plugin: the plugins index agrees with Claude Code's entry.
func TestPluginRootEntryListed(t *testing.T) {
	src := t.TempDir()
	md := "---\nname: %s\ndescription: Says %s when the user asks.\n---\nSay it.\n"
	testtool.WriteTree(t, src, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [
			{"name": "p", "source": "./", "description": "p", "strict": false, "skills": ["./skills/a"]}]}`,
		"skills/a/SKILL.md": fmt.Sprintf(md, "a", "a"),
		"skills/b/SKILL.md": fmt.Sprintf(md, "b", "b"),
	})
	out := filepath.Join(t.TempDir(), "dist")
	res := mustBuild(t, []string{src}, Options{Out: out, Marketplaces: []string{"claude"}})
	if len(res.Skills) != 2 {
		t.Fatalf("published %d skills, want a and b", len(res.Skills))
	}
	idx := pluginsIndex(t, out)
	if len(idx.Plugins) != 1 || !slices.Equal(idx.Plugins[0].Skills, []string{"a"}) {
		t.Errorf("plugins index %+v; want p holding a alone", idx.Plugins)
	}
	verified(t, out)
}

// A plugin whose one skill is a link out of its folder to a skill the
// bundle publishes on its own (arkhe-claude-plugins' layout) is left out,
// in a git work tree as outside one, for that reason: in a tree its
// archives were said to leave out a skill "the bundle does not publish",
// and outside one it was published as its manifest alone.
func TestPluginSkillLinkedOut(t *testing.T) {
	for _, git := range []bool{false, true} {
		src := t.TempDir()
		writeSkillFile(t, src, ".", ".claude-plugin/marketplace.json", `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p"}]}`)
		writeSkillFile(t, src, ".", "p/.claude-plugin/plugin.json", `{"name": "p"}`)
		writeSkill(t, filepath.Join(src, "shared", "x"), "x", nil)
		if err := os.MkdirAll(filepath.Join(src, "p", "skills"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../../shared/x", filepath.Join(src, "p", "skills", "x")); err != nil {
			t.Fatal(err)
		}
		if git {
			testtool.Git(t, src, "init", "-q")
		}
		var log bytes.Buffer
		res := mustBuild(t, []string{src}, Options{Out: filepath.Join(t.TempDir(), "dist"), Log: &log})
		want := []PluginOut{{Name: "p", Reason: "its skills are symbolic links out of its folder, which its archives leave out, and it holds nothing else a client loads"}}
		if got := res.PluginsOut; len(got) != 1 || got[0].Name != "p" || got[0].Reason != want[0].Reason {
			t.Errorf("git %v: plugins left out %+v, want %+v\n%s", git, got, want, log.String())
		}
		if strings.Contains(log.String(), "does not publish") {
			t.Errorf("git %v: the log says the bundle does not publish x:\n%s", git, log.String())
		}
	}
}
