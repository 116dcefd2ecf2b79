package plugin

import (
	"encoding/json"
	"testing"
)

// FuzzSpans: on any input, Syntax and Spans do not panic, and every
// pointer positions finds in a valid document spans one whole JSON value
// that starts where the pointer says, which lint's findings and fixes
// (the marketplace's kinds of value, a manifest's edits) rely on.
func FuzzSpans(f *testing.F) {
	for _, s := range []string{
		`{"name": "acme", "owner": {"name": 5}, "plugins": [{"name": "a", "source": "./", "version": 1, "description": null}]}`,
		`{"a/b": {"~x": [1, {"y": "\u00e9"}]}, "": true}`,
		`[{"name": "db", "source": {"source": "local", "path": "./db"}}]`,
		`{"plugins": [{"name": "x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, bad := Syntax(data)
		o, err := positions(data)
		if (err != nil) != bad {
			t.Fatalf("Syntax says bad %v, positions err %v", bad, err)
		}
		if err != nil {
			return
		}
		span := Spans(data)
		for ptr, at := range o.vals {
			start, end, ok := span(ptr)
			if !ok || start != at || !json.Valid(data[start:end]) {
				t.Fatalf("%s: span %d..%d %v, positions %d: %q", ptr, start, end, ok, at, data[start:min(end, len(data))])
			}
		}
	})
}
