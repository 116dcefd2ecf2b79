package layout

import (
	"fmt"
	"strings"
	"testing"
)

// published is what bundle.Open reads from a plan's documents.
func published(t *testing.T, b *Planned) *Published {
	t.Helper()
	doc := func(path string) []byte {
		e, ok := b.Lookup(path)
		if !ok {
			t.Fatalf("no %s", path)
		}
		return docBytes(t, e)
	}
	list, err := ParseChecksums(doc(Checksums))
	if err != nil {
		t.Fatal(err)
	}
	p := &Published{Sums: map[string]Digest{}}
	for _, s := range list {
		p.Sums[s.Path] = s.Digest
	}
	if p.Index, err = DecodeIndexV2(doc(V2Index)); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Lookup(VersionsIndex); ok {
		if p.Versions, err = DecodeVersions(doc(VersionsIndex)); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func d(s string) Digest { return DigestOf([]byte(s)) }

func TestGuard(t *testing.T) {
	first, _ := releases(t, Options{})
	prev := published(t, first) // pdf-processing 2.1.0, hello without a version
	pdf := prev.Index.Skills[1]
	hello := prev.Index.Skills[0]
	if pdf.Name != "pdf-processing" || pdf.Version != "2.1.0" || prev.Versions == nil {
		t.Fatalf("previous: %+v", prev.Index.Skills)
	}
	same := Pin{Name: "pdf-processing", Version: "2.1.0", ContentDigest: pdf.ContentDigest, Source: "skills/pdf/SKILL.md"}
	helloPin := Pin{Name: "hello", ContentDigest: hello.ContentDigest}
	for _, c := range []struct {
		name string
		next []Pin
		want []string // a substring of each change, in order; "!" starts an error
	}{
		{"unchanged", []Pin{same, helloPin}, nil},
		{"unchanged, its index digest too", []Pin{{Name: same.Name, Version: same.Version, ContentDigest: same.ContentDigest, Digest: pdf.Digest}, helloPin}, nil},
		{"unchanged files, other archive bytes", []Pin{{Name: same.Name, Version: same.Version, ContentDigest: same.ContentDigest, Digest: d("repacked")}, helloPin}, []string{
			fmt.Sprintf("skill \"pdf-processing\" version 2.1.0: its files are as published, but its archive is other bytes (%s, was %s)", d("repacked"), pdf.Digest),
		}},
		{"bumped", []Pin{{Name: "pdf-processing", Version: "2.2.0", ContentDigest: d("new")}, helloPin}, nil},
		{"an unversioned skill changes freely", []Pin{same, {Name: "hello", ContentDigest: d("new")}}, nil},
		{"changed, not bumped", []Pin{{Name: "pdf-processing", Version: "2.1.0", ContentDigest: d("new"), Source: "skills/pdf/SKILL.md"}, helloPin}, []string{
			fmt.Sprintf("!skill \"pdf-processing\": version 2.1.0 was published with content %s, and this one has %s under the same version; a published version must not change: bump metadata.version in skills/pdf/SKILL.md", pdf.ContentDigest, d("new")),
		}},
		{"changed, not bumped, versioned at the top", []Pin{{Name: "pdf-processing", Version: "2.1.0", ContentDigest: d("new"), Source: "skills/pdf/SKILL.md", Key: "version"}, helloPin}, []string{
			"!a published version must not change: bump version in skills/pdf/SKILL.md",
		}},
		{"backwards", []Pin{{Name: "pdf-processing", Version: "2.0.9", ContentDigest: d("old")}, helloPin}, []string{
			"!skill \"pdf-processing\": version 2.0.9 is lower than 2.1.0, the version published last; versions only go up: set metadata.version in the skill's SKILL.md above 2.1.0",
		}},
		{"a pre-release is lower than its release", []Pin{{Name: "pdf-processing", Version: "2.1.0-rc.1", ContentDigest: d("rc")}, helloPin}, []string{"!version 2.1.0-rc.1 is lower than 2.1.0"}},
		{"removed", []Pin{helloPin}, []string{`skill "pdf-processing" (version 2.1.0) was published and is not in this one`}},
		{"version dropped", []Pin{{Name: "pdf-processing", ContentDigest: d("x")}, helloPin}, []string{"was published as version 2.1.0 and has no version now"}},
		{"two at one version", []Pin{same, {Name: "pdf-processing", Version: "2.1.0", ContentDigest: d("other")}, helloPin}, []string{
			"!skill \"pdf-processing\" version 2.1.0: two skills have this name and version with different content",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := prev.Guard(c.next)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %d changes", got, len(c.want))
			}
			for i, w := range c.want {
				isErr := strings.HasPrefix(w, "!")
				if got[i].Error != isErr || !strings.Contains(got[i].Message, strings.TrimPrefix(w, "!")) {
					t.Errorf("change %d: %v, want %q", i, got[i], w)
				}
			}
		})
	}
}

// A version published before the latest keeps its content too: going
// back to 2.1.0 after 2.2.0 with other bytes names both digests.
func TestGuardHistory(t *testing.T) {
	_, second := releases(t, Options{})
	prev := published(t, second)
	old := prev.Versions.Find("pdf-processing", "2.1.0")
	got := prev.Guard([]Pin{{Name: "pdf-processing", Version: "2.1.0", ContentDigest: d("other")}})
	if Errors(got) != 2 || !got[0].Error || !strings.Contains(got[0].Message, "version 2.1.0 was published with content "+string(old.ContentDigest)) ||
		!strings.Contains(got[1].Message, "lower than 2.2.0") {
		t.Errorf("got %v", got)
	}
}

func TestGuardRelease(t *testing.T) {
	first, _ := releases(t, Options{})
	prev := published(t, first) // release 1.0.0: pdf-processing 2.1.0
	snap, err := DecodeIndexV2(data(t, first, Snapshot("1.0.0")))
	if err != nil {
		t.Fatal(err)
	}
	pdf := Pin{Name: "pdf-processing", Version: "2.1.0"}
	if got := prev.GuardRelease("1.0.1", nil, []Pin{pdf}); len(got) != 0 {
		t.Errorf("a new release: %v", got)
	}
	if got := prev.GuardRelease("1.0.0", snap, []Pin{pdf, {Name: "hello"}}); len(got) != 0 {
		t.Errorf("the same release made again: %v", got)
	}
	if got := prev.GuardRelease("0.9.0", nil, []Pin{pdf}); len(got) != 1 || !strings.Contains(got[0].Message, "release 0.9.0 is lower than 1.0.0") {
		t.Errorf("lower: %v", got)
	}
	got := prev.GuardRelease("1.0.0", snap, []Pin{{Name: "pdf-processing", Version: "2.2.0"}, {Name: "new", Version: "1.0.0"}})
	if len(got) != 1 || !got[0].Error || !strings.Contains(got[0].Message, "release 1.0.0 is published already, with other skills or versions (new 1.0.0 added, pdf-processing 2.1.0 → 2.2.0)") {
		t.Errorf("republished: %v", got)
	}
}

func TestCompare(t *testing.T) {
	first, second := releases(t, Options{})
	prev, next := published(t, first), published(t, second)
	if got := prev.Compare(next); len(got) != 0 {
		t.Errorf("the next release: %v", got)
	}
	// The other way round: the release and the version went back, and
	// 1.1.0 and 2.2.0 are gone.
	got := next.Compare(prev)
	for _, want := range []string{"version 2.1.0 is lower than 2.2.0", "latest release is \"1.0.0\", lower than 1.1.0", "release 1.1.0 was published", "skill \"pdf-processing\" version 2.2.0 was published"} {
		found := false
		for _, c := range got {
			found = found || c.Error && strings.Contains(c.Message, want)
		}
		if !found {
			t.Errorf("no error %q in %v", want, got)
		}
	}
	unversioned := published(t, plan(t, twoSkills(), Options{}))
	if got := prev.Compare(unversioned); Errors(got) != 1 || !strings.Contains(got[0].Message, "built without --versioned") {
		t.Errorf("versions.json gone: %v", got)
	}
}
