package lint

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"github.com/skillpack/skillpack/plugin"
)

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
		edits := []fixEdit{{cs, ce, string(cmd) + `, "args": ` + string(args)}}
		if s.Args != nil {
			as, ae, ok := plugin.Span(f.data, at+"/args")
			if !ok || f.data[as] != '[' {
				continue
			}
			inner := string(args[1 : len(args)-1])
			if len(bytes.TrimSpace(f.data[as+1:ae-1])) > 0 {
				inner += ", "
			}
			edits = []fixEdit{{cs, ce, string(cmd)}, {as + 1, as + 1, inner}}
		}
		if data, ok := applyEdits(f.data, edits); ok {
			f.data = data
		}
	}
}
