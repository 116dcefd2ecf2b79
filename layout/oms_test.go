package layout

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readOMS(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "oms", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The specification's example model (two files, signme-1 and signme-2)
// gives the specification's root digest: the subject is computed as OMS
// §6.5.1 says.
func TestStatementDocSpecExample(t *testing.T) {
	files := []File{
		{Path: "signme-2", Digest: "sha256:32dcb1f8e1ae52d5963e56a6ba06ab58b424c15ed2a6b70d2feca1d089370028"},
		{Path: "signme-1", Digest: "sha256:bc9a717db6064a32cbe9eae6fc40651dd6d36ef1757183f590eff2b1765d7ebc"},
	}
	doc, err := StatementDoc("model", files)
	if err != nil {
		t.Fatal(err)
	}
	st, err := DecodeStatement(doc)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := DecodeStatement(readOMS(t, "spec-key.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st.Subject[0].Digest["sha256"], spec.Subject[0].Digest["sha256"]; got != want {
		t.Errorf("root digest %s, the specification's %s", got, want)
	}
	if !slices.Equal(st.Predicate.Resources, spec.Predicate.Resources) {
		t.Errorf("resources %+v, the specification's %+v", st.Predicate.Resources, spec.Predicate.Resources)
	}
	want := `{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"model","digest":{"sha256":"92745110b1ab4368471cbe31664e10174e954b113a3df333db860317b2c6dec4"}}],` +
		`"predicateType":"https://model_signing/signature/v1.0","predicate":{"resources":[` +
		`{"name":"signme-1","digest":"bc9a717db6064a32cbe9eae6fc40651dd6d36ef1757183f590eff2b1765d7ebc","algorithm":"sha256"},` +
		`{"name":"signme-2","digest":"32dcb1f8e1ae52d5963e56a6ba06ab58b424c15ed2a6b70d2feca1d089370028","algorithm":"sha256"}],` +
		`"serialization":{"method":"files","hash_type":"sha256","allow_symlinks":false,"ignore_paths":[".git",".gitattributes",".github",".gitignore","skill.oms.sig"]}}}`
	if string(doc) != want {
		t.Errorf("statement\n%s\nwant\n%s", doc, want)
	}
}

// A skill's statement lists its files in code point order, leaves out
// what OMS excludes by default, and is the same for the same files in
// any order.
func TestStatementDocScope(t *testing.T) {
	d := DigestOf([]byte("x"))
	files := []File{
		{Path: "references/deploy/a.md", Digest: d},
		{Path: "references/deploy.md", Digest: d},
		{Path: "SKILL.md", Digest: d},
		{Path: ".gitignore", Digest: d},
		{Path: ".github/workflows/ci.yml", Digest: d},
		{Path: "docs/.gitignore", Digest: d}, // not at the top: signed
	}
	doc, err := StatementDoc("deploy", files)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(files)
	again, _ := StatementDoc("deploy", files)
	if !bytes.Equal(doc, again) {
		t.Error("the order of the files changed the statement")
	}
	st, err := DecodeStatement(doc)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range st.Predicate.Resources {
		names = append(names, r.Name)
	}
	if want := []string{"SKILL.md", "docs/.gitignore", "references/deploy.md", "references/deploy/a.md"}; !slices.Equal(names, want) {
		t.Errorf("resources %q, want %q", names, want)
	}
	for p, want := range map[string]bool{
		".gitignore": true, ".github/x": true, ".git/config": true, "skill.oms.sig": true,
		"SKILL.md": false, "docs/.gitignore": false, ".githubx": false,
	} {
		if got := st.Ignored(p) || p == FolderSignatureFile; got != want {
			t.Errorf("Ignored(%q) = %v, want %v", p, got, want)
		}
		if InSignedScope(p) == want {
			t.Errorf("InSignedScope(%q) = %v", p, !want)
		}
	}
	for _, bad := range [][]File{
		{{Path: "../x", Digest: d}},
		{{Path: "SKILL.md", Digest: d}, {Path: "SKILL.md", Digest: d}},
		{{Path: "SKILL.md", Digest: "md5:00"}},
		{{Path: ".gitignore", Digest: d}},
	} {
		if _, err := StatementDoc("deploy", bad); err == nil {
			t.Errorf("StatementDoc(%v): no error", bad)
		}
	}
}

// Statements other signers wrote read as they are: the specification's
// test vectors and NVIDIA's, one of which lists its files in the
// reference tool's order rather than code point order.
func TestDecodeStatementPublished(t *testing.T) {
	for _, name := range []string{"spec-key.json", "spec-certificate.json", "spec-sigstore.json", "nvidia-data-designer.json", "nvidia-rag-blueprint.json"} {
		st, err := DecodeStatement(readOMS(t, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(st.Files()) != len(st.Predicate.Resources) || !st.Ignored(".git/HEAD") {
			t.Errorf("%s: %d files of %d resources", name, len(st.Files()), len(st.Predicate.Resources))
		}
	}
	st, _ := DecodeStatement(readOMS(t, "spec-sigstore.json"))
	if !st.Ignored("ignore-me") || !st.Ignored("model.sig") || st.Ignored("signme-1") {
		t.Errorf("ignore_paths %q not applied", st.Predicate.Serialization.IgnorePaths)
	}
	if got := st.Files()["signme-2"]; got != "sha256:32dcb1f8e1ae52d5963e56a6ba06ab58b424c15ed2a6b70d2feca1d089370028" {
		t.Errorf("signme-2: %s", got)
	}
	_, err := DecodeStatement(readOMS(t, "spec-wrong-predicate.json"))
	if err == nil || !strings.Contains(err.Error(), `not an OMS folder signature: predicate type "https://example.com/wrong-predicate/v1.0"`) {
		t.Errorf("wrong predicate: %v", err)
	}
}

// Each way a statement can be unusable is refused with what is wrong.
func TestDecodeStatementRejects(t *testing.T) {
	base := readOMS(t, "spec-key.json")
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	pred := func(m map[string]any) map[string]any { return m["predicate"].(map[string]any) }
	ser := func(m map[string]any) map[string]any { return pred(m)["serialization"].(map[string]any) }
	res := func(m map[string]any, i int) map[string]any { return pred(m)["resources"].([]any)[i].(map[string]any) }
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not JSON", []byte("{"), "not valid JSON"},
		{"not a statement", edit(func(m map[string]any) { m["_type"] = "https://in-toto.io/Statement/v0.1" }), "not an in-toto Statement v1"},
		{"old predicate", edit(func(m map[string]any) { m["predicateType"] = "https://model_signing/Digests/v0.1" }), "deprecated OMS predicate"},
		{"two subjects", edit(func(m map[string]any) { m["subject"] = append(m["subject"].([]any), m["subject"].([]any)[0]) }), "2 subjects"},
		{"shards", edit(func(m map[string]any) { ser(m)["method"] = "shards"; ser(m)["shard_size"] = 1e9 }), "shards"},
		{"blake3", edit(func(m map[string]any) { ser(m)["hash_type"] = "blake3" }), `hashes files with "blake3"`},
		{"no files", edit(func(m map[string]any) { pred(m)["resources"] = []any{} }), "lists no files"},
		{"changed digest", edit(func(m map[string]any) {
			res(m, 0)["digest"] = strings.Repeat("0", 64)
		}), "inconsistent: its files hash to the root digest"},
		{"short digest", edit(func(m map[string]any) { res(m, 0)["digest"] = "00" }), "not 64 lowercase hex digits"},
		{"traversal", edit(func(m map[string]any) { res(m, 0)["name"] = "../../etc/passwd" }), `lists "../../etc/passwd"`},
		{"twice", edit(func(m map[string]any) { res(m, 1)["name"] = "signme-1" }), `lists "signme-1" twice`},
		{"ignore traversal", edit(func(m map[string]any) { ser(m)["ignore_paths"] = []any{"/etc"} }), `ignores "/etc"`},
		{"no name", edit(func(m map[string]any) { m["subject"].([]any)[0].(map[string]any)["name"] = "" }), "subject has no name"},
	} {
		_, err := DecodeStatement(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestFolderSignaturePath(t *testing.T) {
	p := FolderSignature("hello")
	if p != ".well-known/agent-skills/hello/skill.oms.sig" {
		t.Errorf("FolderSignature = %s", p)
	}
	if name, ok := ParseFolderSignature(p); !ok || name != "hello" {
		t.Errorf("ParseFolderSignature(%s) = %q, %v", p, name, ok)
	}
	for _, q := range []string{LegacyFile("hello", FolderSignatureFile), SkillFile("hello", "x/skill.oms.sig"), SkillFile("hello", EntryFile), Signature(V2Index)} {
		if _, ok := ParseFolderSignature(q); ok {
			t.Errorf("ParseFolderSignature(%s) ok", q)
		}
	}
	if !IsSignature(p) || !IsSignature(Signature(V2Index)) || IsSignature(SkillFile("hello", EntryFile)) {
		t.Error("IsSignature")
	}
}

// DecodeStatement never panics, and what it accepts is self-consistent.
func FuzzDecodeStatement(f *testing.F) {
	for _, name := range []string{"spec-key.json", "nvidia-rag-blueprint.json", "spec-wrong-predicate.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "oms", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := DecodeStatement(data)
		if err != nil {
			return
		}
		if len(st.Files()) != len(st.Predicate.Resources) || len(st.Files()) == 0 {
			t.Fatalf("accepted %d resources as %d files", len(st.Predicate.Resources), len(st.Files()))
		}
		for p := range st.Files() {
			if CheckPath(p) != nil {
				t.Fatalf("accepted path %q", p)
			}
		}
	})
}
