package lint

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"github.com/skillpack/skillpack/plugin"
)

// fixSchemaRef adds the "$schema" a plugin's plugin.json or mcp.json
// lacks, as the object's first member, indented as the member after it.
func fixSchemaRef(f *fixFile, _ []Finding) {
	id := map[string]string{plugin.Manifest: plugin.ManifestSchema, plugin.MCP: plugin.MCPSchema}[path.Base(f.job.rel)]
	var top map[string]json.RawMessage
	if id == "" || json.Unmarshal(f.data, &top) != nil || top["$schema"] != nil {
		return
	}
	start, _, ok := plugin.Span(f.data, "")
	if !ok {
		return
	}
	open := start + 1 // just after "{"
	rest := f.data[open:]
	ws := rest[:len(rest)-len(bytes.TrimLeft(rest, " \t\r\n"))]
	member := `"$schema": "` + id + `"`
	var ins string
	switch {
	case len(top) == 0:
		ins = member
	case bytes.IndexByte(ws, '\n') >= 0:
		ins = member + "," + string(ws) // the next member's newline and indentation
	default:
		ins = member + ", "
	}
	at := open + len(ws)
	if len(top) == 0 {
		at = open
	}
	f.data = append(f.data[:at:at], append([]byte(ins), f.data[at:]...)...)
}

// fixSplitCommand splits each stdio command of plain words into the
// executable, in "command", and its arguments, put before any "args" there
// were: what a shell would have run, and nothing a shell would read
// otherwise.
func fixSplitCommand(f *fixFile, _ []Finding) {
	var doc struct {
		Servers map[string]struct {
			Command *string          `json:"command"`
			Args    *json.RawMessage `json:"args"`
		} `json:"mcpServers"`
	}
	if path.Base(f.job.rel) != plugin.MCP || json.Unmarshal(f.data, &doc) != nil {
		return
	}
	for name, s := range doc.Servers {
		if s.Command == nil {
			continue
		}
		words, ok := splitCommand(*s.Command)
		if !ok || strings.Contains(name, "/") {
			continue
		}
		at := "/mcpServers/" + name
		cs, ce, ok := plugin.Span(f.data, at+"/command")
		if !ok {
			continue
		}
		cmd, _ := json.Marshal(words[0])
		args, _ := json.Marshal(words[1:])
		type edit struct {
			at, end int
			text    string
		}
		edits := []edit{{cs, ce, string(cmd) + `, "args": ` + string(args)}}
		if s.Args != nil {
			as, ae, ok := plugin.Span(f.data, at+"/args")
			if !ok || f.data[as] != '[' {
				continue
			}
			inner := string(args[1 : len(args)-1])
			if len(bytes.TrimSpace(f.data[as+1:ae-1])) > 0 {
				inner += ", "
			}
			edits = []edit{{cs, ce, string(cmd)}, {as + 1, as + 1, inner}}
		}
		if edits[len(edits)-1].at < edits[0].at {
			edits[0], edits[len(edits)-1] = edits[len(edits)-1], edits[0]
		}
		for i := len(edits) - 1; i >= 0; i-- { // the later edit first, so the earlier's offsets hold
			e := edits[i]
			f.data = append(f.data[:e.at:e.at], append([]byte(e.text), f.data[e.end:]...)...)
		}
	}
}
