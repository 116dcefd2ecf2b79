package layout

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The JSON documents of a bundle and the record, as this package declares
// them. Renaming one of their keys must be a change to this package alone
// (and the golden files): a reader elsewhere uses these types through the
// decoders rather than declaring its own.
var documentTypes = []any{
	IndexV2{}, EntryV2{}, IndexV1{}, EntryV1{}, SkillMCP{}, FileMCP{}, IndexMCP{}, EntryMCP{}, ArchiveMCP{}, Resource{},
	Record{}, RecordSkill{}, Artifact{}, File{}, Archive{}, Excluded{},
	Statement{}, StatementSubject{}, StatementPredicate{}, StatementResource{}, StatementSerialization{},
}

// Structs outside layout whose keys happen to be those of a document
// type but which are another format, as "package.Type" with the reason.
// Named types only: an anonymous struct that reads a document is never
// another format. An entry that no longer matches fails the test.
var otherFormats = map[string]string{
	"main.buildJSON":        "bench/corpus reads build --json's skills (cmd/skillpack's output), not a bundle's document",
	"skill.pluginManifest":  "a plugin's plugin.json, whose skills field names the plugin's skills folders; layout's skills arrays are of a bundle's documents",
	"lint.marketplaceNames": "a plugin marketplace's marketplace.json, read for its entries' names; layout's plugins arrays are of a bundle's documents",
	"oci.cosignStatement":   "the statement cosign sign signs for an image (cosign's predicate, empty), which publish/oci signs for each manifest; layout's Statement is OMS's",
}

// TestKeysSpelledOnce fails when a non-test Go file outside layout
// declares a struct that reads or writes one of layout's documents: one
// whose JSON keys (tags, or the names of untagged fields, compared without
// case as encoding/json compares them) are all keys of one document type,
// two or more of them, or the one key of a document's array ("skills",
// "files", ...), which is how a reader takes just that array. A struct is
// JSON when a field has a json tag or when it is declared in place as the
// type of such a field; a named struct without tags passed whole to
// encoding/json escapes the check.
func TestKeysSpelledOnce(t *testing.T) {
	root := filepath.Join("..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not %s: %v", root, err)
	}
	docs := documentKeys()
	found := map[string][]string{} // file → copies
	other := map[string]bool{}     // otherFormats met
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "layout" || rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, c := range copies(t, rel, src, docs, other) {
			found[rel] = append(found[rel], c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range slices.Sorted(maps.Keys(found)) {
		for _, c := range found[file] {
			t.Errorf("%s: %s\n\tread the document with layout's types and decoders instead, or list a different format in otherFormats", file, c)
		}
	}
	for name := range otherFormats {
		if !other[name] {
			t.Errorf("otherFormats lists %s, which no longer has a document's keys: remove it", name)
		}
	}
}

// documentKeys is the keys of each document type, lower-cased, and the
// keys of the documents' arrays under "[]".
func documentKeys() map[string]map[string]bool {
	docs := map[string]map[string]bool{"[]": {}}
	raw := reflect.TypeFor[json.RawMessage]()
	for _, v := range documentTypes {
		typ := reflect.TypeOf(v)
		keys := map[string]bool{}
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			key := strings.ToLower(name)
			if name == "" {
				key = strings.ToLower(f.Name)
			}
			keys[key] = true
			if f.Type.Kind() == reflect.Slice && f.Type != raw {
				docs["[]"][key] = true
			}
		}
		docs["layout."+typ.Name()] = keys
	}
	return docs
}

// copies returns a line for each struct in the Go source src that is a
// copy of a document type, and marks in other the otherFormats it meets.
func copies(t *testing.T, file string, src []byte, docs map[string]map[string]bool, other map[string]bool) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	named := map[*ast.StructType]string{}
	nested := map[*ast.StructType]bool{} // the type of a field with a JSON key
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if st, ok := ts.Type.(*ast.StructType); ok {
				named[st] = f.Name.Name + "." + ts.Name.Name
			}
		}
		st, ok := n.(*ast.StructType)
		if !ok {
			return true
		}
		keys, tagged := structKeys(st)
		if !tagged && !nested[st] {
			return true // not JSON: template data, options and the like
		}
		for _, field := range st.Fields.List {
			if inner := anonymous(field.Type); inner != nil {
				nested[inner] = true
			}
		}
		doc := copyOf(keys, docs)
		if doc == "" {
			return true
		}
		what := named[st]
		if _, ok := otherFormats[what]; ok {
			other[what] = true
			return true
		}
		if what == "" {
			what = "an anonymous struct"
		}
		out = append(out, fmt.Sprintf("line %d: %s has the keys %v of %s",
			fset.Position(st.Pos()).Line, what, slices.Sorted(maps.Keys(keys)), doc))
		return true
	})
	return out
}

// structKeys is the JSON keys of a struct's fields, lower-cased, and
// whether any field has a json tag; an embedded field adds no key.
func structKeys(st *ast.StructType) (keys map[string]bool, tagged bool) {
	keys = map[string]bool{}
	for _, field := range st.Fields.List {
		tag := ""
		if field.Tag != nil {
			tag, _ = strconv.Unquote(field.Tag.Value)
		}
		jsonTag, ok := reflect.StructTag(tag).Lookup("json")
		tagged = tagged || ok
		name, _, _ := strings.Cut(jsonTag, ",")
		switch {
		case name == "-":
		case name != "":
			keys[strings.ToLower(name)] = true
		default:
			for _, id := range field.Names {
				if id.IsExported() {
					keys[strings.ToLower(id.Name)] = true
				}
			}
		}
	}
	return keys, tagged
}

// anonymous is the struct a field's type declares in place, through
// slices, arrays, pointers and map values, or nil.
func anonymous(typ ast.Expr) *ast.StructType {
	for {
		switch t := typ.(type) {
		case *ast.StructType:
			return t
		case *ast.ArrayType:
			typ = t.Elt
		case *ast.StarExpr:
			typ = t.X
		case *ast.MapType:
			typ = t.Value
		default:
			return nil
		}
	}
}

// copyOf names the document type whose keys a struct's keys are, or "".
func copyOf(keys map[string]bool, docs map[string]map[string]bool) string {
	if len(keys) == 1 {
		for k := range keys {
			if docs["[]"][k] {
				return fmt.Sprintf("a document's %q array", k)
			}
		}
		return ""
	}
	if len(keys) < 2 {
		return ""
	}
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		if name == "[]" {
			continue
		}
		subset := true
		for k := range keys {
			subset = subset && docs[name][k]
		}
		if subset {
			return name
		}
	}
	return ""
}

// The check finds the copies it is for and leaves other formats alone.
func TestCopies(t *testing.T) {
	docs := documentKeys()
	for _, tt := range []struct {
		src  string
		want int
	}{
		{"type e struct { Name string `json:\"name\"`; ContentDigest string `json:\"contentDigest\"` }", 1},
		{"var v struct { Skills []struct{ Name, Type, Digest string } `json:\"skills\"` }", 2},
		{"type r struct { URI string `json:\"uri\"`; Size *int64 `json:\"Size,omitempty\"` }", 1},
		{"var rec struct { Files []string `json:\"files\"` }", 1},
		{"type Artifact struct { Path string `json:\"path\"`; Digest string `json:\"digest\"`; Size int64 `json:\"size\"` }", 1},
		{"type p struct { Path string `json:\"path\"`; Message string `json:\"message\"` }", 0},
		{"type c struct { Skills int `json:\"skills\"`; Files int `json:\"files\"`; Indexes int `json:\"indexes\"` }", 0},
		{"type g struct { URI string `json:\"uri\"` }", 0},
		{"type h struct { Name string `json:\"-\"`; X int }", 0},
		{"type toc struct { Name, Description string }", 0}, // template data, no JSON
		{"var v struct { S []*struct{ URL, MimeType string } `json:\"archives\"`; N int `json:\"n\"` }", 1},
	} {
		got := copies(t, "x.go", []byte("package x\n"+tt.src+"\n"), docs, map[string]bool{})
		if len(got) != tt.want {
			t.Errorf("%s: %d copies %q, want %d", tt.src, len(got), got, tt.want)
		}
	}
}
