package jsonenc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A decoding error is placed and said in JSON's words, alike under
// encoding/json v1 and v2 (CI runs both): a field of the wrong type names
// JSON's types, not Go's struct, a trailing comma is placed at the comma,
// and a character is named as itself.
func TestExplain(t *testing.T) {
	type owner struct {
		Name string `json:"name"`
	}
	type doc struct {
		Name    string     `json:"name"`
		Owner   owner      `json:"owner"`
		Plugins []struct{} `json:"plugins"`
		Strict  bool       `json:"strict"`
	}
	for in, want := range map[string]string{
		`{"name": "m", "owner": "me"}`:      `1: "owner" should be a JSON object, not string`,
		"{\n\"plugins\": {\"a\": {}}}":      `2: "plugins" should be a JSON array, not object`,
		`{"strict": "yes"}`:                 `1: "strict" should be a JSON boolean, not string`,
		`{"owner": {"name": 7}}`:            `1: "owner.name" should be a JSON string, not number`,
		`[1]`:                               `1: the document should be a JSON object, not array`,
		"{\n  \"name\": \"a\",\n}\n":        `2:14 not valid JSON: invalid character '}'`,
		"{\"name\": 管}":                     `1:10 not valid JSON: invalid character '管'`,
		"{\"name\": \"a\",\n<<<<<<< HEAD\n": `2: not valid JSON: invalid character '<' looking for beginning of object key string; the line is a merge conflict's marker`,
		"{\"name\": \"a\"":                  `1:13 not valid JSON: unexpected end of JSON input`,
	} {
		var d doc
		err := json.Unmarshal([]byte(in), &d)
		if err == nil {
			t.Fatalf("%s: no error", in)
		}
		line, col, msg := Explain([]byte(in), err)
		got := fmt.Sprintf("%d:%d %s", line, col, msg)
		// Where v1 and v2 place a type error's column differently, the case
		// gives the line alone.
		if w, rest, _ := strings.Cut(want, " "); !strings.Contains(w, ":") || strings.HasSuffix(w, ":") {
			got = fmt.Sprintf("%d: %s", line, msg)
			want = w + " " + rest
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
