package publish

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/layout"
)

func TestReleases(t *testing.T) {
	d := func(c byte) layout.Digest { return layout.Digest("sha256:" + strings.Repeat(string(c), 64)) }
	list := []release{{Record: d('a')}, {Record: d('b')}, {Record: d('c')}}
	got := withRelease(list, release{Record: d('b')}, 3)
	if recs := []layout.Digest{got[0].Record, got[1].Record, got[2].Record}; !slices.Equal(recs, []layout.Digest{d('b'), d('a'), d('c')}) || len(got) != 3 {
		t.Errorf("%v", got)
	}
	if got := withRelease(list, release{Record: d('d')}, 2); len(got) != 2 || got[1].Record != d('a') {
		t.Errorf("%v", got)
	}
	back, err := decodeReleases(encodeReleases(list))
	if err != nil || !slices.Equal(back, list) {
		t.Errorf("%v %v", back, err)
	}
	for _, bad := range []string{`{}x`, `{"releases":[{"record":"sha256:x"}]}`, `{"releases":[],"other":1}`, `[]`} {
		if _, err := decodeReleases([]byte(bad)); err == nil {
			t.Errorf("%s: decoded", bad)
		}
	}
	for p, want := range map[string]bool{
		RecordCopy(d('a')):           true,
		".skillpack/releases/x.json": false,
		"x/" + RecordCopy(d('a')):    false,
		layout.V2Index:               false,
		layout.Signature(layout.ArchivePath("a", d('a'), layout.Zip)): false,
	} {
		if got, ok := RecordOf(p); ok != want || ok && got != d('a') {
			t.Errorf("RecordOf(%s) = %s, %v", p, got, ok)
		}
	}
}

func TestSameType(t *testing.T) {
	for _, c := range []struct {
		stored, sent string
		want         bool
	}{
		{"text/markdown; charset=utf-8", "text/markdown; charset=utf-8", true},
		{"Text/Markdown;charset=UTF-8", "text/markdown; charset=utf-8", true},
		{"text/markdown", "text/markdown; charset=utf-8", false},
		{"text/plain; charset=utf-8", "text/markdown; charset=utf-8", false},
		{"application/gzip", "application/gzip", true},
		{"", "application/gzip", false},
		{";;;", "application/gzip", false},
	} {
		if got := sameType(c.stored, c.sent); got != c.want {
			t.Errorf("sameType(%q, %q) = %v", c.stored, c.sent, got)
		}
	}
}
