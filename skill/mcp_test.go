package skill

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// CheckMCP refuses what the TypeScript SDK's validateSkillEntry refuses of
// an entry (metadata that does not map strings to strings, a compatibility
// that is not a string of 1-500 characters), what no entry can list
// identically to every host's parse of SKILL.md (a metadata value YAML
// reads as a number, a boolean or null), and a skill over SEP-2640's
// limits; it takes the rest, a date and a blank compatibility among them.
func TestCheckMCP(t *testing.T) {
	front := "---\nname: pdf\ndescription: Fill PDF forms.\n"
	for _, c := range []struct {
		name, yaml string
		files      int
		served     int64
		want       string // in the reason; "" takes the skill
	}{
		{"plain", "", 1, 100, ""},
		{"strings", "metadata:\n  version: \"1.0\"\n  author: me\n  updated: 2026-02-06\n", 1, 100, ""},
		{"empty mapping", "metadata: {}\n", 1, 100, ""},
		{"blank compatibility", "compatibility: \"  \"\n", 1, 100, ""},
		{"500 characters", "compatibility: " + strings.Repeat("é", 500) + "\n", 1, 100, ""},
		{"date compatibility", "compatibility: 2026-02-06\n", 1, 100, ""},
		{"at the limits", "", MCPMaxFiles, MCPMaxBytes, ""},
		{"quoted on one line", "metadata:\n  a: 'don''t'\n  b: \"say \\\"hi\\\"\"\n  c: >\n    two\n    lines\n", 1, 100, ""},
		{"multi-line quoted", "metadata:\n  summary: 'one\n\n    don''t'\n", 1, 100, "metadata.summary is a quoted value over several lines, which the YAML reader of the official MCP SDK refuses"},
		{"lone CR lines", "license: 'MIT\r  or not'\n", 1, 100, "license is a quoted value over several lines"},
		{"multi-line escape", "license: \"MIT \\\n  or not\"\n", 1, 100, "license is a quoted value over several lines"},
		{"flow on one line", "x-map: {a: [b, 'c, d'], e: {f: g}}\nx-list: [a, {b: c}]\n", 1, 100, ""},
		{"flow over lines", "x-map: {a: b,\n  c: d}\n", 1, 100, "x-map is a flow collection over several lines, which the YAML reader"},
		{"list over lines", "allowed-tools: [Read,\n  Bash]\n", 1, 100, "allowed-tools is a flow collection over several lines"},
		{"pair in a list", "x-list: [a: b]\n", 1, 100, "x-list holds a key: value pair inside a flow sequence"},
		{"key without value", "x-map: {a, b: c}\n", 1, 100, "x-map has a key without a value inside a flow collection"},
		{"indentation indicator", "metadata:\n  summary: >-2\n      text\n", 1, 100, `block scalar header ">-2" on line 5 has an indentation indicator`},
		{"32 deep", "x-deep: " + strings.Repeat("[", 32) + strings.Repeat("]", 32) + "\n", 1, 100, ""},
		{"33 deep", "x-deep: " + strings.Repeat("[", 33) + strings.Repeat("]", 33) + "\n", 1, 100, "nests lists and mappings more than 32 deep"},
		{"YAML 1.2 text", "metadata:\n  a: 0b101\n  b: 1_000\n  c: -0x1F\n  d: <<\n", 1, 100, ""},
		{"YAML 1.2 number", "metadata:\n  big: 0xFFFFFFFFFFFFFFFFFFFF\n", 1, 100, "metadata.big is the number 0xFFFFFFFFFFFFFFFFFFFF"},

		{"null metadata", "metadata:\n", 1, 100, "metadata has no value (YAML null)"},
		{"string metadata", "metadata: pdf, forms\n", 1, 100, "metadata is a string, where MCP hosts take a mapping"},
		{"list metadata", "metadata: [a]\n", 1, 100, "metadata is a list"},
		{"nested", "metadata:\n  openclaw:\n    emoji: x\n", 1, 100, "metadata.openclaw is a mapping, where MCP hosts take only strings"},
		{"list value", "metadata:\n  tags: [a, b]\n", 1, 100, "metadata.tags is a list"},
		{"number", "metadata:\n  version: 1.0\n", 1, 100, `metadata.version is the number 1.0, where MCP hosts take only strings (quoted, it is the text "1.0")`},
		{"boolean", "metadata:\n  beta: true\n", 1, 100, "metadata.beta is the boolean true"},
		{"null value", "metadata:\n  none:\n", 1, 100, "metadata.none has no value"},
		{"503 characters", "compatibility: " + strings.Repeat("x", 503) + "\n", 1, 100, "compatibility is 503 characters long, where MCP hosts take at most 500"},
		{"empty compatibility", "compatibility: \"\"\n", 1, 100, "compatibility is empty"},
		{"number compatibility", "compatibility: 3.10\n", 1, 100, "compatibility is the number 3.10, where MCP hosts take a string"},
		{"null compatibility", "compatibility:\n", 1, 100, "compatibility is null"},
		{"too many files", "", MCPMaxFiles + 1, 100, "the skill has 513 files, where MCP hosts take at most 512"},
		{"too large", "", 1, MCPMaxBytes + 1, "the skill is 16777217 bytes as MCP hosts receive it (binary files base64-encoded)"},
	} {
		d := Parse([]byte(front + c.yaml + "---\n# PDF\n"))
		if d.Problem != nil {
			t.Fatalf("%s: %v", c.name, d.Problem)
		}
		r := d.CheckMCP(c.files, c.served)
		switch {
		case c.want == "" && r != nil:
			t.Errorf("%s: refused: %s", c.name, r.Reason)
		case c.want != "" && (r == nil || !strings.Contains(r.Reason, c.want) || r.Fix == ""):
			t.Errorf("%s: %+v, want a reason with %q and a fix", c.name, r, c.want)
		}
	}

	// A pair in a list on one line is put in braces; in argument-hint,
	// meant as text, the value is quoted (AndreHahm's "[optional: a
	// scope]" was told to write it "on one line", which it was).
	for yaml, want := range map[string]string{"x-list: [a: b]\n": "write the pair in braces ([{key: value}]), or the list in block form",
		"argument-hint: [optional: a scope]\n": "quote the whole value"} {
		if r := Parse([]byte(front+yaml+"---\n")).CheckMCP(1, 100); r == nil || r.Fix != want {
			t.Errorf("%q: %+v, want the fix %q", yaml, r, want)
		}
	}
	// internal: true is the author's, meant as a boolean: no fix to quote it.
	if r := Parse([]byte(front+"metadata:\n  internal: true\n---\n")).CheckMCP(1, 100); r == nil || !strings.Contains(r.Reason, "flag that hides the skill") || r.Fix != "" {
		t.Errorf("internal: true: %+v, want the flag named and no fix", r)
	}

	// Every cause is named, each with its fix.
	d := Parse([]byte(front + "metadata:\n  a: [x]\n  b: 2\ncompatibility: \"\"\n---\n"))
	r := d.CheckMCP(600, 1)
	if r == nil || strings.Count(r.Reason, "; ") != 3 || strings.Count(r.Fix, "; ") != 3 {
		t.Errorf("four causes: %+v", r)
	}
	// Two keys refused alike (a list and a mapping) take their one fix once.
	r = Parse([]byte(front+"metadata:\n  hosts: [a, b]\n  hermes:\n    tags: x\n---\n")).CheckMCP(1, 100)
	if r == nil || strings.Count(r.Reason, "; ") != 1 || strings.Contains(r.Fix, "; ") {
		t.Errorf("two keys, one fix: %+v", r)
	}
}

// IsText is serve's decision between text and a base64 blob, and a
// TextCheck fed the same bytes in pieces cut anywhere decides the same.
func TestIsText(t *testing.T) {
	for _, c := range []struct {
		data string
		text bool
	}{
		{"", false},
		{"hello\n", true},
		{"café 调研 🙂", true},
		{"\uFEFFbom first", false},
		{"a\uFEFF inside", true},
		{"\xff\xfe", false},
		{"cut \xe8\xb0", false},
		{"bad \xe2\x41 continuation", false},
		{"\x00\x01 control bytes are UTF-8", true},
		{"\xef\xbb", true}, // two bytes of a BOM are one character cut short: not UTF-8
	} {
		want := c.text && utf8.ValidString(c.data)
		if got := IsText(c.data); got != want {
			t.Errorf("IsText(%q) = %v, want %v", c.data, got, want)
		}
		for cut := 0; cut <= len(c.data); cut++ {
			for cut2 := cut; cut2 <= len(c.data); cut2++ {
				var tc TextCheck
				tc.Write([]byte(c.data[:cut]))
				tc.Write([]byte(c.data[cut:cut2]))
				tc.Write([]byte(c.data[cut2:]))
				if tc.Text() != want {
					t.Errorf("%q cut at %d and %d: Text() = %v, want %v", c.data, cut, cut2, tc.Text(), want)
				}
			}
		}
	}
}

// ServedBytes counts a binary file at its base64 size and a text file at
// its own, reading files only when their sizes cannot settle the limit.
func TestServedBytes(t *testing.T) {
	if got := ServedSize(3, false); got != 4 {
		t.Errorf("ServedSize(3, binary) = %d", got)
	}
	if got := ServedSize(4, false); got != 8 {
		t.Errorf("ServedSize(4, binary) = %d", got)
	}
	if got := ServedSize(4, true); got != 4 {
		t.Errorf("ServedSize(4, text) = %d", got)
	}
	dir := t.TempDir()
	bin := make([]byte, 13<<20) // 13 MiB of random bytes: 17.3 MiB as base64
	rand.Read(bin)
	text := bytes.Repeat([]byte("text\n"), 13<<20/5)
	for name, data := range map[string][]byte{"SKILL.md": []byte("---\nname: x\n---\n"), "big.bin": bin, "big.txt": text} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := func(names ...string) *Files {
		f := &Files{}
		for _, n := range names {
			info, err := os.Stat(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			f.Files = append(f.Files, File{Path: n, Disk: filepath.Join(dir, n), Size: info.Size()})
		}
		return f
	}
	md := int64(len("---\nname: x\n---\n"))
	if got, err := files("SKILL.md", "big.bin").ServedBytes(MCPMaxBytes); err != nil || got != md+ServedSize(int64(len(bin)), false) || got <= MCPMaxBytes {
		t.Errorf("13 MiB of binary: %d, %v; want %d, over the limit", got, err, md+ServedSize(int64(len(bin)), false))
	}
	if got, err := files("SKILL.md", "big.txt").ServedBytes(MCPMaxBytes); err != nil || got != md+int64(len(text)) {
		t.Errorf("13 MiB of text: %d, %v; want %d", got, err, md+int64(len(text)))
	}
	// Small enough that base64 cannot pass the limit: nothing is read (the
	// file is gone), and the bound is returned.
	small := files("SKILL.md")
	small.Files[0].Disk = filepath.Join(dir, "gone")
	if got, err := small.ServedBytes(MCPMaxBytes); err != nil || got != ServedSize(md, false) {
		t.Errorf("a small skill: %d, %v", got, err)
	}
}

func TestFindHeader(t *testing.T) {
	for _, c := range []struct {
		line   string
		col    int
		header string
	}{
		{"description: |2", 14, "|2"},
		{"  - >-2 # note", 5, ">-2"},
		{"key: !!str &a |+1", 15, "|+1"},
		{"? |1", 3, "|1"},
		{"|3", 1, "|3"},
		{"é: |2", 4, "|2"}, // columns count characters
		{"key: |", 6, "|"},
		{"key: a |2", 0, ""},
		{"key: a|2", 0, ""},
		{"# key: |2", 0, ""},
		{"key: x # y: |2", 0, ""},
		{"key: '|2'", 0, ""},
		{"key: |2 x", 0, ""},
		{"key: |0", 0, ""},
	} {
		col, h := findHeader(c.line)
		if col != c.col || h != c.header {
			t.Errorf("findHeader(%q) = %d, %q; want %d, %q", c.line, col, h, c.col, c.header)
		}
	}
}
