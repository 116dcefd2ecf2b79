package layout

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/jsonenc"
)

func testRecord() *Record {
	s := twoSkills()
	rec := &Record{Generator: "skillpack test", Bundle: DigestOf([]byte("bundle")),
		Docs:     []Artifact{{Path: V2Index, Digest: DigestOf([]byte("v2")), Size: 2}},
		Excluded: []Excluded{{Name: "x", Reason: "why"}},
		Files:    []string{".nojekyll", BuildRecord, V2Index}}
	for _, k := range []Skill{s[1], s[0]} { // hello, pdf-processing: sorted
		rec.Skills = append(rec.Skills, RecordSkill{Name: k.Name, Key: DigestOf([]byte(k.Name)), ContentDigest: k.ContentDigest,
			Files: k.Files, TarGz: k.TarGz, Zip: k.Zip, Findings: json.RawMessage(`[{"rule":"r"}]`)})
	}
	rec.Skills[0].Findings = nil
	rec.Files = append(rec.Files, "a<b>&c.md")
	return rec
}

// The streamed record is the bytes of encoding the whole, and reads back
// as it was written.
func TestRecordRoundTrip(t *testing.T) {
	rec := testRecord()
	var buf bytes.Buffer
	if err := rec.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	if err := jsonenc.Write(&whole, rec); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != whole.String() {
		t.Errorf("streamed record differs from the whole one's encoding:\n%s\nwant\n%s", got, whole.String())
	}
	// One encoding for every document: no HTML escaping, as the indexes.
	if !strings.Contains(buf.String(), `"a<b>&c.md"`) {
		t.Errorf("the record escapes HTML:\n%s", buf.String())
	}
	back, err := DecodeRecord(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// Findings come back re-indented; compare them compacted.
	for i := range back.Skills {
		if f := back.Skills[i].Findings; f != nil {
			var c bytes.Buffer
			json.Compact(&c, f)
			back.Skills[i].Findings = c.Bytes()
		}
	}
	if !reflect.DeepEqual(back, rec) {
		t.Errorf("read back\n%+v\nwant\n%+v", back, rec)
	}
	h, err := ReadRecord(bytes.NewReader(buf.Bytes()), func(RecordSkill) error { return nil }, func(string) error { return nil })
	if err != nil || h.Self.Digest != DigestOf(buf.Bytes()) || h.Self.Size != int64(buf.Len()) || h.Self.Path != BuildRecord {
		t.Errorf("Self = %+v, %v; want the digest and size of the bytes read", h.Self, err)
	}
}

func TestRecordRefused(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"unsorted skills", `{"skills":[{"name":"b"},{"name":"a"}],"files":[]}`, "not sorted by name"},
		{"unsorted files", `{"skills":[],"files":["b","a"]}`, "not sorted"},
		{"not an object", `[]`, "want {"},
		{"truncated", `{"skills":[`, "EOF|end of JSON input"}, // encoding/json, or on json/v2 (GOEXPERIMENT=jsonv2)
		{"bad digest type", `{"bundle":3}`, "cannot unmarshal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeRecord([]byte(c.doc))
			if err == nil || !regexp.MustCompile(c.want).MatchString(err.Error()) || !strings.Contains(err.Error(), BuildRecord) {
				t.Errorf("DecodeRecord(%s) = %v; want an error naming %s and saying %q", c.doc, err, BuildRecord, c.want)
			}
		})
	}
	// Unknown fields are skipped: a newer record is read as far as understood.
	rec, err := DecodeRecord([]byte(`{"future":{"a":[1]},"generator":"g","skills":[],"files":["a"]}`))
	if err != nil || rec.Generator != "g" || len(rec.Files) != 1 {
		t.Errorf("DecodeRecord with an unknown field = %+v, %v", rec, err)
	}
}
