package build

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// With the marketplaces that name plugin folders asked for, each plugin's
// folder is served beside its archives, byte for byte as its source, and
// named by Codex's, Cursor's and Copilot's files; the bundle verifies, a
// second build is a no-op, and a plugin whose name those clients refuse
// is in none of them, with a note saying what to rename, and served as
// archives still.
func TestPluginFolders(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
	notes := filepath.Join(src, "plugins", "notes")
	for _, m := range []string{"plugin.json", filepath.Join(".claude-plugin", "plugin.json")} {
		data, _ := os.ReadFile(filepath.Join(notes, m))
		if err := os.WriteFile(filepath.Join(notes, m), bytes.Replace(data, []byte(`"notes"`), []byte(`"acme.notes"`), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "dist")
	var log bytes.Buffer
	o := Options{Out: out, Marketplaces: []string{"codex", "cursor", "copilot", "claude", "codex"}, Log: &log}
	mustBuild(t, []string{src}, o)
	if want := "plugins/notes) is left out of the Codex, Cursor and Copilot marketplaces, which take a kebab-case name " +
		"(name has '.'; use only a-z, 0-9 and '-'): rename it in plugin.json"; !strings.Contains(log.String(), "plugin acme.notes (") || !strings.Contains(log.String(), want) {
		t.Errorf("the build said:\n%s\nwant a line saying:\n%s", log.String(), want)
	}

	for _, name := range []string{"db-tools", "pdf-tools"} {
		dir := filepath.Join(src, "plugins", name)
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			want, _ := os.ReadFile(p)
			got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.PluginDir(name)), rel))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s/%s: not served byte for byte (%v)", name, filepath.ToSlash(rel), err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(layout.PluginDir("acme.notes")))); err == nil {
		t.Error("acme.notes is served as a folder")
	}
	for _, m := range []string{layout.CodexMarketplace, layout.CursorMarketplace, layout.CopilotMarketplace} {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(m)))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(data); !strings.Contains(s, `"./.well-known/agent-plugins/db-tools"`) || !strings.Contains(s, `"./.well-known/agent-plugins/pdf-tools"`) ||
			strings.Contains(s, "acme.notes") || !strings.Contains(s, `"name": "acme"`) {
			t.Errorf("%s:\n%s", m, s)
		}
	}
	verified(t, out)
	if res := mustBuild(t, []string{src}, o); !res.UpToDate {
		t.Error("a second build with the same marketplaces is not a no-op")
	}
	// Asking for the folders again after a build without them builds again.
	mustBuild(t, []string{src}, Options{Out: out, Marketplaces: []string{"claude"}})
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(layout.PluginDir("db-tools")))); err == nil {
		t.Error("a build without a folder marketplace still serves the plugins' folders")
	}
}

// A marketplace lists a plugin only where its client finds one in it: a
// plugin whose folder holds only Claude Code's manifest is left out of
// Codex's and Cursor's files (which read neither), kept in Copilot's, and
// a note says which manifest to add.
func TestMarketplaceManifests(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
	if err := os.Remove(filepath.Join(src, "plugins", "notes", "plugin.json")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dist")
	var log bytes.Buffer
	mustBuild(t, []string{src}, Options{Out: out, Log: &log, Marketplaces: []string{"codex", "cursor", "copilot"}})
	for file, listed := range map[string]bool{layout.CodexMarketplace: false, layout.CursorMarketplace: false, layout.CopilotMarketplace: true} {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(data), `"name": "notes"`); got != listed {
			t.Errorf("%s lists notes: %t, want %t\n%s", file, got, listed, data)
		}
		note := "plugin notes is left out of " + file + ": its folder holds no manifest the client reads"
		if got := strings.Contains(log.String(), note); got == listed {
			t.Errorf("the log says %q: %t, want %t", note, got, !listed)
		}
	}
}

// The marketplace is named as the folder built names its own marketplace
// (testdata/plugins: "acme", owned by "Acme"), so that two clones in
// folders of other names build the same bytes; a folder with none names
// it, as a skill's name is suggested (skill.SuggestName): a letter's
// accent goes, the letter stays.
func TestMarketplaceName(t *testing.T) {
	build := func(folder string, own bool) (string, string) {
		src := filepath.Join(t.TempDir(), folder)
		copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
		if !own {
			if err := os.Remove(filepath.Join(src, ".claude-plugin", "marketplace.json")); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(t.TempDir(), "dist")
		mustBuild(t, []string{src}, Options{Out: out, Marketplaces: []string{"claude"}})
		m := claudeMarket(t, out)
		return m.Name, m.Owner.Name
	}
	for _, folder := range []string{"Café Skills", "my_clone"} {
		if name, owner := build(folder, true); name != "acme" || owner != "Acme" {
			t.Errorf("built from %q, the marketplace is %q owned by %q, want acme owned by Acme, as the repository's", folder, name, owner)
		}
	}
	// A Codex marketplace beside it, first by name, has no owner: the
	// owner is Claude Code's still (0xeb/ghidrasql-skills).
	src := filepath.Join(t.TempDir(), "both")
	copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
	testtool.WriteTree(t, src, map[string]string{".agents/plugins/marketplace.json": `{"name": "acme", "plugins": []}`})
	out := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{src}, Options{Out: out, Marketplaces: []string{"claude"}})
	if m := claudeMarket(t, out); m.Name != "acme" || m.Owner.Name != "Acme" {
		t.Errorf("beside a Codex marketplace, the marketplace is %q owned by %q, want acme owned by Acme", m.Name, m.Owner.Name)
	}
	if name, owner := build("Café Skills", false); name != "cafe-skills" || owner != "cafe-skills" {
		t.Errorf("without a marketplace of its own, the marketplace is %q owned by %q, want cafe-skills", name, owner)
	}
}

// Where the repository has a Claude Code marketplace, the built one offers
// its entries by their names, as Claude Code installs them: an entry of the
// repository's root naming its skills by path is made of those, not left
// out; an entry is not renamed after a plugin.json in its folder; a nested
// plugin no entry offers is left out of the file, with a note; what an
// entry made of served skills cannot carry (the entry's commands) is said;
// and a second folder built offers its own marketplace's entries too.
func TestClaudeMarketplaceEntries(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	skillMD := func(name string) string {
		return "---\nname: " + name + "\ndescription: A skill of the test, which exercises the entries.\n---\n# " + name + "\n"
	}
	for path, data := range map[string]string{
		".claude-plugin/marketplace.json": `{"name": "kit-market", "owner": {"name": "me"}, "metadata": {"description": "Kits for the newsroom."}, "plugins": [
			{"name": "kit", "source": "./", "strict": false, "skills": ["./plugins/a/skills/s-one", "./plugins/a/skills/s-two/SKILL.md"], "commands": ["./plugins/a/commands/go.md"]},
			{"name": "trackio", "source": "./tools/trackio"},
			{"name": "bp", "source": "./tools/bp", "skills": ["./tools/bp/skills/bp"]},
			{"name": "remote", "source": {"source": "github", "repo": "o/r"}}]}`,
		"plugins/a/.claude-plugin/plugin.json":     `{"name": "a-plugin"}`,
		"plugins/a/commands/go.md":                 "# go\n",
		"plugins/a/skills/s-one/SKILL.md":          skillMD("s-one"),
		"plugins/a/skills/s-two/SKILL.md":          skillMD("s-two"), // named by its SKILL.md, as inchan/cc-plugins names them
		"tools/trackio/.claude-plugin/plugin.json": `{"name": "trackio-cli"}`,
		"tools/trackio/skills/track/SKILL.md":      skillMD("track") + "Run bash ${CLAUDE_PLUGIN_ROOT}/scripts/log.sh.\n",
		"tools/bp/skills/bp/SKILL.md":              skillMD("bp"), // its entry's path names nothing: skills/ is read all the same
	} {
		writeSkillFile(t, src, ".", path, data)
	}
	src2 := filepath.Join(t.TempDir(), "repo2")
	writeSkillFile(t, src2, ".", ".claude-plugin/marketplace.json", `{"name": "more", "owner": {"name": "me"}, "plugins": [{"name": "extra", "source": "./extra"}, {"name": "kit", "source": "./extra"}]}`)
	writeSkillFile(t, src2, ".", "extra/skills/ex/SKILL.md", skillMD("ex"))
	out := filepath.Join(t.TempDir(), "dist")
	var log bytes.Buffer
	mustBuild(t, []string{src, src2}, Options{Out: out, Log: &log, Marketplaces: []string{"claude"}})
	m := claudeMarket(t, out)
	var got []string
	for _, e := range m.Plugins {
		got = append(got, e.Name+" "+strings.Join(e.Skills, ","))
	}
	if want := []string{"bp ./bp", "extra ./ex", "kit ./s-one,./s-two", "trackio ./track"}; !slices.Equal(got, want) {
		t.Errorf("the built marketplace offers %q; want %q, the repository's entries", got, want)
	}
	// Its description too, which Claude Code warns of when missing (AxonIQ's).
	if m.Metadata == nil || m.Metadata.Description != "Kits for the newsroom." {
		t.Errorf("the built marketplace's metadata is %+v; want the repository's description", m.Metadata)
	}
	for _, want := range []string{
		"plugin kit: its entry in .claude-plugin/marketplace.json is made of its served skills, and does not carry its commands",
		"plugin trackio: its entry in .claude-plugin/marketplace.json is made of its served skills, and does not carry its plugin files (track reaches them by ${CLAUDE_PLUGIN_ROOT}): installed from the bundle, it goes without them",
		"plugin a-plugin (", "plugins/a) is left out of .claude-plugin/marketplace.json: the repository's own",
		"plugin remote is left out of .claude-plugin/marketplace.json: its entry in the repository's own (",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the build said:\n%s\nwant a line saying %q", log.String(), want)
		}
	}
	verified(t, out)
	// The entries are in the bundle key: a renamed one builds again.
	mp := filepath.Join(src, filepath.FromSlash(layout.ClaudeMarketplace))
	raw, _ := os.ReadFile(mp)
	writeSkillFile(t, src, ".", layout.ClaudeMarketplace, strings.Replace(string(raw), `"trackio"`, `"trackio-2"`, 1))
	if res := mustBuild(t, []string{src, src2}, Options{Out: out, Marketplaces: []string{"claude"}}); res.UpToDate {
		t.Error("a build after an entry was renamed is a no-op")
	}
}

// TestFolderMarketplacesListWhatServes: a plugin whose skills the bundle
// all leaves out is in no marketplace (Codex installed AxonIQ's as its
// manifests alone), and a marketplace that would list no plugin is not
// written, nor plugin folders served for it (phuryn/pm-skills: every
// plugin has Claude Code's manifest only).
func TestFolderMarketplacesListWhatServes(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	skillMD := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n"
	}
	for path, data := range map[string]string{
		"plugins/app/.codex-plugin/plugin.json":          `{"name": "app", "version": "1.0.0", "description": "An app plugin."}`,
		"plugins/app/skills/app-dev/SKILL.md":            skillMD("app-dev", strings.Repeat("Build apps. ", 100)), // too long: skipped
		"plugins/app/README.md":                          "# App\n",                                               // no part of a plugin a client loads
		"plugins/migrate/.codex-plugin/plugin.json":      `{"name": "migrate", "version": "1.0.0", "description": "A migration plugin."}`,
		"plugins/migrate/skills/migrate-app/SKILL.md":    skillMD("migrate-app", "Migrate an app to the new framework, for the user who asks."),
		"plugins/claude-only/.claude-plugin/plugin.json": `{"name": "claude-only"}`,
		"plugins/claude-only/skills/notes/SKILL.md":      skillMD("notes", "Take meeting notes in the team's format, for the user."),
	} {
		writeSkillFile(t, src, ".", path, data)
	}
	out := filepath.Join(t.TempDir(), "dist")
	var log bytes.Buffer
	if _, err := Run([]string{src}, Options{Out: out, Log: &log, SkipInvalid: true, Marketplaces: []string{"codex"}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.CodexMarketplace)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"migrate"`) || strings.Contains(string(data), `"app"`) {
		t.Errorf("%s lists:\n%s\nwant migrate, not app, whose one skill was left out", layout.CodexMarketplace, data)
	}
	if !strings.Contains(log.String(), "plugin app (") || !strings.Contains(log.String(), "the bundle publishes none of its skills") {
		t.Errorf("the build did not say app was left out:\n%s", log.String())
	}
	// Nor is it in the plugins index: its archives would be its manifest.
	if data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.PluginsIndex))); err != nil || strings.Contains(string(data), `"app"`) {
		t.Errorf("%s lists app, whose archives would hold its manifest alone (%v):\n%s", layout.PluginsIndex, err, data)
	}
	verified(t, out)
	// With every plugin left out, the marketplace's reason says so, not
	// that the input holds no plugin (getsentry/sentry-for-ai).
	alone := filepath.Join(t.TempDir(), "repo")
	writeSkillFile(t, alone, ".", "plugins/app/.codex-plugin/plugin.json", `{"name": "app", "version": "1.0.0", "description": "An app plugin."}`)
	writeSkillFile(t, alone, ".", "plugins/app/skills/app-dev/SKILL.md", skillMD("app-dev", strings.Repeat("Build apps. ", 100)))
	writeSkillFile(t, alone, ".", "skills/notes/SKILL.md", skillMD("notes", "Take meeting notes in the team's format, for the user."))
	res := mustBuild(t, []string{alone}, Options{Out: filepath.Join(t.TempDir(), "dist"), SkipInvalid: true, Marketplaces: []string{"codex"}})
	if len(res.Unwritten) != 1 || !strings.Contains(res.Unwritten[0].Reason, "the input's 1 plugin was left out") {
		t.Errorf("the result's unwritten marketplaces are %+v, want %s, its 1 plugin left out", res.Unwritten, layout.CodexMarketplace)
	}

	// Only Claude Code's manifest: no Codex marketplace, no folders.
	if err := os.RemoveAll(filepath.Join(src, "plugins", "app")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(src, "plugins", "migrate")); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	res = mustBuild(t, []string{src}, Options{Out: out, Log: &log, Marketplaces: []string{"codex"}})
	for _, p := range []string{layout.CodexMarketplace, layout.PluginDir("claude-only")} {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(p))); err == nil {
			t.Errorf("%s was written for a marketplace that lists no plugin", p)
		}
	}
	if len(res.Unwritten) != 1 || res.Unwritten[0].Name != layout.CodexMarketplace || !strings.Contains(res.Unwritten[0].Reason, "none of the bundle's 1 plugin") {
		t.Errorf("the result's unwritten marketplaces are %+v, want %s, listing none of 1 plugin", res.Unwritten, layout.CodexMarketplace)
	}
	verified(t, out)
}

// TestClaudeMarketplaceAllRemote: a repository whose Claude Code entries
// all name its own plugins by a git source (dmedina-dev/dev-forge:
// git-subdir of its own URL) has its plugins left out of that file once
// each, for that reason, and the file's reason is not that the bundle
// has no plugin.
func TestClaudeMarketplaceAllRemote(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	writeSkillFile(t, src, ".", layout.ClaudeMarketplace, `{"name": "forge", "owner": {"name": "me"}, "plugins": [
		{"name": "init", "source": {"source": "git-subdir", "url": "https://example.com/forge.git", "path": "plugins/init"}}]}`)
	writeSkillFile(t, src, ".", "plugins/init/.claude-plugin/plugin.json", `{"name": "init", "version": "1.0.0"}`)
	writeSkillFile(t, src, ".", "plugins/init/skills/setup/SKILL.md", "---\nname: setup\ndescription: Sets up a project when the user asks for one.\n---\n# Setup\n")
	var log bytes.Buffer
	res := mustBuild(t, []string{src}, Options{Out: filepath.Join(t.TempDir(), "dist"), Log: &log, Marketplaces: []string{"claude"}})
	if n := strings.Count(log.String(), "plugin init"); n != 1 || !strings.Contains(log.String(), "has a source that is no folder") {
		t.Errorf("the build said:\n%s\nwant plugin init left out once, for its git source", log.String())
	}
	if len(res.Unwritten) != 1 || !strings.Contains(res.Unwritten[0].Reason, "no entry of the repository's own names the folder of a plugin the bundle has (1;") {
		t.Errorf("the result's unwritten marketplaces are %+v; want %s, none of its entries naming a folder", res.Unwritten, layout.ClaudeMarketplace)
	}
}

// TestServedExecBit: a served copy has the mode its archives give the
// file, 0755 for a script with an execute bit, in the skills tree and in a
// plugin's folder (which Codex copies and Copilot runs from); a rebuild in
// which only the bit changed follows it.
func TestServedExecBit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no execute bits on Windows")
	}
	src := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("testdata", "plugins"), src, copyOpts{umask: 0o022})
	out := filepath.Join(t.TempDir(), "dist")
	script := filepath.Join(src, "plugins", "pdf-tools", "skills", "pdf-fill", "scripts", "fill.py")
	modes := func(want fs.FileMode) {
		t.Helper()
		for p, want := range map[string]fs.FileMode{
			layout.SkillFile("pdf-fill", "scripts/fill.py"):                    want,
			layout.PluginDir("pdf-tools") + "/skills/pdf-fill/scripts/fill.py": want,
			layout.SkillFile("pdf-fill", layout.EntryFile):                     0o644,
			layout.PluginDir("pdf-tools") + "/plugin.json":                     0o644,
		} {
			if info, err := os.Stat(filepath.Join(out, filepath.FromSlash(p))); err != nil || info.Mode().Perm() != want {
				t.Errorf("%s: %v (%v); want %v", p, info.Mode().Perm(), err, want)
			}
		}
	}
	for _, step := range []struct {
		mode fs.FileMode
		what string
	}{{0o755, "built"}, {0o755, "rebuilt"}, {0o644, "rebuilt once the script lost its bit"}, {0o755, "rebuilt once it has it again"}} {
		if err := os.Chmod(script, step.mode); err != nil {
			t.Fatal(err)
		}
		mustBuild(t, []string{src}, Options{Out: out, Marketplaces: []string{"codex"}})
		t.Log(step.what)
		modes(step.mode)
	}
}

// TestMarketplaceCLIs has the clients that read the marketplaces, where
// they run without a network, add the built bundle's folder as a
// marketplace and install a plugin from it: Claude Code validates its file
// and installs the plugin's skills from the served skills tree; Codex and
// Copilot install the plugin from its served folder, which their files
// name. (Cursor's has no command-line reader; layout's tests hold it to
// Cursor's schema.) The proxy variables name a closed port, so that a
// client that reached for the network would fail.
func TestMarketplaceCLIs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{filepath.Join("testdata", "plugins")}, Options{Out: out, Marketplaces: []string{"claude", "codex", "cursor", "copilot"}})
	const market = "acme" // the name testdata/plugins gives its marketplace
	served := func(p string) []byte {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	same := func(installed string, want []byte) {
		t.Helper()
		if got, err := os.ReadFile(installed); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: not installed byte for byte (%v)", installed, err)
		}
	}
	runnable := func(installed string) { // testdata's fill.py is committed 100755
		t.Helper()
		if info, err := os.Stat(installed); err != nil || info.Mode()&0o111 == 0 {
			t.Errorf("%s: installed without its execute bit (%v)", installed, err)
		}
	}
	for _, cli := range []string{"claude", "codex", "copilot"} {
		t.Run(cli, func(t *testing.T) {
			bin := testtool.Need(t, cli)
			home := t.TempDir()
			run := func(args ...string) string {
				t.Helper()
				// A bound for a hung client, not a timing assertion.
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, bin, args...)
				cmd.Dir = home
				cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), "COPILOT_CACHE_HOME="+filepath.Join(home, "cache"),
					"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "NO_COLOR=1")
				data, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", cli, strings.Join(args, " "), err, data)
				}
				return string(data)
			}
			switch cli {
			case "claude":
				if s := run("plugin", "validate", out); !strings.Contains(s, "Validation passed") {
					t.Errorf("claude plugin validate said:\n%s", s)
				}
				run("plugin", "marketplace", "add", out)
				run("plugin", "install", "pdf-tools@"+market)
				same(filepath.Join(home, ".claude", "plugins", "cache", market, "pdf-tools", "1.0.0", "pdf-fill", "SKILL.md"), served(layout.SkillsDir+"/pdf-fill/SKILL.md"))
				runnable(filepath.Join(home, ".claude", "plugins", "cache", market, "pdf-tools", "1.0.0", "pdf-fill", "scripts", "fill.py"))
			case "codex":
				if err := os.Mkdir(filepath.Join(home, ".codex"), 0o755); err != nil {
					t.Fatal(err)
				}
				run("plugin", "marketplace", "add", out)
				run("plugin", "add", "pdf-tools@"+market)
				for _, f := range []string{"plugin.json", "skills/pdf-fill/SKILL.md", "skills/pdf-fill/scripts/fill.py"} {
					same(filepath.Join(home, ".codex", "plugins", "cache", market, "pdf-tools", "1.0.0", filepath.FromSlash(f)), served(layout.PluginDir("pdf-tools")+"/"+f))
				}
				runnable(filepath.Join(home, ".codex", "plugins", "cache", market, "pdf-tools", "1.0.0", "skills", "pdf-fill", "scripts", "fill.py"))
			case "copilot":
				run("plugin", "marketplace", "add", out)
				// A plugin of a marketplace in a folder is loaded from
				// there, not copied: the folder Copilot's file names.
				s := run("plugin", "install", "pdf-tools@"+market)
				if !strings.Contains(s, "Installed 2 skills") || !strings.Contains(s, filepath.Join(out, filepath.FromSlash(layout.PluginDir("pdf-tools")))) {
					t.Errorf("copilot plugin install said:\n%s", s)
				}
			}
		})
	}
}

// The plugins a marketplace file leaves out for one reason are said in one
// line, five by name unless -v (anthropics/claude-plugins-official: 233
// remote entries were 233 lines); one plugin keeps its own line.
func TestSayLeftOut(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var log strings.Builder
		b := &builder{opts: Options{Log: &log, Verbose: verbose}}
		var l leftOut
		for i := range 7 {
			l.add("m.json", "it has no skill", fmt.Sprintf("p%d", i))
		}
		l.add("m.json", "its entry is remote", "far")
		b.sayLeftOut(&l)
		lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
		want := "  7 plugins are left out of m.json (p0, p1, p2, p3, p4, and 2 more; -v lists them), each as it has no skill"
		if verbose {
			want = "  7 plugins are left out of m.json (p0, p1, p2, p3, p4, p5, p6), each as it has no skill"
		}
		if len(lines) != 2 || lines[0] != want || lines[1] != "  plugin far is left out of m.json: its entry is remote" {
			t.Errorf("verbose %v: logged\n%s\nwant first %q", verbose, log.String(), want)
		}
	}
}

// The repository's own Codex marketplace says what the build cannot know:
// each plugin's policy and category, and the title Codex shows, which the
// built one keeps (Scandit/skills: ON_USE became ON_INSTALL); a change to
// them is a change to the bundle, not a no-op.
func TestCodexMarketplaceKeepsPolicy(t *testing.T) {
	src := t.TempDir()
	own := func(auth string) string {
		return `{"name": "demo-plugins", "interface": {"displayName": "Demo Plugins"}, "plugins": [{"name": "demo",
			"source": {"source": "local", "path": "./"}, "category": "Developer Tools",
			"policy": {"installation": "AVAILABLE", "authentication": "` + auth + `", "products": ["CODEX"]}}]}`
	}
	testtool.WriteTree(t, src, map[string]string{
		".codex-plugin/plugin.json":        `{"name": "demo", "version": "1.0.0"}`,
		".agents/plugins/marketplace.json": own("ON_USE"),
		"skills/demo/SKILL.md":             "---\nname: demo\ndescription: Demonstrates a plugin. Use when asked for a demo.\n---\nDemo.\n",
	})
	out := filepath.Join(t.TempDir(), "dist")
	read := func() *layout.CodexMarketplaceDoc {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.CodexMarketplace)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := layout.DecodeCodexMarketplace(data)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	mustBuild(t, []string{src}, Options{Out: out, Marketplaces: []string{"codex"}})
	m := read()
	if len(m.Plugins) != 1 || m.Interface.DisplayName != "Demo Plugins" || m.Plugins[0].Category != "Developer Tools" ||
		!strings.Contains(string(m.Plugins[0].Policy), `"ON_USE"`) || !strings.Contains(string(m.Plugins[0].Policy), `"CODEX"`) {
		t.Errorf("Codex's marketplace is %+v (policy %s), want the repository's title, category and policy", m, m.Plugins[0].Policy)
	}
	testtool.WriteTree(t, src, map[string]string{".agents/plugins/marketplace.json": own("ON_INSTALL")})
	if res := mustBuild(t, []string{src}, Options{Out: out, Marketplaces: []string{"codex"}}); res.UpToDate {
		t.Error("a rebuild after the policy changed was a no-op")
	}
	if m := read(); !strings.Contains(string(m.Plugins[0].Policy), `"ON_INSTALL"`) {
		t.Errorf("after the change the policy is %s, want ON_INSTALL", m.Plugins[0].Policy)
	}
}
