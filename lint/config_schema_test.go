package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
// tests below hold the schema to it.
const configSchema = "../schema/skillpack.schema.json"

// schemaGenerated is what the registry writes into the schema: the rule IDs
// and the rules' keys under rules:, with their titles for hover help, and
// the profiles.
func schemaGenerated() map[string]any {
	var ids []any
	rules := map[string]any{}
	for _, r := range Rules() {
		ids = append(ids, r.ID)
		rules[r.ID] = map[string]any{
			"description": fmt.Sprintf("%s. Default: %s%s; category: %s.", strings.TrimSuffix(r.Title, "."), r.Severity, otherLevels(r), r.Category),
			"enum":        []any{"error", "warning", "info", "off"},
		}
	}
	var profs []any
	for _, p := range Profiles() {
		profs = append(profs, p.Name)
	}
	return map[string]any{
		"/definitions/ruleId/enum":     ids,
		"/properties/rules/properties": rules,
		"/properties/profile/enum":     profs,
	}
}

// TestConfigSchemaRegistry keeps the schema's rule IDs and profiles equal
// to the registry's. Run with -update after adding or renaming a rule.
func TestConfigSchemaRegistry(t *testing.T) {
	data, err := os.ReadFile(configSchema)
	if err != nil {
		t.Fatal(err)
	}
	out := data
	stale := false
	for ptr, want := range schemaGenerated() {
		start, end, err := jsonSpan(out, ptr)
		if err != nil {
			t.Fatalf("%s: %v", configSchema, err)
		}
		var got any
		if err := json.Unmarshal(out[start:end], &got); err != nil {
			t.Fatal(err)
		}
		wantJSON, _ := json.Marshal(want)
		gotJSON, _ := json.Marshal(got)
		if bytes.Equal(wantJSON, gotJSON) {
			continue
		}
		stale = true
		// Indented as the line the value starts on.
		lineStart := bytes.LastIndexByte(out[:start], '\n') + 1
		indent := out[lineStart:start]
		indent = indent[:len(indent)-len(bytes.TrimLeft(indent, " "))]
		text, _ := json.MarshalIndent(want, string(indent), "  ")
		out = append(append(append([]byte{}, out[:start]...), text...), out[end:]...)
	}
	if !stale {
		return
	}
	if *update {
		if err := os.WriteFile(configSchema, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s differs from the rule registry; run: go test ./lint -run TestConfigSchemaRegistry -update", configSchema)
}

// jsonSpan returns the byte span of the value at ptr, a JSON pointer of
// object keys, in a JSON document.
func jsonSpan(doc []byte, ptr string) (start, end int, err error) {
	keys := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	dec := json.NewDecoder(bytes.NewReader(doc))
	// skip reads one whole value, whose first token is tok.
	var skip func(tok json.Token) error
	skip = func(tok json.Token) error {
		if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			for dec.More() {
				if d == '{' {
					if _, err := dec.Token(); err != nil { // the key
						return err
					}
				}
				t, err := dec.Token()
				if err != nil {
					return err
				}
				if err := skip(t); err != nil {
					return err
				}
			}
			_, err := dec.Token() // the closing delimiter
			return err
		}
		return nil
	}
	tok, err := dec.Token()
	for depth := 0; err == nil; depth++ {
		if tok != json.Delim('{') {
			return 0, 0, fmt.Errorf("%s: not an object above %q", ptr, keys[depth])
		}
		for {
			if !dec.More() {
				return 0, 0, fmt.Errorf("%s: no key %q", ptr, keys[depth])
			}
			k, err := dec.Token()
			if err != nil {
				return 0, 0, err
			}
			// The value starts after the colon and any space.
			off := int(dec.InputOffset())
			off += bytes.IndexFunc(doc[off:], func(r rune) bool { return r != ':' && r != ' ' && r != '\n' && r != '\t' && r != '\r' })
			v, err := dec.Token()
			if err != nil {
				return 0, 0, err
			}
			if k != keys[depth] {
				if err := skip(v); err != nil {
					return 0, 0, err
				}
				continue
			}
			if depth == len(keys)-1 {
				if err := skip(v); err != nil {
					return 0, 0, err
				}
				return off, int(dec.InputOffset()), nil
			}
			tok = v
			break
		}
	}
	return 0, 0, err
}

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
	out["docs/configuration.md"] = filepath.Join(dir, ConfigFile)
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
		p := filepath.Join(t.TempDir(), ConfigFile)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	var archives []string
	for _, glob := range []string{"../cmd/skillpack/internal/cli/testdata/script/*.txtar", "testdata/*/*.txtar"} {
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
			if b := filepath.Base(f.Name); b == ConfigFile || b == ConfigFile+".txt" {
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
		_, perr := LoadConfig(path)
		serr := schema.Validate(inst)
		// A baseline the config names but the test has not written is
		// the file's only problem: the schema sees the config alone.
		var ce ConfigErrors
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
		if _, err := ParseConfig(ConfigFile, []byte(bad)); err == nil {
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
