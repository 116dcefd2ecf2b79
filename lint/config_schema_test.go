package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// configSchema is the JSON schema of skillpack.yaml that editors read
// through yaml-language-server; package config's tests hold it to the
// parser, and the one below to the rule registry.
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
