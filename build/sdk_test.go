package build

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
)

// sdkFragments are YAML values, each one construct that YAML readers
// take or refuse in their own ways: the official MCP SDK's YAML subset
// (.ci/mcp/sdkfront.mjs) against yaml.v3 and the build's judgement.
var sdkFragments = []string{
	"plain text", "'single'", `"double"`, "'multi\n  line'", "\"multi\n  line\"",
	"|\n  block\n  text", "|2\n    indented", ">-\n  folded", "|+\n  keep\n\n", ">2-\n    x",
	"{a: b}", "{a: b,\n  c: d}", "[a, b]", "[a,\n  b]", "[a: b]", "[{a: b}]", "{a: [b, c]}", "{a}", "{a: }", "[a, , b]", "[a,]",
	"%foo", "@foo", "`foo`", ",foo", "]foo", "}foo", "?foo", "-foo", ":foo", "-", "?", "? a",
	"1e999", "-1e999", "1e-999", ".inf", ".NaN", "0x1F", "0o17", "010", "-010", "08", "0777", "1.0", "1.10", "0.", "+12", "-0",
	"0b101", "1_000", "-0x1F", "0o8", "0x", "9999999999999999999999", "0xFFFFFFFFFFFFFFFFFFFF",
	"yes", "off", "~", "null", "Null", "true", "FALSE", "<<", "2024-01-02", "12:30", "1:20",
	"foo # comment", "foo # c\n  bar", "foo\n  bar", "foo\n\n  bar", "a:b", "a #b", "a#b", "http://x.y/z",
	"'it''s'", `"tab\there"`, `"\x41"`, `"\U0001F600"`, `"\N\_\L"`, "'a' # c", "foo\t# tab", "[a,\tb]", "[]", "{}",
	"[a, 'b, c']", "{a: 'b, c'}", "{'a b': c}", "[[a], [b]]", "{a: {b: {c: d}}}",
	strings.Repeat("[", 32) + strings.Repeat("]", 32), strings.Repeat("[", 33) + strings.Repeat("]", 33),
	"\n  - a\n  - b", "\n  - a: b\n    c: d", "\n  k: v\n  k2: v2", "|\n  a\n  # not a comment\n  b", ">\n\n  leading blank",
	"café", "\u00a0x", "x\u2028y", "x\n...", "{a:1}", "{a: 1, b:2}",
}

// sdkReader returns Node and the script that reads SKILL.md files with the
// official MCP SDK, pinned in .ci/mcp/package.json, or skips the test
// naming what is missing (fails under SKILLPACK_REQUIRE_TOOLS=1).
func sdkReader(t *testing.T) (node, script string) {
	t.Helper()
	dir, err := filepath.Abs("../.ci/mcp")
	if err != nil {
		t.Fatal(err)
	}
	node = filepath.Join(dir, "node_modules", ".bin", "node")
	_, err = os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server", "package.json"))
	if _, nerr := os.Stat(node); err != nil || nerr != nil {
		why := "the official MCP SDK and Node are not installed in .ci/mcp (cd .ci/mcp && npm ci)"
		if testtool.Required() {
			t.Fatalf("%s, and %s=1 requires them", why, testtool.Env)
		}
		t.Skip(why)
	}
	return node, filepath.Join(dir, "sdkfront.mjs")
}

// TestMCPEntriesTheSDKReads builds a skill for each YAML construct of
// sdkFragments, as a top-level key, a metadata value and a known field's
// value, with LF and with CRLF line ends, and has the official MCP SDK read
// every SKILL.md the build packed: each skill the MCP documents list must
// be one the SDK reads, to the frontmatter the entry carries (hosts
// refuse the skill otherwise), and each the build leaves out of them one
// it refuses. The build's side is lint, the frontmatter's JSON and
// skill.CheckMCP; nothing here restates them.
func TestMCPEntriesTheSDKReads(t *testing.T) {
	node, script := sdkReader(t)
	src, out := t.TempDir(), filepath.Join(t.TempDir(), "dist")
	what := map[string]string{}
	for i, frag := range sdkFragments {
		for j, key := range []string{"x-extra", "metadata", "allowed-tools"} {
			value := " " + frag
			if strings.HasPrefix(frag, "\n") {
				value = frag
			}
			front := key + ":" + value + "\n"
			if key == "metadata" {
				front = "metadata:\n  k:" + strings.ReplaceAll(value, "\n", "\n  ") + "\n"
			}
			for k, eol := range []string{"\n", "\r\n"} {
				name := fmt.Sprintf("s-%03d-%d-%d", i, j, k)
				md := "---\nname: " + name + "\ndescription: A sample of one YAML construct, for the SDK's reader.\n" + front + "---\n\n# Sample\n\nBody.\n"
				writeSkillFile(t, src, name, "SKILL.md", strings.ReplaceAll(md, "\n", eol))
				what[name] = fmt.Sprintf("%s: %q", key, frag)
			}
		}
	}
	res := mustBuild(t, []string{src}, Options{Out: out, SkipInvalid: true})

	data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.MCPSkills)))
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct{ Frontmatter map[string]any }
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	listed := map[string]map[string]any{}
	for _, e := range entries {
		listed[e.Frontmatter["name"].(string)] = e.Frontmatter
	}
	var texts []string
	for _, s := range res.Skills {
		b, err := os.ReadFile(filepath.Join(src, s.Name, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	in, _ := json.Marshal(texts)
	cmd := exec.Command(node, script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", node, script, err, stderr.Bytes())
	}
	var read []struct {
		OK          bool
		Frontmatter map[string]any
		Error       string
	}
	if err := json.Unmarshal(stdout, &read); err != nil || len(read) != len(texts) {
		t.Fatalf("the SDK's reader gave %d answers for %d skills (%v): %.300s", len(read), len(texts), err, stdout)
	}
	for i, s := range res.Skills {
		fm, on := listed[s.Name]
		switch r := read[i]; {
		case on && !r.OK:
			t.Errorf("%s (%s): the MCP documents list it, and the SDK refuses it: %s", s.Name, what[s.Name], r.Error)
		case on && !reflect.DeepEqual(fm, r.Frontmatter):
			t.Errorf("%s (%s): the entry's frontmatter is %v, the SDK reads %v", s.Name, what[s.Name], fm, r.Frontmatter)
		case !on && r.OK:
			t.Errorf("%s (%s): the build leaves it out of the MCP documents, yet the SDK reads it", s.Name, what[s.Name])
		}
	}
	// The fragments must reach both sides: a reader that refused
	// everything, or a build that left out nothing, would pass above.
	if len(listed) < len(res.Skills)/2 || len(listed) == len(res.Skills) {
		t.Errorf("of %d skills built, %d are listed over MCP: the fragments no longer test both sides", len(res.Skills), len(listed))
	}
	t.Logf("%d samples, %d built, %d listed over MCP", len(what), len(res.Skills), len(listed))
}
