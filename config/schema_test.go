package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// configSchema is the JSON schema of skillpack.yaml that editors read
// through yaml-language-server; this package's parser is the truth, and the
// tests below hold the schema to it (lint's, to the rule registry).
const configSchema = "../schema/skillpack.schema.json"

// compileConfigSchema compiles the schema, checked against the draft-07
// meta-schema (the draft yaml-language-server supports).
func compileConfigSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(configSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := doc.(map[string]any); m["$schema"] != "http://json-schema.org/draft-07/schema#" {
		t.Fatalf("%s: $schema is %v; yaml-language-server reads draft-07", configSchema, m["$schema"])
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("skillpack.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("skillpack.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// yamlInstance reads a YAML document as the JSON value a schema validates.
func yamlInstance(data []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(j))
}

// exampleConfigs are the real configs: docs/configuration.md's, init's, and every
// skillpack.yaml of the CLI scripts and the rule cases, each in a folder of
// its own with its archive's other files (a baseline it names). Some are
// wrong on purpose.
func exampleConfigs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(doc)
	if block == nil {
		t.Fatal("docs/configuration.md: no yaml block")
	}
	dir := t.TempDir()
	out["docs/configuration.md"] = filepath.Join(dir, File)
	if err := os.WriteFile(out["docs/configuration.md"], block[1], 0o644); err != nil {
		t.Fatal(err)
	}
	// What `skillpack init` writes, as it is and with every example
	// uncommented.
	tmpl, err := os.ReadFile("../templates/init/skillpack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	example := regexp.MustCompile(`(?m)^# ( *- |[a-z-]+:|  )`)
	for name, data := range map[string][]byte{
		"init": tmpl,
		"init uncommented": example.ReplaceAllFunc(tmpl, func(m []byte) []byte {
			if bytes.HasPrefix(m, []byte("# yaml-language-server:")) {
				return m
			}
			return m[2:]
		}),
	} {
		p := filepath.Join(t.TempDir(), File)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	var archives []string
	for _, glob := range []string{"../cmd/skillpack/internal/cli/testdata/script/*.txtar", "../lint/testdata/*/*.txtar"} {
		m, _ := filepath.Glob(glob)
		archives = append(archives, m...)
	}
	for _, name := range archives {
		a, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var configs []string
		for _, f := range a.Files {
			// A script may copy skillpack.yaml.txt into place later.
			if b := filepath.Base(f.Name); b == File || b == File+".txt" {
				configs = append(configs, f.Name)
			}
		}
		if len(configs) == 0 {
			continue
		}
		dir := t.TempDir()
		for _, f := range a.Files {
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range configs {
			p := filepath.Join(dir, filepath.FromSlash(c))
			if q, ok := strings.CutSuffix(p, ".txt"); ok {
				if err := os.Rename(p, q); err != nil {
					t.Fatal(err)
				}
				p = q
			}
			out[filepath.Base(name)+":"+c] = p
		}
	}
	return out
}

// TestConfigSchemaExamples checks the schema against the parser on the
// real configs: what the parser reads the schema accepts, and what it
// refuses the schema refuses too, except a baseline file's contents,
// which a schema of this file cannot see.
func TestConfigSchemaExamples(t *testing.T) {
	schema := compileConfigSchema(t)
	configs := exampleConfigs(t)
	valid := 0
	for name, path := range configs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		inst, err := yamlInstance(data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		_, perr := Load(path)
		serr := schema.Validate(inst)
		// A baseline the config names but the test has not written is
		// the file's only problem: the schema sees the config alone.
		var ce Errors
		if errors.As(perr, &ce) && len(ce) == 1 && strings.HasPrefix(ce[0].Msg, "baseline ") {
			perr = nil
		}
		switch {
		case perr == nil && serr != nil:
			t.Errorf("%s: the parser reads it, the schema refuses it: %v", name, serr)
		case perr == nil:
			valid++
		case serr == nil:
			t.Errorf("%s: the parser refuses it (%v), the schema accepts it", name, perr)
		}
	}
	if _, ok := configs["init uncommented"]; !ok || valid < 6 {
		t.Errorf("only %d valid configs among %d; the test reads no real configs", valid, len(configs))
	}
}

// TestConfigSchemaMistakes checks that the mistakes the parser reports are
// mistakes in an editor too.
func TestConfigSchemaMistakes(t *testing.T) {
	schema := compileConfigSchema(t)
	for _, bad := range []string{
		"profil: claude\n",
		"profile: strict\n",
		"rules:\n  name-mismach: off\n",
		"rules:\n  secret: loud\n",
		"rules: [secret]\n",
		"ignore: vendor/\n",
		"build:\n  marketplaces: [{}]\n",
		"allow:\n  - rule: secret\n    path: a/**\n",
		"allow:\n  - rule: secret\n    path: a/**\n    reason: \" \"\n",
		"allow:\n  - path: a/**\n    reason: x\n",
		"allow:\n  - rules: []\n    path: a/**\n    reason: x\n",
		"allow:\n  - rule: secrt\n    path: a/**\n    reason: x\n",
		"allow:\n  - rule: secret\n    path: a/**\n    reson: x\n",
		"allow:\n  - rule: secret\n    reason: x\n",
		"baseline: \"\"\n",
		"build:\n  base-ulr: https://example.com\n",
		"build:\n  no-legacy: maybe\n",
		"build:\n  versioned: 1\n",
		"build:\n  previous: \"\"\n",
		"build:\n  llms-txt-merge: [a, b]\n",
		"build:\n  ai-catalg: true\n",
	} {
		if _, err := Parse(File, []byte(bad)); err == nil {
			t.Errorf("the parser reads %q", bad)
		}
		inst, err := yamlInstance([]byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err == nil {
			t.Errorf("the schema accepts %q", bad)
		}
	}
}
