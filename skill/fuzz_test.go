package skill

import (
	"bytes"
	"encoding/json"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParse checks the invariants lint relies on for any input at all. The
// seed corpus is in testdata/fuzz/FuzzParse; run the fuzzer with
//
//	go test ./skill -run XXX -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: b\n---\nbody\n"))
	f.Add([]byte("\xff\xfe-\x00-\x00-\x00\n\x00n\x00:\x00 \x00a\x00\n\x00-\x00-\x00-\x00\n\x00")) // UTF-16, as PowerShell 5.1 writes
	f.Fuzz(func(t *testing.T, data []byte) {
		d := Parse(data)
		if d.UTF16 != UTF16(data) {
			t.Fatal("UTF16 is not what the input starts with")
		}
		if d.UTF16 {
			data = FromUTF16(data) // what the rest is of
		}
		if !bytes.Equal(d.Raw, data) {
			t.Fatal("Raw is not the input, as UTF-8")
		}
		text := data
		if d.BOM {
			if !bytes.HasPrefix(data, bom) {
				t.Fatal("BOM set without a BOM")
			}
			text = data[len(bom):]
		} else if bytes.HasPrefix(data, bom) {
			t.Fatal("BOM not set")
		}
		last := bytes.Count(text, []byte("\n")) + 2 // the line after the last one
		if d.FrontLine < 0 || d.FrontLine > last {
			t.Fatalf("FrontLine %d outside 0..%d", d.FrontLine, last)
		}
		if d.BodyLine < 0 || d.BodyLine > last {
			t.Fatalf("BodyLine %d outside 0..%d", d.BodyLine, last)
		}
		if !bytes.HasSuffix(text, d.Body) {
			t.Fatalf("Body %q is not a suffix of the input", d.Body)
		}
		if b := Body(data); !bytes.Equal(b, d.Body) || (b == nil) != (d.Body == nil) {
			t.Fatalf("Body(data) = %q, Parse(data).Body = %q", b, d.Body)
		}
		if len(d.Body) > 0 {
			// BodyLine must be the line the body starts on. (An empty body
			// after a final "---" without a newline is on no line; BodyLine
			// then names the line after the fence.)
			before := text[:len(text)-len(d.Body)]
			if want := bytes.Count(before, []byte("\n")) + 1; d.BodyLine != want {
				t.Fatalf("BodyLine = %d, but the body starts on line %d", d.BodyLine, want)
			}
		}
		if d.FrontRaw != nil && !bytes.Contains(text, d.FrontRaw) {
			t.Fatal("FrontRaw is not part of the input")
		}
		if d.Front != nil {
			if d.Front.Kind != yaml.MappingNode {
				t.Fatalf("Front.Kind = %v, want a mapping", d.Front.Kind)
			}
			if d.Problem != nil && d.Problem.Kind != BadOpening {
				t.Fatalf("Front set with problem %+v", *d.Problem)
			}
			// Every quoted value MultilineQuoted names is one that does
			// not close on its line, and CheckMCP then refuses the skill.
			for _, n := range d.MultilineQuoted() {
				if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
					t.Fatalf("MultilineQuoted names an unquoted value %q", n.Value)
				}
				if d.CheckMCP(1, 0) == nil {
					t.Fatal("CheckMCP takes a skill with a quoted value over several lines")
				}
			}
			// The frontmatter's JSON, when it has one, is JSON, and every
			// reason CheckMCP gives comes with the fix.
			if j, err := d.FrontmatterJSON(); err == nil && !json.Valid(j) {
				t.Fatalf("FrontmatterJSON wrote invalid JSON: %s", j)
			}
			if r := d.CheckMCP(1, 0); r != nil && (r.Reason == "" || r.Fix == "") {
				t.Fatalf("CheckMCP refuses with reason %q and fix %q", r.Reason, r.Fix)
			}
			// Positions of parsed nodes must land inside the file.
			for i := 0; i+1 < len(d.Front.Content); i += 2 {
				if l, c := d.FilePos(d.Front.Content[i]); l < d.FrontLine || l > last || c < 1 {
					t.Fatalf("key position %d:%d outside the frontmatter", l, c)
				}
			}
		} else if d.Problem == nil {
			t.Fatal("no Front and no Problem")
		}
		if p := d.Problem; p != nil {
			if p.Kind < NoFrontmatter || p.Kind > NotMapping {
				t.Fatalf("Problem kind %d unknown", p.Kind)
			}
			if p.Line < 1 || p.Line > last || p.Col < 1 || p.Msg == "" {
				t.Fatalf("Problem %+v: position outside 1..%d or no message", *p, last)
			}
		}
		// The accessors must be safe on whatever came out.
		d.Lookup("name")
		d.String("description")
	})
}
