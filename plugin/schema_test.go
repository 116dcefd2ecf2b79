package plugin

import (
	"fmt"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	const man = `"$schema": "` + ManifestSchema + `"`
	const mcp = `"$schema": "` + MCPSchema + `"`
	for _, c := range []struct {
		schema, doc string
		want        []string // "line:col pointer: message"
	}{
		{ManifestSchema, "{\n  " + man + ",\n  \"name\": \"acme.tools\"\n}\n", nil},
		{ManifestSchema, "{\n  \"name\": \"a\"\n}\n", []string{"1:1 : missing property '$schema'"}},
		{ManifestSchema, "{\n  " + man + ",\n  \"name\": \"has--double\"\n}\n", []string{`3:3 /name: 'has--double' does not match pattern`}},
		{ManifestSchema, "{\n  " + man + ",\n  \"name\": \"a..b\"\n}\n", []string{`3:3 /name: 'a..b' does not match pattern`}},
		{ManifestSchema, "{\n  " + man + ",\n  \"name\": \"Upper\"\n}\n", []string{`3:3 /name: 'Upper' does not match pattern`}},
		{ManifestSchema, "{\n  " + man + ",\n  \"name\": \"a\",\n  \"skills\": \"./s\"\n}\n", []string{`4:3 : additional properties 'skills' not allowed`}},
		{ManifestSchema, "{\n  \"name\": \"a\",\n}\n", []string{`2:14 : not valid JSON`}}, // at the trailing comma, in v1 and v2
		{MCPSchema, "{" + mcp + `, "mcpServers": {"a": {"type": "stdio", "command": "./bin/x"}, "b": {"type": "sse", "url": "https://x"}}}`, nil},
		{MCPSchema, "{" + mcp + ",\n\"mcpServers\": {\n\"a\": {\"command\": \"x\"}}}", []string{`3:1 /mcpServers/a/type: "type" must be one of "sse", "stdio", "streamable-http"`}},
		{MCPSchema, "{" + mcp + ",\n\"mcpServers\": {\n\"a\": {\"type\": \"ws\", \"url\": \"x\"}}}", []string{`3:7 /mcpServers/a/type: "type" must be one of`}},
		{MCPSchema, "{" + mcp + ",\n\"mcpServers\": {\n\"a\": {\"type\": \"stdio\",\n \"url\": \"x\"}}}", []string{`3:1 /mcpServers/a: missing property 'command'`, `4:2 /mcpServers/a: additional properties 'url' not allowed`}},
		{MCPSchema, "{" + mcp + ",\n\"mcpServers\": {\"a\": {\"type\": \"stdio\", \"command\": \"x\",\n \"cwd\": \"data\"}}}", []string{`3:2 /mcpServers/a/cwd: 'data' does not match pattern`}},
		// In line order past a million columns (a minified manifest).
		{MCPSchema, "{" + mcp + ",\"mcpServers\": {" + strings.Repeat(" ", 1_000_000) + "\"a\": {\"type\": \"ws\", \"url\": \"x\"},\n\"b\": {\"command\": \"x\"}}}",
			[]string{`1:1000092 /mcpServers/a/type: "type" must be one of`, `2:1 /mcpServers/b/type: "type" must be one of`}},
	} {
		var got []string
		for _, p := range Validate(c.schema, []byte(c.doc)) {
			got = append(got, fmt.Sprintf("%d:%d %s: %s", p.Line, p.Column, p.Pointer, p.Message))
		}
		ok := len(got) == len(c.want)
		for i := range c.want {
			ok = ok && strings.HasPrefix(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%s\ngot  %q\nwant %q", c.doc, got, c.want)
		}
	}
}
