package serve

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withoutMembers cuts ttlMs and cacheScope out of a result's JSON wherever
// they are among its members, and leaves the rest byte for byte.
func TestWithoutMembers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"ttlMs":300000,"cacheScope":"public","contents":[{"uri":"skill://a/SKILL.md"}]}`, `{"contents":[{"uri":"skill://a/SKILL.md"}]}`},
		{`{"resultType":"complete","_meta":{"ttlMs":1},"ttlMs":0,"cacheScope":"","skills":[]}`, `{"resultType":"complete","_meta":{"ttlMs":1},"skills":[]}`},
		{`{"a":"}\",","ttlMs":5,"b":{"c":[1,{"cacheScope":2}]},"cacheScope":"x"}`, `{"a":"}\",","b":{"c":[1,{"cacheScope":2}]}}`},
		{`{"ttlMs":1,"cacheScope":"public"}`, `{}`},
		{`{"cacheScope":"public"}`, `{}`},
		{`{}`, `{}`},
		{`{"x":1}`, `{"x":1}`},
		{`{ "ttlMs" : 1 , "y" : [ 2 ] }`, `{"y" : [ 2 ]}`},
	} {
		got, err := withoutMembers([]byte(c.in), "ttlMs", "cacheScope")
		if err != nil {
			t.Errorf("withoutMembers(%s): %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("withoutMembers(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{``, `[]`, `"ttlMs"`, `{"ttlMs":`} {
		if got, err := withoutMembers([]byte(bad), "ttlMs"); err == nil {
			t.Errorf("withoutMembers(%q) = %s, want an error", bad, got)
		}
	}
}

// FuzzWithoutMembers: for any JSON object as json.Marshal writes it, the
// result is valid JSON holding exactly the other members.
func FuzzWithoutMembers(f *testing.F) {
	for _, seed := range []string{
		`{"ttlMs":300000,"cacheScope":"public","contents":[{"uri":"skill://a/SKILL.md","blob":"AAAA"}]}`,
		`{"_meta":{"x":"\u2028"},"cacheScope":"private","ttlMs":-1}`,
		`{"a":{"ttlMs":1},"b":"\"}"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var members map[string]json.RawMessage
		if json.Unmarshal(data, &members) != nil || members == nil {
			return
		}
		in, err := json.Marshal(members) // compact, one member per name
		if err != nil {
			return
		}
		var want map[string]any
		json.Unmarshal(in, &want)
		delete(want, "ttlMs")
		delete(want, "cacheScope")
		was := string(in) // withoutMembers works in place
		got, err := withoutMembers(in, "ttlMs", "cacheScope")
		if err != nil {
			t.Fatalf("withoutMembers(%s): %v", was, err)
		}
		var left map[string]any
		if err := json.Unmarshal(got, &left); err != nil {
			t.Fatalf("withoutMembers(%s) = %s, not a JSON object: %v", was, got, err)
		}
		if !reflect.DeepEqual(left, want) {
			t.Fatalf("withoutMembers(%s) = %s", was, got)
		}
	})
}

// BenchmarkUncached: a resources/read of a 1 MiB archive for a client
// before protocol 2026-07-28, against the plain encoding every client
// would otherwise get, in one run. The ratio of the two is the cost of
// leaving out ttlMs and cacheScope: one run here gave 1.0x the time and
// 1.07x the memory.
func BenchmarkUncached(b *testing.B) {
	res := &mcp.ReadResourceResult{
		Contents:  []*mcp.ResourceContents{{URI: "skill://a/a.tar.gz", MIMEType: "application/gzip", Blob: bytes.Repeat([]byte{0x1f, 0x8b, 8}, 1<<20/3)}},
		Cacheable: mcp.Cacheable{TTLMs: 300000, CacheScope: "public"},
	}
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (uncached{res}).MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A read's result is the same JSON however encoding/json reaches it: by
// MarshalJSON, or, built with GOEXPERIMENT=jsonv2 as the release is, by
// MarshalJSONTo into the encoder the SDK writes its message with (CI runs
// this package's tests both ways).
func TestCompleteJSONv2(t *testing.T) {
	res := &mcp.ReadResourceResult{Cacheable: mcp.Cacheable{TTLMs: 300000, CacheScope: "public"}, Contents: []*mcp.ResourceContents{
		{URI: "skill://a/SKILL.md", MIMEType: "text/markdown", Text: "<b>ü & \"x\"</b>\n"},
		{URI: "skill://a/x.bin", Blob: []byte{0, 1, 0xff}},
		{URI: "skill://a/empty", Blob: []byte{}},
	}}
	want, err := complete{res}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // as the SDK's jsonrpc2 encodes
	enc.SetEscapeHTML(false)
	if err := enc.Encode(complete{res}); err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(want, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) || !bytes.Contains(buf.Bytes(), []byte(`"resultType":"complete"}`)) {
		t.Errorf("encoded:\n%s\nwant the value of:\n%s", buf.Bytes(), want)
	}
}
