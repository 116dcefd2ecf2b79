package cli

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/internal/testtool"
)

// The --json documents are checked against the schemas in schema/ in two
// places: every skillpack command of the CLI scripts that asks for JSON
// (scriptMain, below), and TestJSONDocuments, which runs each command on
// the examples and on broken trees, to success and to each failure.

// schemaDir is the repository's schema folder, seen from this package.
const schemaDir = "../../../../schema"

// docSchemas names the schema of each command's --json document.
var docSchemas = map[string]string{
	"lint":    "lint.schema.json",
	"build":   "build.schema.json",
	"pack":    "pack.schema.json",
	"verify":  "verify.schema.json",
	"version": "version.schema.json",
	"new":     "new.schema.json",
	"publish": "publish.schema.json",
	"doctor":  "doctor.schema.json",
}

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemasErr  error
)

// compileSchemas compiles every schema of a --json document, each checked
// against the draft 2020-12 meta-schema. Schemas refer to one another by
// their $id, so all are added before any is compiled; nothing is fetched.
func compileSchemas(dir string) (map[string]*jsonschema.Schema, error) {
	schemasOnce.Do(func() {
		names := []string{"status.schema.json", "finding.schema.json", "lint-rules.schema.json", "lint-rule.schema.json"}
		for _, n := range docSchemas {
			names = append(names, n)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		ids := map[string]string{}
		for _, n := range names {
			f, err := os.Open(filepath.Join(dir, n))
			if err != nil {
				schemasErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(f)
			f.Close()
			if err != nil {
				schemasErr = fmt.Errorf("%s: %w", n, err)
				return
			}
			m, _ := doc.(map[string]any)
			id, _ := m["$id"].(string)
			if m["$schema"] != "https://json-schema.org/draft/2020-12/schema" || !strings.HasSuffix(id, "/schema/"+n) {
				schemasErr = fmt.Errorf("%s: want $schema draft 2020-12 and an $id ending in /schema/%s, got %v and %q", n, n, m["$schema"], id)
				return
			}
			if err := c.AddResource(id, doc); err != nil {
				schemasErr = err
				return
			}
			ids[n] = id
		}
		schemas = map[string]*jsonschema.Schema{}
		for n, id := range ids {
			sch, err := c.Compile(id)
			if err != nil {
				schemasErr = fmt.Errorf("compiling %s: %w", n, err)
				return
			}
			schemas[n] = sch
		}
	})
	return schemas, schemasErr
}

// validateDoc checks that out is exactly one JSON document that the schema
// accepts, that it holds no null (empty lists are []), and that its
// exitCode, when it has one, is the code the command exited with.
func validateDoc(dir, schema string, out []byte, code int) error {
	all, err := compileSchemas(dir)
	if err != nil {
		return err
	}
	sch := all[schema]
	if sch == nil {
		return fmt.Errorf("no schema %s", schema)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("stdout is not a JSON document: %v\n%s", err, out)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("stdout holds more than one JSON document:\n%s", out)
	}
	if m, ok := doc.(map[string]any); ok && m["out"] == "" {
		return fmt.Errorf("out is empty; it names the output folder even when the build failed:\n%s", out)
	}
	if p := findNull(doc, ""); p != "" {
		return fmt.Errorf("%s is null; an empty list is [], an absent value is left out:\n%s", p, out)
	}
	if err := sch.Validate(doc); err != nil {
		return fmt.Errorf("%s: %v\n%s", schema, err, out)
	}
	if m, ok := doc.(map[string]any); ok {
		if n, ok := m["exitCode"].(json.Number); ok && n.String() != fmt.Sprint(code) {
			return fmt.Errorf("exitCode is %s, but the command exited %d:\n%s", n, code, out)
		}
	} else if code != ExitOK {
		return fmt.Errorf("exited %d with a document that has no exitCode:\n%s", code, out)
	}
	return nil
}

func findNull(v any, at string) string {
	switch v := v.(type) {
	case nil:
		return cmp.Or(at, "the document")
	case map[string]any:
		for k, e := range v {
			if p := findNull(e, at+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, e := range v {
			if p := findNull(e, fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// schemaFor returns the schema of the document a skillpack command line
// prints, or "" when it prints none.
func schemaFor(args []string) string {
	cmd := ""
	for _, a := range args {
		if _, ok := docSchemas[a]; ok {
			cmd = a
			break
		}
	}
	asJSON, format := false, ""
	for i, a := range args {
		switch {
		case a == "--json" || a == "--json=true":
			asJSON = true
		case (a == "--format" || a == "-f") && i+1 < len(args):
			format = args[i+1]
		case strings.HasPrefix(a, "--format="):
			format = strings.TrimPrefix(a, "--format=")
		case strings.HasPrefix(a, "-f") && !strings.HasPrefix(a, "--"):
			format = strings.TrimPrefix(a, "-f")
		}
	}
	if cmd == "lint" && format == "json" {
		asJSON = true
	}
	if !asJSON || cmd == "" {
		return ""
	}
	if cmd == "lint" {
		for _, a := range args {
			switch {
			case a == "--list-rules":
				return "lint-rules.schema.json"
			case a == "--explain" || strings.HasPrefix(a, "--explain="):
				return "lint-rule.schema.json"
			}
		}
	}
	return docSchemas[cmd]
}

// scriptMain is skillpack as the CLI scripts run it: Main, and for a
// command that prints a --json document, a check of the document against
// its schema. A mismatch is recorded in the file that
// $SKILLPACK_SCHEMA_FAILURES names, and fails the script at its end
// (see schemaSetup): a script that expects the command to fail must still
// fail on a wrong document.
func scriptMain(args []string) int {
	failures := os.Getenv("SKILLPACK_SCHEMA_FAILURES")
	schema := schemaFor(args)
	if failures == "" || schema == "" {
		return Main(args, os.Stdin, os.Stdout, os.Stderr)
	}
	var out, errOut bytes.Buffer
	// Written through, so that a failed write fails the command as it
	// would outside the scripts (exit_codes.txtar writes to /dev/full);
	// then there is no document to check.
	stdout := &failedWriter{w: os.Stdout}
	code := Main(args, os.Stdin, io.MultiWriter(&out, stdout), io.MultiWriter(os.Stderr, &errOut))
	if stdout.err != nil {
		return code
	}
	if out.Len() == 0 && code == ExitUsage && strings.Contains(errOut.String(), "--help' for usage.") &&
		!strings.Contains(errOut.String(), "takes one") {
		return code // a flag cobra could not parse: the command never ran (see docs/cli.md)
	}
	if err := validateDoc(os.Getenv("SKILLPACK_SCHEMA_DIR"), schema, out.Bytes(), code); err != nil {
		f, ferr := os.OpenFile(failures, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if ferr == nil {
			fmt.Fprintf(f, "skillpack %s: %v\n", strings.Join(args, " "), err)
			f.Close()
		}
	}
	return code
}

// failedWriter remembers whether a write to w failed.
type failedWriter struct {
	w   io.Writer
	err error
}

func (f *failedWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil {
		f.err = err
	}
	return n, err
}

// schemaSetup makes the script's skillpack commands check their JSON
// documents, and fails the script at its end if one did not match.
func schemaSetup(env *testscript.Env) error {
	dir, err := filepath.Abs(schemaDir)
	if err != nil {
		return err
	}
	failures := env.WorkDir + ".schema-failures"
	env.Setenv("SKILLPACK_SCHEMA_DIR", dir)
	env.Setenv("SKILLPACK_SCHEMA_FAILURES", failures)
	env.Defer(func() {
		if data, err := os.ReadFile(failures); err == nil && len(data) > 0 {
			env.T().Fatal("--json documents that do not match their schema:\n" + string(data))
		}
	})
	return nil
}

func TestSchemasCompile(t *testing.T) {
	if _, err := compileSchemas(schemaDir); err != nil {
		t.Fatal(err)
	}
}

// TestEveryJSONFlagHasASchema: a command that gains --json needs a schema
// (and a line in docSchemas) before its document ships.
func TestEveryJSONFlagHasASchema(t *testing.T) {
	root := newRoot(&IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard, Getenv: func(string) string { return "" }})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("json") != nil {
			name, ok := docSchemas[c.Name()]
			if !ok {
				t.Errorf("%s has --json but no schema in docSchemas", c.CommandPath())
			} else if _, err := os.Stat(filepath.Join(schemaDir, name)); err != nil {
				t.Error(err)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// TestJSONDocuments runs every command that prints a --json document to
// success and to each kind of failure, and checks each document against
// its schema and the exit code.
func TestJSONDocuments(t *testing.T) {
	examples, err := filepath.Abs("../../../../examples")
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := filepath.Abs(schemaDir) // before the Chdir below
	if err != nil {
		t.Fatal(err)
	}
	ci, err := filepath.Abs("../../../../.ci/mcp")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	testtool.WriteTree(t, ".", map[string]string{
		"broken/bad/SKILL.md":    "---\nname: Broken_Name\ndescription: A broken skill whose name has capitals.\n---\n# Broken\n",
		"fixable/ok/SKILL.md":    "---\nname: ok\ndescription: \"A skill that says hello to the user, with a byte order mark.\"\n---\n# Ok\n",
		"mixed/good/SKILL.md":    "---\nname: good\ndescription: A good skill that says hello to the user politely.\n---\n# Good\n",
		"mixed/bad/SKILL.md":     "---\nname: Bad_Name\ndescription: A bad skill whose name has capitals in it.\n---\n# Bad\n",
		"empty/.keep":            "",
		"notes.txt":              "not a skill\n",
		"warned/warned/SKILL.md": "---\nname: warned\ndescription: A skill with an unknown frontmatter key in it.\nauthor: Jane\n---\n# Warned\n",
		// A plugin whose one skill is invalid is left out (pluginsLeftOut).
		"plugged/.claude-plugin/marketplace.json":   `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "lonely", "source": "./lonely"}]}`,
		"plugged/lonely/.claude-plugin/plugin.json": `{"name": "lonely"}`,
		"plugged/lonely/skills/bad/SKILL.md":        "---\nname: Bad_Name\ndescription: A bad skill whose name has capitals in it.\n---\n# Bad\n",
		"plugged/good/SKILL.md":                     "---\nname: good\ndescription: A good skill that says hello to the user politely.\n---\n# Good\n",
	})
	if err := os.WriteFile("fixable/ok/SKILL.md", append([]byte("\ufeff"), mustRead(t, "fixable/ok/SKILL.md")...), 0o644); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(examples, "commit-messages")
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"lint", examples, "--json"}, 0},
		{[]string{"lint", examples, "--format", "json"}, 0},
		{[]string{"lint", "warned", "-f", "json"}, 0},
		{[]string{"lint", "warned", "--json", "--fail-on", "warning"}, 1},
		{[]string{"lint", "broken", "--json"}, 1},
		{[]string{"lint", "fixable", "--fix", "--json"}, 0},
		{[]string{"lint", "empty", "--json"}, 2},
		{[]string{"lint", "nowhere", "--json"}, 2},
		{[]string{"lint", "notes.txt", "--json"}, 0},
		{[]string{"lint", "--json", "--format", "sarif"}, 2},
		{[]string{"lint", "broken", "--json", "--format", "jsno"}, 2},
		{[]string{"lint", "--json", "--fix", "--dry-run"}, 2},
		{[]string{"lint", "--json", "--profile", "claud"}, 2},
		{[]string{"lint", "--list-rules", "--json"}, 0},
		{[]string{"lint", "--explain", "name-format", "--json"}, 0},
		{[]string{"lint", "--explain", "name-formt", "--json"}, 2},

		{[]string{"build", examples, "-o", "dist", "--json"}, 0},
		{[]string{"build", examples, "-o", "dist", "--json"}, 0}, // up to date
		{[]string{"build", examples, "-o", "dry", "--dry-run", "--json"}, 0},
		{[]string{"build", "mixed", "-o", "skipped", "--skip-invalid", "--json"}, 0},
		{[]string{"build", "plugged", "-o", "plugged-out", "--skip-invalid", "--json"}, 0},
		{[]string{"build", "broken", "-o", "out", "--json"}, 1},
		{[]string{"build", "empty", "-o", "out", "--json"}, 2},
		{[]string{"build", "nowhere", "-o", "out", "--json"}, 2},
		{[]string{"build", examples, "-o", "out", "--base-url", "ftp://example.com", "--json"}, 2},
		{[]string{"build", examples, "-o", ".", "--json"}, 2},

		{[]string{"pack", one, "-o", "packed", "--json"}, 0},
		{[]string{"pack", one, "-o", "wrapped", "--layout", "wrapped", "--json"}, 0},
		{[]string{"pack", "broken/bad", "-o", "out", "--json"}, 1},
		{[]string{"pack", examples, "--json"}, 2},
		{[]string{"pack", filepath.Join(one, "SKILL.md"), "--json"}, 2},
		{[]string{"pack", "--json"}, 2},
		{[]string{"pack", one, "--layout", "wraped", "--json"}, 2},

		{[]string{"verify", "dist", "--json"}, 0},
		{[]string{"verify", "empty", "--json"}, 1},
		{[]string{"verify", "notes.txt", "--json"}, 2},
		{[]string{"verify", "ftp://example.com", "--json"}, 2},
		{[]string{"verify", "http://127.0.0.1:1", "--json", "--timeout", "2s"}, 1},

		{[]string{"version", "--json"}, 0},
		{[]string{"new", "hello-world", "--dir", "new", "--json"}, 0},
		{[]string{"new", "hello-world", "--dir", "new", "--json"}, 2},
		{[]string{"new", "Bad_Name", "--json"}, 2},
	}
	var docs []ajvDoc
	for _, c := range cases {
		name := strings.ReplaceAll(strings.Join(c.args, " "), examples, "examples")
		var out, errOut bytes.Buffer
		code := Main(c.args, strings.NewReader(""), &out, &errOut)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\nstderr:\n%s", name, code, c.code, errOut.String())
		}
		schema := schemaFor(c.args)
		if schema == "" {
			t.Fatalf("%s: no schema", name)
		}
		if err := validateDoc(schemas, schema, out.Bytes(), code); err != nil {
			t.Errorf("%s: %v", name, err)
		} else {
			docs = append(docs, ajvDoc{name, schema, out.Bytes()})
		}
	}
	ajvValidate(t, ci, schemas, docs)
}

// ajvDoc is a document for Ajv: what printed it, its schema's file name,
// and the document.
type ajvDoc struct {
	Name   string          `json:"name"`
	Schema string          `json:"schema"`
	Doc    json.RawMessage `json:"doc"`
}

// ajvValidate has Ajv, pinned in .ci/mcp/package.json (the folder ci),
// validate docs with the schemas in dir (.ci/mcp/ajv.mjs), or says it did
// not, naming what is missing (fails under SKILLPACK_REQUIRE_TOOLS=1).
func ajvValidate(t *testing.T, ci, dir string, docs []ajvDoc) {
	t.Helper()
	node := filepath.Join(ci, "node_modules", ".bin", "node")
	_, err := os.Stat(filepath.Join(ci, "node_modules", "ajv-formats", "package.json"))
	if _, nerr := os.Stat(node); err != nil || nerr != nil {
		why := "Ajv and Node are not installed in .ci/mcp (cd .ci/mcp && npm ci)"
		if testtool.Required() {
			t.Fatalf("%s, and %s=1 requires them", why, testtool.Env)
		}
		t.Log(why + ": the documents were not checked with Ajv")
		return
	}
	list := filepath.Join(t.TempDir(), "docs.json")
	data, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, filepath.Join(ci, "ajv.mjs"), dir, list).CombinedOutput(); err != nil {
		t.Errorf("Ajv refuses documents the schemas are meant to accept (%v):\n%s", err, out)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSchemaFor pins which command lines the script check validates.
func TestSchemaFor(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lint", "--json"}, "lint.schema.json"},
		{[]string{"lint", "-f", "json", "skills"}, "lint.schema.json"},
		{[]string{"lint", "--format=json"}, "lint.schema.json"},
		{[]string{"lint", "-fjson"}, "lint.schema.json"},
		{[]string{"lint", "--format", "sarif"}, ""},
		{[]string{"lint", "--fix"}, ""},
		{[]string{"lint", "--list-rules", "--format", "json"}, "lint-rules.schema.json"},
		{[]string{"lint", "--explain=name-format", "--json"}, "lint-rule.schema.json"},
		{[]string{"build", "skills", "--json"}, "build.schema.json"},
		{[]string{"build", "skills"}, ""},
		{[]string{"serve", "dist"}, ""},
		{[]string{"version", "--json"}, "version.schema.json"},
	} {
		if got := schemaFor(c.args); got != c.want {
			t.Errorf("schemaFor(%q) = %q, want %q", c.args, got, c.want)
		}
	}
	if !slices.Contains(values(formats), "json") {
		t.Error("json is not a lint format")
	}
}
