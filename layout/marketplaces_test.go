package layout

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The marketplaces that name plugin folders list the plugins served as
// folders, and each such plugin's files are in the bundle at PluginDir,
// in checksums.txt; Cursor's file passes Cursor's own schema, which is
// closed; a plugin not served as a folder is in Claude Code's only.
func TestFolderMarketplaces(t *testing.T) {
	file := func(path, body string) PluginFile {
		return PluginFile{Path: path, PluginBytes: PluginBytes{Digest: DigestOf([]byte(body)), Size: int64(len(body)), Write: fixed([]byte(body))}}
	}
	served := testPlugin("pdf-tools", "a")
	served.Files = []PluginFile{file("plugin.json", `{"name": "pdf-tools"}`), file("skills/a/SKILL.md", "# a")}
	long := testPlugin("db-tools")
	long.Description = strings.Repeat("d", maxCopilotDescription+1)
	long.Files = []PluginFile{file("plugin.json", `{"name": "db-tools"}`)}
	unserved := testPlugin("acme.pdf", "b")
	// Served, but with the manifest only Cursor reads: Codex and Copilot
	// would find no plugin in its folder.
	cursorOnly := testPlugin("cursor-only")
	cursorOnly.Files = []PluginFile{file(".cursor-plugin/plugin.json", `{"name": "cursor-only"}`)}
	m := &Marketplace{Name: "acme", Owner: "Acme", Title: "Acme's plugins", Description: "Acme's tools.", Files: marketplaces}
	b := plan(t, twoSkills(), Options{Plugins: []Plugin{unserved, served, long, cursorOnly}, Marketplace: m})

	sums, _ := b.Lookup(Checksums)
	for _, f := range served.Files {
		p := PluginDir(served.Name) + "/" + f.Path
		e, ok := b.Lookup(p)
		if !ok || e.Kind != KindDoc || e.Digest != f.Digest || !bytes.Equal(docBytes(t, e), docBytes(t, Entry{Write: f.Write})) {
			t.Errorf("the plan has %s as %+v, %t", p, e, ok)
		}
		if pp, ok := ParsePath(p); !ok || pp.Kind != KindDoc {
			t.Errorf("ParsePath(%s) = %+v, %t", p, pp, ok)
		}
		if !strings.Contains(string(docBytes(t, sums)), f.Digest.Hex()+"  "+p+"\n") {
			t.Errorf("checksums.txt does not list %s", p)
		}
	}
	for e, err := range b.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(e.Path, PluginDir(unserved.Name)+"/") {
			t.Errorf("%s: a plugin not served as a folder has a file in one", e.Path)
		}
	}

	read := func(path string) map[string]any {
		t.Helper()
		e, ok := b.Lookup(path)
		if !ok {
			t.Fatalf("no %s", path)
		}
		if !strings.Contains(string(docBytes(t, sums)), "  "+path+"\n") {
			t.Errorf("checksums.txt does not list %s", path)
		}
		var doc map[string]any
		if err := json.Unmarshal(docBytes(t, e), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	jsonOf := func(v any) string { j, _ := json.Marshal(v); return string(j) }
	codex := read(CodexMarketplace)
	if got, want := jsonOf(codex), `{"interface":{"displayName":"Acme's plugins"},"name":"acme","plugins":[`+
		`{"name":"db-tools","policy":{"authentication":"ON_INSTALL","installation":"AVAILABLE"},"source":{"path":"./.well-known/agent-plugins/db-tools","source":"local"}},`+
		`{"name":"pdf-tools","policy":{"authentication":"ON_INSTALL","installation":"AVAILABLE"},"source":{"path":"./.well-known/agent-plugins/pdf-tools","source":"local"}}]}`; got != want {
		t.Errorf("Codex's marketplace:\n%s\nwant\n%s", got, want)
	}
	copilot := read(CopilotMarketplace)
	if got, want := jsonOf(copilot), `{"metadata":{"description":"Acme's tools."},"name":"acme","owner":{"name":"Acme"},"plugins":[`+
		`{"name":"db-tools","source":"./.well-known/agent-plugins/db-tools","version":"1.0.0"},`+
		`{"description":"PDF tools.","name":"pdf-tools","source":"./.well-known/agent-plugins/pdf-tools","version":"1.0.0"}]}`; got != want {
		t.Errorf("Copilot's marketplace:\n%s\nwant\n%s", got, want)
	}
	// Claude Code's, which names the skills, lists the plugins that have
	// some, served or not.
	if claude := read(ClaudeMarketplace); !strings.Contains(jsonOf(claude["plugins"]), `"name":"acme.pdf"`) || len(claude["plugins"].([]any)) != 2 {
		t.Errorf("Claude Code's marketplace lists %s", jsonOf(claude["plugins"]))
	}

	cursor := read(CursorMarketplace)
	schema := compileCursorSchema(t)
	if err := schema.Validate(cursor); err != nil {
		t.Errorf("Cursor's marketplace fails Cursor's schema: %v\n%s", err, jsonOf(cursor))
	}
	if jsonOf(cursor["metadata"]) != `{"description":"Acme's tools."}` {
		t.Errorf("Cursor's marketplace's metadata is %s; want the repository's description", jsonOf(cursor["metadata"]))
	}
	if ps := cursor["plugins"].([]any); len(ps) != 3 || ps[0].(map[string]any)["name"] != "cursor-only" || ps[2].(map[string]any)["source"] != "./"+PluginDir("pdf-tools") {
		t.Errorf("Cursor's marketplace lists %s", jsonOf(ps))
	}
	// The schema is not one that takes anything: what Copilot's file
	// adds (a version) it refuses.
	if err := schema.Validate(copilot); err == nil {
		t.Error("Cursor's schema takes a plugin's version, which it does not have")
	}

	// A plugin served as a folder has a name every client takes, and
	// files at paths.
	bad := testPlugin("Acme_PDF")
	bad.Files = served.Files
	if _, err := Plan(List(twoSkills()), Options{Plugins: []Plugin{bad}, Marketplace: m}); err == nil {
		t.Error("a plugin named Acme_PDF is served as a folder")
	}
	bad = testPlugin("x")
	bad.Files = []PluginFile{file("../y", "")}
	if _, err := Plan(List(twoSkills()), Options{Plugins: []Plugin{bad}, Marketplace: m}); err == nil {
		t.Error("a plugin's file at ../y is planned")
	}
	if _, err := Plan(List(twoSkills()), Options{Marketplace: &Marketplace{Name: "acme", Owner: "Acme", Files: []string{"marketplace.json"}}}); err == nil {
		t.Error("a marketplace file layout does not know is planned")
	}
}

func compileCursorSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat() // owner.email's
	s, err := c.Compile(filepath.Join("testdata", "cursor", "marketplace.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An entry whose source is a path string (AdaCore's), or no source a
// client reads, costs no other entry its policy: the build keeps each
// plugin's from the repository's own Codex marketplace.
func TestDecodeCodexMarketplaceSources(t *testing.T) {
	m, err := DecodeCodexMarketplace([]byte(`{"name": "m", "plugins": [
		{"name": "a", "source": "./plugins/a", "policy": {"installation": "NOT_AVAILABLE"}, "category": "Coding"},
		{"name": "b", "source": 7, "policy": {"installation": "INSTALLED_BY_DEFAULT"}},
		{"name": "c", "source": {"source": "local", "path": "./plugins/c"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Plugins) != 3 {
		t.Fatalf("decoded %d plugins, want 3", len(m.Plugins))
	}
	a, b, c := m.Plugins[0], m.Plugins[1], m.Plugins[2]
	if a.Source != (CodexSource{"local", "./plugins/a"}) || !strings.Contains(string(a.Policy), "NOT_AVAILABLE") || a.Category != "Coding" {
		t.Errorf("a string source: %+v (policy %s)", a, a.Policy)
	}
	if b.Source != (CodexSource{}) || !strings.Contains(string(b.Policy), "INSTALLED_BY_DEFAULT") {
		t.Errorf("a number as source: %+v (policy %s)", b, b.Policy)
	}
	if c.Source != (CodexSource{"local", "./plugins/c"}) {
		t.Errorf("an object source: %+v", c)
	}
}

// The plugin names `claude plugin validate` (2.1.332) fails and passes,
// as it judged each of these.
func TestClaudeRefusesPlugin(t *testing.T) {
	for _, name := range []string{"claude-helper", "cc-plugin-x", "claudecode", "claude", "anthropics-tools",
		"official-claude-thing", "claude_helper", "claude-code", "claude-mods", "anthropic"} {
		if !ClaudeRefusesPlugin(name) {
			t.Errorf("%s: taken, but Claude Code refuses it", name)
		}
	}
	for _, name := range []string{"my-claude-helper", "helper-claude", "claudehelper", "acme", "cc-plugins"} {
		if ClaudeRefusesPlugin(name) {
			t.Errorf("%s: refused, but Claude Code takes it", name)
		}
	}
}
